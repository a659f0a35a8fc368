// Import bookkeeping: which version (key + etag) of which object a source imported, with rows read,
// imported and rejected (line numbers and reasons). A sync of a file-mode source lists its bucket and
// imports each object version it has no record of, so re-running imports nothing twice, and a changed
// file (new etag) is imported again.
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { AppContext } from '../app/context.ts';
import { InputError } from '../core/errors.ts';
import type { BucketObject, FileImportResult, FileImportStatus, FileSnapshot, RejectedRow, SourceBucket } from '../core/files.ts';
import type { Row } from '../store/driver.ts';
import type { SourceRecord } from '../store/store.ts';
import type { FileDropBackend } from './backend.ts';

import { fileDropOf, sourceBucketOf } from './resolve.ts';

/** Rejected rows kept per file (rowsRejected has the total). */
export const MAX_STORED_REJECTIONS = 1000;
const STATUSES: FileImportStatus[] = ['imported', 'partial', 'rejected'];

export interface FileImportRecord extends FileImportResult {
  id: string;
  bucket: string;
  importedAt: string;
  runId: string | null;
}

export interface OpenBucketOptions {
  /** The sync run importing, recorded with each file. */
  runId?: string | null;
  /** Treat every object as not imported yet (a forced re-import). */
  reimport?: boolean;
}

type SourceLike = Pick<SourceRecord, 'id' | 'name' | 'type' | 'config'>;

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

function checkResult(r: FileImportResult): void {
  if (!r.key || !r.etag) throw new InputError('an import result needs the object key and etag');
  if (!STATUSES.includes(r.status)) throw new InputError(`import status must be one of ${STATUSES.join(', ')}`);
  for (const [k, v] of [
    ['size', r.size],
    ['rowsRead', r.rowsRead],
    ['rowsImported', r.rowsImported],
    ['rowsRejected', r.rowsRejected],
  ] as const) {
    if (!Number.isSafeInteger(v) || v < 0) throw new InputError(`import result ${k} must be a non-negative integer`);
  }
}

export async function isImported(app: AppContext, sourceId: string, obj: Pick<BucketObject, 'key' | 'etag'>): Promise<boolean> {
  const rows = await app.store.db.all(`SELECT 1 AS "x" FROM "file_imports" WHERE "source_id" = ? AND "key" = ? AND "etag" = ?`, [sourceId, obj.key, obj.etag]);
  return rows.length > 0;
}

/** Stores the outcome of importing one object version; importing the same version again replaces it. */
export async function recordImport(app: AppContext, sourceId: string, bucket: string, result: FileImportResult, runId: string | null = null): Promise<void> {
  checkResult(result);
  const rejections = JSON.stringify((result.rejections ?? []).slice(0, MAX_STORED_REJECTIONS).map((r) => ({ line: r.line, reason: r.reason })));
  const now = new Date().toISOString();
  await app.store.db.run(
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
export async function snapshotOf(app: AppContext, sourceId: string, obj: Pick<BucketObject, 'key' | 'etag'>): Promise<FileSnapshot | null> {
  const rows = await app.store.db.all(
    `SELECT "snapshot_run", "snapshot_at", "imported_at", "run_id" FROM "file_imports" WHERE "source_id" = ? AND "key" = ? AND "etag" = ?`,
    [sourceId, obj.key, obj.etag],
  );
  const r = rows[0];
  if (!r) return null;
  // Imported before snapshots were recorded: its own import is its snapshot.
  return { run: String(r.snapshot_run ?? r.run_id ?? r.imported_at), at: String(r.snapshot_at ?? r.imported_at) };
}

/** Import records of a source, newest first (optionally of one key). */
export async function listImports(app: AppContext, sourceId: string, key?: string): Promise<FileImportRecord[]> {
  const rows = key
    ? await app.store.db.all(`SELECT * FROM "file_imports" WHERE "source_id" = ? AND "key" = ? ORDER BY "imported_at" DESC`, [sourceId, key])
    : await app.store.db.all(`SELECT * FROM "file_imports" WHERE "source_id" = ? ORDER BY "imported_at" DESC`, [sourceId]);
  return rows.map(toImport);
}

/** Removes a source's import records and upload tokens (call when the source is deleted). */
export async function forgetSource(app: AppContext, sourceId: string): Promise<void> {
  await app.store.db.run(`DELETE FROM "file_imports" WHERE "source_id" = ?`, [sourceId]);
  await app.store.db.run(`DELETE FROM "upload_tokens" WHERE "source_id" = ?`, [sourceId]);
}

class StoreBackedBucket implements SourceBucket {
  readonly address: string;
  readonly bucket: string;
  readonly #app: AppContext;
  readonly #backend: FileDropBackend;
  readonly #sourceId: string;
  readonly #opts: OpenBucketOptions;

  constructor(app: AppContext, backend: FileDropBackend, source: SourceLike, opts: OpenBucketOptions) {
    this.#app = app;
    this.#backend = backend;
    this.#sourceId = source.id;
    this.#opts = opts;
    this.bucket = sourceBucketOf(app, source);
    // A local bucket is shown as its folder, an S3 one by its s3:// address.
    this.address = backend.folderOf?.(this.bucket) ?? `s3://${this.bucket}/`;
  }

  list(): AsyncIterable<BucketObject> {
    return this.#backend.list(this.bucket);
  }

  open(key: string): Promise<Readable> {
    return this.#backend.open(this.bucket, key);
  }

  async isImported(obj: BucketObject): Promise<boolean> {
    if (this.#opts.reimport) return false;
    return isImported(this.#app, this.#sourceId, obj);
  }

  recordImport(result: FileImportResult): Promise<void> {
    return recordImport(this.#app, this.#sourceId, this.bucket, result, this.#opts.runId ?? null);
  }

  snapshotOf(obj: Pick<BucketObject, 'key' | 'etag'>): Promise<FileSnapshot | null> {
    return snapshotOf(this.#app, this.#sourceId, obj);
  }
}

/** The bucket of a source as its file-mode streams see it (the runner sets ctx.bucket from it). */
export function openSourceBucket(app: AppContext, source: SourceLike, opts: OpenBucketOptions = {}): SourceBucket & { readonly bucket: string } {
  return new StoreBackedBucket(app, fileDropOf(app), source, opts);
}

export type FileState = 'pending' | 'changed' | FileImportStatus;

export interface FileView extends BucketObject {
  /** `pending`: never imported; `changed`: an earlier version was imported; else this version's import status. */
  status: FileState;
  import: Omit<FileImportRecord, 'key' | 'bucket'> | null;
}

/** The objects in a source's bucket with the import status of their current version. */
export async function listFiles(app: AppContext, source: SourceLike): Promise<{ bucket: string; address: string; folder: string | null; items: FileView[] }> {
  const bucket = sourceBucketOf(app, source);
  const imports = await listImports(app, source.id);
  const byVersion = new Map(imports.map((i) => [`${i.key}\u0000${i.etag}`, i]));
  const seenKeys = new Set(imports.map((i) => i.key));
  const items: FileView[] = [];
  for await (const obj of fileDropOf(app).list(bucket)) {
    const imp = byVersion.get(`${obj.key}\u0000${obj.etag}`) ?? null;
    const status: FileState = imp ? imp.status : seenKeys.has(obj.key) ? 'changed' : 'pending';
    let view: FileView['import'] = null;
    if (imp) {
      const { key: _k, bucket: _b, ...rest } = imp;
      view = rest;
    }
    items.push({ ...obj, status, import: view });
  }
  return { bucket, address: `s3://${bucket}/`, folder: fileDropOf(app).folderOf?.(bucket) ?? null, items };
}
