// Maps one page of upstream rows into records, row by row: a row that throws, or that lacks its identity,
// is counted as an error row, listed for the run (its id or number, the field at fault, the reason: never
// the row's values) and logged, not fatal, and not stored under a made-up key. Every API stream maps its
// pages through this.
import type { RowFailure } from './connector.ts';
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

/** A mapper's error naming the field at fault (a record without its `id`). */
export class FieldError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

/** Why a row cannot be identified: the identity field(s) it lacks and the reason. */
export interface MissingIdentity {
  field: string;
  reason: string;
}

export interface MapRowsOptions<R> extends RowsAt {
  /** What the row lacks to be identified (a host without address and UUID), or null when it has it. */
  missing?: (row: R) => MissingIdentity | null;
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
): { records: RecordsByModel; errors: number; failures: RowFailure[] } {
  const records: RecordsByModel = {};
  const add = collectInto(records);
  let errors = 0;
  const failures: RowFailure[] = [];
  const first = opts.firstRow ?? 1;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    let failed: { field: string | null; reason: string } | null = null;
    try {
      failed = opts.missing?.(row) ?? null;
      if (failed === null) fn(row, add);
    } catch (err) {
      failed = { field: err instanceof FieldError ? err.field : null, reason: errorMessage(err) };
    }
    if (failed === null) continue;
    errors++;
    const id = opts.rowId?.(row) ?? null;
    const reason = failed.reason.slice(0, MAX_REASON_CHARS);
    failures.push({ row: id ? `id ${id}` : `row ${first + i}${opts.what ? ` of ${opts.what}` : ''}`, field: failed.field, reason });
    if (opts.log && errors <= LOGGED_ROW_FAILURES) {
      const fields = { stream: opts.what, row: first + i, ...(id ? { id } : {}), reason };
      opts.log.warn(fields, 'row skipped: it could not be mapped');
    }
  }
  if (opts.log && errors > LOGGED_ROW_FAILURES) {
    opts.log.warn({ stream: opts.what, firstRow: first, rows: rows.length, skipped: errors }, `${errors - LOGGED_ROW_FAILURES} more rows of this page skipped`);
  }
  return { records, errors, failures };
}
