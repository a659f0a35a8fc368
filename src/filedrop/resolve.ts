// Which backend the buckets live on: `--file-drop URL` / TRIBUTARY_FILE_DROP, default
// `file:<data-dir>/drop`. `s3:` takes its settings from TRIBUTARY_S3_ENDPOINT,
// TRIBUTARY_S3_FORCE_PATH_STYLE, AWS_REGION / AWS_DEFAULT_REGION and the standard AWS credentials;
// query parameters on the URL (`s3:?endpoint=…&region=…&forcePathStyle=true`) override them.
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FileDropContext } from './context.ts';
import { InputError } from '../core/errors.ts';
import { DEFAULT_MAX_UPLOAD_BYTES, type FileDropBackend } from './backend.ts';
import { LocalBackend } from './local.ts';
import { bucketOf } from './names.ts';
import { S3Backend, type S3BackendOptions } from './s3.ts';

export interface ResolveFileDropOptions {
  fileDrop?: string;
  dataDir: string;
  env?: NodeJS.ProcessEnv;
}

const truthy = (v: string | null | undefined): boolean | undefined => {
  if (v === undefined || v === null || v.trim() === '') return undefined;
  if (/^(1|true|yes|on)$/i.test(v.trim())) return true;
  if (/^(0|false|no|off)$/i.test(v.trim())) return false;
  throw new InputError(`'${v}' is not a boolean (true/false)`, 'TRIBUTARY_S3_FORCE_PATH_STYLE');
};

/** The S3 client settings the URL and the environment give. */
export function s3OptionsFrom(url: string, env: NodeJS.ProcessEnv): S3BackendOptions {
  const q = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  const endpoint = q.get('endpoint') || env.TRIBUTARY_S3_ENDPOINT || null;
  if (endpoint && !/^https?:\/\/[^/]+/i.test(endpoint))
    throw new InputError(`S3 endpoint '${endpoint}' must be an http:// or https:// URL`, 'TRIBUTARY_S3_ENDPOINT');
  // A custom endpoint (MinIO and friends) usually wants path-style addressing.
  const forcePathStyle = truthy(q.get('forcePathStyle')) ?? truthy(env.TRIBUTARY_S3_FORCE_PATH_STYLE) ?? Boolean(endpoint);
  const region = q.get('region') || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1';
  const opts: S3BackendOptions = { endpoint: endpoint ? endpoint.replace(/\/+$/, '') : null, region, forcePathStyle };
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    opts.credentials = {
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
    };
  }
  return opts;
}

export function resolveFileDrop(opts: ResolveFileDropOptions): FileDropBackend {
  const env = opts.env ?? process.env;
  const url = (opts.fileDrop ?? env.TRIBUTARY_FILE_DROP ?? '').trim() || `file:${join(opts.dataDir, 'drop')}`;
  if (url === 's3' || url.startsWith('s3:')) {
    if (url.startsWith('s3://'))
      throw new InputError("the file drop URL is 's3:' (settings come from TRIBUTARY_S3_ENDPOINT and AWS_*), not an s3:// address", 'fileDrop');
    return new S3Backend(s3OptionsFrom(url, env));
  }
  if (url.startsWith('file://')) return new LocalBackend(fileURLToPath(url));
  if (url.startsWith('file:')) {
    const dir = url.slice('file:'.length);
    if (dir === '') throw new InputError("the file drop URL 'file:' needs a directory, e.g. file:/srv/tributary/drop", 'fileDrop');
    return new LocalBackend(resolve(dir));
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) && !/^[A-Za-z]:[\\/]/.test(url)) {
    throw new InputError(`unknown file drop URL '${url}': use file:DIR or s3:`, 'fileDrop');
  }
  return new LocalBackend(resolve(url));
}

/** What a FileDropContext may carry about the file drop (the CLI and server set it from --file-drop). */
export interface FileDropSettings {
  /** `--file-drop` URL, or a backend built already. */
  fileDrop?: string | FileDropBackend;
  /** Upload size limit in bytes (default 2 GiB); TRIBUTARY_MAX_UPLOAD_BYTES otherwise. */
  maxUploadBytes?: number;
  env?: NodeJS.ProcessEnv;
}

export type FileDropApp = FileDropContext & FileDropSettings;

const backends = new WeakMap<object, FileDropBackend>();

/** Uses this backend (or URL) for the app from now on; the CLI calls it with `--file-drop`. */
export function setFileDrop(app: FileDropContext, fileDrop: string | FileDropBackend): FileDropBackend {
  const backend = typeof fileDrop === 'string' ? resolveFileDrop({ fileDrop, dataDir: app.dataDir, env: (app as FileDropApp).env }) : fileDrop;
  backends.set(app, backend);
  return backend;
}

/** The app's backend: set by setFileDrop, else from `app.fileDrop`, else from TRIBUTARY_FILE_DROP / the data dir. Built once per app. */
export function fileDropOf(app: FileDropContext): FileDropBackend {
  const known = backends.get(app);
  if (known) return known;
  const a = app as FileDropApp;
  return setFileDrop(app, a.fileDrop ?? resolveFileDrop({ dataDir: app.dataDir, env: a.env }));
}

/** The bucket a source reads from: its `bucket` key, else its connector's declared default, else its name. */
export function sourceBucketOf(app: Pick<FileDropContext, 'registry'>, source: { name: string; type: string; config: Record<string, unknown> }): string {
  return bucketOf(source, app.registry.defaultBucket(source.type));
}

/** Closes the app's backend (S3 client sockets); call from app.close(). */
export async function closeFileDrop(app: FileDropContext): Promise<void> {
  const b = backends.get(app);
  backends.delete(app);
  await b?.close();
}

export function maxUploadBytes(app: FileDropContext): number {
  const a = app as FileDropApp;
  if (a.maxUploadBytes !== undefined) return a.maxUploadBytes;
  const env = (a.env ?? process.env).TRIBUTARY_MAX_UPLOAD_BYTES;
  if (env && /^\d+$/.test(env.trim())) return Number(env.trim());
  return DEFAULT_MAX_UPLOAD_BYTES;
}
