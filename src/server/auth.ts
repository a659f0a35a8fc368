// Authentication for the API: scrypt password hashes, the admin bootstrap at first start, cookie
// sessions with a CSRF token, bearer API tokens with their scope, the request hook that enforces them
// (and each route's scope), and the in-memory login rate limiter. Session and API tokens are stored
// only as SHA-256 hashes.
import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashToken, newToken } from '../app/api-tokens.ts';
import type { AppContext } from '../app/context.ts';
import { scopeAllows, type TokenScope } from '../core/token-scopes.ts';
import { ApiError } from './errors.ts';

export const SESSION_COOKIE = 'tributary_session';
export const CSRF_HEADER = 'x-csrf-token';
export const SESSION_TTL_MS = 12 * 3600_000;
export const ADMIN_USER = 'admin';

export interface AuthInfo {
  userId: string;
  username: string;
  via: 'session' | 'token';
  /** What the request may do: a token's scope; a session (the admin user) has `admin`. */
  scope: TokenScope;
  /** The session's CSRF token (null for bearer tokens). */
  csrfToken: string | null;
  /** Hash of the session token, to end the session at logout. */
  sessionHash: string | null;
  /** The API token's name (null for a session). */
  tokenName?: string | null;
}

/** Who made a change, for people: the user of a session, or the API token by its name. */
export function actorOf(auth: AuthInfo | null): string | null {
  if (!auth) return null;
  return auth.via === 'token' ? `API token ${auth.tokenName ?? '?'}` : auth.username;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthInfo | null;
  }
  interface FastifyContextConfig {
    /** Route answers without authentication. */
    public?: boolean;
    /**
     * The token scope the route needs. Every route that is not public declares one (test/server/scopes.test.ts
     * walks them); one that does not is treated as `admin`.
     */
    scope?: TokenScope;
  }
}

// ---- passwords ----

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 64 };

