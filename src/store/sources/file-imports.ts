// The file-import records in the store: which version (key + etag) of which object a source imported,
// with rows read, imported and rejected, and the snapshot it belongs to. The file drop's bookkeeping
// (filedrop/imports.ts) validates results and reads and writes them only through these.
import { randomUUID } from 'node:crypto';
import type { FileImportResult, FileImportStatus, FileScope, FileSnapshot, ImportedExport, RejectedRow } from '../../core/files.ts';
import type { Driver, Row } from '../db/driver.ts';

/** Rejected rows kept per file (rowsRejected has the total). */
export const MAX_STORED_REJECTIONS = 1000;

export interface FileImportRecord extends FileImportResult {
  id: string;
  bucket: string;
  importedAt: string;
  runId: string | null;
}

/** A version of an object in a source's bucket. */
export interface ObjectVersion {
  key: string;
  etag: string;
}

function scopeOf(text: unknown): FileScope | null {
  if (typeof text !== 'string') return null;
  try {
    const v = JSON.parse(text) as FileScope;
    return Array.isArray(v.repositories) && typeof v.fileName === 'boolean' ? v : null;
  } catch {
    return null;
  }
}

function toImport(r: Row): FileImportRecord {
  let rejections: RejectedRow[] = [];
  try {
    rejections = JSON.parse(String(r.rejections ?? '[]'));
  } catch {
    rejections = [];
  }
  return {
    id: String(r.id),
    bucket: String(r.bucket),
    key: String(r.key),
    etag: String(r.etag),
    size: Number(r.size),
    kind: (r.kind as string | null) ?? null,
    rowsRead: Number(r.rows_read),
    rowsImported: Number(r.rows_imported),
    rowsRejected: Number(r.rows_rejected),
    rejections,
    status: r.status as FileImportStatus,
    error: (r.error as string | null) ?? null,
    scope: scopeOf(r.scope),
    exportedAt: (r.exported_at as string | null) ?? null,
    importedAt: String(r.imported_at),
    runId: (r.run_id as string | null) ?? null,
  };
}

export async function hasFileImport(db: Driver, sourceId: string, obj: ObjectVersion): Promise<boolean> {
  const rows = await db.all(`SELECT 1 AS "x" FROM "file_imports" WHERE "source_id" = ? AND "key" = ? AND "etag" = ?`, [sourceId, obj.key, obj.etag]);
  return rows.length > 0;
}

/**
 * Stores the outcome of importing one object version (a validated result); importing the same version
 * again replaces it, keeping the snapshot it first belonged to.
 */
export async function saveFileImport(db: Driver, sourceId: string, bucket: string, result: FileImportResult, runId: string | null): Promise<void> {
  const rejections = JSON.stringify((result.rejections ?? []).slice(0, MAX_STORED_REJECTIONS).map((r) => ({ line: r.line, reason: r.reason })));
  const now = new Date().toISOString();
  await db.run(
    `INSERT INTO "file_imports" ("id", "source_id", "bucket", "key", "etag", "size", "kind", "rows_read", "rows_imported", "rows_rejected", "rejections", "status", "error", "imported_at", "run_id", "snapshot_run", "snapshot_at", "scope", "exported_at")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT ("source_id", "key", "etag") DO UPDATE SET "bucket" = excluded."bucket", "size" = excluded."size", "kind" = excluded."kind",
       "rows_read" = excluded."rows_read", "rows_imported" = excluded."rows_imported", "rows_rejected" = excluded."rows_rejected",
       "rejections" = excluded."rejections", "status" = excluded."status", "error" = excluded."error", "imported_at" = excluded."imported_at", "run_id" = excluded."run_id",
       "scope" = excluded."scope", "exported_at" = excluded."exported_at",
       "snapshot_run" = COALESCE("file_imports"."snapshot_run", excluded."snapshot_run"), "snapshot_at" = COALESCE("file_imports"."snapshot_at", excluded."snapshot_at")`,
    [
      randomUUID(),
      sourceId,
      bucket,
      result.key,
      result.etag,
      result.size,
      result.kind,
      result.rowsRead,
      result.rowsImported,
      result.rowsRejected,
      rejections,
      result.status,
      result.error,
      now,
      runId,
      runId ?? now,
      now,
      result.scope ? JSON.stringify(result.scope) : null,
      result.exportedAt ?? null,
    ],
  );
}

