// Nested upstream JSON, bounded in depth. JSON.parse takes any depth, but every recursive walk after
// it (freezing a cached value, JSON.stringify when the store writes it, a structured clone) overflows
// the stack past a few thousand levels: a row whose vprContext nested 200,000 levels was dropped with
// "Maximum call stack size exceeded". A subtree deeper than MAX_JSON_DEPTH is replaced by one marker,
// `{"truncated": "nested deeper than 64 levels"}`: the row is kept, its field says it was cut, and
// the runner counts such rows (limitRecordsDepth) so the run says so.
import type { IncomingRecord, ModelName } from './models.ts';

/** Levels of arrays and objects a stored value may nest (VPR drivers nest 2; SDP fields 3 or 4). */
export const MAX_JSON_DEPTH = 64;

/** What stands in for a subtree nested deeper than MAX_JSON_DEPTH (shared, frozen). */
export const TRUNCATED: Readonly<{ truncated: string }> = Object.freeze({ truncated: `nested deeper than ${MAX_JSON_DEPTH} levels` });

type Verdict = { value: unknown; truncated: boolean };

/**
 * `v` with every subtree deeper than `max` levels replaced by TRUNCATED, and whether anything was (or
 * already had been: a marker inside counts). The walk recurses `max` levels at most; a value within
 * the bound comes back as it is, not copied.
 */
export function limitDepth(v: unknown, max = MAX_JSON_DEPTH): Verdict {
  return walk(v, 1, max);
}

/** Frozen values (a mapper's cached, shared ones) are walked once: they cannot change. */
const frozenVerdicts = new WeakMap<object, Verdict>();

function walk(v: unknown, depth: number, max: number): Verdict {
  if (v === null || typeof v !== 'object') return { value: v, truncated: false };
  if (v === TRUNCATED) return { value: v, truncated: true };
  if (depth > max) return { value: TRUNCATED, truncated: true };
  const frozen = Object.isFrozen(v);
  if (frozen) {
    const known = frozenVerdicts.get(v);
    if (known) return known;
  }
  let truncated = false;
  let copy: unknown = null;
  if (Array.isArray(v)) {
    let list: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const r = walk(v[i], depth + 1, max);
      truncated ||= r.truncated;
      if (r.value === v[i]) continue;
      list ??= v.slice();
      list[i] = r.value;
    }
    copy = list;
  } else {
    let obj: Record<string, unknown> | null = null;
    for (const [k, x] of Object.entries(v)) {
      const r = walk(x, depth + 1, max);
      truncated ||= r.truncated;
      if (r.value === x) continue;
      obj ??= { ...(v as Record<string, unknown>) };
      obj[k] = r.value;
    }
    copy = obj;
  }
  const out = { value: copy ?? v, truncated };
  if (frozen) frozenVerdicts.set(v, out);
  return out;
}

/** Whether `v` nests deeper than MAX_JSON_DEPTH or holds a marker: the walk without allocating, for the common answer no. */
function needsCut(v: object, depth: number): boolean {
  if (v === TRUNCATED || depth > MAX_JSON_DEPTH) return true;
  if (Array.isArray(v)) {
    for (const x of v) if (x !== null && typeof x === 'object' && needsCut(x, depth + 1)) return true;
    return false;
  }
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== null && typeof x === 'object' && needsCut(x, depth + 1)) return true;
  }
  return false;
}

/** JSON text parsed, its depth bounded as limitDepth does. Throws on text that is not JSON. */
export function parseJsonLimited(text: string, max = MAX_JSON_DEPTH): Verdict {
  return limitDepth(JSON.parse(text), max);
}

/**
 * Bounds the depth of every field of a page's records in place (a field too deep is replaced as
 * limitDepth says) and returns, per model, how many records had a field cut (now or by their mapper).
 */
export function limitRecordsDepth(records: Partial<Record<ModelName, IncomingRecord[]>>): Partial<Record<ModelName, number>> {
  const out: Partial<Record<ModelName, number>> = {};
  for (const [model, list] of Object.entries(records) as [ModelName, IncomingRecord[] | undefined][]) {
    let n = 0;
    for (const r of list ?? []) {
      let cut = false;
      // for…in, not Object.entries: this runs over every field of every record of every page.
      for (const k in r.fields) {
        const v = r.fields[k];
        if (v === null || typeof v !== 'object' || !needsCut(v, 1)) continue;
        const limited = walk(v, 1, MAX_JSON_DEPTH);
        if (!limited.truncated) continue;
        cut = true;
        if (limited.value !== v) r.fields[k] = limited.value;
      }
      if (cut) n++;
    }
    if (n > 0) out[model] = n;
  }
  return out;
}
