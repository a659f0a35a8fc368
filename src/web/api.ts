// The browser's client of the public /api/v1 API: JSON in and out, the session cookie, the CSRF header
// on unsafe methods, and errors turned into sentences a user understands.

export interface ApiErrorBody {
  code: string;
  message: string;
  field: string | null;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | null;
  constructor(status: number, code: string, message: string, field: string | null = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

let csrfToken: string | null = null;
let onUnauthorized: (() => void) | null = null;

export function setCsrfToken(t: string | null): void {
  csrfToken = t;
}
export function setUnauthorizedHandler(fn: (() => void) | null): void {
  onUnauthorized = fn;
}
export function csrfHeader(): Record<string, string> {
  return csrfToken ? { 'x-csrf-token': csrfToken } : {};
}

/** A sentence for any failure: API errors keep the server's wording, others are explained. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.status === 401 && err.code !== 'invalid_credentials') return 'Your session has ended. Please log in again.';
    if (err.status === 403 && err.code === 'csrf') return 'Your session token is out of date. Reload the page and try again.';
    if (err.status >= 500) return `The server could not complete the request (${err.message}).`;
    return capitalize(err.message);
  }
  if (err instanceof TypeError) return 'Cannot reach the Tributary server. Check that it is running and your network connection.';
  return err instanceof Error ? capitalize(err.message) : String(err);
}

export function capitalize(s: string): string {
  return s.length ? s[0].toUpperCase() + s.slice(1) : s;
}

async function parse(res: Response): Promise<unknown> {
  if (res.status === 204) return null;
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('json')) return res.json();
  const text = await res.text();
  return text === '' ? null : text;
}

export async function api<T>(method: string, path: string, body?: unknown, opts: { signal?: AbortSignal } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET' && method !== 'HEAD') Object.assign(headers, csrfHeader());
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
    signal: opts.signal,
  });
  const data = await parse(res);
  if (!res.ok) {
    const e = (data as { error?: ApiErrorBody } | null)?.error;
    const err = new ApiError(res.status, e?.code ?? 'http_' + res.status, e?.message ?? `request failed with HTTP ${res.status}`, e?.field ?? null);
    if (res.status === 401 && !path.endsWith('/auth/login') && !path.endsWith('/auth/session')) onUnauthorized?.();
    throw err;
  }
  return data as T;
}

export const get = <T>(path: string, signal?: AbortSignal) => api<T>('GET', path, undefined, { signal });

/** Query string from an object; arrays repeat the key; empty values are left out. */
export function qs(params: Record<string, string | number | boolean | null | undefined | (string | number)[]>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) for (const x of v) u.append(k, String(x));
    else u.append(k, String(v));
  }
  const s = u.toString();
  return s ? `?${s}` : '';
}

/** Uploads one file with a raw PUT, reporting progress (fetch cannot report upload progress). */
export function uploadFile(source: string, file: File, onProgress: (loaded: number, total: number) => void): { promise: Promise<unknown>; abort: () => void } {
  const xhr = new XMLHttpRequest();
  const promise = new Promise<unknown>((resolve, reject) => {
    xhr.open('PUT', `/api/v1/sources/${encodeURIComponent(source)}/files/${encodeURIComponent(file.name)}`);
    for (const [k, v] of Object.entries(csrfHeader())) xhr.setRequestHeader(k, v);
    xhr.setRequestHeader('content-type', file.type || 'application/octet-stream');
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      let data: unknown = null;
      try {
        data = JSON.parse(xhr.responseText);
      } catch {
        data = null;
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(file.size, file.size);
        resolve(data);
      } else {
        const e = (data as { error?: ApiErrorBody } | null)?.error;
        reject(new ApiError(xhr.status, e?.code ?? 'http_' + xhr.status, e?.message ?? `upload failed with HTTP ${xhr.status}`, e?.field ?? null));
      }
    };
    xhr.onerror = () => reject(new TypeError('network error'));
    xhr.onabort = () => reject(new Error('upload cancelled'));
    xhr.send(file);
  });
  return { promise, abort: () => xhr.abort() };
}

