// SDP v3 API client: base URL per deployment, auth header (Zoho-oauthtoken / authtoken), `input_data`
// lists, envelope checks, one token refresh after a 401, and retries with backoff of 4015 / 429 / 5xx /
// resets (one retry loop: the HTTP helper itself makes a single attempt per call).
import type { ConnectorContext } from '../../core/connector.ts';
import { UpstreamError } from '../../core/errors.ts';
import { describeResponse, HttpClient, type HttpResponse, servedBy } from '../../core/http.ts';
import { callWithRetry, failureVerdict, type RetryOptions, type Verdict } from '../../core/retry.ts';
import { apiBaseOf, type Deployment, deploymentOf, type SdpConfig } from './config.ts';
import { classifyError, describeStatus, hasMoreRows, type Json, readListPage, readStatus, type SdpErrorKind } from './map/envelope.ts';
import type { TokenManager } from './oauth.ts';

export const ACCEPT = 'application/vnd.manageengine.sdp.v3+json';

/** What each module needs: cloud scopes and the on-prem permission wording. */
const MODULES: Record<string, { label: string; scopes: string[] }> = {
  requests: { label: 'requests (tickets and incidents)', scopes: ['SDPOnDemand.requests.READ'] },
  assets: { label: 'assets', scopes: ['SDPOnDemand.assets.READ'] },
  cmdb: { label: 'the CMDB (configuration items)', scopes: ['SDPOnDemand.cmdb.READ'] },
  users: { label: 'users', scopes: ['SDPOnDemand.users.READ'] },
  requesters: { label: 'requesters (users)', scopes: ['SDPOnDemand.users.READ'] },
  technicians: { label: 'technicians (users)', scopes: ['SDPOnDemand.technicians.READ', 'SDPOnDemand.users.READ'] },
  service_categories: { label: 'service categories (services)', scopes: ['SDPOnDemand.setup.READ'] },
};

/**
 * Module of an API path: `cmdb/ci_computer`, `ci_types` and on-prem `ci_*` lists count as CMDB; the
 * per-product-type asset lists (`asset_workstations`…) and `product_types` as assets.
 */
export function moduleOf(path: string): string {
  const first = path.replace(/^\/+/, '').split(/[/?]/)[0] ?? '';
  if (first === 'cmdb' || first === 'ci_types' || first.startsWith('ci_')) return 'cmdb';
  if (first.startsWith('asset_') || first === 'product_types') return 'assets';
  return first;
}

export function requiredScopes(module: string): string[] {
  return MODULES[module]?.scopes ?? [];
}

/** An SDP error answer, classified. */
export class SdpApiError extends UpstreamError {
  readonly kind: SdpErrorKind;
  readonly codes: number[];
  readonly field: string | null;
  readonly module: string;
  constructor(
    message: string,
    o: {
      kind: SdpErrorKind;
      codes: number[];
      field: string | null;
      module: string;
      status: number;
      transient?: boolean;
      hint?: string | null;
      retryAfter?: number | null;
    },
  ) {
    super(message, { status: o.status, transient: o.transient ?? false, hint: o.hint ?? null, retryAfter: o.retryAfter ?? null });
    this.name = 'SdpApiError';
    this.kind = o.kind;
    this.codes = o.codes;
    this.field = o.field;
    this.module = o.module;
  }
}

