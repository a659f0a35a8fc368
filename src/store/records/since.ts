// The one rule of `since` (interfaces.md §7.1) for every entrance (changes, export, report remediation,
// scheduled changes-only exports, the API): a run id means the changes of the runs that started after
// it, an ISO-8601 time those at or after it; `run` is exactly one run's changes.
import { InputError } from '../../core/errors.ts';
import type { Driver } from '../db/driver.ts';
import { runStartedAt } from '../sources/runs.ts';

/** What `since` and `run` mean, for the CLI's help and the API's description (declared with the request shapes). */
export { RUN_HELP, SINCE_HELP } from '../../core/api-requests.ts';

/** Where a window of changes opens. */
export interface Since {
  /** What was given: a run id or a time. */
  from: string;
  /** When the window opens (ISO-8601): the time, or the run's start. */
  at: string;
  /** Given as a run: its id. Only the runs that started after it count; one that started in the same millisecond counts too, it being left out. */
  afterRun: string | null;
}

/** Exactly one run's changes. */
export interface OneRun {
  id: string;
  startedAt: string;
}

/** An ISO-8601 time as the store writes it (UTC, milliseconds), or null when `value` is not one; a time without a zone is UTC. */
export function parseIsoTime(value: string): string | null {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?)?$/.exec(value.trim());
  if (!m) return null;
  const t = Date.parse(`${m[1]}T${m[2] ?? '00:00'}${m[3] ?? 'Z'}`);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

export const sinceTime = (at: string): Since => ({ from: at, at, afterRun: null });

/** After a known run (scheduled changes-only exports keep the last run they exported and its start). */
export const sinceRun = (runId: string, startedAt: string): Since => ({ from: runId, at: startedAt, afterRun: runId });

/** A `since` value: an ISO-8601 time or a run id; anything else (an unknown run) is an InputError. */
export async function resolveSince(db: Driver, value: string): Promise<Since> {
  const v = value.trim();
  const t = parseIsoTime(v);
  if (t !== null) return { from: v, at: t, afterRun: null };
  const startedAt = v === '' ? null : await runStartedAt(db, v);
  if (startedAt === null) throw new InputError(`since: '${value}' is neither a run id nor an ISO-8601 time`, 'since');
  return sinceRun(v, startedAt);
}

/** A `run` value: a run id; an unknown one is an InputError. */
export async function resolveRun(db: Driver, value: string): Promise<OneRun> {
  const id = value.trim();
  const startedAt = id === '' ? null : await runStartedAt(db, id);
  if (startedAt === null) throw new InputError(`run: no run '${value}'`, 'run');
  return { id, startedAt };
}

/** The ids of the runs whose changes a window counts: started after the run, or at or after the time. */
export function runsSinceSql(since: Since, params: unknown[]): string {
  if (since.afterRun === null) {
    params.push(since.at);
    return `SELECT "id" FROM "sync_runs" WHERE "started_at" >= ?`;
  }
  params.push(since.at, since.at, since.afterRun);
  return `SELECT "id" FROM "sync_runs" WHERE "started_at" > ? OR ("started_at" = ? AND "id" <> ?)`;
}

/** The WHERE term of a window on the change events aliased `alias` (a run's events are never older than its start). */
export function sinceClause(alias: string, since: Since, params: unknown[]): string {
  params.push(since.at);
  if (since.afterRun === null) return `${alias}."at" >= ?`;
  return `${alias}."at" >= ? AND ${alias}."run_id" IN (${runsSinceSql(since, params)})`;
}

/** The WHERE term of one run's change events aliased `alias`. */
export function oneRunClause(alias: string, run: OneRun, params: unknown[]): string {
  params.push(run.startedAt, run.id);
  return `${alias}."at" >= ? AND ${alias}."run_id" = ?`;
}
