// The upstream HTTP helper every connector uses: undici with keep-alive, timeouts, a private CA or
// verification off, an optional proxy, and errors that say what to fix. One request is one attempt:
// transient failures are marked so, and the connector's client retries them under core/retry.ts once
// it has classified the answer (an envelope error, a token to refresh).
// Every answer is bounded: a size cap (the body is read in chunks and dropped past it), one deadline
// covering headers and body, and once the body has started a stall limit (so few bytes in a window that
// the answer is not coming), so a huge or trickled answer cannot exhaust memory or hang.
import { formatBytes, formatDuration } from './format.ts';
import type { Dispatcher } from 'undici';
import { UpstreamError } from './errors.ts';
import type { Logger } from './log.ts';
import { parseRetryAfter } from './retry.ts';

export interface HttpClientOptions {
  baseUrl: string;
  verifySsl?: boolean;
  caCertificate?: string;
  proxyUrl?: string;
  timeoutMs?: number;
  headers?: Record<string, string>;
  log?: Logger;
  /** Largest answer accepted, in bytes (TRIBUTARY_UPSTREAM_MAX_BYTES overrides; default 64 MiB). */
  maxResponseBytes?: number;
  /** Whole-request deadline, headers and body (capped by TRIBUTARY_UPSTREAM_DEADLINE_MS; default 10 min). */
  deadlineMs?: number;
}

/** A body that has started must bring at least `bytes` every `ms`, or the request ends. */
export interface StallLimit {
  bytes: number;
  ms: number;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  path: string;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /**
   * Called when a successful (2xx) answer's status and headers arrive, before its body is read. Not
   * for an error status: a busy console (429, 5xx) is asked for nothing more while it is retried.
   */
  onHeaders?: () => void;
  /**
   * The body as bytes (HttpResponse.bytes, `text` left empty): for a caller that decodes it on
   * another thread (a Tenable.sc page is parsed and mapped off the main thread).
   */
  bytes?: boolean;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body's bytes when the request asked for them (`bytes`). */
  bytes?: Buffer;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
export const DEFAULT_DEADLINE_MS = 600_000;
export const DEFAULT_STALL: StallLimit = { bytes: 1024, ms: 60_000 };

/** A byte size from the environment: a whole number of bytes, or with a K/M/G (KiB/MiB/GiB) suffix. */
export function parseByteSize(v: string | undefined): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?\s*$/i.exec(v ?? '');
  if (!m) return null;
  const n = Number(m[1]) * 1024 ** ' kmg'.indexOf((m[2] || ' ').toLowerCase());
  return n > 0 ? Math.floor(n) : null;
}

const envPositive = (name: string): number | null => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : null;
};

/** The size cap in force: TRIBUTARY_UPSTREAM_MAX_BYTES, else the client's own (or the default). */
export function maxResponseBytes(clientDefault = DEFAULT_MAX_RESPONSE_BYTES): number {
  return parseByteSize(process.env.TRIBUTARY_UPSTREAM_MAX_BYTES) ?? clientDefault;
}

/** The per-request deadline in force: the client's (e.g. a quick check), never above TRIBUTARY_UPSTREAM_DEADLINE_MS. */
export function requestDeadlineMs(clientMs?: number): number {
  const env = envPositive('TRIBUTARY_UPSTREAM_DEADLINE_MS') ?? DEFAULT_DEADLINE_MS;
  return Math.min(env, clientMs ?? env);
}

/**
 * The stall limit in force: TRIBUTARY_HTTP_STALL_BYTES (a byte size, default 1 KiB) in every
 * TRIBUTARY_HTTP_STALL_MS (default 60 s). The deadline is for a slow query before its first byte; a
 * body that has started and then trickles (a byte every few seconds) is not a slow query.
 */
export function stallLimit(): StallLimit {
  return {
    bytes: parseByteSize(process.env.TRIBUTARY_HTTP_STALL_BYTES) ?? DEFAULT_STALL.bytes,
    ms: envPositive('TRIBUTARY_HTTP_STALL_MS') ?? DEFAULT_STALL.ms,
  };
}

