// The browser's client of the public /api/v1 API: JSON in and out, the session cookie, the CSRF header
// on unsafe methods, and errors turned into sentences a user understands.

import type { z } from 'zod';
import type { ApiRoutes, RouteKey } from '../core/api-routes.ts';
import type { ErrorBody, FeedImport } from '../core/api-shapes.ts';

// The shapes of the API's answers come from the shapes the server's route schemas are made of.
export type {
  ApiToken,
  BucketFile,
  BucketListing,
  CheckResult,
  ConnectorMeta,
  ConnectorSection,
  CveFacts,
  ExportDestination,
  ExportStatus,
  FeedImport,
  FeedInfo,
  FieldMeta,
  FileDropGuide,
  FileImport,
  Page,
  Rec,
  Run,
  RunStatus,
  RunSummary,
  SessionInfo,
  SourceCheck,
  SourceRemoved,
  SourceView,
  SyncStarted,
  UploadToken,
} from '../core/api-shapes.ts';
export type {
  AssetLinked,
  AssetRecords,
  ChangeEvent,
  ComplianceSummaryItem,
  CoverageCounts,
  CoverageRecords,
  GroupCount,
  HostFindingCounts,
  HostLabel,
  PluginRow,
  PluginSummary,
  RecordCount,
  RecordStats,
  DecisionCounts,
  RemediationFix,
  RemediationHosts,
  RemediationReport,
  RemediationsReport,
  TrendsReport,
} from '../core/api-shapes-reports.ts';

// What the forms send.
export type {
  LoginBody,
  SourceChangeBody,
  SourceCheckBody,
  SourceCreateBody,
  SourceTrialBody,
  SyncBody,
  TokenCreateBody,
} from '../core/api-shapes.ts';
export type { AssetLinkBody } from '../core/api-shapes-reports.ts';

export type ApiErrorBody = ErrorBody['error'];

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

type Part<K extends RouteKey, P extends string> = ApiRoutes[K] extends { readonly [k in P]: infer S extends z.ZodType } ? z.input<S> : never;
/** What a route takes: its path parameters, query and body, each where the route has one. */
export type CallInput<K extends RouteKey> = ([Part<K, 'params'>] extends [never] ? { params?: undefined } : { params: Part<K, 'params'> }) &
  ([Part<K, 'query'>] extends [never] ? { query?: undefined } : { query?: Part<K, 'query'> }) &
  ([Part<K, 'body'>] extends [never] ? { body?: undefined } : undefined extends Part<K, 'body'> ? { body?: Part<K, 'body'> } : { body: Part<K, 'body'> });
/** What a route answers. */
export type Answer<K extends RouteKey> = z.output<ApiRoutes[K]['response']>;

/** The URL of a route: `:name` segments filled in (encoded) and the query appended. */
export function routeUrl<K extends RouteKey>(route: K, input: CallInput<K>): string {
  const path = route.slice(route.indexOf(' ') + 1);
  const params: Record<string, unknown> = input.params ?? {};
  const filled = path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(String(params[name])));
  return filled + qs(input.query ?? {});
}

/** Calls a route by its method and path (`'GET /api/v1/sources/:name'`), typed by the API's request and answer shapes. */
export function call<K extends RouteKey>(route: K, input: CallInput<K>, signal?: AbortSignal): Promise<Answer<K>> {
  return api<Answer<K>>(route.slice(0, route.indexOf(' ')), routeUrl(route, input), input.body, { signal });
}

/** Query string from an object; arrays repeat the key; empty values are left out. */
export function qs(params: Record<string, unknown>): string {
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

/** Imports one feed file (the raw body of POST /api/v1/feeds); `replace` installs it even when older than the current one. */
export async function importFeed(file: File, replace: boolean): Promise<FeedImport> {
  const res = await fetch(`/api/v1/feeds${qs({ name: file.name, replace: replace || undefined })}`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/octet-stream', ...csrfHeader() },
    body: file,
    credentials: 'same-origin',
  });
  const data = await parse(res);
  if (!res.ok) {
    const e = (data as { error?: ApiErrorBody } | null)?.error;
    throw new ApiError(res.status, e?.code ?? 'http_' + res.status, e?.message ?? `import failed with HTTP ${res.status}`, e?.field ?? null);
  }
  return data as FeedImport;
}
