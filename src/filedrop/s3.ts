// The S3-compatible backend (AWS S3, MinIO, Ceph RGW, …) through the AWS SDK v3: one real bucket per
// bucket name. Uploads of unknown length are sent as a multipart upload in bounded parts (memory stays
// at one part per upload); S3 publishes an object only once its upload completes, so a half-uploaded
// file is never listed. Checksums are sent only where the API requires them, which keeps
// S3-compatible servers that do not know the newer checksum headers working. The SDK is loaded on the
// first request: a store without S3 never pays for its resident memory.
import type { Readable } from 'node:stream';
import type { ListObjectsV2CommandOutput, S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { NotFoundError } from '../core/errors.ts';
import type { BucketObject } from '../core/files.ts';
import { type FileDropBackend, type PutOptions, type S3Settings, StorageError, TooLargeError } from './backend.ts';
import { validateBucketName, validateKey } from './names.ts';

export interface S3BackendOptions {
  /** Custom endpoint (MinIO, Ceph…): `http://127.0.0.1:9000`; null for AWS. */
  endpoint?: string | null;
  region?: string;
  forcePathStyle?: boolean;
  /** Explicit credentials; otherwise the SDK's default chain (AWS_* variables, profiles, roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Multipart part size for uploads of unknown or large size (at least 5 MiB on AWS). */
  partSize?: number;
}

const DEFAULT_PART_SIZE = 8 * 1024 * 1024;

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

const statusOf = (err: unknown): number | undefined => (err as SdkError)?.$metadata?.httpStatusCode;
const isNotFound = (err: unknown): boolean => {
  const e = err as SdkError;
  return statusOf(err) === 404 || e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.name === 'NoSuchBucket';
};

type Sdk = typeof import('@aws-sdk/client-s3');
let sdkLoading: Promise<Sdk> | null = null;
const loadSdk = (): Promise<Sdk> => (sdkLoading ??= import('@aws-sdk/client-s3'));

const stripQuotes = (etag: string | undefined): string => (etag ?? '').replace(/^W\//, '').replace(/^"|"$/g, '');

export class S3Backend implements FileDropBackend {
  readonly kind = 's3' as const;
  readonly #config: S3ClientConfig;
  #client: Promise<S3Client> | null = null;
  readonly s3: S3Settings;
  readonly #partSize: number;

  constructor(opts: S3BackendOptions = {}) {
    this.s3 = { endpoint: opts.endpoint ?? null, region: opts.region ?? 'us-east-1', forcePathStyle: opts.forcePathStyle ?? false };
    this.#partSize = Math.max(opts.partSize ?? DEFAULT_PART_SIZE, 1024);
    const config: S3ClientConfig = {
      region: this.s3.region,
      forcePathStyle: this.s3.forcePathStyle,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      followRegionRedirects: true,
    };
    if (this.s3.endpoint) config.endpoint = this.s3.endpoint;
    if (opts.credentials) config.credentials = opts.credentials;
    this.#config = config;
  }

  /** The SDK client, made on first use. */
  client(): Promise<S3Client> {
    this.#client ??= loadSdk().then((sdk) => new sdk.S3Client(this.#config));
    return this.#client;
  }

  /** The SDK's command classes and the client that sends them. */
  async #sdk(): Promise<{ sdk: Sdk; client: S3Client }> {
    const [sdk, client] = await Promise.all([loadSdk(), this.client()]);
    return { sdk, client };
  }

  get description(): string {
    return `s3:${this.s3.endpoint ?? `aws (${this.s3.region})`}`;
  }

  /** Turns an SDK failure into a message that names the bucket and the likely fix. */
  #fail(what: string, bucket: string, err: unknown): never {
    if (err instanceof NotFoundError || err instanceof TooLargeError || err instanceof StorageError) throw err;
    const e = err as SdkError;
    const status = statusOf(err);
    const detail = e?.message || e?.name || String(err);
    let hint: string | null = null;
    if (e?.name === 'CredentialsProviderError' || /credential/i.test(detail))
      hint = 'set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or an AWS profile) for the file drop';
    else if (status === 403 || e?.name === 'AccessDenied' || e?.name === 'InvalidAccessKeyId' || e?.name === 'SignatureDoesNotMatch')
      hint = `check that the credentials may read and write bucket '${bucket}' (and the clock is right)`;
    else if (e?.code === 'ECONNREFUSED' || e?.code === 'ENOTFOUND' || /ECONNREFUSED|ENOTFOUND|getaddrinfo/.test(detail))
      hint = `check TRIBUTARY_S3_ENDPOINT (${this.s3.endpoint ?? 'AWS default'})`;
    else if (e?.name === 'PermanentRedirect' || e?.name === 'AuthorizationHeaderMalformed') hint = "set AWS_REGION to the bucket's region";
    throw new StorageError(`file drop: ${what} in bucket '${bucket}' failed: ${detail}`, hint, err);
  }

  async ensureBucket(bucket: string): Promise<void> {
    validateBucketName(bucket);
    try {
      const { sdk, client } = await this.#sdk();
      await client.send(new sdk.HeadBucketCommand({ Bucket: bucket }));
      return;
    } catch (err) {
      if (!isNotFound(err)) this.#fail('checking the bucket', bucket, err);
    }
    try {
      const location =
        this.s3.region !== 'us-east-1' && !this.s3.endpoint ? { CreateBucketConfiguration: { LocationConstraint: this.s3.region as never } } : {};
      const { sdk, client } = await this.#sdk();
      await client.send(new sdk.CreateBucketCommand({ Bucket: bucket, ...location }));
    } catch (err) {
      const name = (err as SdkError)?.name;
      if (name === 'BucketAlreadyOwnedByYou') return;
      if (name === 'BucketAlreadyExists')
        throw new StorageError(`bucket '${bucket}' belongs to another account`, "choose another name with the source's `bucket` setting");
      this.#fail('creating the bucket', bucket, err);
    }
  }

  async *list(bucket: string): AsyncIterable<BucketObject> {
    validateBucketName(bucket);
    let token: string | undefined;
    do {
      let page: ListObjectsV2CommandOutput;
      try {
        const { sdk, client } = await this.#sdk();
        page = await client.send(new sdk.ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
      } catch (err) {
        if (isNotFound(err)) return;
        this.#fail('listing', bucket, err);
      }
      for (const o of page.Contents ?? []) {
        if (!o.Key || o.Key.endsWith('/')) continue;
        yield { key: o.Key, size: Number(o.Size ?? 0), etag: stripQuotes(o.ETag), lastModified: (o.LastModified ?? new Date(0)).toISOString() };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async stat(bucket: string, key: string): Promise<BucketObject | null> {
    validateBucketName(bucket);
    validateKey(key);
    try {
      const { sdk, client } = await this.#sdk();
      const h = await client.send(new sdk.HeadObjectCommand({ Bucket: bucket, Key: key }));
      return { key, size: Number(h.ContentLength ?? 0), etag: stripQuotes(h.ETag), lastModified: (h.LastModified ?? new Date(0)).toISOString() };
    } catch (err) {
      if (isNotFound(err)) return null;
      this.#fail(`reading '${key}'`, bucket, err);
    }
  }

  async open(bucket: string, key: string): Promise<Readable> {
    validateBucketName(bucket);
    validateKey(key);
    try {
      const { sdk, client } = await this.#sdk();
      const r = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key }));
      return r.Body as Readable;
    } catch (err) {
      if (isNotFound(err)) throw new NotFoundError(`no object '${key}' in bucket '${bucket}'`);
      this.#fail(`reading '${key}'`, bucket, err);
    }
  }

  async put(bucket: string, key: string, body: Readable | AsyncIterable<Uint8Array>, opts: PutOptions = {}): Promise<BucketObject> {
    validateBucketName(bucket);
    validateKey(key);
    const max = opts.maxBytes ?? Number.POSITIVE_INFINITY;
    if (opts.size !== undefined && opts.size > max) throw new TooLargeError(max);
    let uploadId: string | undefined;
    const parts: { ETag: string; PartNumber: number }[] = [];
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let total = 0;
    const flushPart = async (): Promise<void> => {
      if (!uploadId) {
        const { sdk, client } = await this.#sdk();
        const created = await client.send(new sdk.CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: opts.contentType }));
        uploadId = created.UploadId;
      }
      const data = Buffer.concat(pending);
      pending = [];
      pendingBytes = 0;
      const { sdk, client } = await this.#sdk();
      const r = await client.send(
        new sdk.UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber: parts.length + 1, Body: data, ContentLength: data.length }),
      );
      parts.push({ ETag: r.ETag ?? '', PartNumber: parts.length + 1 });
    };
    try {
      for await (const chunk of body) {
        const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        total += buf.length;
        if (total > max) throw new TooLargeError(max);
        opts.onBytes?.(total);
        pending.push(buf);
        pendingBytes += buf.length;
        if (pendingBytes >= this.#partSize) await flushPart();
      }
      if (!uploadId) {
        const data = Buffer.concat(pending);
        const { sdk, client } = await this.#sdk();
        await client.send(new sdk.PutObjectCommand({ Bucket: bucket, Key: key, Body: data, ContentLength: data.length, ContentType: opts.contentType }));
      } else {
        if (pendingBytes > 0) await flushPart();
        const { sdk, client } = await this.#sdk();
        await client.send(new sdk.CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
      }
    } catch (err) {
      const { sdk, client } = await this.#sdk();
      if (uploadId) await client.send(new sdk.AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId })).catch(() => undefined);
      if (isNotFound(err) && (err as SdkError).name === 'NoSuchBucket')
        throw new StorageError(`bucket '${bucket}' does not exist`, 'create it, or run `tributary sources file-drop NAME` which creates it');
      this.#fail(`uploading '${key}'`, bucket, err);
    }
    const obj = await this.stat(bucket, key);
    if (!obj) throw new StorageError(`uploaded '${key}' to bucket '${bucket}' but cannot read it back`);
    return obj;
  }

  async delete(bucket: string, key: string): Promise<boolean> {
    const existing = await this.stat(bucket, key);
    if (!existing) return false;
    try {
      const { sdk, client } = await this.#sdk();
      await client.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: key }));
      return true;
    } catch (err) {
      this.#fail(`deleting '${key}'`, bucket, err);
    }
  }

  async presignPut(bucket: string, key: string, expiresSeconds: number): Promise<string> {
    validateBucketName(bucket);
    validateKey(key);
    try {
      const [{ getSignedUrl }, sdk, client] = await Promise.all([import('@aws-sdk/s3-request-presigner'), loadSdk(), this.client()]);
      return await getSignedUrl(client, new sdk.PutObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: expiresSeconds });
    } catch (err) {
      this.#fail(`presigning an upload of '${key}'`, bucket, err);
    }
  }

  async close(): Promise<void> {
    if (this.#client) (await this.#client).destroy();
  }
}
