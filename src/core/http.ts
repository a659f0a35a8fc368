// The upstream HTTP helper every connector uses: undici with keep-alive, timeouts, a private CA or
// verification off, an optional proxy, transient-error retries, and errors that say what to fix.
import { Agent, type Dispatcher, ProxyAgent, request } from 'undici';
import { UpstreamError } from './errors.ts';
import type { Logger } from './log.ts';
import { parseRetryAfter, type RetryOptions, withRetry } from './retry.ts';

export interface HttpClientOptions {
  baseUrl: string;
  verifySsl?: boolean;
  caCertificate?: string;
  proxyUrl?: string;
  timeoutMs?: number;
  headers?: Record<string, string>;
  log?: Logger;
  retry?: RetryOptions;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  path: string;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Override retry behaviour for this call (e.g. a credential check wants one attempt). */
  retry?: RetryOptions;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
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
        hint: refused[1] === '407' ? 'The proxy wants credentials: put them in proxyUrl (http://user:password@proxy:port)' : 'Check that the proxy may reach the console (its allow-list, the console URL and port)',
        cause: err,
      });
    }
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      return new UpstreamError(`cannot reach the proxy ${proxy} (${code})`, { transient: code !== 'ENOTFOUND', hint: 'Check proxyUrl, or leave it empty to connect directly', cause: err });
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
    return new UpstreamError(`connection to ${host} refused`, { transient: true, hint: 'Check the URL and port, and that the service is running and reachable from this machine', cause: err });
  if (code === 'EPROTO' || code === 'ERR_SSL_WRONG_VERSION_NUMBER')
    return new UpstreamError(`TLS handshake with ${host} failed (${code})`, { hint: 'Check whether the URL should start with http:// or https://', cause: err });
  const transient = TRANSIENT_CODES.has(code);
  const msg = err instanceof Error ? err.message : String(err);
  return new UpstreamError(`request to ${host} failed: ${msg}${code ? ` (${code})` : ''}`, {
    transient,
    hint: transient ? 'The connection dropped or timed out; it is retried automatically' : null,
    cause: err,
  });
}

export class HttpClient {
  readonly baseUrl: string;
  readonly #dispatcher: Dispatcher;
  readonly #opts: HttpClientOptions;

  constructor(opts: HttpClientOptions) {
    this.#opts = opts;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    const timeout = opts.timeoutMs ?? 120_000;
    const tls = {
      rejectUnauthorized: opts.verifySsl !== false,
      ...(opts.caCertificate ? { ca: opts.caCertificate } : {}),
    };
    this.#dispatcher = opts.proxyUrl
      ? new ProxyAgent({ uri: opts.proxyUrl, requestTls: tls, headersTimeout: timeout, bodyTimeout: timeout })
      : new Agent({ connect: { ...tls, timeout: Math.min(timeout, 30_000) }, headersTimeout: timeout, bodyTimeout: timeout, keepAliveTimeout: 30_000 });
  }

  url(path: string, query?: HttpRequest['query']): string {
    const u = new URL(this.baseUrl + (path.startsWith('/') ? path : `/${path}`));
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  /** One call with retries of transient failures; any status comes back (callers interpret 4xx). */
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
    const retry = { log: this.#opts.log, what: `${req.method} ${req.path}`, ...this.#opts.retry, ...req.retry, signal: req.signal };
    return withRetry(async () => {
      let res: Dispatcher.ResponseData;
      let text: string;
      try {
        res = await request(url, { method: req.method, headers, body, dispatcher: this.#dispatcher, signal: req.signal });
        text = await res.body.text();
      } catch (err) {
        if (req.signal?.aborted) throw err;
        throw describeNetworkError(err, url, this.#opts.proxyUrl);
      }
      if (TRANSIENT_STATUS.has(res.statusCode)) {
        throw new UpstreamError(`${req.method} ${req.path} answered HTTP ${res.statusCode}`, {
          transient: true,
          status: res.statusCode,
          retryAfter: parseRetryAfter(res.headers['retry-after']),
        });
      }
      return { status: res.statusCode, headers: res.headers, text };
    }, retry);
  }

  async close(): Promise<void> {
    await this.#dispatcher.close();
  }
}
