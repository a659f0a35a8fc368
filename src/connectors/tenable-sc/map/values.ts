// Wire-value helpers for Tenable.sc: numbers arrive as strings ("1", "-1", ""), dates as epoch-second
// strings, booleans as "0"/"1"/"true"/"Yes". Absent data becomes null, never "". Built on the shared
// coercions of core/values.ts.
import { decodeEntities, trimmedText, uniqueParts, yesNo } from '../../../core/values.ts';
import { parseJsonLimited } from '../../../core/json-depth.ts';

/** A trimmed non-empty string, or null. Numbers are stringified. */
export function text(v: unknown): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return trimmedText(v);
}

/** A finite number from a string or number; "", "-1", null and non-numbers become null. */
export function num(v: unknown, opts?: { negativeIsNull?: boolean }): number | null {
  // (no default object: called ~20 times a row, it allocated one each time)
  const negativeIsNull = opts?.negativeIsNull ?? true;
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && /^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(v)) n = Number(v);
  else return null;
  if (!Number.isFinite(n)) return null;
  if (negativeIsNull && n < 0) return null;
  return n;
}

/** An integer (ports, ids, counts) or null. */
export function int(v: unknown): number | null {
  const n = num(v);
  return n === null || !Number.isInteger(n) ? null : n;
}

/**
 * `make(key)`, remembered in `cache` for the values that repeat across rows (a plugin's texts, a scan's
 * dates): the cache is emptied when it reaches `max` entries, so it stays bounded.
 */
export function remembered<K, V>(cache: Map<K, V>, key: K, max: number, make: (key: K) => V): V {
  const hit = cache.get(key);
  if (hit !== undefined || cache.has(key)) return hit as V;
  const v = make(key);
  if (cache.size >= max) cache.clear();
  cache.set(key, v);
  return v;
}

// A row carries six or so dates and most repeat (a scan's time across its host's findings, a plugin's
// dates across its findings): the last few thousand conversions are kept rather than building the
// same ISO strings again for every row.
const isoCache = new Map<string | number, string | null>();

/** Epoch seconds (string or number) to ISO-8601 UTC; "-1", "0", "" and garbage become null. */
export function epochToIso(v: unknown): string | null {
  return typeof v === 'string' || typeof v === 'number' ? remembered(isoCache, v, 4096, isoOf) : isoOf(v);
}

function isoOf(v: unknown): string | null {
  const n = num(v);
  if (n === null || n <= 0) return null;
  if (Number.isInteger(n) && n <= LAST_SECOND_OF_9999) return isoOfSeconds(n);
  // Values in milliseconds are not expected from Tenable.sc, but tolerate them.
  const d = new Date(n > 1e12 ? n : n * 1000);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

const LAST_SECOND_OF_9999 = 253_402_300_799;
const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * Whole epoch seconds (1970 … 9999-12-31) as `Date#toISOString` writes them, by arithmetic: a date that
 * misses the cache would otherwise cost a Date object and its formatting, several times this. Days to the civil date as in Howard Hinnant's `civil_from_days`.
 */
export function isoOfSeconds(seconds: number): string {
  const days = Math.floor(seconds / 86400);
  let rest = seconds - days * 86400;
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hour = Math.floor(rest / 3600);
  rest -= hour * 3600;
  const minute = Math.floor(rest / 60);
  return `${year}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}:${two(rest - minute * 60)}.000Z`;
}

/** A date as ISO-8601 UTC: epoch seconds (or milliseconds), or a date text; else null. */
export function timeOf(v: unknown): string | null {
  const fromEpoch = epochToIso(v);
  if (fromEpoch !== null || num(v) !== null) return fromEpoch;
  const s = text(v);
  if (s === null) return null;
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/**
 * A JSON value that may arrive as JSON text (SC sends some objects as strings): parsed when it is;
 * other text is kept as is, so nothing the console sent is lost.
 */
export function jsonOf(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null;
  const s = v.trim();
  if (s === '') return null;
  if (s.startsWith('[') || s.startsWith('{')) {
    try {
      // Depth-bounded: the value is frozen and stored by recursive walks (core/json-depth.ts).
      return parseJsonLimited(s).value;
    } catch {
      return s;
    }
  }
  return s;
}

/** Epoch seconds as a number, or null. */
export function epoch(v: unknown): number | null {
  const n = num(v);
  return n === null || n <= 0 ? null : Math.floor(n);
}

/** "1", "true", "yes", true, 1 → true; "0", "false", "no", false, 0 → false; anything else null. */
export const bool = yesNo;

/** Splits a delimited list, trims, drops empties and duplicates (order kept). */
export function list(v: unknown, sep: RegExp | string = ','): string[] {
  const s = text(v);
  return s === null ? [] : uniqueParts(s, sep);
}

/** The id of an `{id, name}` object (id may be a string or a number), or null. */
export function refId(v: unknown): string | null {
  if (v && typeof v === 'object') return text((v as { id?: unknown }).id);
  return null;
}

export function refName(v: unknown): string | null {
  if (v && typeof v === 'object') return text((v as { name?: unknown }).name);
  return null;
}

/** Compares dotted versions ("5.13.0" vs "5.8"); missing parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split('.').map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

const MAC = /^[0-9a-f]{2}([:-][0-9a-f]{2}){5}$/i;

/** MAC addresses from a comma/space separated string, lowercased with colons. */
export function macs(v: unknown): string[] {
  const out: string[] = [];
  for (const m of list(v, /[\s,;]+/)) {
    if (!MAC.test(m)) continue;
    const norm = m.toLowerCase().replace(/-/g, ':');
    if (!out.includes(norm)) out.push(norm);
  }
  return out;
}

/** Plain text of an HTML-escaped value (the few entities Tenable uses). */
export const unescapeHtml = decodeEntities;
