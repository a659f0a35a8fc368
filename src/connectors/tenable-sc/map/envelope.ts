// The Tenable.sc response envelope {type, response, error_code, error_msg, warnings, timestamp}, read
// tolerantly (numbers as strings or numbers), and turned into an UpstreamError that names cause and fix.
import { z } from 'zod';
import { UpstreamError } from '../../../core/errors.ts';
import { describeAnswer, servedBy } from '../../../core/http.ts';
import { parsePage, zRow } from '../../../core/validate.ts';
import { int, num } from './values.ts';

const looseInt = z.union([z.number(), z.string()]).optional().nullable();

export const envelopeSchema = z
  .object({
    type: z.string().optional(),
    response: z.unknown(),
    error_code: looseInt,
    error_msg: z.string().optional().nullable(),
    warnings: z.unknown().optional(),
    timestamp: looseInt,
  })
  .passthrough();

export interface Envelope {
  response: unknown;
  errorCode: number;
  errorMsg: string;
  timestamp: number | null;
}

export interface EnvelopeProblem {
  kind: 'not-json' | 'error-code' | 'http';
  status: number;
  errorCode: number | null;
  message: string;
}

/** What a page that is not the API looks like: the console's own web interface, or a web server or proxy. */
function lookalike(body: string, server?: string | null): string | null {
  const sample = body.slice(0, 65_536);
  if (/Tenable|SecurityCenter|Security Center/i.test(sample)) return 'it looks like the Tenable.sc web interface, not its REST API';
  const by = servedBy(body, server);
  return by ? `it looks like a page served by ${by}` : null;
}

/**
 * Parses a body; returns the envelope, or a problem description when the call failed. A body that is
 * not JSON is described (status, type, size, title), never quoted: the URL may point anywhere.
 */
export function readEnvelope(
  status: number,
  body: string,
  headers: { contentType?: string | null; server?: string | null } = {},
): { ok: true; envelope: Envelope } | { ok: false; problem: EnvelopeProblem } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    const like = lookalike(body, headers.server);
    const message = `an answer that is not JSON (${describeAnswer(status, body, headers.contentType)}${like ? `; ${like}` : ''})`;
    return { ok: false, problem: { kind: 'not-json', status, errorCode: null, message } };
  }
  const parsed = envelopeSchema.safeParse(json);
  if (!parsed.success) {
    return { ok: false, problem: { kind: 'not-json', status, errorCode: null, message: 'JSON that is not a Tenable.sc response envelope' } };
  }
  const e = parsed.data;
  const errorCode = int(e.error_code) ?? num(e.error_code, { negativeIsNull: false }) ?? 0;
  const envelope: Envelope = { response: e.response, errorCode, errorMsg: (e.error_msg ?? '').trim(), timestamp: int(e.timestamp) };
  if (errorCode !== 0) {
    return { ok: false, problem: { kind: 'error-code', status, errorCode, message: envelope.errorMsg || `error code ${errorCode}` } };
  }
  if (status < 200 || status >= 300) {
    return { ok: false, problem: { kind: 'http', status, errorCode: 0, message: envelope.errorMsg || `HTTP ${status}` } };
  }
  return { ok: true, envelope };
}

/** SQLite lock contention on the console: retried. */
export function isTransientMessage(msg: string): boolean {
  return /database is locked|database table is locked|try again later|temporarily unavailable/i.test(msg);
}

/**
 * The UpstreamError for a failed call, with a hint the user can act on. `what` names the call
 * (e.g. "POST /rest/analysis").
 */
