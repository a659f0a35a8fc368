// Null-tolerant readers of stored record fields for the export mappers: a field another version of the
// models does not have yet reads as null, so a mapper lights up once the field exists.
import { isIP } from 'node:net';
import type { StoredRecord } from '../core/models.ts';

export type Rec = StoredRecord | Record<string, unknown>;

export function str(r: Rec | null | undefined, field: string): string | null {
  return strValue(r?.[field]);
}

export function num(r: Rec | null | undefined, field: string): number | null {
  return numValue(r?.[field]);
}

export function bool(r: Rec | null | undefined, field: string): boolean | null {
  return boolValue(r?.[field]);
}

// The same on a value already read (the text builders of json-fast.ts read each field by name).
export function strValue(v: unknown): string | null {
  if (typeof v === 'string') return v === '' ? null : v;
  if (v === null || v === undefined) return null;
  const s = String(v);
  return s === '' ? null : s;
}

export function numValue(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (v === null || v === undefined || v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

export function boolValue(v: unknown): boolean | null {
  return typeof v === 'boolean' ? v : null;
}

const CVSS_V3_VERSION = /^CVSS:(3\.[01])\//;

/** The CVSS v3 version a vector names (`CVSS:3.1/…`), 3.0 when it names none. */
export function cvssV3Version(vector: string | null): string {
  return (vector !== null && CVSS_V3_VERSION.exec(vector)?.[1]) || '3.0';
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
 * `YYYY-MM-DDTHH:MM:SS.sssZ`, the form the store writes its times in, read digit by digit (twice as fast
 * as Date.parse, which an export of findings calls two or three times per finding). NaN for anything
 * else and for dates that do not exist (the 30th of February) or before the year 1000, where a calendar
 * rule could read them otherwise than Date.parse does: those go to Date.parse.
 */
function storedTimeMs(s: string): number {
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 84 || s.charCodeAt(13) !== 58) return Number.NaN;
  if (s.charCodeAt(16) !== 58 || s.charCodeAt(19) !== 46 || s.charCodeAt(23) !== 90) return Number.NaN;
  const year = digit(s, 0) * 1000 + digit(s, 1) * 100 + digit(s, 2) * 10 + digit(s, 3);
  const month = digit(s, 5) * 10 + digit(s, 6);
  const day = digit(s, 8) * 10 + digit(s, 9);
  const hour = digit(s, 11) * 10 + digit(s, 12);
  const minute = digit(s, 14) * 10 + digit(s, 15);
  const second = digit(s, 17) * 10 + digit(s, 18);
  const milli = digit(s, 20) * 100 + digit(s, 21) * 10 + digit(s, 22);
  // A character that is not a digit makes its part negative.
  if (!(year >= 1000 && month >= 1 && month <= 12 && day >= 1 && hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59)) return Number.NaN;
  if (!(second >= 0 && second <= 59 && milli >= 0 && (day <= 28 || day <= daysInMonth(year, month)))) return Number.NaN;
  return daysSinceEpoch(year, month, day) * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + milli;
}

/** The digit at `at`, or -100000 when the character is not one (so any part made with it is negative). */
function digit(s: string, at: number): number {
  const d = s.charCodeAt(at) - 48;
  return d >= 0 && d <= 9 ? d : -100_000;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's days_from_civil; year ≥ 1). */
function daysSinceEpoch(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
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

/** A finding's title: its plugin's name, else its plugin's id (every export names the finding by its plugin). */
export function findingTitle(pluginName: string | null, pluginId: string | null): string {
  return pluginName ?? (pluginId ? `Plugin ${pluginId}` : 'Finding');
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
