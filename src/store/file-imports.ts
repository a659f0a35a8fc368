// The file-import records in the store: which version (key + etag) of which object a source imported,
// with rows read, imported and rejected, and the snapshot it belongs to. The file drop's bookkeeping
// (filedrop/imports.ts) validates results and reads and writes them only through these.
import { randomUUID } from 'node:crypto';
import type { FileImportResult, FileImportStatus, FileSnapshot, RejectedRow } from '../core/files.ts';
import type { Row } from './driver.ts';
import type { Store } from './store.ts';

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

type StoreDb = Pick<Store, 'db'>;

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
    importedAt: String(r.imported_at),
    runId: (r.run_id as string | null) ?? null,
  };
}

export async function hasFileImport(store: StoreDb, sourceId: string, obj: ObjectVersion): Promise<boolean> {
  const rows = await store.db.all(`SELECT 1 AS "x" FROM "file_imports" WHERE "source_id" = ? AND "key" = ? AND "etag" = ?`, [sourceId, obj.key, obj.etag]);
  return rows.length > 0;
}

/**
 * Stores the outcome of importing one object version (a validated result); importing the same version
 * again replaces it, keeping the snapshot it first belonged to.
 */
export async function saveFileImport(store: StoreDb, sourceId: string, bucket: string, result: FileImportResult, runId: string | null): Promise<void> {
  const rejections = JSON.stringify((result.rejections ?? []).slice(0, MAX_STORED_REJECTIONS).map((r) => ({ line: r.line, reason: r.reason })));
  const now = new Date().toISOString();
  await store.db.run(
    `INSERT INTO "file_imports" ("id", "source_id", "bucket", "key", "etag", "size", "kind", "rows_read", "rows_imported", "rows_rejected", "rejections", "status", "error", "imported_at", "run_id", "snapshot_run", "snapshot_at")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT ("source_id", "key", "etag") DO UPDATE SET "bucket" = excluded."bucket", "size" = excluded."size", "kind" = excluded."kind",
       "rows_read" = excluded."rows_read", "rows_imported" = excluded."rows_imported", "rows_rejected" = excluded."rows_rejected",
       "rejections" = excluded."rejections", "status" = excluded."status", "error" = excluded."error", "imported_at" = excluded."imported_at", "run_id" = excluded."run_id",
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
    ],
  );
}

/** The snapshot a version of an object belongs to (the run that first imported it, and when), or null. */
export async function fileImportSnapshot(store: StoreDb, sourceId: string, obj: ObjectVersion): Promise<FileSnapshot | null> {
  const rows = await store.db.all(
    `SELECT "snapshot_run", "snapshot_at", "imported_at", "run_id" FROM "file_imports" WHERE "source_id" = ? AND "key" = ? AND "etag" = ?`,
    [sourceId, obj.key, obj.etag],
  );
  const r = rows[0];
  if (!r) return null;
  // Imported before snapshots were recorded: its own import is its snapshot.
  return { run: String(r.snapshot_run ?? r.run_id ?? r.imported_at), at: String(r.snapshot_at ?? r.imported_at) };
}

/** Import records of a source, newest first (optionally of one key). */
export async function fileImportsOf(store: StoreDb, sourceId: string, key?: string): Promise<FileImportRecord[]> {
  const rows = key
    ? await store.db.all(`SELECT * FROM "file_imports" WHERE "source_id" = ? AND "key" = ? ORDER BY "imported_at" DESC`, [sourceId, key])
    : await store.db.all(`SELECT * FROM "file_imports" WHERE "source_id" = ? ORDER BY "imported_at" DESC`, [sourceId]);
  return rows.map(toImport);
}

/** Removes a source's import records and upload tokens (when the source is deleted). */
export async function forgetFileDropOf(store: StoreDb, sourceId: string): Promise<void> {
  await store.db.run(`DELETE FROM "file_imports" WHERE "source_id" = ?`, [sourceId]);
  await store.db.run(`DELETE FROM "upload_tokens" WHERE "source_id" = ?`, [sourceId]);
}
