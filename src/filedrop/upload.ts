// Putting files into a source's bucket: `tributary upload SOURCE FILE…`, the API's upload routes and
// the upload-token endpoint all come through putIntoBucket (sanitized name, size limit, atomic write).
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import type { FileDropContext } from './context.ts';
import { errorMessage, InputError } from '../core/errors.ts';
import type { BucketObject } from '../core/files.ts';
import { formatBytes } from '../core/format.ts';
import { TooLargeError } from './backend.ts';
import { sanitizeFileName } from './names.ts';
import { fileDropOf, maxUploadBytes, sourceBucketOf } from './resolve.ts';

export interface UploadedFile extends BucketObject {
  bucket: string;
  address: string;
  /** The file's path on a local file drop (what users see there); null on S3. */
  path: string | null;
}

export interface PutIntoBucketOptions {
  size?: number;
  contentType?: string;
  onBytes?: (bytes: number) => void;
}

/** Stores one upload under its sanitized name in the source's bucket (created when missing). */
export async function putIntoBucket(
  app: FileDropContext,
  source: { name: string; type: string; config: Record<string, unknown> },
  fileName: string,
  body: Readable | AsyncIterable<Uint8Array>,
  opts: PutIntoBucketOptions = {},
): Promise<UploadedFile> {
  const key = sanitizeFileName(fileName);
  const bucket = sourceBucketOf(app, source);
  const backend = fileDropOf(app);
  await backend.ensureBucket(bucket);
  const obj = await backend.put(bucket, key, body, { ...opts, maxBytes: maxUploadBytes(app) });
  app.log.info({ source: source.name, bucket, key, size: obj.size, etag: obj.etag }, 'file uploaded to the file drop');
  const folder = backend.folderOf?.(bucket);
  return { ...obj, bucket, address: `s3://${bucket}/${key}`, path: folder ? join(folder, ...key.split('/')) : null };
}

export interface UploadProgress {
  /** The local path being uploaded. */
  path: string;
  key: string;
  bucket: string;
  bytes: number;
  total: number;
  /** 0-based position of the file in the list, and the list's length. */
  index: number;
  count: number;
  done: boolean;
}

/**
 * `tributary upload SOURCE FILE…`: checks every file first (exists, is a regular file, has a usable
 * name, fits the limit, no two files map to the same name), then uploads them one after another.
 * Stops at the first failure with a message naming the file; files uploaded before it stay.
 */
export async function uploadFiles(
  app: FileDropContext,
  sourceName: string,
  paths: string[],
  onProgress?: (p: UploadProgress) => void,
): Promise<UploadedFile[]> {
  if (paths.length === 0) throw new InputError('name at least one file to upload', 'file');
  const source = await app.store.sources.get(sourceName);
  const bucket = sourceBucketOf(app, source);
  const limit = maxUploadBytes(app);
  const planned: { path: string; key: string; size: number }[] = [];
  const byKey = new Map<string, string>();
  for (const path of paths) {
    let size: number;
    try {
      const st = await stat(path);
      if (!st.isFile()) throw new InputError(`'${path}' is not a regular file`, 'file');
      size = st.size;
    } catch (err) {
      if (err instanceof InputError) throw err;
      throw new InputError(`cannot read '${path}': ${errorMessage(err)}`, 'file');
    }
    // A local path names a file here; its base name becomes the key.
    const key = sanitizeFileName(basename(path));
    if (size > limit) throw new InputError(`'${path}' is ${formatBytes(size)}, larger than the upload limit (${formatBytes(limit)})`, 'file');
    const clash = byKey.get(key);
    if (clash) throw new InputError(`'${clash}' and '${path}' would both be stored as '${key}'; upload them separately or rename one`, 'file');
    byKey.set(key, path);
    planned.push({ path, key, size });
  }
  const out: UploadedFile[] = [];
  for (const [index, f] of planned.entries()) {
    const report = (bytes: number, done: boolean) =>
      onProgress?.({ path: f.path, key: f.key, bucket, bytes, total: f.size, index, count: planned.length, done });
    report(0, false);
    try {
      const uploaded = await putIntoBucket(app, source, f.key, createReadStream(f.path), { size: f.size, onBytes: (n) => report(n, false) });
      report(uploaded.size, true);
      out.push(uploaded);
    } catch (err) {
      if (err instanceof TooLargeError || err instanceof InputError) throw new InputError(`'${f.path}': ${err.message}`, 'file');
      throw new Error(`uploading '${f.path}' to s3://${bucket}/ failed: ${errorMessage(err)}`, { cause: err });
    }
  }
  return out;
}
