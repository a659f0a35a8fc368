// Coercions every connector's mappers share: blank text as null, yes/no words as booleans, delimited
// lists without blanks or repeats, HTML entities decoded. A connector's own wire quirks (numbers sent as
// "-1" strings, time objects) stay in its map/values.ts, built on these.

/** A trimmed non-empty string, or null (only strings: callers decide what other types mean). */
export function trimmedText(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v.trim();
  return s === '' ? null : s;
}

const YES = new Set(['1', 'true', 'yes', 'y']);
const NO = new Set(['0', 'false', 'no', 'n']);

/** true, 1, "1", "true", "yes", "y" → true; false, 0, "0", "false", "no", "n" → false (any case); else null. */
export function yesNo(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v !== 'string') return null;
  const s = v.trim().toLowerCase();
  if (YES.has(s)) return true;
  if (NO.has(s)) return false;
  return null;
}

/**
 * The parts of `s` split at `sep`, trimmed, without empty ones or repeats (first order kept), added to
 * `into` (which may hold parts of earlier values: those are not repeated either).
 */
export function uniqueParts(s: string, sep: RegExp | string, into: string[] = []): string[] {
  for (const part of s.split(sep)) {
    const p = part.trim();
    if (p !== '' && !into.includes(p)) into.push(p);
  }
  return into;
}

/** Text with the common HTML entities (&lt; &gt; &quot; &#39; &#039; &apos; &amp;) decoded; &amp; last, so "&amp;lt;" stays "&lt;". */
export function decodeEntities(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;|&apos;/g, "'")
    .replace(/&amp;/g, '&');
}