function scrypt(password: string, salt: Buffer, N: number, r: number, p: number, keylen: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(password, salt, keylen, { N, r, p, maxmem: 256 * N * r }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** `scrypt:N:r:p:<salt base64>:<hash base64>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p, SCRYPT.keylen);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join(':');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split(':');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64');
  const expected = Buffer.from(parts[5], 'base64');
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0) || expected.length === 0) return false;
  const key = await scrypt(password, salt, N, r, p, expected.length);
  return timingSafeEqual(key, expected);
}

/** A hash to compare against when the user does not exist, so timing does not reveal usernames. */
let dummyHash: Promise<string> | null = null;
function dummy(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  return dummyHash;
}

// ---- bootstrap ----

export interface BootstrapOptions {
  env?: NodeJS.ProcessEnv;
  /** Where the generated password's one line goes; default stdout. */
  print?: (line: string) => void;
}

/**
 * Creates the `admin` user when there are no users: password from TRIBUTARY_ADMIN_PASSWORD, else a
 * random one printed once and written to `<data-dir>/admin-password` (0600). Later starts do nothing.
 */
export async function bootstrapAdmin(app: AppContext, opts: BootstrapOptions = {}): Promise<{ created: boolean; passwordFile: string | null }> {
  if ((await app.store.users.count()) > 0) return { created: false, passwordFile: null };
  const env = opts.env ?? process.env;
  const fromEnv = env.TRIBUTARY_ADMIN_PASSWORD;
  const password = fromEnv && fromEnv !== '' ? fromEnv : randomBytes(18).toString('base64url');
  try {
    await app.store.users.create(ADMIN_USER, await hashPassword(password));
  } catch (err) {
    // Another process bootstrapped at the same moment (PostgreSQL): its admin stands.
    if (await app.store.users.find(ADMIN_USER)) return { created: false, passwordFile: null };
    throw err;
  }
  if (fromEnv) {
    app.log.info({ user: ADMIN_USER }, 'created the admin user with the password from TRIBUTARY_ADMIN_PASSWORD');
    return { created: true, passwordFile: null };
  }
  const file = join(app.dataDir, 'admin-password');
  mkdirSync(app.dataDir, { recursive: true });
  writeFileSync(file, password + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  const print = opts.print ?? ((line: string) => process.stdout.write(line + '\n'));
  print(`Created user '${ADMIN_USER}' with password: ${password}  (also written to ${file})`);
  app.log.info({ user: ADMIN_USER, file }, 'created the admin user with a generated password');
  return { created: true, passwordFile: file };
}

// ---- tokens and sessions ----

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export async function createSession(app: AppContext, userId: string): Promise<{ token: string; csrfToken: string; expiresAt: string }> {
  const token = newToken('trs_');
  const csrfToken = randomBytes(24).toString('base64url');
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS).toISOString();
  await app.store.users.createSession(hashToken(token), userId, csrfToken, expiresAt);
  return { token, csrfToken, expiresAt };
}

/** A token's use is recorded at most this often (a busy script would otherwise write on every request). */
const TOKEN_TOUCH_MS = 60_000;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

async function authenticate(app: AppContext, req: FastifyRequest): Promise<AuthInfo | null> {
  const header = req.headers.authorization;
  if (header !== undefined) {
    // A request that sends Authorization is judged by it alone; no fallback to the cookie.
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) return null;
    const tok = await app.store.users.findToken(hashToken(m[1]));
    if (!tok) return null;
    const now = new Date();
    if (tok.expiresAt !== null && tok.expiresAt <= now.toISOString()) return null;
    if (tok.lastUsedAt === null || now.getTime() - Date.parse(tok.lastUsedAt) >= TOKEN_TOUCH_MS) await app.store.users.touchToken(tok.id, now.toISOString());
    const user = await app.store.users.getById(tok.userId);
    return user && { userId: user.id, username: user.username, via: 'token', scope: tok.scope, csrfToken: null, sessionHash: null, tokenName: tok.name };
  }
  const cookie = req.cookies?.[SESSION_COOKIE];
  if (!cookie) return null;
  const hash = hashToken(cookie);
  const session = await app.store.users.findSession(hash);
  if (!session) return null;
  const user = await app.store.users.getById(session.userId);
  return user && { userId: user.id, username: user.username, via: 'session', scope: 'admin', csrfToken: session.csrfToken, sessionHash: hash };
}

/** The scope a route needs: its declared one, else `admin` (a route that forgot to say is closed, not open). */
export function requiredScope(config: { scope?: TokenScope } | undefined): TokenScope {
  return config?.scope ?? 'admin';
}

/** onRequest hook: every route not marked public needs a session cookie or a bearer token whose scope allows it. */
export function authHook(app: AppContext) {
  return async (req: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    req.auth = null;
    if (req.routeOptions.config?.public) return;
    // Unknown paths outside the API are plain 404s; unknown API paths need auth first.
    if (req.is404 && !req.url.startsWith('/api/')) return;
    const auth = await authenticate(app, req);
    if (!auth) throw new ApiError(401, 'unauthorized', 'authentication required: log in, or send Authorization: Bearer <token>');
    if (auth.via === 'session' && !SAFE_METHODS.has(req.method)) {
      const sent = req.headers[CSRF_HEADER];
      if (typeof sent !== 'string' || !auth.csrfToken || !sameString(sent, auth.csrfToken)) {
        throw new ApiError(403, 'csrf', `missing or wrong ${CSRF_HEADER} header: send the csrfToken from login or GET /api/v1/auth/session`, CSRF_HEADER);
      }
    }
    // An unknown API path is a 404 for whoever is authenticated; it has no scope to check.
    if (!req.is404) {
      const needed = requiredScope(req.routeOptions.config);
      if (!scopeAllows(auth.scope, needed))
        throw new ApiError(403, 'forbidden', `this API token has scope '${auth.scope}'; ${req.method} ${req.routeOptions.url} needs '${needed}'`, null, {
          scope: auth.scope,
          needed,
        });
    }
    req.auth = auth;
  };
}

/** Checks a login; returns the user or null. Runs the hash comparison even for unknown users. */
export async function checkLogin(app: AppContext, username: string, password: string): Promise<{ id: string; username: string } | null> {
  const user = await app.store.users.find(username);
  const ok = await verifyPassword(password, user?.passwordHash ?? (await dummy()));
  return ok && user ? { id: user.id, username: user.username } : null;
}

// ---- login rate limiting ----

export interface RateLimitOptions {
  /** Failed attempts allowed per username and IP within the window. */
  perUser?: number;
  /** Failed attempts allowed per IP (any usernames) within the window. */
  perIp?: number;
  windowMs?: number;
}

/** Counts failed logins in a sliding window, per username+IP and per IP. */
export class LoginLimiter {
  readonly #perUser: number;
  readonly #perIp: number;
  readonly #windowMs: number;
  readonly #failures = new Map<string, number[]>();

  constructor(opts: RateLimitOptions = {}) {
    this.#perUser = opts.perUser ?? 5;
    this.#perIp = opts.perIp ?? 20;
    this.#windowMs = opts.windowMs ?? 60_000;
  }

  #recent(key: string, now: number): number[] {
    const list = (this.#failures.get(key) ?? []).filter((t) => now - t < this.#windowMs);
    if (list.length) this.#failures.set(key, list);
    else this.#failures.delete(key);
    return list;
  }

  /** Seconds until another attempt is allowed, or 0 when allowed now. */
  retryAfter(username: string, ip: string, now = Date.now()): number {
    const checks: [string, number][] = [
      [`u:${username.toLowerCase()}|${ip}`, this.#perUser],
      [`ip:${ip}`, this.#perIp],
    ];
    let wait = 0;
    for (const [key, max] of checks) {
      const list = this.#recent(key, now);
      if (list.length >= max) wait = Math.max(wait, Math.ceil((list[list.length - max] + this.#windowMs - now) / 1000));
    }
    return wait;
  }

  fail(username: string, ip: string, now = Date.now()): void {
    for (const key of [`u:${username.toLowerCase()}|${ip}`, `ip:${ip}`]) {
      const list = this.#recent(key, now);
      list.push(now);
      this.#failures.set(key, list);
    }
    if (this.#failures.size > 10_000) for (const k of this.#failures.keys()) this.#recent(k, now);
  }

  succeed(username: string, ip: string): void {
    this.#failures.delete(`u:${username.toLowerCase()}|${ip}`);
  }
}
