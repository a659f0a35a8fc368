// Zoho OAuth for SDP Cloud: the one-time exchange of a Self Client authorization code for a refresh
// token, access tokens cached (encrypted source state) and refreshed before expiry or once after a 401,
// one in-flight refresh shared by every caller, Zoho's limit of 10 token requests per 10 minutes kept
// locally, and revocation.
import type { SourceStateAccess } from '../../core/connector.ts';
import { errorMessage, InputError, UpstreamError } from '../../core/errors.ts';
import { HttpClient } from '../../core/http.ts';
import type { Logger } from '../../core/log.ts';
import { registerSecret } from '../../core/secrets.ts';
import { accountsUrlOf, REGIONS, regionOfApiDomain, type SdpConfig, tokenOwner } from './config.ts';

/** Zoho: 10 access-token requests per 10 minutes; beyond that creation is blocked for the window. */
export const TOKEN_LIMIT = 10;
export const TOKEN_WINDOW_MS = 600_000;
/** Refresh this long before the access token expires. */
export const REFRESH_MARGIN_MS = 60_000;

export interface TokenState {
  refreshToken?: string | null;
  accessToken?: string | null;
  accessTokenExpiresAt?: number | null;
  /** Times (epoch ms) of recent token requests, for the local rate limit. */
  tokenRequests?: number[];
  tokenBlockedUntil?: number | null;
  apiDomain?: string | null;
  grantedScope?: string | null;
  /** accounts server | client id the refresh token was issued to. */
  tokenOwner?: string | null;
}

/** An `{"error": …}` answer of the token endpoint. */
export class ZohoTokenError extends UpstreamError {
  readonly code: string;
  readonly description: string | null;
  constructor(code: string, description: string | null, message: string, hint: string | null) {
    super(message, { hint });
    this.name = 'ZohoTokenError';
    this.code = code;
    this.description = description;
  }
}

const isThrottle = (code: string, description: string | null) => /access denied/i.test(code) || /too many requests/i.test(description ?? '');

export interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  api_domain?: string;
  scope?: string;
}

interface PostOptions {
  verifySsl: boolean;
  log?: Logger;
  signal?: AbortSignal;
}

async function postAccounts(accountsUrl: string, path: string, form: Record<string, string>, query: Record<string, string>, opts: PostOptions) {
  const http = new HttpClient({ baseUrl: accountsUrl, verifySsl: opts.verifySsl, log: opts.log, timeoutMs: 30_000 });
  try {
    const res = await http.send({ method: 'POST', path, form, query, signal: opts.signal });
    let body: Record<string, unknown> | null = null;
    try {
      body = JSON.parse(res.text) as Record<string, unknown>;
    } catch {
      body = null;
    }
    return { status: res.status, body };
  } finally {
    await http.close();
  }
}

/** POSTs to /oauth/v2/token; any `error` key is a failure whatever the HTTP status. */
export async function requestToken(accountsUrl: string, form: Record<string, string>, opts: PostOptions): Promise<TokenResponse> {
  const { status, body } = await postAccounts(accountsUrl, '/oauth/v2/token', form, {}, opts);
  if (!body) {
    throw new UpstreamError(`the Zoho accounts server ${accountsUrl} answered HTTP ${status} without JSON`, {
      status,
      hint: 'Check the region (or accountsUrl): it must be the Zoho accounts server, e.g. https://accounts.zoho.com',
    });
  }
  if (typeof body.error === 'string' || body.status === 'failure') {
    const code = typeof body.error === 'string' ? body.error : 'failure';
    const description = typeof body.error_description === 'string' ? body.error_description : null;
    throw new ZohoTokenError(code, description, `Zoho refused the token request: ${code}${description ? ` (${description})` : ''}`, null);
  }
  if (typeof body.access_token !== 'string') throw new UpstreamError(`the Zoho accounts server answered HTTP ${status} without an access token`, { status });
  registerSecret(body.access_token);
  if (typeof body.refresh_token === 'string') registerSecret(body.refresh_token);
  return body as unknown as TokenResponse;
}

function regionHint(): string {
  const others = Object.entries(REGIONS)
    .map(([k, r]) => `${new URL(r.console).host} → ${k}`)
    .join(', ');
  return `Pick the region of the API console the Self Client was created in (${others})`;
}