/** Builds the error for an answer that is not a success, in words that name the fix. */
export function errorFor(
  httpStatus: number,
  body: Json | null,
  o: { path: string; deployment: Deployment; apiBase: string; refreshed?: boolean; method?: string },
): SdpApiError {
  const status = readStatus(body);
  const kind = classifyError(httpStatus, status);
  const module = moduleOf(o.path);
  const info = MODULES[module];
  const label = info?.label ?? module;
  const detail = body ? describeStatus(status) : 'no JSON body';
  const base = { kind, codes: status.codes, field: status.messages.find((m) => m.field)?.field ?? null, module, status: httpStatus };
  const where = `${o.method ?? 'GET'} ${o.path}`;
  switch (kind) {
    case 'rate-limit':
      return new SdpApiError(`${where}: API rate limit reached (${detail})`, {
        ...base,
        transient: true,
        hint: 'Retried with backoff; lower the sync frequency if it persists',
      });
    case 'permission':
      return o.deployment === 'cloud'
        ? new SdpApiError(
            `${where}: the OAuth token has no read access to ${label} (HTTP ${httpStatus}, ${detail}); missing scope ${info?.scopes.join(' or ') ?? `SDPOnDemand.${module}.READ`}`,
            {
              ...base,
              hint: `Generate a new authorization code whose scopes include ${info?.scopes[0] ?? `SDPOnDemand.${module}.READ`} and save it in the source configuration`,
            },
          )
        : new SdpApiError(`${where}: the technician of this API key may not read ${label} (HTTP ${httpStatus}, ${detail})`, {
            ...base,
            hint: `Give the technician's role read permission on ${label}, or use the key of a technician who has it`,
          });
    case 'auth':
      return o.deployment === 'cloud'
        ? new SdpApiError(`${where}: the access token was refused (HTTP ${httpStatus}, ${detail})${o.refreshed ? ' even after a refresh' : ''}`, {
            ...base,
            hint: 'If the token lacks a scope for this module, generate a new authorization code with it; otherwise check region and portal',
          })
        : new SdpApiError(`${where}: the API key was refused (HTTP ${httpStatus}, ${detail})`, {
            ...base,
            hint: 'Check apiKey: keys can expire, and are deleted when the technician\u2019s login is disabled; generate a new one (Admin > Technicians > Generate API Key)',
          });
    case 'not-found':
      return new SdpApiError(`${where}: not found at ${o.apiBase} (HTTP ${httpStatus}, ${detail})`, {
        ...base,
        hint:
          o.deployment === 'cloud'
            ? 'Check portal (the segment after /app/ in your browser URL), region and serverUrl'
            : 'Check serverUrl; API v3 needs ServiceDesk Plus build 11000 or later',
      });
    case 'server':
      return new SdpApiError(`${where}: server error (HTTP ${httpStatus}, ${detail})`, { ...base, transient: httpStatus >= 500 });
    case 'license':
      return new SdpApiError(`${where}: not allowed by the current ServiceDesk Plus license (${detail})`, {
        ...base,
        hint: 'The edition does not include this module',
      });
    default:
      return new SdpApiError(`${where}: ServiceDesk Plus refused the request (HTTP ${httpStatus}, ${detail})`, base);
  }
}

/**
 * Pages a lookup list (asset product types, CI types) may take in one read, read per call so a
 * TRIBUTARY_MAX_PAGES set after start counts: that, else 100 (10,000 rows). Lookups are read whole
 * before the stream yields its first page, so the runner's page budget never sees them.
 */
export function lookupPageBudget(): { pages: number; why: string } {
  const set = Number(process.env.TRIBUTARY_MAX_PAGES);
  return Number.isInteger(set) && set > 0 ? { pages: set, why: 'TRIBUTARY_MAX_PAGES' } : { pages: 100, why: 'the default for a lookup list' };
}

/** A lookup list still answering "more rows" past its budget. */
export function lookupBudgetError(path: string, what: string, budget: { pages: number; why: string }): UpstreamError {
  return new UpstreamError(`GET /${path}: still more ${what} after ${budget.pages} pages, the page budget (${budget.why}); the server may be paging forever`, {
    hint: `If it really has that many ${what}, set TRIBUTARY_MAX_PAGES to a larger number of pages`,
  });
}

export interface ListResult {
  rows: Json[];
  hasMore: boolean;
  key: string | null;
  body: Json;
}

