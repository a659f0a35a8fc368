// What the store's repositories share when they write and read rows: the time as stored (ISO-8601,
// UTC), JSON columns read back, and WHERE clauses built from the filters a caller gave.
import { InputError } from '../../core/errors.ts';

export const nowIso = (): string => new Date().toISOString();

/**
 * A count written into SQL text (LIMIT, OFFSET): a whole number from 0 to `max`, else an InputError
 * naming the bounds. Callers check their input at the edge; this keeps Infinity, NaN or 1e20 out of the
 * SQL whichever caller forgot ("no such column: Infinity" once answered 500).
 */
export function sqlCount(n: number, what: string, max = 2 ** 31 - 1): number {
  if (!Number.isSafeInteger(n) || n < 0 || n > max) throw new InputError(`${what} must be a whole number from 0 to ${max}, got ${n}`, what);
  return n;
}

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
