// The browser's client of the public /api/v1 API: JSON in and out, the session cookie, the CSRF header
// on unsafe methods, and errors turned into sentences a user understands.

import type { z } from 'zod';
import type { ApiRoutes, RouteKey } from '../core/api-routes.ts';
import type { ErrorBody, FeedImport } from '../core/api-shapes.ts';
import type { ModelName } from '../core/models.ts';

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
  ModelRecord,
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
  TicketAssetLink,
  UploadToken,
} from '../core/api-shapes.ts';
export type { ModelName } from '../core/models.ts';
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

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** The ApiError of a failed request: the code, message and field of the server's error body where it has them, else the HTTP status. */
function apiError(status: number, data: unknown, failed: string): ApiError {
  const e = isObject(data) ? data.error : undefined;
  const text = (k: keyof ApiErrorBody): string | null => {
    const v = isObject(e) ? e[k] : undefined;
    return typeof v === 'string' ? v : null;
  };
  return new ApiError(status, text('code') ?? `http_${status}`, text('message') ?? `${failed} with HTTP ${status}`, text('field'));
}

/**
 * A response's answer, or its failure thrown (an ApiError). The answer is taken to be of the shape its
 * route declares (core/api-routes.ts; test/server/api-shapes.test.ts parses the server's real answers
 * with those shapes): the client's one step from JSON to a type it does not check at run time.
 */
async function answerOf<T>(res: Response, failed: string): Promise<T> {
  const data = await parse(res);
  if (!res.ok) throw apiError(res.status, data, failed);
  return data as T;
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
  try {
    return await answerOf<T>(res, 'request failed');
  } catch (err) {
    if (res.status === 401 && !path.endsWith('/auth/login') && !path.endsWith('/auth/session')) onUnauthorized?.();
    throw err;
  }
}

export const get = <T>(path: string, signal?: AbortSignal) => api<T>('GET', path, undefined, { signal });

type Part<K extends RouteKey, P extends string> = ApiRoutes[K] extends { readonly [k in P]: infer S extends z.ZodType } ? z.input<S> : never;
/** What a route takes: its path parameters, query and body, each where the route has one. */
export type CallInput<K extends RouteKey> = ([Part<K, 'params'>] extends [never] ? { params?: undefined } : { params: Part<K, 'params'> }) &
  ([Part<K, 'query'>] extends [never] ? { query?: undefined } : { query?: Part<K, 'query'> }) &
  ([Part<K, 'body'>] extends [never] ? { body?: undefined } : undefined extends Part<K, 'body'> ? { body?: Part<K, 'body'> } : { body: Part<K, 'body'> });
/** The model a call's input names, when it names exactly one. */
type OneModel<I> = I extends { params: { model: infer M extends ModelName } } ? (ModelName extends M ? never : M) : never;
/**
 * What a route answers: its `typed` answer where it has one; a route of every model answers with the
 * records of the one the input names (else any model's).
 */
export type Answer<K extends RouteKey, I = unknown> = ApiRoutes[K] extends { readonly byModel: infer B extends Record<ModelName, z.ZodType> }
  ? [OneModel<I>] extends [never]
    ? z.output<ApiRoutes[K]['response']>
    : z.output<B[OneModel<I>]>
  : ApiRoutes[K] extends { readonly typed: infer T extends z.ZodType }
    ? z.output<T>
    : z.output<ApiRoutes[K]['response']>;

/** The URL of a route: `:name` segments filled in (encoded) and the query appended. */
export function routeUrl<K extends RouteKey>(route: K, input: CallInput<K>): string {
  const path = route.slice(route.indexOf(' ') + 1);
  const params: Record<string, unknown> = input.params ?? {};
  const filled = path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(String(params[name])));
  return filled + qs(input.query ?? {});
}

/** Calls a route by its method and path (`'GET /api/v1/sources/:name'`), typed by the API's request and answer shapes. */
export function call<K extends RouteKey, const I extends CallInput<K>>(route: K, input: I, signal?: AbortSignal): Promise<Answer<K, I>> {
  return api<Answer<K, I>>(route.slice(0, route.indexOf(' ')), routeUrl(route, input), input.body, { signal });
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
        reject(apiError(xhr.status, data, 'upload failed'));
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
  return answerOf<FeedImport>(res, 'import failed');
}
