// Scheduled export destinations and their per-source status (migration 11).
import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError } from '../../core/errors.ts';
import type { Driver, Row } from '../db/driver.ts';
import { Conditions } from '../db/rows.ts';

export type ExportMode = 'full' | 'changes';
export type ExportRunStatus = 'running' | 'succeeded' | 'failed';

export interface DestinationRecord {
  id: string;
  name: string;
  /** null: every source. */
  sourceId: string | null;
  /** A folder or `s3://bucket/prefix`. */
  target: string;
  format: string;
  ocsfVersion: string | null;
  ecsBulk: boolean;
  models: string[];
  mode: ExportMode;
  createdAt: string;
}

export interface ExportStatusRecord {
  destinationId: string;
  sourceId: string;
  status: ExportRunStatus;
  /** The sync run the export followed. */
  runId: string | null;
  /** The last run whose records were exported (changes-only exports start after it). */
  exportedRunId: string | null;
  exportedRunStartedAt: string | null;
  attempts: number;
  startedAt: string | null;
  finishedAt: string | null;
  records: number;
  files: string[];
  error: string | null;
}

const toDestination = (r: Row): DestinationRecord => ({
  id: String(r.id),
  name: String(r.name),
  sourceId: (r.source_id as string | null) ?? null,
  target: String(r.target),
  format: String(r.format),
  ocsfVersion: (r.ocsf_version as string | null) ?? null,
  ecsBulk: Number(r.ecs_bulk) === 1,
  models: JSON.parse(String(r.models)) as string[],
  mode: r.mode as ExportMode,
  createdAt: String(r.created_at),
});

const toStatus = (r: Row): ExportStatusRecord => ({
  destinationId: String(r.destination_id),
  sourceId: String(r.source_id),
  status: r.status as ExportRunStatus,
  runId: (r.run_id as string | null) ?? null,
  exportedRunId: (r.exported_run_id as string | null) ?? null,
  exportedRunStartedAt: (r.exported_run_started_at as string | null) ?? null,
  attempts: Number(r.attempts),
  startedAt: (r.started_at as string | null) ?? null,
  finishedAt: (r.finished_at as string | null) ?? null,
  records: Number(r.records),
  files: JSON.parse(String(r.files ?? '[]')) as string[],
  error: (r.error as string | null) ?? null,
});

export async function createDestination(db: Driver, d: Omit<DestinationRecord, 'id' | 'createdAt'>): Promise<DestinationRecord> {
  if ((await db.all(`SELECT "id" FROM "export_destinations" WHERE "name" = ?`, [d.name])).length)
    throw new ConflictError(`an export destination named '${d.name}' exists already`);
  const id = randomUUID();
  await db.run(
    `INSERT INTO "export_destinations" ("id", "name", "source_id", "target", "format", "ocsf_version", "ecs_bulk", "models", "mode", "created_at") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [id, d.name, d.sourceId, d.target, d.format, d.ocsfVersion, d.ecsBulk ? 1 : 0, JSON.stringify(d.models), d.mode, new Date().toISOString()],
  );
  return getDestination(db, d.name);
}

export async function getDestination(db: Driver, name: string): Promise<DestinationRecord> {
  const rows = await db.all(`SELECT * FROM "export_destinations" WHERE "name" = ?`, [name]);
  if (!rows[0]) throw new NotFoundError(`no export destination named '${name}'`);
  return toDestination(rows[0]);
}

/** All destinations, or those that apply to one source (its own and the all-sources ones). */
export async function listDestinations(db: Driver, sourceId?: string): Promise<DestinationRecord[]> {
  const rows = sourceId
    ? await db.all(`SELECT * FROM "export_destinations" WHERE "source_id" IS NULL OR "source_id" = ? ORDER BY "name"`, [sourceId])
    : await db.all(`SELECT * FROM "export_destinations" ORDER BY "name"`);
  return rows.map(toDestination);
}

export async function deleteDestination(db: Driver, name: string): Promise<void> {
  const d = await getDestination(db, name);
  await db.transaction(async (tx) => {
    await tx.run(`DELETE FROM "export_status" WHERE "destination_id" = ?`, [d.id]);
    await tx.run(`DELETE FROM "export_destinations" WHERE "id" = ?`, [d.id]);
  });
}

/** Forgets a removed source: its destinations and its export statuses. */
export async function deleteSourceExports(db: Driver, sourceId: string): Promise<void> {
  await db.run(`DELETE FROM "export_status" WHERE "source_id" = ? OR "destination_id" IN (SELECT "id" FROM "export_destinations" WHERE "source_id" = ?)`, [
    sourceId,
    sourceId,
  ]);
  await db.run(`DELETE FROM "export_destinations" WHERE "source_id" = ?`, [sourceId]);
}

export async function getExportStatus(db: Driver, destinationId: string, sourceId: string): Promise<ExportStatusRecord | null> {
  const rows = await db.all(`SELECT * FROM "export_status" WHERE "destination_id" = ? AND "source_id" = ?`, [destinationId, sourceId]);
  return rows[0] ? toStatus(rows[0]) : null;
}

export async function listExportStatuses(db: Driver, where: { destinationId?: string; sourceId?: string } = {}): Promise<ExportStatusRecord[]> {
  const c = new Conditions();
  if (where.destinationId) c.add(`"destination_id" = ?`, where.destinationId);
  if (where.sourceId) c.add(`"source_id" = ?`, where.sourceId);
  const rows = await db.all(`SELECT * FROM "export_status"${c.where} ORDER BY "destination_id", "source_id"`, c.params);
  return rows.map(toStatus);
}

/** Writes the status of one destination for one source (insert or replace). */
export async function putExportStatus(db: Driver, s: ExportStatusRecord): Promise<void> {
  await db.run(
    `INSERT INTO "export_status" ("destination_id", "source_id", "status", "run_id", "exported_run_id", "exported_run_started_at", "attempts", "started_at", "finished_at", "records", "files", "error")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT ("destination_id", "source_id") DO UPDATE SET "status" = excluded."status", "run_id" = excluded."run_id", "exported_run_id" = excluded."exported_run_id",
       "exported_run_started_at" = excluded."exported_run_started_at", "attempts" = excluded."attempts", "started_at" = excluded."started_at", "finished_at" = excluded."finished_at",
       "records" = excluded."records", "files" = excluded."files", "error" = excluded."error"`,
    [
      s.destinationId,
      s.sourceId,
      s.status,
      s.runId,
      s.exportedRunId,
      s.exportedRunStartedAt,
      s.attempts,
      s.startedAt,
      s.finishedAt,
      s.records,
      JSON.stringify(s.files),
      s.error,
    ],
  );
}