/** Turns a failed code exchange into a message the user can act on. */
export function explainExchangeError(err: unknown, config: SdpConfig): InputError {
  const accounts = accountsUrlOf(config);
  if (err instanceof ZohoTokenError) {
    switch (err.code) {
      case 'invalid_code':
        return new InputError(
          'the authorization code was refused (invalid_code): it has expired or was already used. Generate a new code in the API console (Self Client > Generate Code) and save it at once; it is valid for a few minutes only',
          'authorizationCode',
        );
      case 'invalid_client':
        return new InputError(
          `the Zoho accounts server for region '${config.region}' (${accounts}) does not know this client (invalid_client): either the Client ID or Client Secret is wrong, or the Self Client belongs to another data centre. ${regionHint()}`,
          'region',
        );
      case 'invalid_scope':
        return new InputError(
          'Zoho refused the scopes of the code (invalid_scope): generate a new code with valid scopes, e.g. SDPOnDemand.requests.READ,SDPOnDemand.assets.READ',
          'authorizationCode',
        );
      default:
        if (isThrottle(err.code, err.description))
          return new InputError('Zoho refused to issue more tokens (too many requests): wait ten minutes, then generate a new code', 'authorizationCode');
        return new InputError(`exchanging the authorization code failed: ${err.code}${err.description ? ` (${err.description})` : ''}`, 'authorizationCode');
    }
  }
  return new InputError(`cannot exchange the authorization code at ${accounts}: ${errorMessage(err)}`, 'accountsUrl');
}

/** `onSave`: exchanges the code at once and keeps the refresh token (and first access token) in state. */
export async function exchangeAuthorizationCode(config: SdpConfig, code: string, state: SourceStateAccess, log?: Logger): Promise<TokenState> {
  const now = Date.now();
  let body: TokenResponse;
  try {
    body = await requestToken(
      accountsUrlOf(config),
      { grant_type: 'authorization_code', client_id: config.clientId ?? '', client_secret: config.clientSecret ?? '', code },
      { verifySsl: config.verifySsl, log },
    );
  } catch (err) {
    throw explainExchangeError(err, config);
  }
  if (!body.refresh_token) {
    throw new InputError(
      'Zoho returned no refresh token for this code: generate the code with a Self Client (API console > Self Client > Generate Code)',
      'authorizationCode',
    );
  }
  const prev = (await state.get()) as TokenState;
  const patch: TokenState = {
    refreshToken: body.refresh_token,
    accessToken: body.access_token,
    accessTokenExpiresAt: now + (Number(body.expires_in) || 3600) * 1000,
    tokenRequests: [...(prev.tokenRequests ?? []).filter((t) => t > now - TOKEN_WINDOW_MS), now],
    tokenBlockedUntil: null,
    apiDomain: body.api_domain ?? null,
    grantedScope: body.scope ?? null,
    tokenOwner: tokenOwner(config),
  };
  await state.set(patch as Record<string, unknown>);
  return patch;
}

/** Revokes a token at Zoho (`/oauth/v2/token/revoke?token=…`). */
export async function revokeToken(config: SdpConfig, token: string, log?: Logger): Promise<void> {
  const { status, body } = await postAccounts(accountsUrlOf(config), '/oauth/v2/token/revoke', {}, { token }, { verifySsl: config.verifySsl, log });
  if (status >= 400 || !body || body.status !== 'success') {
    const why = body && typeof body.error === 'string' ? body.error : `HTTP ${status}`;
    throw new UpstreamError(`Zoho did not revoke the refresh token (${why})`, {
      status,
      hint: 'It may have been revoked already; check Connected Apps in your Zoho account',
    });
  }
}

export interface TokenManagerOptions {
  limit?: number;
  windowMs?: number;
}

/** Access tokens for one source, shared by its streams and its check. */
export class TokenManager {
  readonly #config: SdpConfig;
  readonly #state: SourceStateAccess;
  readonly #log: Logger | undefined;
  readonly #limit: number;
  readonly #windowMs: number;
  #cache: { token: string; expiresAt: number } | null = null;
  #rejected: string | null = null;
  #inflight: Promise<string> | null = null;
  /** Token requests this manager made (for tests and logs). */
  refreshes = 0;

  constructor(config: SdpConfig, state: SourceStateAccess, log?: Logger, opts: TokenManagerOptions = {}) {
    this.#config = config;
    this.#state = state;
    this.#log = log;
    this.#limit = opts.limit ?? TOKEN_LIMIT;
    this.#windowMs = opts.windowMs ?? TOKEN_WINDOW_MS;
  }

