// SQL text the store's repositories share: IN lists (placeholders, chunked reads, SQLite's padded
// lists) and the one codec of the opaque page cursors of record queries and the change feed.
import type { Driver, Row } from './driver.ts';

/** `?,?,?`: one placeholder per value. */
export function marks(values: readonly unknown[]): string {
  return values.map(() => '?').join(',');
}

/** `(?,?,?)`: an IN list of one placeholder per value. */
export function placeholders(values: readonly unknown[]): string {
  return `(${marks(values)})`;
}

/** `expr` rounded to one decimal, as the reports show a priority (PostgreSQL's ROUND to places takes a numeric). */
export function sqlRound1(db: Driver, expr: string): string {
  return db.dialect === 'postgres' ? `ROUND(CAST(${expr} AS NUMERIC), 1)` : `ROUND(${expr}, 1)`;
}

/** An IN list of `values`, whose parameters are added to `params`. */
export function inList(values: readonly unknown[], params: unknown[]): string {
  params.push(...values);
  return placeholders(values);
}

/** Rows of one statement per chunk of `values` (its IN list is `ph`), after the `extra` parameters. */
export async function allInChunks(db: Driver, sql: (ph: string) => string, values: string[], extra: unknown[] = [], chunk = 500): Promise<Row[]> {
  const out: Row[] = [];
  for (let i = 0; i < values.length; i += chunk) {
    const part = values.slice(i, i + chunk);
    if (part.length) out.push(...(await db.all(sql(marks(part)), [...extra, ...part])));
  }
  return out;
}

/**
 * Values for IN lists of `chunk` at most, padded on SQLite with repeats of the first to one of a few
 * lengths: its driver keeps every statement it prepared, and an IN list of thousands compiles to a
 * large program, so one statement per list length would grow the process with every distinct length. A repeat matches nothing twice.
 */
export function paddedInList(db: Driver, values: string[], chunk: number): string[] {
  if (db.dialect !== 'sqlite' || values.length === 0) return values;
  const to = values.length > 4096 ? Math.ceil(values.length / chunk) * chunk : Math.max(64, 2 ** Math.ceil(Math.log2(values.length)));
  const out = values.slice();
  while (out.length < to) out.push(values[0]!);
  return out;
}

/** A page cursor: the values that place the page's last row (a sort key and id, a sequence number). */
export function encodeCursor(values: unknown[]): string {
  return Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');
}

/** The values of a cursor, or null when it is none (each reader checks their shape). */
export function decodeCursor(c: string): unknown[] | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(c, 'base64url').toString('utf8'));
    return Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/** A page cursor in id order: the last record's id, as it has always been spelled. */
export function encodeIdCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

/** The record id of an id-order cursor, or null when it is none. */
export function decodeIdCursor(c: string): string | null {
  const id = Buffer.from(c, 'base64url').toString('utf8');
  return /^[0-9a-f]{32}$/.test(id) ? id : null;
}
