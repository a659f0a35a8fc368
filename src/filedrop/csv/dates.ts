// Lenient date parsing for CSV exports: `Feb 9, 2024 10:48:42 UTC` (a scanner's export, also with local
// zones such as MST/MDT), `Jun 24, 2020 03:05 PM` (a service desk's display style), ISO-8601 and
// `2024-07-01 09:00:00`, `M/d/yyyy [h:mm[:ss] [AM|PM]]`, epoch seconds or milliseconds.
// A value without a zone is read as UTC. Returns ISO-8601 UTC, null for "no date", or undefined when the
// text is not a date this reader knows.

/** Zone abbreviations seen in exports, as offsets in minutes east of UTC. */
export const ZONE_OFFSETS: Record<string, number> = {
  UTC: 0,
  GMT: 0,
  UT: 0,
  Z: 0,
  WET: 0,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
  AKST: -540,
  AKDT: -480,
  HST: -600,
  AST: -240,
  ADT: -180,
  NST: -210,
  NDT: -150,
  BST: 60,
  IST: 330,
  CET: 60,
  CEST: 120,
  MET: 60,
  MEST: 120,
  WEST: 60,
  EET: 120,
  EEST: 180,
  MSK: 180,
  SGT: 480,
  HKT: 480,
  JST: 540,
  KST: 540,
  AEST: 600,
  AEDT: 660,
  ACST: 570,
  ACDT: 630,
  AWST: 480,
  NZST: 720,
  NZDT: 780,
};

const MONTHS: Record<string, number> = { jan: 0, feb: 1, mar: 2, apr: 3, may: 4, jun: 5, jul: 6, aug: 7, sep: 8, oct: 9, nov: 10, dec: 11 };

/** Texts that mean "no date". */
const NONE = new Set(['', 'n/a', 'na', '-', '--', 'none', 'null', 'never', 'not available', '0', '-1']);

function zoneOffset(zone: string | undefined): number | undefined {
  if (!zone) return 0;
  const z = zone.trim().toUpperCase();
  if (z === '') return 0;
  const m = /^(?:UTC|GMT)?([+-])(\d{1,2}):?(\d{2})?$/.exec(z);
  if (m) return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
  return ZONE_OFFSETS[z];
}

function build(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number, offsetMin: number): string | undefined {
  if (mo < 0 || mo > 11 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return undefined;
  const t = Date.UTC(y, mo, d, h, mi, s, ms) - offsetMin * 60_000;
  const check = new Date(Date.UTC(y, mo, d));
  if (check.getUTCMonth() !== mo) return undefined; // Feb 30 and friends
  return Number.isFinite(t) ? new Date(t).toISOString() : undefined;
}

function hour12(h: number, ampm: string | undefined): number {
  if (!ampm) return h;
  const pm = ampm.toUpperCase() === 'PM';
  if (h === 12) return pm ? 12 : 0;
  return pm ? h + 12 : h;
}

// "Feb 9, 2024 10:48:42 UTC", "Jun 24, 2020 03:05 PM", "Feb 9 2024", "Mon, Feb 9, 2024 10:48 AM EST"
const MONTH_FIRST =
  /^(?:[a-z]{3,9},?\s+)?([a-z]{3,9})\.?\s+(\d{1,2}),?\s+(\d{4})(?:[\s,]+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([ap]m)?(?:\s+([a-z]{1,5}|(?:utc|gmt)?[+-]\d{1,2}:?\d{2}))?)?$/i;
// "9 Feb 2024 10:48:42 UTC", "09-Feb-2024 10:48"
const DAY_FIRST = /^(\d{1,2})[\s-]([a-z]{3,9})\.?[\s-](\d{4})(?:[\s,]+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([ap]m)?(?:\s+([a-z]{1,5}|[+-]\d{1,2}:?\d{2}))?)?$/i;
// ISO-8601 and "2024-07-01 09:00:00", also with slashes
const ISO = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[T\s]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*([ap]m)?\s*(z|[+-]\d{2}:?\d{2}|[a-z]{2,5})?)?$/i;
// "7/1/2024 9:00 AM", "01/07/2024 09:00:00" (month first unless the first part cannot be a month)
const NUMERIC = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})(?:[\s,]+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([ap]m)?(?:\s+([a-z]{1,5}|[+-]\d{1,2}:?\d{2}))?)?$/i;

