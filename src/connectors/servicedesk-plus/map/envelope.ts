// Pure reading of SDP v3 envelopes: `response_status` is an array in list answers and an object in
// single-record and error answers; success iff a status_code is 2000; details sit in `messages[]`.
import { z } from 'zod';
import { parsePage, zRow } from '../../../core/validate.ts';

export type Json = Record<string, unknown>;

export interface SdpMessage {
  statusCode: number | null;
  message: string | null;
  field: string | null;
}

export interface SdpStatus {
  /** True when the envelope says 2000 (or carries no status at all but has data). */
  ok: boolean;
  /** Outer status codes and the codes of every message, e.g. [4000, 4001]. */
  codes: number[];
  messages: SdpMessage[];
  present: boolean;
}

const num = (v: unknown): number | null => (typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null);

export function readStatus(body: unknown): SdpStatus {
  const rs = body && typeof body === 'object' ? (body as Json).response_status : undefined;
  const list = Array.isArray(rs) ? rs : rs && typeof rs === 'object' ? [rs] : [];
  const codes: number[] = [];
  const messages: SdpMessage[] = [];
  for (const s of list as Json[]) {
    const c = num(s?.status_code);
    if (c !== null) codes.push(c);
    for (const m of (Array.isArray(s?.messages) ? s.messages : []) as Json[]) {
      const mc = num(m?.status_code);
      if (mc !== null) codes.push(mc);
      messages.push({ statusCode: mc, message: typeof m?.message === 'string' ? m.message : null, field: typeof m?.field === 'string' ? m.field : null });
    }
  }
  const outer = (list as Json[]).map((s) => num(s?.status_code));
  const ok = list.length === 0 ? false : outer.some((c) => c === 2000) && !codes.some((c) => c >= 4000);
  return { ok, codes, messages, present: list.length > 0 };
}

export type SdpErrorKind = 'auth' | 'permission' | 'rate-limit' | 'not-found' | 'input' | 'license' | 'server' | 'other';

/** What an error answer means, from the SDP codes first and the HTTP status second. */
export function classifyError(httpStatus: number, status: SdpStatus): SdpErrorKind {
  const has = (c: number) => status.codes.includes(c);
  if (has(4015) || httpStatus === 429) return 'rate-limit';
  if (has(4022)) return 'auth';
  if (has(4002) || httpStatus === 403) return 'permission';
  if (has(4007) || httpStatus === 404) return 'not-found';
  if (has(7001)) return 'license';
  if (httpStatus === 401) return 'auth';
  if (has(4004) || httpStatus >= 500) return 'server';
  if (has(4001) || has(4012) || has(4021) || httpStatus === 400) return 'input';
  return 'other';
}

/** "4001 Invalid Input (field sort_field)" style summary of the messages. */
export function describeStatus(status: SdpStatus): string {
  if (status.messages.length === 0) return status.codes.length ? `status ${status.codes.join('/')}` : 'no response_status';
  return status.messages.map((m) => `${m.statusCode ?? '?'} ${m.message ?? ''}${m.field ? ` (field ${m.field})` : ''}`.trim()).join('; ');
}

const recordList = z.array(zRow);

/**
 * The records of a list answer, validated (zod): the list must be there (an answer without it is
 * empty only when list_info says so) and hold records (objects). A row without an `id` is still a
 * row: the stream counts it as an error row. Throws an UpstreamError naming the field.
 */
export function readListPage(body: Json, preferredKey: string | undefined, what: string): { key: string | null; rows: Json[] } {
  const found = listRows(body, preferredKey);
  if (found.key === null) {
    // No list at all is an empty page only when list_info says so (no more rows, none returned).
    const li = body.list_info as Json | undefined;
    const count = li && typeof li === 'object' ? li.row_count : null;
    if (li && typeof li === 'object' && (count === undefined || count === 0 || count === '0') && !hasMoreRows(body)) return found;
    const key = preferredKey ?? 'records';
    return { key, rows: parsePage(z.object({ [key]: recordList }), body, what, () => 'a list of records')[key] as Json[] };
  }
  parsePage(z.object({ [found.key]: recordList }), body, what, (f) => (f.includes('[') ? 'a record (an object)' : 'a list of records'));
  return found;
}

/** The records array of a list answer: the plural module key, else the first array that is not metadata. */
export function listRows(body: Json, preferredKey?: string): { key: string | null; rows: Json[] } {
  if (preferredKey && Array.isArray(body[preferredKey])) return { key: preferredKey, rows: body[preferredKey] as Json[] };
  for (const [k, v] of Object.entries(body)) {
    if (k === 'response_status' || k === 'list_info') continue;
    if (Array.isArray(v)) return { key: k, rows: v as Json[] };
  }
  return { key: null, rows: [] };
}

/** `has_more_rows` of a list answer (false when absent). */
export function hasMoreRows(body: Json): boolean {
  const li = body.list_info as Json | undefined;
  const v = li?.has_more_rows;
  return v === true || v === 'true';
}