function headerValue(h: HttpResponse['headers'], name: string): string | null {
  const v = h[name];
  return (Array.isArray(v) ? v[0] : v) ?? null;
}

/**
 * What came back, without quoting it (a body may hold anything the URL pointed at): status, content
 * type, size and an HTML page's title, e.g. `HTTP 200, text/html, 5.1 KiB, a page titled "Sign in"`.
 */
export function describeAnswer(status: number, text: string, contentType?: string | null): string {
  const parts = [`HTTP ${status}`];
  const type = contentType?.split(';')[0]?.trim();
  parts.push(type ? type.replace(/[^\w.+/-]/g, '').slice(0, 60) : 'no content type');
  const bytes = Buffer.byteLength(text);
  parts.push(bytes === 0 ? 'empty' : formatBytes(bytes));
  const title = /<title[^>]*>([^<]{1,300})<\/title>/i.exec(text.slice(0, 65_536))?.[1];
  const clean = title
    ?.replace(/&[#\w]+;/g, ' ')
    .replace(/[\p{Cc}\p{Cf}"\\]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (clean) parts.push(`a page titled "${clean.length > 60 ? `${clean.slice(0, 59)}…` : clean}"`);
  return parts.join(', ');
}

/** Web servers and proxies an answer's headers or page may name: "served by nginx". */
export function servedBy(text: string, server?: string | null): string | null {
  const sample = `${server ?? ''} ${text.slice(0, 65_536)}`;
  for (const [re, name] of [
    [/\bnginx\b/i, 'nginx'],
    [/\bApache\b/, 'Apache httpd'],
    [/\bMicrosoft-IIS\b|\bIIS Windows Server\b/i, 'Microsoft IIS'],
    [/\bsquid\b/i, 'a Squid proxy'],
    [/\bcloudflare\b/i, 'Cloudflare'],
    [/\bEnvoy\b/i, 'an Envoy proxy'],
  ] as const) {
    if (re.test(sample)) return name;
  }
  return null;
}

/** describeAnswer() of a response. */
export function describeResponse(res: HttpResponse): string {
  return describeAnswer(res.status, res.text, headerValue(res.headers, 'content-type'));
}

const TRANSIENT_STATUS = new Set([408, 429, 500, 502, 503, 504]);
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);
const TLS_CODES: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the server presented a self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'the certificate chain ends in a self-signed CA that is not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the certificate is signed by a CA that is not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the certificate is signed by a CA that is not trusted',
  CERT_HAS_EXPIRED: 'the server certificate has expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate does not name this host',
};

function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR' && !code.startsWith('UND_ERR_REQ')) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Explains a network-level failure in words a user can act on. */
export function describeNetworkError(err: unknown, url: string, proxyUrl?: string): UpstreamError {
  const code = errorCode(err) ?? '';
  if (proxyUrl) {
    const proxy = (() => {
      try {
        return new URL(proxyUrl).host;
      } catch {
        return proxyUrl;
      }
    })();
    const refused = /Proxy response \((\d+)\)/.exec(err instanceof Error ? err.message : String(err));
    if (refused) {
      return new UpstreamError(`the proxy ${proxy} answered HTTP ${refused[1]} when asked to connect to ${new URL(url).host}`, {
        transient: refused[1] === '502' || refused[1] === '503' || refused[1] === '504',
        hint:
          refused[1] === '407'
            ? 'The proxy wants credentials: put them in proxyUrl (http://user:password@proxy:port)'
            : 'Check that the proxy may reach the console (its allow-list, the console URL and port)',
        cause: err,
      });
    }
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      return new UpstreamError(`cannot reach the proxy ${proxy} (${code})`, {
        transient: code !== 'ENOTFOUND',
        hint: 'Check proxyUrl, or leave it empty to connect directly',
        cause: err,
      });
    }
  }
  const host = (() => {
    try {
      return new URL(url).host;
    } catch {
      return url;
    }
  })();
  if (TLS_CODES[code]) {
    return new UpstreamError(`TLS verification of ${host} failed: ${TLS_CODES[code]} (${code})`, {
      hint: 'Add the CA certificate that signed it (caCertificate), or turn off Verify SSL Certificate only if the console uses a self-signed certificate',
      cause: err,
    });
  }
  if (code === 'ENOTFOUND') return new UpstreamError(`cannot resolve host ${host}`, { hint: 'Check the host name in the URL', cause: err });
  if (code === 'ECONNREFUSED')
    return new UpstreamError(`connection to ${host} refused`, {
      transient: true,
      hint: 'Check the URL and port, and that the service is running and reachable from this machine',
      cause: err,
    });
  if (code === 'EPROTO' || code === 'ERR_SSL_WRONG_VERSION_NUMBER')
    return new UpstreamError(`TLS handshake with ${host} failed (${code})`, {
      hint: 'Check whether the URL should start with http:// or https://',
      cause: err,
    });
  const transient = TRANSIENT_CODES.has(code);
  const msg = err instanceof Error ? err.message : String(err);
  return new UpstreamError(`request to ${host} failed: ${msg}${code ? ` (${code})` : ''}`, {
    transient,
    hint: transient ? 'The connection dropped or timed out; it is retried automatically' : null,
    cause: err,
  });
}

// undici is loaded by the first request: a process that makes none (an export, a query, the CLI's
// other commands) goes without its heap and resident memory.
let undiciLoading: Promise<typeof import('undici')> | null = null;
const loadUndici = () => (undiciLoading ??= import('undici'));

export class HttpClient {
  readonly baseUrl: string;
  #dispatcher: Promise<Dispatcher> | null = null;
  readonly #opts: HttpClientOptions;
  readonly maxBytes: number;
  readonly deadlineMs: number;
  readonly stall: StallLimit;

  constructor(opts: HttpClientOptions) {
    this.#opts = opts;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.maxBytes = maxResponseBytes(opts.maxResponseBytes);
    this.deadlineMs = requestDeadlineMs(opts.deadlineMs);
    this.stall = stallLimit();
  }

  /** The connection pool (or proxy), made on the first request. */
  #dispatch(): Promise<Dispatcher> {
    this.#dispatcher ??= loadUndici().then(({ Agent, ProxyAgent }) => {
      const opts = this.#opts;
      const timeout = opts.timeoutMs ?? 120_000;
      const tls = {
        rejectUnauthorized: opts.verifySsl !== false,
        ...(opts.caCertificate ? { ca: opts.caCertificate } : {}),
      };
      return opts.proxyUrl
        ? new ProxyAgent({ uri: opts.proxyUrl, requestTls: tls, headersTimeout: timeout, bodyTimeout: timeout })
        : new Agent({ connect: { ...tls, timeout: Math.min(timeout, 30_000) }, headersTimeout: timeout, bodyTimeout: timeout, keepAliveTimeout: 30_000 });
    });
    return this.#dispatcher;
  }

  url(path: string, query?: HttpRequest['query']): string {
    const u = new URL(this.baseUrl + (path.startsWith('/') ? path : `/${path}`));
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  /** One attempt; any status comes back (callers interpret 4xx), transient failures throw marked so. */
  async send(req: HttpRequest): Promise<HttpResponse> {
    const url = this.url(req.path, req.query);
    const headers: Record<string, string> = { accept: 'application/json', ...this.#opts.headers, ...req.headers };
    let body: string | undefined;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers['content-type'] = 'application/json';
    } else if (req.form) {
      body = new URLSearchParams(req.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    // Named by the whole path (the base URL's own path included), e.g. "POST /rest/analysis".
    const what = `${req.method} ${new URL(url).pathname}`;
    let res: Dispatcher.ResponseData;
    let received: Buffer;
    // One deadline for headers and body: undici's own timeouts only catch silence, not a trickle.
    const deadline = AbortSignal.timeout(this.deadlineMs);
    const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;
    try {
      const [{ request }, dispatcher] = await Promise.all([loadUndici(), this.#dispatch()]);
      res = await request(url, { method: req.method, headers, body, dispatcher, signal });
      if (res.statusCode >= 200 && res.statusCode < 300) req.onHeaders?.();
      received = await this.#readBody(res, what, signal);
    } catch (err) {
      if (req.signal?.aborted) throw err;
      if (err instanceof UpstreamError) throw err;
      if (deadline.aborted) {
        throw new UpstreamError(`${what}: no complete answer within ${formatDuration(this.deadlineMs)} (the per-request deadline)`, {
          hint: 'Set TRIBUTARY_UPSTREAM_DEADLINE_MS to allow longer requests, or check the network path to the server',
          cause: err,
        });
      }
      throw describeNetworkError(err, url, this.#opts.proxyUrl);
    }
    if (TRANSIENT_STATUS.has(res.statusCode)) {
      throw new UpstreamError(`${req.method} ${req.path} answered HTTP ${res.statusCode}`, {
        transient: true,
        status: res.statusCode,
        retryAfter: parseRetryAfter(res.headers['retry-after']),
      });
    }
    return req.bytes
      ? { status: res.statusCode, headers: res.headers, text: '', bytes: received }
      : { status: res.statusCode, headers: res.headers, text: received.toString('utf8') };
  }

  /** Reads a body up to the size cap; a larger one is dropped unread past the cap. */
  async #readBody(res: Dispatcher.ResponseData, what: string, signal: AbortSignal): Promise<Buffer> {
    const tooLarge = () =>
      new UpstreamError(`${what}: the answer is larger than ${formatBytes(this.maxBytes)} (the response size limit)`, {
        status: res.statusCode,
        hint: 'Set TRIBUTARY_UPSTREAM_MAX_BYTES (e.g. 256MiB) to accept larger answers, or lower the page size',
      });
    const declared = Number(headerValue(res.headers, 'content-length'));
    if (Number.isFinite(declared) && declared > this.maxBytes) {
      res.body.destroy();
      throw tooLarge();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => res.body.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', stop, { once: true });
    // From the first body byte on, each window of `stall.ms` must bring `stall.bytes` (or the end).
    const { bytes: stallBytes, ms: stallMs } = this.stall;
    let windowBytes = 0;
    let stallTimer: NodeJS.Timeout | undefined;
    let stalled: UpstreamError | null = null;
    const watch = () => {
      stallTimer = setTimeout(() => {
        if (windowBytes >= stallBytes) {
          windowBytes = 0;
          return watch();
        }
        stalled = new UpstreamError(
          `${what}: the answer stalled after its body started: ${windowBytes === 0 ? 'nothing' : formatBytes(windowBytes)} in ${formatDuration(stallMs)}, under the stall limit of ${formatBytes(stallBytes)} per ${formatDuration(stallMs)}`,
          {
            status: res.statusCode,
            hint: 'Set TRIBUTARY_HTTP_STALL_BYTES and TRIBUTARY_HTTP_STALL_MS to accept a slower answer, or check the network path to the server',
          },
        );
        res.body.destroy(stalled);
      }, stallMs);
      stallTimer.unref();
    };
    try {
      for await (const chunk of res.body) {
        const b = chunk as Buffer;
        if (stallTimer === undefined) watch();
        windowBytes += b.length;
        size += b.length;
        if (size > this.maxBytes) {
          res.body.destroy();
          throw tooLarge();
        }
        chunks.push(b);
      }
    } catch (err) {
      throw stalled ?? err;
    } finally {
      clearTimeout(stallTimer);
      signal.removeEventListener('abort', stop);
    }
    return Buffer.concat(chunks, size);
  }

  async close(): Promise<void> {
    if (this.#dispatcher) await (await this.#dispatcher).close();
  }
}
