// Null-tolerant readers of stored record fields for the export mappers: a field another version of the
// models does not have yet reads as null, so a mapper lights up once the field exists.
import { isIP } from 'node:net';
import type { StoredRecord } from '../core/models.ts';

export type Rec = StoredRecord | Record<string, unknown>;

export function str(r: Rec | null | undefined, field: string): string | null {
  const v = r?.[field];
  if (v === null || v === undefined) return null;
  const s = String(v);
  return s === '' ? null : s;
}

export function num(r: Rec | null | undefined, field: string): number | null {
  const v = r?.[field];
  if (v === null || v === undefined || v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

export function bool(r: Rec | null | undefined, field: string): boolean | null {
  const v = r?.[field];
  return typeof v === 'boolean' ? v : null;
}

export function list(r: Rec | null | undefined, field: string): string[] {
  const v = r?.[field];
  return Array.isArray(v) ? v.filter((x) => x !== null && x !== undefined && x !== '').map(String) : [];
}

/** ISO-8601 → epoch milliseconds (OCSF timestamp_t), null when absent or unreadable. */
export function epochMs(iso: string | null): number | null {
  if (!iso) return null;
  const t = iso.length === 24 ? storedTimeMs(iso) : Number.NaN;
  if (!Number.isNaN(t)) return t;
  const parsed = Date.parse(iso);
  return Number.isFinite(parsed) ? parsed : null;
}

/**
 * `YYYY-MM-DDTHH:MM:SS.sssZ`, the form the store writes its times in, read digit by digit (three times
 * faster than Date.parse, which an export of findings calls two or three times per finding). NaN for
 * anything else, and for the days Date.parse and Date.UTC might read differently (after the 28th, years
 * before 1000): those go to Date.parse.
 */
function storedTimeMs(s: string): number {
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 84 || s.charCodeAt(13) !== 58) return Number.NaN;
  if (s.charCodeAt(16) !== 58 || s.charCodeAt(19) !== 46 || s.charCodeAt(23) !== 90) return Number.NaN;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  const milli = digits(s, 20, 3);
  if (!(year >= 1000 && month >= 1 && month <= 12 && day >= 1 && day <= 28 && hour <= 23 && minute <= 59 && second <= 59 && milli >= 0)) return Number.NaN;
  return Date.UTC(year, month - 1, day, hour, minute, second, milli);
}

/** The decimal number of `length` digits at `at`; -1 when one is not a digit. */
function digits(s: string, at: number, length: number): number {
  let n = 0;
  for (let i = at; i < at + length; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * Drops null, undefined, empty arrays and empty objects, recursively: exports carry no placeholders.
 * A frozen object is taken as compact already (memoized parts shared by many records).
 */
export function compact<T>(value: T): T {
  return (compactValue(value) ?? (Array.isArray(value) ? [] : {})) as T;
}

function compactValue(v: unknown): unknown {
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'object' || Object.isFrozen(v)) return v;
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const x of v) {
      const c = compactValue(x);
      if (c !== undefined) out.push(c);
    }
    return out.length ? out : undefined;
  }
  let out: Record<string, unknown> | undefined;
  for (const k in v as Record<string, unknown>) {
    const c = compactValue((v as Record<string, unknown>)[k]);
    if (c === undefined) continue;
    out ??= {};
    out[k] = c;
  }
  return out;
}

const LABEL = /^(?:[A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9])$/;

/** A DNS name made of letter-digit-hyphen labels (what schemas call a hostname); else null. */
export function dnsName(s: string | null): string | null {
  if (!s || s.length > 253) return null;
  return s.split('.').every((l) => LABEL.test(l)) ? s : null;
}

export function ipAddresses(r: Rec | null | undefined, field = 'ipAddresses'): string[] {
  return list(r, field).filter((ip) => isIP(ip) !== 0);
}

/** MAC addresses as six colon-separated pairs (what the upstream spells with dashes, dots or none). */
export function macAddresses(r: Rec | null | undefined, field = 'macAddresses', sep = ':'): string[] {
  const out: string[] = [];
  for (const m of list(r, field)) {
    const hex = m.replace(/[^0-9A-Fa-f]/g, '');
    if (hex.length === 12 && /^[0-9A-Fa-f:.\-\s]+$/.test(m)) out.push(hex.match(/../g)!.join(sep).toLowerCase());
  }
  return out;
}

/** The domain part of a fully qualified name (`host.corp.example` → `corp.example`). */
export function domainOf(fqdn: string | null): string | null {
  if (!fqdn || isIP(fqdn) !== 0) return null;
  const i = fqdn.indexOf('.');
  return i > 0 && i < fqdn.length - 1 ? fqdn.slice(i + 1) : null;
}

export const SEVERITY_CAPTION: Record<string, string> = { info: 'Informational', low: 'Low', medium: 'Medium', high: 'High', critical: 'Critical' };

/**
 * Memoizes a pure function of a record (a host, looked up once per page of its findings): the
 * exporters map a host's device once, not once per finding.
 */
export function perRecord<T>(fn: (r: Rec, key: string) => T): (r: Rec, key?: string) => T {
  const cache = new WeakMap<object, Map<string, T>>();
  return (r, key = '') => {
    let byKey = cache.get(r);
    if (!byKey) {
      byKey = new Map();
      cache.set(r, byKey);
    }
    let v = byKey.get(key);
    if (v === undefined) {
      v = Object.freeze(fn(r, key));
      byKey.set(key, v);
    }
    return v;
  };
}

const jsonOf = new WeakMap<object, string>();

/** JSON of a frozen (memoized, shared) part, computed once per part. */
export function sharedJson(value: object): string {
  let s = jsonOf.get(value);
  if (s === undefined) {
    s = JSON.stringify(value);
    jsonOf.set(value, s);
  }
  return s;
}

/**
 * JSON.stringify for documents that share frozen (memoized) parts at their top level (a host's device
 * in each of its findings): the document is stringified without them and their JSON, computed once
 * per part, is appended. (The shared keys move to the end; JSON readers do not mind the order.)
 */
export function toJson(doc: Record<string, unknown>): string {
  let shared: [string, object][] | null = null;
  for (const k in doc) {
    const v = doc[k];
    if (v === null || typeof v !== 'object' || !Object.isFrozen(v)) continue;
    shared ??= [];
    shared.push([k, v]);
  }
  if (shared === null) return JSON.stringify(doc);
  for (const [k] of shared) doc[k] = undefined;
  let json = JSON.stringify(doc);
  for (const [k, v] of shared) {
    doc[k] = v;
    json = `${json.length > 2 ? json.slice(0, -1) + ',' : '{'}${JSON.stringify(k)}:${sharedJson(v)}}`;
  }
  return json;
}