export function envelopeError(what: string, p: EnvelopeProblem): UpstreamError {
  const transient = isTransientMessage(p.message) || p.status >= 500 || p.status === 429;
  if (transient) {
    return new UpstreamError(`${what}: the console is busy (${p.message})`, {
      transient: true,
      status: p.status,
      hint: 'Retried automatically; if it persists, sync outside scan-import windows',
    });
  }
  if (p.status === 400) {
    return new UpstreamError(`${what} answered HTTP 400: the user behind the API keys lacks permission for this request (${p.message})`, {
      status: 400,
      hint: 'Use an organizational user (role Security Analyst) whose group has access to the repositories to import, with Viewable Hosts set to All Defined Ranges',
    });
  }
  if ((p.status === 401 || p.status === 403) && (p.errorCode === 0 || p.errorCode === null || p.errorCode === 12)) {
    return new UpstreamError(`${what}: the console rejected the API keys (HTTP ${p.status}${p.message && p.kind !== 'http' ? `, ${p.message}` : ''})`, {
      status: p.status,
      hint: 'Check the Access Key and Secret Key. Generating a new pair revokes the previous one at once, so enter the newest pair; also check that the user is not locked and API keys are allowed',
    });
  }
  if (p.kind === 'error-code') {
    const hint =
      p.errorCode === 146
        ? 'The console does not support a filter the connector sent; its message lists the filters it knows'
        : p.errorCode === 143
          ? 'The user has no permission for an object used in the query (a deleted asset list or audit file?)'
          : 'Check the user\u2019s role, group and repository access in the console';
    return new UpstreamError(`${what} failed with Tenable.sc error ${p.errorCode}: ${p.message}`, { status: p.status, hint });
  }
  if (p.kind === 'not-json') {
    return new UpstreamError(`${what} returned ${p.message}${p.message.includes(`HTTP ${p.status}`) ? '' : ` (HTTP ${p.status})`}`, {
      status: p.status,
      hint: 'Check that API URL is the console\u2019s browser URL (without /rest) and that no proxy or login page is in between',
    });
  }
  return new UpstreamError(`${what} answered HTTP ${p.status}: ${p.message}`, { status: p.status, hint: null });
}

// ---- /rest/analysis page ----

const analysisResponseSchema = z
  .object({
    totalRecords: looseInt,
    returnedRecords: looseInt,
    startOffset: looseInt,
    endOffset: looseInt,
    results: z.array(z.unknown()).nullable().optional(),
  })
  .passthrough();

export interface AnalysisPage<T = Record<string, unknown>> {
  rows: T[];
  /** totalRecords, when the console sent it. */
  total: number | null;
  returned: number;
  /** The console's clock (envelope `timestamp`, epoch seconds), when known. */
  timestamp?: number | null;
}

const isRow = (r: unknown): r is Record<string, unknown> => !!r && typeof r === 'object' && !Array.isArray(r);

/** What the streams rely on in a page: a `results` list of rows (objects); totals stay optional. */
const rowsPageSchema = z.looseObject({ results: z.array(zRow) });

/**
 * Reads the `response` of an analysis call. `strict` (the streams): a page without a `results` list,
 * or with anything but rows in it, fails with a message naming the field; otherwise (other tools, the
 * corpus) non-rows are dropped and a null `results` is an empty page.
 */
export function readAnalysisResponse(response: unknown, opts: { strict?: boolean; what?: string } = {}): AnalysisPage {
  // `results: null` is an empty page only when the console also says it returned nothing.
  const saysEmpty =
    !!response &&
    typeof response === 'object' &&
    (response as { results?: unknown }).results === null &&
    int((response as { returnedRecords?: unknown }).returnedRecords) === 0;
  const results = response && typeof response === 'object' ? (response as { results?: unknown }).results : undefined;
  // The schemas copy a list they check: a page of rows (the usual answer) is checked in place, and the
  // schema runs only to name what is wrong.
  const allRows = Array.isArray(results) && results.every(isRow);
  if (opts.strict && !saysEmpty && !allRows)
    parsePage(rowsPageSchema, response, opts.what ?? 'POST /rest/analysis', (f) => (f.includes('[') ? 'a row (an object)' : 'a list of rows'));
  const parsed = analysisResponseSchema.safeParse(Array.isArray(results) ? { ...(response as object), results: [] } : response);
  if (!parsed.success)
    throw new UpstreamError('POST /rest/analysis returned a response without results', { hint: 'Check the console version (5.13 or later is needed)' });
  const rows = allRows ? (results as Record<string, unknown>[]) : Array.isArray(results) ? results.filter(isRow) : [];
  return { rows, total: int(parsed.data.totalRecords), returned: int(parsed.data.returnedRecords) ?? rows.length };
}
