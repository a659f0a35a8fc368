// The Tenable.sc REST client: x-apikey auth, the integration User-Agent, envelope checks, and the two
// paged reads the streams use. Only GET and POST /rest/analysis ever leave it.
import { z } from 'zod';
import { UpstreamError } from '../../core/errors.ts';
import { parsePage, zRow } from '../../core/validate.ts';
import { DEFAULT_MAX_RESPONSE_BYTES, HttpClient, type HttpResponse } from '../../core/http.ts';
import type { Logger } from '../../core/log.ts';
import { callWithRetry, failureVerdict, type ResponseClassifier, type RetryOptions, type Verdict } from '../../core/retry.ts';
import type { TenableScApiConfig } from './config.ts';
import { type AnalysisPage, type Envelope, envelopeError, readAnalysisResponse, readEnvelope } from './map/envelope.ts';
import type { PageWorker, ParsedPage } from './streams/page-worker.ts';

export const USER_AGENT = 'Integration/1.0 (Tributary; Tributary; Build/0.1.0)';

export interface AnalysisFilter {
  filterName: string;
  operator: string;
  value: unknown;
}

export interface AnalysisQuery {
  tool: string;
  sourceType: 'cumulative' | 'patched';
  filters: AnalysisFilter[];
  offset: number;
  limit: number;
  sortField?: string;
  sortDir?: 'ASC' | 'DESC';
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Attempts in all (the credential check uses 1–2; streams the long default). */
  attempts?: number;
  /** Called when an attempt's answer starts to arrive (the console has built it). */
  onHeaders?: () => void;
}

/**
 * The client's response classifier: an envelope without error is a success; a busy console (HTTP 429,
 * 5xx, "database is locked") is transient; anything else (refused keys, a missing permission, an
 * answer that is not the API) is permanent, with a message that names the fix.
 */
export function classifyAnswer(what: string): ResponseClassifier<HttpResponse, Envelope> {
  return (res) => {
    const header = (n: string) => {
      const v = res.headers[n];
      return (Array.isArray(v) ? v[0] : v) ?? null;
    };
    const r = readEnvelope(res.status, res.text, { contentType: header('content-type'), server: header('server') });
    return r.ok ? { kind: 'success', value: r.envelope } : failureVerdict(envelopeError(what, r.problem));
  };
}

export class TenableScClient {
  readonly http: HttpClient;
  readonly #retry: RetryOptions;
  readonly #log: Logger | undefined;

  constructor(config: TenableScApiConfig, opts: { log?: Logger; timeoutMs?: number; deadlineMs?: number; retry?: RetryOptions } = {}) {
    this.#log = opts.log;
    this.#retry = opts.retry ?? {};
    this.http = new HttpClient({
      baseUrl: `${config.apiUrl.replace(/\/+$/, '')}/rest`,
      verifySsl: config.verifySsl,
      caCertificate: config.caCertificate,
      proxyUrl: config.proxyUrl,
      timeoutMs: opts.timeoutMs ?? 300_000,
      deadlineMs: opts.deadlineMs,
      // A page of `pageSize` vulndetails rows with long plugin output (software lists) can pass 64 MiB.
      maxResponseBytes: Math.min(512 * 1024 * 1024, Math.max(DEFAULT_MAX_RESPONSE_BYTES, (config.pageSize ?? 1000) * 128 * 1024)),
      log: opts.log,
      headers: {
        'x-apikey': `accesskey=${config.accessKey}; secretkey=${config.secretKey};`,
        'user-agent': USER_AGENT,
      },
    });
  }

  /** One call: retries transient failures (HTTP status, resets, "database is locked") with backoff. */
  async call(
    method: 'GET' | 'POST',
    path: string,
    init: { query?: Record<string, string | number | undefined>; json?: unknown } & CallOptions = {},
  ): Promise<unknown> {
    return (await this.callEnvelope(method, path, init)).response;
  }

  /** Like call(), with the whole envelope (its `timestamp` is the console's clock). */
  async callEnvelope(
    method: 'GET' | 'POST',
    path: string,
    init: { query?: Record<string, string | number | undefined>; json?: unknown } & CallOptions = {},
  ): Promise<Envelope> {
    const classify = classifyAnswer(`${method} /rest${path}`);
    return this.#call(method, path, init, async (res) => classify(res));
  }