// ---- shapes of the API's answers ----

export interface SessionInfo {
  user: { id: string; username: string };
  csrfToken: string | null;
  via: 'session' | 'token';
}

export interface FieldMeta {
  key: string;
  label: string;
  help: string | null;
  secret: boolean;
  input: 'text' | 'password' | 'boolean' | 'select' | 'textarea' | 'number';
  options: { value: string; label: string }[] | null;
  showWhen: Record<string, string[]> | null;
  /** Secret fields whose destination this field decides: changing it needs them entered again. */
  sendsSecrets?: string[] | null;
  default?: unknown;
}

export interface ConnectorMeta {
  type: string;
  title: string;
  /** The name users know the upstream by, in lists and headings. */
  shortName: string;
  /** Form layout declared by the connector; null = every field in one section. */
  sections: { title: string | null; help: string | null; keys: string[] }[] | null;
  /** Present when the connector can read exports from the file drop. */
  files: { defaultBucket: string; kinds: string[]; uploadHint: string | null } | null;
  /** The models its sources write (null: not declared). */
  models?: string[] | null;
  fields: FieldMeta[];
}

export interface CheckResult {
  id: string;
  ok: boolean;
  message: string;
  hint: string | null;
}

export interface RunSummary {
  id: string;
  status: RunStatus;
  mode: 'full' | 'incremental';
  startedAt: string;
  finishedAt: string | null;
  error: string | null;
}

export interface SourceView {
  name: string;
  type: string;
  config: Record<string, unknown>;
  schedule: string | null;
  createdAt: string;
  updatedAt: string;
  lastCheck: { ok: boolean; at: string; checks?: CheckResult[] } | null;
  lastRun: RunSummary | null;
  /** Scheduled exports after this source's syncs, with the last one's status. */
  exports?: ExportStatus[];
}

export interface ExportStatus {
  destination: string;
  source: string;
  status: 'running' | 'succeeded' | 'failed' | 'never';
  runId: string | null;
  attempts: number;
  startedAt: string | null;
  finishedAt: string | null;
  records: number;
  files: string[];
  error: string | null;
}

export type RunStatus = 'running' | 'succeeded' | 'failed' | 'partial' | 'interrupted';

export interface Run extends RunSummary {
  source: string | null;
  trigger: string | null;
  resumedFrom: string | null;
  heartbeatAt: string | null;
  durationMs: number;
  live?: boolean;
  counts: Record<string, { records: number; errors: number }>;
  /** Upstream retries, the 429s among them and the latest log lines (null for older runs). */
  activity?: RunActivity | null;
}

export interface RunActivity {
  retries: number;
  rateLimited: number;
  log: { at: string; level: 'info' | 'warn' | 'error'; msg: string }[];
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export type Rec = Record<string, unknown> & { id: string; source: string };

export interface FileImport {
  rowsRead: number;
  rowsImported: number;
  rowsRejected: number;
  rejections: { line: number; reason: string }[];
  status: 'imported' | 'partial' | 'rejected';
  error: string | null;
  importedAt: string;
  kind: string | null;
}

export interface BucketFile {
  key: string;
  size: number;
  etag: string;
  lastModified: string;
  status: 'pending' | 'changed' | 'imported' | 'partial' | 'rejected';
  import: FileImport | null;
}

export interface FileDropGuide {
  source: string;
  bucket: string;
  address: string;
  /** The bucket's folder on a local file drop; null on S3. */
  folder?: string | null;
  backend: 'file' | 's3';
  storage: string;
  sharedWith: string[];
  expiresAt: string;
  presignedUrl: string | null;
  token: { id: string; token: string; file: string | null; expiresAt: string } | null;
  uploadUrl: string | null;
  commands: { label: string; command: string }[];
  notes: string[];
}

export interface UploadToken {
  id: string;
  file: string | null;
  createdBy: string | null;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
  uploads: number;
  active: boolean;
}
