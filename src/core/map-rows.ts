// Maps one page of upstream rows into records, row by row: a row that throws, or that lacks its identity,
// is counted as an error row and logged with its row number and the reason (never the row's values),
// not fatal, and not stored under a made-up key. Every API stream maps its pages through this.
import { errorMessage } from './errors.ts';
import type { Logger } from './log.ts';
import { type AddRecord, collectInto, type RecordsByModel } from './models.ts';

/** Where a page's rows are in the whole read, and where to report rows that could not be mapped. */
export interface RowsAt {
  /** The read the rows belong to (a stream's phase or part), named in the log. */
  what?: string;
  /** Number of the page's first row within that read (1 = the first row). */
  firstRow?: number;
  /** Absent: failures are counted, not logged (a read that stores nothing). */
  log?: Logger;
}

export interface MapRowsOptions<R> extends RowsAt {
  /** What the row lacks to be identified (a host without address and UUID), or null when it has it. */
  missing?: (row: R) => string | null;
  /** The row's upstream id, named in the log when it has one (an id, never other values). */
  rowId?: (row: R) => string | null;
}

/** Failed rows logged one by one per page; the rest are summed up in one line. */
export const LOGGED_ROW_FAILURES = 5;
const MAX_REASON_CHARS = 300;

export function mapRows<R>(
  rows: readonly R[],
  fn: (row: R, add: AddRecord) => void,
  opts: MapRowsOptions<R> = {},
): { records: RecordsByModel; errors: number } {
  const records: RecordsByModel = {};
  const add = collectInto(records);
  let errors = 0;
  const first = opts.firstRow ?? 1;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    let reason: string | null = null;
    try {
      reason = opts.missing?.(row) ?? null;
      if (reason === null) fn(row, add);
    } catch (err) {
      reason = errorMessage(err);
    }
    if (reason === null) continue;
    errors++;
    if (opts.log && errors <= LOGGED_ROW_FAILURES) {
      const id = opts.rowId?.(row) ?? null;
      const fields = { stream: opts.what, row: first + i, ...(id ? { id } : {}), reason: reason.slice(0, MAX_REASON_CHARS) };
      opts.log.warn(fields, 'row skipped: it could not be mapped');
    }
  }
  if (opts.log && errors > LOGGED_ROW_FAILURES) {
    opts.log.warn({ stream: opts.what, firstRow: first, rows: rows.length, skipped: errors }, `${errors - LOGGED_ROW_FAILURES} more rows of this page skipped`);
  }
  return { records, errors };
}