  /** One call, its answer judged by `judge` (which may read it on another thread), retried as call() is. */
  #call<T>(
    method: 'GET' | 'POST',
    path: string,
    init: { query?: Record<string, string | number | undefined>; json?: unknown; bytes?: boolean } & CallOptions,
    judge: (res: HttpResponse, what: string) => Promise<Verdict<T>>,
  ): Promise<T> {
    if (method === 'POST' && path !== '/analysis' && path !== '/hosts/search') throw new Error(`refusing POST ${path}: the connector is read-only`);
    const what = `${method} /rest${path}`;
    const retry: RetryOptions = { log: this.#log, what, ...this.#retry, signal: init.signal };
    if (init.attempts !== undefined) retry.attempts = init.attempts;
    return callWithRetry(
      async () =>
        judge(
          await this.http.send({ method, path, query: init.query, json: init.json, signal: init.signal, onHeaders: init.onHeaders, bytes: init.bytes }),
          what,
        ),
      retry,
    );
  }

  get(path: string, query?: Record<string, string | number | undefined>, opts: CallOptions = {}): Promise<unknown> {
    return this.call('GET', path, { query, ...opts });
  }

  /** One page of `POST /rest/analysis` (type vuln); offsets go both at the root and inside `query`. */
  async fetchAnalysisPage(q: AnalysisQuery, opts: CallOptions = {}): Promise<AnalysisPage> {
    const env = await this.callEnvelope('POST', '/analysis', { json: analysisBody(q), ...opts });
    return {
      ...readAnalysisResponse(env.response, { strict: true, what: analysisWhat(q) }),
      timestamp: env.timestamp,
    };
  }

  /**
   * fetchAnalysisPage with the answer parsed (and later mapped) on a page thread: its rows stay there;
   * this returns the page's id on that thread and its shape.
   */
  async fetchAnalysisPageOn(pages: PageWorker, q: AnalysisQuery, opts: CallOptions = {}): Promise<ParsedPage & { id: number }> {
    const answer = await this.#call(
      'POST',
      '/analysis',
      { json: analysisBody(q), bytes: true, ...opts },
      async (res, what): Promise<Verdict<(ParsedPage & { id: number }) | { refused: { message: string; hint: string | null; status: number | null } }>> => {
        const r = await pages.parse(res, analysisWhat(q));
        if ('problem' in r) return failureVerdict(envelopeError(what, r.problem));
        return { kind: 'success', value: 'refused' in r ? { refused: r.refused } : { ...r.page, id: r.id } };
      },
    );
    // A page that is not a list of rows fails at once, as fetchAnalysisPage's check does (not retried).
    if ('refused' in answer) throw new UpstreamError(answer.refused.message, { hint: answer.refused.hint, status: answer.refused.status });
    return answer;
  }

  /** One page of `GET /rest/hosts` (5.20+); the console returns a plain array and no total. */
  async fetchHostsPage(offset: number, limit: number, fields: string, opts: CallOptions = {}): Promise<Record<string, unknown>[]> {
    const response = await this.get('/hosts', { fields, limit, startOffset: offset, endOffset: offset + limit, pagination: 'true' }, opts);
    // A plain array (documented) or {results: […]}; either way a list of rows (objects).
    const list =
      response && typeof response === 'object' && !Array.isArray(response) && 'results' in response ? (response as { results: unknown }).results : response;
    if (!Array.isArray(list))
      throw new UpstreamError('GET /rest/hosts returned no host list', { hint: 'The Host Assets API needs console version 5.20 or later' });
    return parsePage(z.array(zRow), list, `GET /rest/hosts (offset ${offset})`, () => 'a host (an object)');
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

/** The body of one /rest/analysis page request; offsets go both at the root and inside `query`. */
function analysisBody(q: AnalysisQuery): Record<string, unknown> {
  const body: Record<string, unknown> = {
    type: 'vuln',
    sourceType: q.sourceType,
    query: { type: 'vuln', tool: q.tool, filters: q.filters, startOffset: q.offset, endOffset: q.offset + q.limit },
    startOffset: q.offset,
    endOffset: q.offset + q.limit,
  };
  if (q.sortField) {
    body.sortField = q.sortField;
    body.sortDir = q.sortDir ?? 'ASC';
  }
  return body;
}

function analysisWhat(q: AnalysisQuery): string {
  return `POST /rest/analysis (tool ${q.tool}, ${q.sourceType}, offset ${q.offset})`;
}
