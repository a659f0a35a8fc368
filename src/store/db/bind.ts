// Repositories are the store's functions bound to its database: each function takes the driver first,
// and the repository object hands it in, so no caller outside src/store holds the driver.
import type { Driver } from './driver.ts';

// biome-ignore lint/suspicious/noExplicitAny: any function whose first parameter is the driver
type OnDriver = (db: Driver, ...args: any[]) => unknown;

/** The functions with their first parameter (the driver) taken away. */
export type Bound<T extends Record<string, OnDriver>> = {
  [K in keyof T]: T[K] extends (db: Driver, ...args: infer A) => infer R ? (...args: A) => R : never;
};

/** Each function of `fns` under its key, called with `db` first. */
export function bindDriver<T extends Record<string, OnDriver>>(db: Driver, fns: T): Bound<T> {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(fns)) out[name] = (...args: unknown[]) => fn(db, ...args);
  return out as Bound<T>;
}