// The scanner export form exactly ("Feb 9, 2024 10:48:42 UTC"): checked first, it is most rows.
const SC_FORM = /^([A-Z][a-z]{2}) (\d{1,2}), (\d{4}) (\d{2}):(\d{2}):(\d{2}) ([A-Z]{1,5})$/;

/** The SC form's time in epoch milliseconds; undefined for an impossible day; null when the text is not in the exact form. */
function scFormMs(value: string): number | null | undefined {
  const fast = SC_FORM.exec(value);
  if (!fast) return null;
  const mo = MONTHS[fast[1]!.toLowerCase()];
  const off = ZONE_OFFSETS[fast[7]!];
  if (mo === undefined || off === undefined) return null;
  const d = Number(fast[2]);
  const t = Date.UTC(Number(fast[3]), mo, d, Number(fast[4]), Number(fast[5]), Number(fast[6])) - off * 60_000;
  if (d <= 28 || new Date(Date.UTC(Number(fast[3]), mo, d)).getUTCMonth() === mo) return t;
  return undefined;
}

/**
 * parseDate as epoch milliseconds (null for "no date", undefined for no date this reader knows), without
 * building the ISO text when the value is in the scanner export form.
 */
export function parseDateMs(value: string | null | undefined): number | null | undefined {
  if (value === null || value === undefined) return null;
  const fast = scFormMs(value);
  if (fast !== null) return fast;
  const iso = parseDate(value);
  return iso == null ? iso : Date.parse(iso);
}

/** The day with the time and zone of a MONTH_FIRST, DAY_FIRST or NUMERIC match (hour, minute, second, AM/PM, zone: groups 4–8). */
function atTime(m: RegExpExecArray, year: number, month: number, day: number): string | undefined {
  const off = zoneOffset(m[8]);
  if (off === undefined) return undefined;
  return build(year, month, day, hour12(Number(m[4] ?? 0), m[7]), Number(m[5] ?? 0), Number(m[6] ?? 0), 0, off);
}

/** A MONTH_FIRST or DAY_FIRST match: the month by name, the year in group 3. */
function namedMonth(m: RegExpExecArray, month: string, day: string): string | undefined {
  const mo = MONTHS[month.toLowerCase().slice(0, 3)];
  return mo === undefined ? undefined : atTime(m, Number(m[3]), mo, Number(day));
}

export function parseDate(value: string | null | undefined): string | null | undefined {
  if (value === null || value === undefined) return null;
  const fast = scFormMs(value);
  if (fast !== null) return fast === undefined ? undefined : new Date(fast).toISOString();
  const s = value.trim();
  if (NONE.has(s.toLowerCase())) return null;
  let m = MONTH_FIRST.exec(s);
  if (m) return namedMonth(m, m[1]!, m[2]!);
  m = DAY_FIRST.exec(s);
  if (m) return namedMonth(m, m[2]!, m[1]!);
  m = ISO.exec(s);
  if (m) {
    const off = zoneOffset(m[9]);
    if (off === undefined) return undefined;
    const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
    return build(Number(m[1]), Number(m[2]) - 1, Number(m[3]), hour12(Number(m[4] ?? 0), m[8]), Number(m[5] ?? 0), Number(m[6] ?? 0), ms, off);
  }
  m = NUMERIC.exec(s);
  if (m) {
    const a = Number(m[1]);
    const b = Number(m[2]);
    const [mo, d] = a > 12 ? [b, a] : [a, b];
    return atTime(m, Number(m[3]), mo - 1, d);
  }
  if (/^\d{9,13}$/.test(s)) {
    const n = Number(s);
    return new Date(s.length >= 12 ? n : n * 1000).toISOString();
  }
  return undefined;
}
