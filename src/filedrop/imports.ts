// Import bookkeeping: which version (key + etag) of which object a source imported, with rows read,
// imported and rejected (line numbers and reasons). A sync of a file-mode source lists its bucket and
// imports each object version it has no record of, so re-running imports nothing twice, and a changed
// file (new etag) is imported again.
import type { Readable } from 'node:stream';
import { InputError } from '../core/errors.ts';
import type { BucketObject, FileImportResult, FileImportStatus, FileSnapshot, ImportedExport, SourceBucket } from '../core/files.ts';
import { type FileImportRecord, MAX_STORED_REJECTIONS, type SourceRecord } from '../store/index.ts';
import type { FileDropBackend } from './backend.ts';
import type { FileDropContext } from './context.ts';
import { fileDropOf, sourceBucketOf } from './resolve.ts';

export { type FileImportRecord, MAX_STORED_REJECTIONS };
const STATUSES: FileImportStatus[] = ['imported', 'partial', 'rejected', 'skipped'];

export interface OpenBucketOptions {
  /** The sync run importing, recorded with each file. */
  runId?: string | null;
  /** Treat every object as not imported yet (a forced re-import). */
  reimport?: boolean;
  /** Told each import once it is recorded (the run lists the files it rejected). */
  onRecorded?: (result: FileImportResult) => void;
}

type SourceLike = Pick<SourceRecord, 'id' | 'name' | 'type' | 'config'>;

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

export async function isImported(app: FileDropContext, sourceId: string, obj: Pick<BucketObject, 'key' | 'etag'>): Promise<boolean> {
  return app.store.sources.files.has(sourceId, obj);
}

/** Stores the outcome of importing one object version; importing the same version again replaces it. */
export async function recordImport(
  app: FileDropContext,
  sourceId: string,
  bucket: string,
  result: FileImportResult,
  runId: string | null = null,
): Promise<void> {
  checkResult(result);
  await app.store.sources.files.save(sourceId, bucket, result, runId);
}

/** The snapshot a version of an object belongs to (the run that first imported it, and when), or null. */
export function snapshotOf(app: FileDropContext, sourceId: string, obj: Pick<BucketObject, 'key' | 'etag'>): Promise<FileSnapshot | null> {
  return app.store.sources.files.snapshot(sourceId, obj);
}

/** Import records of a source, newest first (optionally of one key). */
export function listImports(app: FileDropContext, sourceId: string, key?: string): Promise<FileImportRecord[]> {
  return app.store.sources.files.of(sourceId, key);
}

/** The files a run skipped as older than an export already imported for their scope, with the reason. */
export function skippedByRun(app: FileDropContext, sourceId: string, runId: string): Promise<{ file: string; reason: string }[]> {
  return app.store.sources.files.skippedOfRun(sourceId, runId);
}

/** Removes a source's import records and upload tokens (call when the source is deleted). */
export function forgetSource(app: FileDropContext, sourceId: string): Promise<void> {
  return app.store.sources.files.forget(sourceId);
}

class StoreBackedBucket implements SourceBucket {
  readonly address: string;
  readonly bucket: string;
  readonly #app: FileDropContext;
  readonly #backend: FileDropBackend;
  readonly #sourceId: string;
  readonly #opts: OpenBucketOptions;

  constructor(app: FileDropContext, backend: FileDropBackend, source: SourceLike, opts: OpenBucketOptions) {
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

  async recordImport(result: FileImportResult): Promise<void> {
    await recordImport(this.#app, this.#sourceId, this.bucket, result, this.#opts.runId ?? null);
    this.#opts.onRecorded?.(result);
  }

  snapshotOf(obj: Pick<BucketObject, 'key' | 'etag'>): Promise<FileSnapshot | null> {
    return snapshotOf(this.#app, this.#sourceId, obj);
  }

  importedExports(): Promise<ImportedExport[]> {
    return this.#app.store.sources.files.importedExports(this.#sourceId);
  }

  // Files no bucket imports, with a reason of their own (the app's: the offline feeds, src/feeds/drop.ts).
  async misplacedReason(obj: BucketObject): Promise<string | null> {
    if (obj.size === 0 || !this.#app.misplacedFiles) return null;
    return this.#app.misplacedFiles.reasonFor(async (max) => readUpTo(await this.open(obj.key), max));
  }
}

/** The first `max` bytes of a stream (all of it when shorter); the stream is closed. */
async function readUpTo(input: Readable, max: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let n = 0;
  try {
    for await (const chunk of input) {
      const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      parts.push(b);
      n += b.length;
      if (n >= max) break;
    }
  } finally {
    input.destroy();
  }
  return Buffer.concat(parts).subarray(0, max);
}

/** The bucket of a source as its file-mode streams see it (the runner sets ctx.bucket from it). */
export function openSourceBucket(app: FileDropContext, source: SourceLike, opts: OpenBucketOptions = {}): SourceBucket & { readonly bucket: string } {
  return new StoreBackedBucket(app, fileDropOf(app), source, opts);
}

export type FileState = 'pending' | 'changed' | FileImportStatus;

export interface FileView extends BucketObject {
  /** `pending`: never imported; `changed`: an earlier version was imported; else this version's import status. */
  status: FileState;
  import: Omit<FileImportRecord, 'key' | 'bucket'> | null;
}

/** The objects in a source's bucket with the import status of their current version. */
export async function listFiles(
  app: FileDropContext,
  source: SourceLike,
): Promise<{ bucket: string; address: string; folder: string | null; items: FileView[] }> {
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