export interface SdpClientOptions {
  config: SdpConfig;
  ctx: Pick<ConnectorContext, 'log'>;
  tokens: TokenManager | null;
  retry?: RetryOptions;
  /** Whole-request deadline (the check uses a short one); TRIBUTARY_UPSTREAM_DEADLINE_MS caps it. */
  deadlineMs?: number;
}

/** What a page that is not the API looks like (described, never quoted: the URL may point anywhere). */
function notApi(res: { status: number; text: string; headers: Record<string, string | string[] | undefined> }): string {
  const sample = res.text.slice(0, 65_536);
  const server = res.headers.server;
  const by = servedBy(res.text, Array.isArray(server) ? server[0] : server);
  const like = /ServiceDesk|ManageEngine/i.test(sample)
    ? '; it looks like a ServiceDesk Plus web page, not its API'
    : /zoho/i.test(sample)
      ? '; it looks like a Zoho page, not the ServiceDesk Plus API'
      : by
        ? `; it looks like a page served by ${by}`
        : '';
  return `${describeResponse(res)}${like}`;
}

/**
 * The client's response classifier: a JSON body whose status is success is a success; rate limits
 * (4015, HTTP 429) and server errors (5xx) are transient; anything else (refused credentials, missing
 * scope or permission, an unknown list, an answer that is not JSON) is permanent, named so the user can
 * fix it.
 */
export function classifyAnswer(
  res: HttpResponse,
  o: { path: string; deployment: Deployment; apiBase: string; refreshed?: boolean; method?: string },
): Verdict<Json> {
  let body: Json | null = null;
  try {
    body = JSON.parse(res.text) as Json;
  } catch {
    body = null;
  }
  const status = readStatus(body);
  if (res.status < 300 && body && (status.ok || (!status.present && !('error' in body)))) return { kind: 'success', value: body };
  if (res.status >= 200 && res.status < 300 && !body) {
    return failureVerdict(
      new SdpApiError(`${o.method ?? 'GET'} ${o.path}: the answer is not JSON (${notApi(res)})`, {
        kind: 'other',
        codes: [],
        field: null,
        module: moduleOf(o.path),
        status: res.status,
        hint: 'Check serverUrl: it must be the ServiceDesk Plus address, not a login or proxy page',
      }),
    );
  }
  const err = errorFor(res.status, body, o);
  if (!body) err.message = err.message.replace('no JSON body', `no JSON body: ${notApi(res)}`);
  return failureVerdict(err);
}

/** A transient failure of a call that is not safe to repeat, made permanent (the retry loop leaves it). */
function notRepeated(err: UpstreamError): UpstreamError {
  return new UpstreamError(`${err.message} (not repeated: the request may have reached the server)`, { status: err.status, hint: err.hint, cause: err });
}

export class SdpClient {
  readonly apiBase: string;
  readonly deployment: Deployment;
  readonly #http: HttpClient;
  readonly #opts: SdpClientOptions;
  /** API calls made, by path (for logs and tests). */
  readonly calls = new Map<string, number>();

