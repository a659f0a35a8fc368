// One interface over the two places buckets live: a local folder (one sub-folder per bucket) and
// S3-compatible object storage (one real bucket per bucket name).
import { formatBytes } from '../core/format.ts';
import type { Readable } from 'node:stream';
import type { BucketObject } from '../core/files.ts';

export const DEFAULT_MAX_UPLOAD_BYTES = 2 * 1024 ** 3;

export interface PutOptions {
  /** Refuse (and leave nothing behind) once the body passes this many bytes. */
  maxBytes?: number;
  /** The body's length when known (Content-Length, a local file's size). */
  size?: number;
  contentType?: string;
  /** Called with the bytes received so far. */
  onBytes?: (bytes: number) => void;
}

export interface S3Settings {
  endpoint: string | null;
  region: string;
  forcePathStyle: boolean;
}

export interface FileDropBackend {
  readonly kind: 'file' | 's3';
  /** Where the buckets are, for logs and the guide: `file:/srv/drop` or `s3:https://minio:9000`. */
  readonly description: string;
  /** For S3: how to reach the storage (the guide prints it). */
  readonly s3: S3Settings | null;
  /** Creates the bucket when it does not exist. */
  ensureBucket(bucket: string): Promise<void>;
  /** Objects in the bucket (nothing when the bucket does not exist yet). Never lists half-written uploads. */
  list(bucket: string): AsyncIterable<BucketObject>;
  stat(bucket: string, key: string): Promise<BucketObject | null>;
  open(bucket: string, key: string): Promise<Readable>;
  /** Stores the body under key, atomically: readers see the old object or the whole new one. */
  put(bucket: string, key: string, body: Readable | AsyncIterable<Uint8Array>, opts?: PutOptions): Promise<BucketObject>;
  /** Deletes the object; false when there was none. */
  delete(bucket: string, key: string): Promise<boolean>;
  /** The folder a bucket is (local folder backend only): where its files are, as users see it. */
  folderOf?(bucket: string): string;
  /** A URL that accepts one HTTP PUT of this key, without other credentials (S3 only). */
  presignPut?(bucket: string, key: string, expiresSeconds: number): Promise<string>;
  close(): Promise<void>;
}

/** An upload larger than the limit (HTTP 413). */
export class TooLargeError extends Error {
  readonly statusCode = 413;
  readonly code = 'body_too_large';
  constructor(limit: number) {
    super(`the file is larger than the upload limit (${formatBytes(limit)})`);
    this.name = 'TooLargeError';
  }
}

/** The storage said no or could not be reached: names the bucket and the likely fix. */
export class StorageError extends Error {
  readonly hint: string | null;
  constructor(message: string, hint: string | null = null, cause?: unknown) {
    super(hint ? `${message}; ${hint}` : message, cause === undefined ? undefined : { cause });
    this.name = 'StorageError';
    this.hint = hint;
  }
}