  async accessToken(signal?: AbortSignal): Promise<string> {
    const c = this.#cache;
    if (c && c.expiresAt - REFRESH_MARGIN_MS > Date.now()) return c.token;
    this.#inflight ??= this.#obtain(signal).finally(() => {
      this.#inflight = null;
    });
    return this.#inflight;
  }

  /** The API refused `token` (HTTP 401): the next `accessToken()` asks Zoho for a new one. */
  invalidate(token: string): void {
    this.#rejected = token;
    if (this.#cache?.token === token) this.#cache = null;
  }

  async #obtain(signal?: AbortSignal): Promise<string> {
    const st = (await this.#state.get()) as TokenState;
    const now = Date.now();
    if (!st.refreshToken) {
      throw new UpstreamError('no refresh token is stored for this source', {
        hint: 'Generate an authorization code in the Zoho API console (Self Client > Generate Code) and save it in the source configuration (authorizationCode)',
      });
    }
    if (st.tokenOwner && st.tokenOwner !== tokenOwner(this.#config)) {
      throw new UpstreamError('the stored refresh token was issued to another client or accounts server than the one configured', {
        hint: 'Save the configuration with a new authorization code generated for this Client ID and region',
      });
    }
    // Another run (or process) may have refreshed already.
    if (st.accessToken && st.accessToken !== this.#rejected && (st.accessTokenExpiresAt ?? 0) - REFRESH_MARGIN_MS > now) {
      registerSecret(st.accessToken);
      this.#cache = { token: st.accessToken, expiresAt: st.accessTokenExpiresAt ?? 0 };
      return st.accessToken;
    }
    if (st.tokenBlockedUntil && st.tokenBlockedUntil > now) {
      throw new UpstreamError(
        `Zoho blocked new access tokens for this client until ${new Date(st.tokenBlockedUntil).toISOString()} (too many token requests)`,
        {
          hint: 'Wait until then; the connector caches tokens and refreshes them only near expiry',
        },
      );
    }
    const recent = (st.tokenRequests ?? []).filter((t) => t > now - this.#windowMs);
    if (recent.length >= this.#limit) {
      const waitS = Math.ceil((Math.min(...recent) + this.#windowMs - now) / 1000);
      throw new UpstreamError(
        `not requesting another access token: ${recent.length} were requested in the last ${Math.round(this.#windowMs / 60_000)} minutes, the most Zoho allows`,
        {
          transient: true,
          retryAfter: waitS,
          hint: `Zoho blocks token creation beyond ${this.#limit} requests per ${Math.round(this.#windowMs / 60_000)} minutes; the next one is allowed in ${waitS} s`,
        },
      );
    }
    recent.push(now);
    await this.#state.set({ tokenRequests: recent });
    this.refreshes++;
    let body: TokenResponse;
    try {
      body = await requestToken(
        accountsUrlOf(this.#config),
        { grant_type: 'refresh_token', client_id: this.#config.clientId ?? '', client_secret: this.#config.clientSecret ?? '', refresh_token: st.refreshToken },
        { verifySsl: this.#config.verifySsl, log: this.#log, signal },
      );
    } catch (err) {
      if (err instanceof ZohoTokenError) {
        if (isThrottle(err.code, err.description)) {
          await this.#state.set({ tokenBlockedUntil: now + this.#windowMs });
          throw new UpstreamError('Zoho refused to issue an access token: too many token requests', {
            hint: 'Wait ten minutes; tokens are cached and refreshed only near expiry',
          });
        }
        if (err.code === 'invalid_code' || err.code === 'invalid_grant') {
          throw new UpstreamError(
            `Zoho refused the stored refresh token (${err.code}): it was revoked, or replaced (Zoho keeps at most 20 refresh tokens per user)`,
            {
              hint: 'Generate a new authorization code and save it in the source configuration',
            },
          );
        }
        if (err.code === 'invalid_client') {
          throw new UpstreamError(`Zoho refused the client (invalid_client) at ${accountsUrlOf(this.#config)}`, {
            hint: `Check Client ID and Client Secret. ${regionHint()}`,
          });
        }
      }
      throw err;
    }
    const expiresAt = Date.now() + (Number(body.expires_in) || 3600) * 1000;
    await this.#state.set({
      accessToken: body.access_token,
      accessTokenExpiresAt: expiresAt,
      ...(body.api_domain ? { apiDomain: body.api_domain } : {}),
      ...(body.scope ? { grantedScope: body.scope } : {}),
    });
    this.#cache = { token: body.access_token, expiresAt };
    this.#log?.debug({ expiresAt: new Date(expiresAt).toISOString() }, 'obtained a new SDP access token');
    return body.access_token;
  }
}

/** The data centre that issued the tokens (from `api_domain`), when it differs from the configured region. */
export function regionMismatch(config: SdpConfig, apiDomain: string | null | undefined): string | null {
  if (!apiDomain) return null;
  const r = regionOfApiDomain(apiDomain);
  return r && r !== config.region ? r : null;
}
