// Sync runs and checkpoints in the store: a run's record (mode, generation, status, counts, heartbeat,
// the files it rejected and the rows it could not store) and each stream's checkpoint of a source.
import { ConflictError, errorMessage, NotFoundError } from '../../core/errors.ts';
import type { Driver, Row } from '../db/driver.ts';
import { Conditions, nowIso, parseJson, sqlCount } from '../db/rows.ts';
import { packCounts, type RunActivity, type StreamCounts, unpackCounts } from './run-activity.ts';

export type RunStatus = 'running' | 'succeeded' | 'failed' | 'partial' | 'interrupted';

/** A file a run rejected whole, and why. */
export interface RejectedFile {
  file: string;
  reason: string;
}

/** A row a run read and could not store: its model, its identity (id or place), the field at fault (null: none named), why. */
export interface UnstoredRow {
  model: string;
  row: string;
  field: string | null;
  reason: string;
}

/** What a run could not use: the first RUN_LIST_CAP files and rows, and how many there were in all. */
export interface RunShortfalls {
  rejected: RejectedFile[];
  rejectedTotal: number;
  errors: UnstoredRow[];
  errorsTotal: number;
}

/** Entries a run keeps of each list (the totals count the rest). */
export const RUN_LIST_CAP = 1000;

export interface RunRecord extends RunShortfalls {
  id: string;
  sourceId: string;
  mode: 'full' | 'incremental';
  status: RunStatus;
  generation: string;
  resumedFrom: string | null;
  trigger: string | null;
  /** Which process runs it: `host:pid`, so a crashed run on this machine is recognised at once. */
  owner: string | null;
  startedAt: string;
  finishedAt: string | null;
  heartbeatAt: string | null;
  counts: Record<string, StreamCounts>;
  /** Retries, 429s and a log excerpt (null for runs stored before these were kept). */
  activity: RunActivity | null;
  error: string | null;
}

export interface CheckpointRecord {
  stream: string;
  value: unknown;
  complete: boolean;
  mode: 'full' | 'incremental';
  generation: string;
  runId: string | null;
}

/** A stored list column: `{"items": [...], "total": n}` (null for runs stored before these were kept). */
function readList<T>(stored: unknown): { items: T[]; total: number } {
  const v = parseJson<{ items?: T[]; total?: number } | null>(stored, null);
  const items = Array.isArray(v?.items) ? v.items : [];
  return { items, total: typeof v?.total === 'number' ? v.total : items.length };
}

const packList = <T>(items: T[], total: number): string => JSON.stringify({ items: items.slice(0, RUN_LIST_CAP), total: Math.max(total, items.length) });

/**
 * A run that read every stream to its end: succeeded, or partial only because it rejected files or rows
 * (such a run names no error; every other partial run does). It is not resumed, and counts as complete.
 */
export const readEveryStream = (r: Pick<RunRecord, 'status' | 'error'>): boolean => r.status === 'succeeded' || (r.status === 'partial' && r.error === null);
const READ_EVERY_STREAM = `("status" = 'succeeded' OR ("status" = 'partial' AND "error" IS NULL))`;

function toRun(r: Row): RunRecord {
  const { counts, activity } = unpackCounts(parseJson(r.counts, {}));
  const rejected = readList<RejectedFile>(r.rejected);
  const errors = readList<UnstoredRow>(r.row_errors);
  return {
    id: String(r.id),
    sourceId: String(r.source_id),
    mode: r.mode as RunRecord['mode'],
    status: r.status as RunStatus,
    generation: String(r.generation),
    resumedFrom: (r.resumed_from as string | null) ?? null,
    trigger: (r.trigger as string | null) ?? null,
    owner: (r.owner as string | null) ?? null,
    startedAt: String(r.started_at),
    finishedAt: (r.finished_at as string | null) ?? null,
    heartbeatAt: (r.heartbeat_at as string | null) ?? null,
    counts,
    activity,
    error: (r.error as string | null) ?? null,
    rejected: rejected.items,
    rejectedTotal: rejected.total,
    errors: errors.items,
    errorsTotal: errors.total,
  };
}

export type NewRun = Omit<RunRecord, 'finishedAt' | 'counts' | 'activity' | 'error' | 'status' | 'heartbeatAt' | keyof RunShortfalls>;

