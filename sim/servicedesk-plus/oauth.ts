// Zoho Accounts stand-in: Self Client authorization codes (single use, short-lived, carrying scopes),
// refresh tokens, access tokens (3600 s), the per-window access-token request limit, and revocation.
// Errors follow Zoho's habit of `{"error": "<code>"}` in an HTTP 200 body.
import { randomBytes } from 'node:crypto';

export const DATA_CENTRES = ['us', 'eu', 'in', 'au', 'cn', 'jp', 'ca', 'uk', 'sa'] as const;
export type DataCentre = (typeof DATA_CENTRES)[number];

const API_DOMAIN: Record<DataCentre, string> = {
  us: 'https://www.zohoapis.com',
  eu: 'https://www.zohoapis.eu',
  in: 'https://www.zohoapis.in',
  au: 'https://www.zohoapis.com.au',
  cn: 'https://www.zohoapis.com.cn',
  jp: 'https://www.zohoapis.jp',
  ca: 'https://www.zohoapis.ca',
  uk: 'https://www.zohoapis.uk',
  sa: 'https://www.zohoapis.sa',
};

export const DEFAULT_SCOPES = [
  'SDPOnDemand.requests.READ',
  'SDPOnDemand.assets.READ',
  'SDPOnDemand.cmdb.READ',
  'SDPOnDemand.users.READ',
  'SDPOnDemand.setup.READ',
];

export interface OAuthOptions {
  clientId: string;
  clientSecret: string;
  dc: DataCentre;
  codeTtlMs: number;
  accessTokenTtlS: number;
  tokenLimit: number;
  tokenWindowMs: number;
  /** Whether token responses carry `scope` (some Zoho pages show it). */
  includeScope: boolean;
}

interface Code {
  scopes: string[];
  expiresAt: number;
  used: boolean;
  dc: DataCentre;
}
interface Refresh {
  scopes: string[];
  revoked: boolean;
  requests: number[];
}
interface Access {
  scopes: string[];
  expiresAt: number;
  refreshToken: string;
}

export interface TokenAnswer {
  status: number;
  body: Record<string, unknown>;
}

const token = () => `1000.${randomBytes(16).toString('hex')}.${randomBytes(16).toString('hex')}`;

export class ZohoAccounts {
  readonly opts: OAuthOptions;
  readonly #codes = new Map<string, Code>();
  readonly #refresh = new Map<string, Refresh>();
  readonly #access = new Map<string, Access>();
  readonly counts = { authorization_code: 0, refresh_token: 0, throttled: 0, revoke: 0, errors: 0 };

  constructor(opts: OAuthOptions) {
    this.opts = opts;
  }

  mintCode(scopes: string[] = DEFAULT_SCOPES, opts: { ttlMs?: number; dc?: DataCentre } = {}): string {
    const code = token();
    this.#codes.set(code, { scopes, expiresAt: Date.now() + (opts.ttlMs ?? this.opts.codeTtlMs), used: false, dc: opts.dc ?? this.opts.dc });
    return code;
  }

  #fail(error: string): TokenAnswer {
    this.counts.errors++;
    return { status: 200, body: { error } };
  }

  #issue(refreshToken: string, scopes: string[]): Record<string, unknown> {
    const at = token();
    this.#access.set(at, { scopes, expiresAt: Date.now() + this.opts.accessTokenTtlS * 1000, refreshToken });
    return {
      access_token: at,
      ...(this.opts.includeScope ? { scope: scopes.join(' ') } : {}),
      api_domain: API_DOMAIN[this.opts.dc],
      token_type: 'Bearer',
      expires_in: this.opts.accessTokenTtlS,
    };
  }

  token(params: URLSearchParams): TokenAnswer {
    const grant = params.get('grant_type');
    if (grant !== 'authorization_code' && grant !== 'refresh_token') return this.#fail('unsupported_grant_type');
    if (params.get('client_id') !== this.opts.clientId || params.get('client_secret') !== this.opts.clientSecret) return this.#fail('invalid_client');
    if (grant === 'authorization_code') {
      this.counts.authorization_code++;
      const code = this.#codes.get(params.get('code') ?? '');
      // A code made in another data centre's console: that DC's client is unknown here.
      if (code && code.dc !== this.opts.dc) return this.#fail('invalid_client');
      if (!code || code.used || code.expiresAt < Date.now()) return this.#fail('invalid_code');
      code.used = true;
      const rt = token();
      this.#refresh.set(rt, { scopes: code.scopes, revoked: false, requests: [] });
      return { status: 200, body: { ...this.#issue(rt, code.scopes), refresh_token: rt } };
    }
    this.counts.refresh_token++;
    const rtValue = params.get('refresh_token') ?? '';
    const rt = this.#refresh.get(rtValue);
    if (!rt || rt.revoked) return this.#fail('invalid_code');
    const now = Date.now();
    rt.requests = rt.requests.filter((t) => t > now - this.opts.tokenWindowMs);
    if (rt.requests.length >= this.opts.tokenLimit) {
      this.counts.throttled++;
      return {
        status: 400,
        body: {
          error_description: 'You have made too many requests continuously. Please try again after some time.',
          error: 'Access Denied',
          status: 'failure',
        },
      };
    }
    rt.requests.push(now);
    return { status: 200, body: this.#issue(rtValue, rt.scopes) };
  }

  revoke(tokenValue: string): TokenAnswer {
    this.counts.revoke++;
    const rt = this.#refresh.get(tokenValue);
    if (rt && !rt.revoked) {
      rt.revoked = true;
      for (const [k, a] of this.#access) if (a.refreshToken === tokenValue) this.#access.delete(k);
      return { status: 200, body: { status: 'success' } };
    }
    if (this.#access.delete(tokenValue)) return { status: 200, body: { status: 'success' } };
    return { status: 400, body: { status: 'failure', error: 'invalid_token' } };
  }

  /** Scopes of a live access token, or null. */
  accessScopes(at: string): string[] | null {
    const a = this.#access.get(at);
    if (!a || a.expiresAt < Date.now()) return null;
    return a.scopes;
  }

  /** Invalidates every access token (as if they expired), for refresh-on-401 tests. */
  expireAccessTokens(): number {
    const n = this.#access.size;
    this.#access.clear();
    return n;
  }

  isRevoked(refreshToken: string): boolean {
    return this.#refresh.get(refreshToken)?.revoked ?? false;
  }

  liveRefreshTokens(): number {
    return [...this.#refresh.values()].filter((r) => !r.revoked).length;
  }
}

/** Whether a token's scopes grant read on a scope name (`READ` or `ALL`, any case). */
export function hasScope(scopes: string[], name: string): boolean {
  return scopes.some((s) => {
    const m = /^SDPOnDemand\.([a-z_]+)\.(READ|ALL)$/i.exec(s.trim());
    return m !== null && m[1]!.toLowerCase() === name.toLowerCase();
  });
}
