// Test harness for the API: an app on a temporary data dir (SQLite, or a fresh PostgreSQL database),
// a Fastify instance from buildServer, a collecting logger, and small request helpers.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { after, before } from 'node:test';
import pg from 'pg';
import { type AppContext, openApp } from '../../src/app/context.ts';
import { ConnectorRegistry } from '../../src/connectors/registry.ts';
import { createLogger } from '../../src/core/log.ts';
import { buildServer, type ServerOptions } from '../../src/server/server.ts';
import type { TestDatabase } from '../helpers/databases.ts';
import { fixtureConnector, GOOD_TOKEN } from './fixture-connector.ts';

// Every test that writes records fails on a field its model does not have (store/records/upsert.ts checkFields).
process.env.TRIBUTARY_STRICT_FIELDS ??= '1';

export const ADMIN_PASSWORD = 'correct horse battery staple 42';

export interface Harness {
  app: AppContext;
  server: FastifyInstance;
  dataDir: string;
  logs: string[];
  printed: string[];
  close(): Promise<void>;
}

export async function makeHarness(opts: { db?: string; env?: NodeJS.ProcessEnv; server?: ServerOptions; registry?: ConnectorRegistry } = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tributary-api-'));
  const logs: string[] = [];
  const printed: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      logs.push(chunk.toString());
      cb();
    },
  });
  const app = await openApp({
    dataDir,
    db: opts.db,
    env: {},
    log: createLogger({ destination, level: 'debug' }),
    registry: opts.registry ?? new ConnectorRegistry([fixtureConnector]),
  });
  const env = opts.env ?? { TRIBUTARY_ADMIN_PASSWORD: ADMIN_PASSWORD };
  const server = await buildServer(app, { env, print: (l) => printed.push(l), ...opts.server });
  return {
    app,
    server,
    dataDir,
    logs,
    printed,
    close: async () => {
      await server.close();
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type Res = LightMyRequestResponse & { data: unknown };

export async function call(server: FastifyInstance, opts: InjectOptions): Promise<Res> {
  const res = (await server.inject(opts)) as Res;
  res.data = res.headers['content-type']?.toString().includes('json') && res.body ? JSON.parse(res.body) : undefined;
  return res;
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** Logs in through the API; returns the cookie header and the CSRF token. */
export async function login(server: FastifyInstance, password = ADMIN_PASSWORD): Promise<{ cookie: string; csrf: string }> {
  const res = await call(server, { method: 'POST', url: '/api/v1/auth/login', payload: { username: 'admin', password } });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  const c = res.cookies.find((x) => x.name === 'tributary_session');
  if (!c) throw new Error('no session cookie');
  return { cookie: `tributary_session=${c.value}`, csrf: (res.data as { csrfToken: string }).csrfToken };
}

/** Creates an admin API token through a cookie session. */
export async function apiToken(server: FastifyInstance): Promise<string> {
  const { cookie, csrf } = await login(server);
  const res = await call(server, {
    method: 'POST',
    url: '/api/v1/tokens',
    headers: { cookie, 'x-csrf-token': csrf },
    payload: { name: 'tests', scope: 'admin' },
  });
  if (res.statusCode !== 201) throw new Error(`token failed: ${res.statusCode} ${res.body}`);
  return (res.data as { token: string }).token;
}

export async function waitForRun(server: FastifyInstance, token: string, runId: string, timeoutMs = 10_000): Promise<Record<string, unknown>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const res = await call(server, { method: 'GET', url: `/api/v1/runs/${runId}`, headers: bearer(token) });
    const run = res.data as Record<string, unknown>;
    if (res.statusCode === 200 && run.status !== 'running') return run;
    if (Date.now() > end) throw new Error(`run ${runId} still ${run.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// ---- PostgreSQL: a fresh database per suite, dropped afterwards ----

function pgBase(): string {
  const u = new URL(process.env.TRIBUTARY_TEST_PG_URL ?? 'postgres://127.0.0.1:5432/test');
  if (!u.username && !process.env.PGUSER && !process.env.USER) u.username = 'postgres';
  return u.toString();
}

/** Creates `tributary_t_<random>`; returns its URL and a drop function, or null when PostgreSQL is unreachable. */
export async function freshPgDatabase(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const base = pgBase();
  const admin = new pg.Client({ connectionString: base, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const name = `tributary_t_${randomBytes(6).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
      await c.query(`DROP DATABASE IF EXISTS ${name}`);
      await c.end();
    },
  };
}

/** A server on a fresh database of `backend` for the enclosing describe: made before its tests (then seeded), closed after. */
export function serverOn(backend: { create: () => Promise<TestDatabase> }, seed?: (h: Harness) => Promise<void>): { h: Harness; auth: Record<string, string> } {
  const ctx = {} as { h: Harness; auth: Record<string, string>; drop?: () => Promise<void> };
  before(async () => {
    const db = await backend.create();
    ctx.drop = () => db.drop();
    ctx.h = await makeHarness({ db: db.url });
    ctx.auth = bearer(await apiToken(ctx.h.server));
    await seed?.(ctx.h);
  });
  after(async () => {
    await ctx.h?.close();
    await ctx.drop?.();
  });
  return ctx;
}

/**
 * An admin API token, and a fixture source `lab` synced once in full through the API (the set-up of the
 * tests that read real answers); returns the token and the sync's answer.
 */
export async function adminTokenAndSyncedLab(server: FastifyInstance): Promise<{ token: string; sync: unknown }> {
  const { cookie, csrf } = await login(server);
  const res = await call(server, {
    method: 'POST',
    url: '/api/v1/tokens',
    headers: { cookie, 'x-csrf-token': csrf },
    payload: { name: 'shapes', scope: 'admin' },
  });
  const token = (res.data as { token: string }).token;
  const created = await call(server, {
    method: 'POST',
    url: '/api/v1/sources',
    headers: bearer(token),
    payload: { name: 'lab', type: 'fixture', config: { url: 'https://fixture.example.test', token: GOOD_TOKEN } },
  });
  assert.equal(created.statusCode, 201, created.body);
  const sync = await call(server, { method: 'POST', url: '/api/v1/sources/lab/sync', headers: bearer(token), payload: { full: true } });
  await waitForRun(server, token, String((sync.data as { runId: string }).runId));
  return { token, sync: sync.data };
}
