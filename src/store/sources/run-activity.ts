// What a sync run did besides storing records: upstream retries, how many of them were HTTP 429
// (rate limited), and an excerpt of its log. Kept with the run's counts (one JSON column) under a key
// no model can have, so reading a run splits it out again.

export interface RunLogLine {
  at: string;
  level: 'info' | 'warn' | 'error';
  msg: string;
}

export interface RunActivity {
  /** Upstream calls tried again and streams restarted after a transient failure. */
  retries: number;
  /** Of those, the ones after an HTTP 429 (the upstream asked to slow down). */
  rateLimited: number;
  /** Lines logged the most recently during the run, oldest first (at most RUN_LOG_LINES). */
  log: RunLogLine[];
}

export const RUN_LOG_LINES = 40;
const KEY = '~activity';

export function emptyActivity(): RunActivity {
  return { retries: 0, rateLimited: 0, log: [] };
}

/** What one stream of a run counted. */
export interface StreamCounts {
  records: number;
  errors: number;
  /** Records stored with a field cut short: nested deeper than core/json-depth.ts allows. */
  truncated?: number;
}

/** The stored JSON of a run's counts, with its activity when given. */
export function packCounts(counts: Record<string, StreamCounts>, activity?: RunActivity | null): string {
  return JSON.stringify(activity ? { ...counts, [KEY]: activity } : counts);
}

/** Splits a run's stored counts into per-model counts and its activity (null for runs stored without one). */
export function unpackCounts(stored: Record<string, unknown>): { counts: Record<string, StreamCounts>; activity: RunActivity | null } {
  const { [KEY]: activity, ...counts } = stored;
  return { counts: counts as Record<string, StreamCounts>, activity: (activity as RunActivity | undefined) ?? null };
}
