// Validation of upstream pages against what a stream relies on: a zod schema per page, and an
// UpstreamError whose message names the offending field ("'results[3]' is null, not a row").
import { z } from 'zod';
import { UpstreamError } from './errors.ts';

/**
 * One row: any plain object, checked without copying it (z.record would copy and check every field
 * of every row, dozens of times the cost of this check). Fields are the
 * mappers' business; the identity check is the stream's.
 */
export const zRow = z.custom<Record<string, unknown>>((v) => v !== null && typeof v === 'object' && !Array.isArray(v));

/** `results[3].uuid` from a zod issue path. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || '(the answer)';
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'missing';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const p of path) v = v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  return v;
}

/**
 * Parses one page; a page that is not what the stream relies on fails the stream (not transient:
 * asking again gets the same answer) with a message naming the field and what was there instead.
 */
export function parsePage<S extends z.ZodType>(schema: S, value: unknown, what: string, expected: (path: string) => string): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const field = fieldPath(issue.path);
  const got = kindOf(valueAt(value, issue.path));
  throw new UpstreamError(`${what}: the answer is not a page of rows: '${field}' is ${got}, expected ${expected(field)}`, {
    hint: 'The server answered HTTP 200 with something other than the records asked for; nothing from this answer was stored',
  });
}
