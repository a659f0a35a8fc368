// The local-folder backend: `<root>/<bucket>/<key>`. Uploads are written to `<root>/.incoming/` and
// renamed into the bucket once complete (same file system, so the rename is atomic and a half-written
// upload is never listed). ETags are the MD5 of the content, as S3 gives for single-part uploads;
// they are cached in `<root>/.meta/<bucket>/<sha-256 of key>.json` beside size, mtime and inode, so a
// listing hashes a file only when it is new or changed (the hashed name fits however long the key is;
// the inode tells a racing upload's file from the one the cache was written for).
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdir, readdir, readFile, realpath, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InputError, NotFoundError } from '../core/errors.ts';
import type { BucketObject } from '../core/files.ts';
import { type FileDropBackend, type PutOptions, TooLargeError } from './backend.ts';
import { validateBucketName, validateKey } from './names.ts';

interface MetaCache {
  etag: string;
  size: number;
  mtimeMs: number;
  ino: number;
}

const isMissing = (err: unknown): boolean => (err as NodeJS.ErrnoException)?.code === 'ENOENT' || (err as NodeJS.ErrnoException)?.code === 'ENOTDIR';

/** Counts and hashes what passes through; fails once more than `max` bytes came. */
export class Meter extends Transform {
  bytes = 0;
  readonly #hash = createHash('md5');
  readonly #max: number;
  readonly #onBytes: ((n: number) => void) | undefined;

  constructor(max: number, onBytes?: (n: number) => void) {
    super();
    this.#max = max;
    this.#onBytes = onBytes;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null, data?: Buffer) => void): void {
    this.bytes += chunk.length;
    if (this.bytes > this.#max) {
      cb(new TooLargeError(this.#max));
      return;
    }
    this.#hash.update(chunk);
    this.#onBytes?.(this.bytes);
    cb(null, chunk);
  }

  digest(): string {
    return this.#hash.digest('hex');
  }
}

export class LocalBackend implements FileDropBackend {
  readonly kind = 'file' as const;
  readonly s3 = null;
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  get description(): string {
    return `file:${this.root}`;
  }

  folderOf(bucket: string): string {
    return this.#bucketDir(bucket);
  }

  #bucketDir(bucket: string): string {
    return join(this.root, validateBucketName(bucket));
  }

  /** The object's path, which must lie inside the bucket folder; hidden segments are not objects. */
  #path(bucket: string, key: string): string {
    validateKey(key);
    const dir = this.#bucketDir(bucket);
    const segments = key.split('/');
    const path = join(dir, ...segments);
    if (segments.some((s) => s.startsWith('.')) || !path.startsWith(dir + sep))
      throw new InputError(`object key '${key}' is hidden or outside the bucket`, 'file');
    return path;
  }

  #metaPath(bucket: string, key: string): string {
    return join(this.root, '.meta', validateBucketName(bucket), `${createHash('sha256').update(key).digest('hex')}.json`);
  }

  async ensureBucket(bucket: string): Promise<void> {
    await mkdir(this.#bucketDir(bucket), { recursive: true });
  }

  async *list(bucket: string): AsyncIterable<BucketObject> {
    let names: string[];
    try {
      const entries = await readdir(this.#bucketDir(bucket), { withFileTypes: true });
      // Regular files only: no folders, no symbolic links (which could point outside the bucket).
      names = entries.filter((e) => e.isFile() && !e.name.startsWith('.')).map((e) => e.name);
    } catch (err) {
      if (isMissing(err)) return;
      throw err;
    }
    names.sort();
    for (const name of names) {
      const obj = await this.stat(bucket, name);
      if (obj) yield obj;
    }
  }

  async stat(bucket: string, key: string): Promise<BucketObject | null> {
    const path = this.#path(bucket, key);
    try {
      const st = await lstat(path);
      if (!st.isFile()) return null;
      const etag = await this.#etag(bucket, key, path, st.size, st.mtimeMs, st.ino);
      return { key, size: st.size, etag, lastModified: st.mtime.toISOString() };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async #etag(bucket: string, key: string, path: string, size: number, mtimeMs: number, ino: number): Promise<string> {
    const metaPath = this.#metaPath(bucket, key);
    try {
      const meta = JSON.parse(await readFile(metaPath, 'utf8')) as MetaCache;
      if (meta.size === size && meta.mtimeMs === mtimeMs && meta.ino === ino && typeof meta.etag === 'string') return meta.etag;
    } catch {
      // no cache yet, or unreadable: hash the file
    }
    const hash = createHash('md5');
    await pipeline(createReadStream(path), hash);
    const etag = hash.digest('hex');
    await this.#writeMeta(metaPath, { etag, size, mtimeMs, ino });
    return etag;
  }

  async #writeMeta(metaPath: string, meta: MetaCache): Promise<void> {
    try {
      await mkdir(join(metaPath, '..'), { recursive: true });
      const tmp = `${metaPath}.${randomUUID()}.tmp`;
      await writeFile(tmp, JSON.stringify(meta));
      await rename(tmp, metaPath);
    } catch {
      // The cache is an optimisation; a read-only drop folder still works (files are re-hashed).
    }
  }

  async open(bucket: string, key: string): Promise<Readable> {
    const path = this.#path(bucket, key);
    let real: string;
    let dir: string;
    try {
      [real, dir] = await Promise.all([realpath(path), realpath(this.#bucketDir(bucket))]);
    } catch (err) {
      if (isMissing(err)) throw new NotFoundError(`no object '${key}' in bucket '${bucket}'`);
      throw err;
    }
    if (!real.startsWith(dir + sep)) throw new InputError(`object key '${key}' resolves outside the bucket`, 'file');
    const st = await lstat(path);
    if (!st.isFile()) throw new NotFoundError(`no object '${key}' in bucket '${bucket}'`);
    return createReadStream(path);
  }

  async put(bucket: string, key: string, body: Readable | AsyncIterable<Uint8Array>, opts: PutOptions = {}): Promise<BucketObject> {
    const path = this.#path(bucket, key);
    const incoming = join(this.root, '.incoming');
    await Promise.all([mkdir(incoming, { recursive: true }), mkdir(this.#bucketDir(bucket), { recursive: true })]);
    const tmp = join(incoming, `${randomUUID()}.part`);
    const meter = new Meter(opts.maxBytes ?? Number.POSITIVE_INFINITY, opts.onBytes);
    try {
      if (opts.maxBytes !== undefined && opts.size !== undefined && opts.size > opts.maxBytes) throw new TooLargeError(opts.maxBytes);
      await pipeline(body, meter, createWriteStream(tmp, { flags: 'wx', mode: 0o640, flush: true }));
      const st = await lstat(tmp);
      const etag = meter.digest();
      await rename(tmp, path);
      // The cache names this file's inode: if another upload of the name renames over it before this
      // line runs, the cache no longer matches the stored file and the listing hashes it afresh.
      await this.#writeMeta(this.#metaPath(bucket, key), { etag, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino });
      return { key, size: st.size, etag, lastModified: st.mtime.toISOString() };
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  async delete(bucket: string, key: string): Promise<boolean> {
    const path = this.#path(bucket, key);
    await rm(this.#metaPath(bucket, key), { force: true });
    try {
      const st = await lstat(path);
      if (!st.isFile()) return false;
      await unlink(path);
      return true;
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }

  async close(): Promise<void> {}
}
