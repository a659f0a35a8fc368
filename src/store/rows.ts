// What the store's repositories share when they write and read rows: the time as stored (ISO-8601,
// UTC) and JSON columns read back.

export const nowIso = (): string => new Date().toISOString();

/** A JSON column's value, or `fallback` when it is empty. */
export function parseJson<T>(s: unknown, fallback: T): T {
  if (typeof s !== 'string' || s === '') return fallback;
  return JSON.parse(s) as T;
}