/** Records a running run; a second running run of a source is refused (the store's unique index). */
export async function createRun(db: Driver, run: NewRun): Promise<RunRecord> {
  try {
    await db.run(
      `INSERT INTO "sync_runs" ("id", "source_id", "mode", "status", "generation", "resumed_from", "trigger", "owner", "started_at", "heartbeat_at", "counts") VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, '{}')`,
      [run.id, run.sourceId, run.mode, run.generation, run.resumedFrom, run.trigger, run.owner, run.startedAt, run.startedAt],
    );
  } catch (err) {
    if (/unique|duplicate/i.test(errorMessage(err))) throw new ConflictError('a sync of this source is already running');
    throw err;
  }
  return getRun(db, run.id);
}

export async function getRun(db: Driver, id: string): Promise<RunRecord> {
  const rows = await db.all(`SELECT * FROM "sync_runs" WHERE "id" = ?`, [id]);
  if (!rows[0]) throw new NotFoundError(`no run with id '${id}'`);
  return toRun(rows[0]);
}

/** When a run started, or null when there is no such run. */
export async function runStartedAt(db: Driver, id: string): Promise<string | null> {
  const rows = await db.all(`SELECT "started_at" FROM "sync_runs" WHERE "id" = ?`, [id]);
  return rows[0] ? String(rows[0].started_at) : null;
}

/** Runs newest first: of one source (null: all), with one of the given statuses when any are given. */
export async function listRuns(db: Driver, sourceId: string | null, limit = 50, statuses: RunStatus[] = []): Promise<RunRecord[]> {
  const c = new Conditions();
  if (sourceId) c.add(`"source_id" = ?`, sourceId);
  if (statuses.length) c.add(`"status" IN (${statuses.map(() => '?').join(', ')})`, ...statuses);
  const rows = await db.all(`SELECT * FROM "sync_runs"${c.where} ORDER BY "started_at" DESC LIMIT ${sqlCount(Math.floor(limit), 'limit')}`, c.params);
  return rows.map(toRun);
}

export async function activeRun(db: Driver, sourceId: string): Promise<RunRecord | null> {
  const rows = await db.all(`SELECT * FROM "sync_runs" WHERE "source_id" = ? AND "status" = 'running' ORDER BY "started_at" DESC`, [sourceId]);
  return rows[0] ? toRun(rows[0]) : null;
}

/** `complete`: only runs that read every stream to its end (readEveryStream). */
export interface LastRunFilter {
  status?: RunStatus;
  complete?: boolean;
  mode?: 'full' | 'incremental';
}

export async function lastRun(db: Driver, sourceId: string, where: LastRunFilter = {}): Promise<RunRecord | null> {
  const c = new Conditions().add(`"source_id" = ?`, sourceId);
  if (where.status) c.add(`"status" = ?`, where.status);
  if (where.complete) c.add(READ_EVERY_STREAM);
  if (where.mode) c.add(`"mode" = ?`, where.mode);
  const rows = await db.all(`SELECT * FROM "sync_runs"${c.where} ORDER BY "started_at" DESC LIMIT 1`, c.params);
  return rows[0] ? toRun(rows[0]) : null;
}

export async function heartbeat(db: Driver, runId: string, counts: Record<string, StreamCounts>, activity?: RunActivity | null): Promise<void> {
  await db.run(`UPDATE "sync_runs" SET "heartbeat_at" = ?, "counts" = ? WHERE "id" = ?`, [nowIso(), packCounts(counts, activity), runId]);
}

export async function finishRun(
  db: Driver,
  runId: string,
  status: RunStatus,
  counts: Record<string, StreamCounts>,
  error: string | null,
  activity?: RunActivity | null,
  shortfalls?: RunShortfalls | null,
): Promise<void> {
  await db.run(
    `UPDATE "sync_runs" SET "status" = ?, "finished_at" = ?, "heartbeat_at" = ?, "counts" = ?, "error" = ?, "rejected" = ?, "row_errors" = ? WHERE "id" = ?`,
    [
      status,
      nowIso(),
      nowIso(),
      packCounts(counts, activity),
      error,
      shortfalls ? packList(shortfalls.rejected, shortfalls.rejectedTotal) : null,
      shortfalls ? packList(shortfalls.errors, shortfalls.errorsTotal) : null,
      runId,
    ],
  );
}

export async function getCheckpoints(db: Driver, sourceId: string): Promise<Map<string, CheckpointRecord>> {
  const rows = await db.all(`SELECT * FROM "checkpoints" WHERE "source_id" = ?`, [sourceId]);
  return new Map(
    rows.map((r) => [
      String(r.stream),
      {
        stream: String(r.stream),
        value: parseJson(r.value, null),
        complete: Number(r.complete) === 1,
        mode: r.mode as CheckpointRecord['mode'],
        generation: String(r.generation),
        runId: (r.run_id as string | null) ?? null,
      },
    ]),
  );
}
