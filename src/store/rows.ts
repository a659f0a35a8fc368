// What the store's repositories share when they write and read rows: the time as stored (ISO-8601,
// UTC), JSON columns read back, and WHERE clauses built from the filters a caller gave.

export const nowIso = (): string => new Date().toISOString();

/** A JSON column's value, or `fallback` when it is empty. */
export function parseJson<T>(s: unknown, fallback: T): T {
  if (typeof s !== 'string' || s === '') return fallback;
  return JSON.parse(s) as T;
}

/** The conditions of a WHERE clause, each with its parameters, added as a caller's filters ask. */
export class Conditions {
  readonly #conds: string[] = [];
  readonly params: unknown[] = [];

  add(cond: string, ...params: unknown[]): this {
    this.#conds.push(cond);
    this.params.push(...params);
    return this;
  }

  /** ` WHERE a AND b …`, or '' without conditions. */
  get where(): string {
    return this.#conds.length ? ` WHERE ${this.#conds.join(' AND ')}` : '';
  }
}