  constructor(opts: SdpClientOptions) {
    this.#opts = opts;
    this.deployment = deploymentOf(opts.config);
    this.apiBase = apiBaseOf(opts.config);
    this.#http = new HttpClient({
      baseUrl: this.apiBase,
      verifySsl: opts.config.verifySsl,
      log: opts.ctx.log,
      timeoutMs: 120_000,
      deadlineMs: opts.deadlineMs,
    });
  }

  async #authHeaders(signal?: AbortSignal): Promise<{ headers: Record<string, string>; token: string | null }> {
    if (this.deployment === 'onprem') return { headers: { authtoken: this.#opts.config.apiKey ?? '' }, token: null };
    if (!this.#opts.tokens) throw new Error('cloud client without a token manager');
    const token = await this.#opts.tokens.accessToken(signal);
    return { headers: { authorization: `Zoho-oauthtoken ${token}` }, token };
  }

  /** GET with retries; answers the parsed success body or throws SdpApiError. */
  async get(path: string, query: Record<string, string> = {}, opts: { signal?: AbortSignal; retry?: RetryOptions } = {}): Promise<Json> {
    const p = path.startsWith('/') ? path : `/${path}`;
    this.calls.set(p, (this.calls.get(p) ?? 0) + 1);
    const ctx = { path: p, deployment: this.deployment, apiBase: this.apiBase };
    return callWithRetry(
      async () => {
        let refreshed = false;
        for (;;) {
          const auth = await this.#authHeaders(opts.signal);
          const res = await this.#http.send({ method: 'GET', path: p, query, headers: { accept: ACCEPT, ...auth.headers }, signal: opts.signal });
          const verdict = classifyAnswer(res, { ...ctx, refreshed });
          // A 401 that is not a scope denial: refresh the access token once and try again (not a retry).
          if (verdict.kind === 'permanent' && auth.token && !refreshed && res.status === 401 && (verdict.error as SdpApiError).kind === 'auth') {
            this.#opts.tokens!.invalidate(auth.token);
            refreshed = true;
            continue;
          }
          return verdict;
        }
      },
      { log: this.#opts.ctx.log, what: `GET ${p}`, ...this.#opts.retry, ...opts.retry, signal: opts.signal },
    );
  }

  /**
   * A write (POST, PUT) with a form-encoded `input_data` JSON, as the v3 API takes it. `once`: a call
   * that is not safe to repeat (creating a request): only a rate-limit refusal (the server surely did
   * nothing) is tried again; a server error or a lost connection is thrown, so the caller's marker
   * search decides later whether it was created.
   */
  async write(method: 'POST' | 'PUT', path: string, doc: Json, opts: { signal?: AbortSignal; once?: boolean; retry?: RetryOptions } = {}): Promise<Json> {
    const p = path.startsWith('/') ? path : `/${path}`;
    const key = `${method} ${p}`;
    this.calls.set(key, (this.calls.get(key) ?? 0) + 1);
    const ctx = { path: p, deployment: this.deployment, apiBase: this.apiBase, method };
    const form = { input_data: JSON.stringify(doc) };
    return callWithRetry(
      async () => {
        let refreshed = false;
        for (;;) {
          const auth = await this.#authHeaders(opts.signal);
          let res: HttpResponse;
          try {
            res = await this.#http.send({ method, path: p, form, headers: { accept: ACCEPT, ...auth.headers }, signal: opts.signal });
          } catch (err) {
            // The request may have reached the server: not repeated when it is not safe to.
            if (opts.once && err instanceof UpstreamError && err.transient) return { kind: 'permanent', error: notRepeated(err) };
            throw err;
          }
          const verdict = classifyAnswer(res, { ...ctx, refreshed });
          if (verdict.kind === 'permanent' && auth.token && !refreshed && res.status === 401 && (verdict.error as SdpApiError).kind === 'auth') {
            this.#opts.tokens!.invalidate(auth.token);
            refreshed = true;
            continue;
          }
          if (opts.once && verdict.kind === 'transient' && (verdict.error as SdpApiError).kind !== 'rate-limit')
            return { kind: 'permanent', error: notRepeated(verdict.error) };
          return verdict;
        }
      },
      { log: this.#opts.ctx.log, what: key, ...this.#opts.retry, ...opts.retry, signal: opts.signal },
    );
  }

  /** One page of a list: `input_data={"list_info":…}`. */
  async list(path: string, listInfo: Json, opts: { signal?: AbortSignal; retry?: RetryOptions; key?: string } = {}): Promise<ListResult> {
    const body = await this.get(path, { input_data: JSON.stringify({ list_info: listInfo }) }, opts);
    const page = readListPage(body, opts.key, `GET /${path.replace(/^\/+/, '')}`);
    const { key, rows } = page;
    return { rows, hasMore: hasMoreRows(body) && rows.length > 0, key, body };
  }

  async close(): Promise<void> {
    await this.#http.close();
  }
}
