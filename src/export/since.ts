// What "changed since X" selects for an export (`--since RUN_ID|ISO-8601`, scheduled changes-only
// exports): a record counts as changed when a run that started after the point stored it (its run
// stamp: new and updated records, findings seen again, whatever field changed) or when the change feed
// has an event of it from then on (records a sweep fixed or removed, which carry no new stamp).
import { InputError, NotFoundError } from '../core/errors.ts';
import type { QueryOptions } from '../store/records.ts';
import type { Store } from '../store/store.ts';

export interface SinceWindow {
  /** What the user gave (a run id or a time). */
  from: string;
  /** The time the window opens (ISO-8601). */
  at: string;
  /** The store query terms that select the records changed in the window. */
  query: Pick<QueryOptions, 'changedSince' | 'changedAfter'>;
}

const ISO_RE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** A run id (changes stored by runs that started after it) or an ISO-8601 time (by runs started at or after it). */
export async function resolveSince(store: Store, since: string): Promise<SinceWindow> {
  const s = since.trim();
  if (ISO_RE.test(s)) {
    const t = Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s);
    if (!Number.isFinite(t)) throw new InputError(`--since '${since}' is not a valid time`, 'since');
    const at = new Date(t).toISOString();
    return { from: s, at, query: { changedSince: at } };
  }
  try {
    const run = await store.getRun(s);
    return { from: s, at: run.startedAt, query: { changedSince: run.startedAt, changedAfter: true } };
  } catch (err) {
    if (err instanceof NotFoundError) throw new InputError(`--since '${since}' is neither a run id nor an ISO-8601 time`, 'since');
    throw err;
  }
}

/** The window after a known run (scheduled changes-only exports keep the last run they exported). */
export function sinceRun(runId: string, startedAt: string): SinceWindow {
  return { from: runId, at: startedAt, query: { changedSince: startedAt, changedAfter: true } };
}