/** The snapshot a version of an object belongs to (the run that first imported it, and when), or null. */
export async function fileImportSnapshot(db: Driver, sourceId: string, obj: ObjectVersion): Promise<FileSnapshot | null> {
  const rows = await db.all(
    `SELECT "snapshot_run", "snapshot_at", "imported_at", "run_id" FROM "file_imports" WHERE "source_id" = ? AND "key" = ? AND "etag" = ?`,
    [sourceId, obj.key, obj.etag],
  );
  const r = rows[0];
  if (!r) return null;
  // Imported before snapshots were recorded: its own import is its snapshot.
  return { run: String(r.snapshot_run ?? r.run_id ?? r.imported_at), at: String(r.snapshot_at ?? r.imported_at) };
}

/**
 * The exports a source imported (status imported or partial) whose scope and export time were
 * recorded, each with its snapshot; imports recorded before scopes were are left out.
 */
export async function importedExportsOf(db: Driver, sourceId: string): Promise<ImportedExport[]> {
  const rows = await db.all(
    `SELECT "key", "etag", "kind", "scope", "exported_at", "snapshot_run", "snapshot_at", "run_id", "imported_at" FROM "file_imports"
      WHERE "source_id" = ? AND "status" IN ('imported', 'partial') AND "kind" IS NOT NULL AND "scope" IS NOT NULL AND "exported_at" IS NOT NULL`,
    [sourceId],
  );
  const out: ImportedExport[] = [];
  for (const r of rows) {
    const scope = scopeOf(r.scope);
    if (!scope) continue;
    out.push({
      key: String(r.key),
      etag: String(r.etag),
      kind: String(r.kind),
      snapshot: String(r.snapshot_run ?? r.run_id ?? r.imported_at),
      snapshotAt: String(r.snapshot_at ?? r.imported_at),
      scope,
      exportedAt: String(r.exported_at),
    });
  }
  return out;
}

/** The files a run recorded as skipped (older than an export already imported for their scope), with the reason. */
export async function skippedFilesOfRun(db: Driver, sourceId: string, runId: string): Promise<{ file: string; reason: string }[]> {
  const rows = await db.all(`SELECT "key", "error" FROM "file_imports" WHERE "source_id" = ? AND "run_id" = ? AND "status" = 'skipped' ORDER BY "key"`, [
    sourceId,
    runId,
  ]);
  return rows.map((r) => ({ file: String(r.key), reason: String(r.error ?? 'older than an export already imported for its scope') }));
}

/** Import records of a source, newest first (optionally of one key). */
export async function fileImportsOf(db: Driver, sourceId: string, key?: string): Promise<FileImportRecord[]> {
  const rows = key
    ? await db.all(`SELECT * FROM "file_imports" WHERE "source_id" = ? AND "key" = ? ORDER BY "imported_at" DESC`, [sourceId, key])
    : await db.all(`SELECT * FROM "file_imports" WHERE "source_id" = ? ORDER BY "imported_at" DESC`, [sourceId]);
  return rows.map(toImport);
}

/** Removes a source's import records and upload tokens (when the source is deleted). */
export async function forgetFileDropOf(db: Driver, sourceId: string): Promise<void> {
  await db.run(`DELETE FROM "file_imports" WHERE "source_id" = ?`, [sourceId]);
  await db.run(`DELETE FROM "upload_tokens" WHERE "source_id" = ?`, [sourceId]);
}
