// Admin bootstrap, password hashing, login rate limiting, cookie flags, graceful shutdown, startServer.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hashPassword, LoginLimiter, verifyPassword } from '../../src/server/auth.ts';
import { buildServer, startServer } from '../../src/server/server.ts';
import { parseTrustProxy } from '../../src/server/trust-proxy.ts';
import { GOOD_TOKEN } from './fixture-connector.ts';
import { ADMIN_PASSWORD, apiToken, bearer, call, login, makeHarness } from './helpers.ts';

describe('passwords', () => {
  it('hashes with a random salt and verifies in constant time', async () => {
    const a = await hashPassword('s3cret-pass');
    const b = await hashPassword('s3cret-pass');
    assert.match(a, /^scrypt:16384:8:1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    assert.notEqual(a, b);
    assert.equal(await verifyPassword('s3cret-pass', a), true);
    assert.equal(await verifyPassword('s3cret-pasS', a), false);
    assert.equal(await verifyPassword('s3cret-pass', 'plain:text'), false);
  });
});

describe('admin bootstrap', () => {
  it('uses TRIBUTARY_ADMIN_PASSWORD and writes no file', async () => {
    const h = await makeHarness();
    try {
      assert.deepEqual(h.printed, []);
      assert.throws(() => statSync(join(h.dataDir, 'admin-password')));
      await login(h.server, ADMIN_PASSWORD);
    } finally {
      await h.close();
    }
  });

  it('generates a password, prints it once on one line and writes it 0600; later starts keep it', async () => {
    const h = await makeHarness({ env: {} });
    try {
      assert.equal(h.printed.length, 1);
      const file = join(h.dataDir, 'admin-password');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const password = readFileSync(file, 'utf8').trim();
      assert.ok(password.length >= 20);
      assert.ok(h.printed[0].includes(password));
      assert.doesNotMatch(h.printed[0], /\n/);
      assert.ok(!h.logs.join('').includes(password), 'the generated password is not logged');
      await login(h.server, password);

      const printed: string[] = [];
      const again = await buildServer(h.app, { env: { TRIBUTARY_ADMIN_PASSWORD: 'other-password' }, print: (l) => printed.push(l) });
      assert.deepEqual(printed, []);
      await login(again, password);
      await again.close();
    } finally {
      await h.close();
    }
  });
});

describe('login rate limiting', () => {
  it('answers 429 after a few failures per username and IP, other usernames unaffected', async () => {
    const h = await makeHarness();
    try {
      const attempt = (username: string, password: string, ip = '192.0.2.7') =>
        call(h.server, { method: 'POST', url: '/api/v1/auth/login', payload: { username, password }, remoteAddress: ip });
      for (let i = 0; i < 5; i++) assert.equal((await attempt('admin', `wrong-${i}`)).statusCode, 401);
      const limited = await attempt('admin', ADMIN_PASSWORD);
      assert.equal(limited.statusCode, 429);
      assert.equal((limited.data as { error: { code: string } }).error.code, 'too_many_requests');
      assert.ok(Number(limited.headers['retry-after']) > 0);
      assert.equal((await attempt('admin', ADMIN_PASSWORD, '192.0.2.8')).statusCode, 200, 'another IP may still log in');
      assert.equal((await attempt('someone', 'x')).statusCode, 401, 'another username from the same IP is counted separately');
    } finally {
      await h.close();
    }
  });

  it('behind a proxy, keys on the address the trusted proxy saw, not the client-written X-Forwarded-For', async () => {
    // TRIBUTARY_TRUST_PROXY=true used to trust every hop: the left-most entry, written by the client.
    for (const setting of ['true', '1', '127.0.0.1/32', '::1,127.0.0.0/8']) {
      const h = await makeHarness({ server: { trustProxy: parseTrustProxy(setting) } });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 50; i++) {
          // The client forges the left-most entry; the proxy (127.0.0.1, inject's address) appends the real one.
          const headers = { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.9` };
          const res = await call(h.server, { method: 'POST', url: '/api/v1/auth/login', headers, payload: { username: `user${i}`, password: 'wrong' } });
          statuses.push(res.statusCode);
        }
        assert.equal(statuses.filter((s) => s === 429).length, 30, `TRIBUTARY_TRUST_PROXY=${setting}: the 21st to 50th attempts from one client are refused`);
        // Keyed on the client the proxy saw, not on the proxy: another client behind it still logs in.
        const other = await call(h.server, {
          method: 'POST',
          url: '/api/v1/auth/login',
          headers: { 'x-forwarded-for': '203.0.113.10' },
          payload: { username: 'admin', password: ADMIN_PASSWORD },
        });
        assert.equal(other.statusCode, 200, `TRIBUTARY_TRUST_PROXY=${setting}: another client behind the proxy`);
      } finally {
        await h.close();
      }
    }
  });

  it('reads TRIBUTARY_TRUST_PROXY as hops or addresses, and refuses anything else', () => {
    assert.equal(parseTrustProxy(undefined), false);
    assert.equal(parseTrustProxy('false'), false);
    assert.equal(parseTrustProxy('true'), 1);
    assert.equal(parseTrustProxy('2'), 2);
    assert.deepEqual(parseTrustProxy('10.0.0.0/8, 192.0.2.10,fd00::/8'), ['10.0.0.0/8', '192.0.2.10', 'fd00::/8']);
    assert.throws(() => parseTrustProxy('proxy.example.com'), /TRIBUTARY_TRUST_PROXY: 'proxy.example.com'/);
    assert.throws(() => parseTrustProxy('10.0.0.0/33'), /TRIBUTARY_TRUST_PROXY/);
  });

  it('forgets failures after the window and limits one IP across usernames', () => {
    const l = new LoginLimiter({ perUser: 2, perIp: 3, windowMs: 60_000 });
    l.fail('admin', '1.1.1.1', 0);
    l.fail('admin', '1.1.1.1', 1000);
    assert.ok(l.retryAfter('admin', '1.1.1.1', 2000) > 0);
    assert.equal(l.retryAfter('admin', '1.1.1.1', 61_000), 0);
    l.fail('a', '2.2.2.2', 0);
    l.fail('b', '2.2.2.2', 0);
    l.fail('c', '2.2.2.2', 0);
    assert.ok(l.retryAfter('d', '2.2.2.2', 10) > 0);
  });
});

describe('API tokens', () => {
  it('record their last use, may expire, and an expired one is refused', async () => {
    const h = await makeHarness();
    try {
      const { cookie, csrf } = await login(h.server);
      const session = { cookie, 'x-csrf-token': csrf };
      const forever = await call(h.server, { method: 'POST', url: '/api/v1/tokens', headers: session, payload: { name: 'forever' } });
      assert.equal(forever.statusCode, 201);
      assert.equal((forever.data as { expiresAt: unknown }).expiresAt, null);
      const shortLived = await call(h.server, { method: 'POST', url: '/api/v1/tokens', headers: session, payload: { name: 'short', expiresIn: '2h' } });
      assert.equal(shortLived.statusCode, 201);
      const expiresAt = Date.parse((shortLived.data as { expiresAt: string }).expiresAt);
      assert.ok(Math.abs(expiresAt - (Date.now() + 2 * 3600_000)) < 60_000);
      const bad = await call(h.server, { method: 'POST', url: '/api/v1/tokens', headers: session, payload: { name: 'x', expiresIn: 'forever' } });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.body, /expiresIn 'forever'/);

      const listed = async () =>
        (
          (await call(h.server, { method: 'GET', url: '/api/v1/tokens', headers: { cookie } })).data as {
            items: { name: string; lastUsedAt: string | null; expiresAt: string | null }[];
          }
        ).items;
      assert.deepEqual(
        (await listed()).map((t) => t.lastUsedAt),
        [null, null],
      );
      const short = (shortLived.data as { token: string }).token;
      assert.equal((await call(h.server, { method: 'GET', url: '/api/v1/sources', headers: bearer(short) })).statusCode, 200);
      const used = (await listed()).find((t) => t.name === 'short')!;
      assert.ok(used.lastUsedAt && Date.now() - Date.parse(used.lastUsedAt) < 60_000, 'use recorded');
      assert.equal((await listed()).find((t) => t.name === 'forever')!.lastUsedAt, null);

      await h.app.store.db.run(`UPDATE "api_tokens" SET "expires_at" = ? WHERE "name" = 'short'`, [new Date(Date.now() - 1000).toISOString()]);
      assert.equal((await call(h.server, { method: 'GET', url: '/api/v1/sources', headers: bearer(short) })).statusCode, 401, 'expired');
      assert.equal(
        (await call(h.server, { method: 'GET', url: '/api/v1/sources', headers: bearer((forever.data as { token: string }).token) })).statusCode,
        200,
      );
    } finally {
      await h.close();
    }
  });
});

describe('session cookie flags', () => {
  it('sets Secure when configured, or in auto mode behind an https proxy', async () => {
    for (const [server, headers] of [
      [{ secureCookies: true }, {}],
      [{ secureCookies: 'auto' as const, trustProxy: true }, { 'x-forwarded-proto': 'https' }],
    ] as const) {
      const h = await makeHarness({ server });
      try {
        const res = await call(h.server, { method: 'POST', url: '/api/v1/auth/login', headers, payload: { username: 'admin', password: ADMIN_PASSWORD } });
        assert.equal(res.statusCode, 200);
        assert.match(String(res.headers['set-cookie']), /; Secure/);
      } finally {
        await h.close();
      }
    }
  });
});

describe('server lifecycle', () => {
  it('aborts running syncs on close and waits for them to record how they ended', async () => {
    const h = await makeHarness();
    const token = await apiToken(h.server);
    const created = await call(h.server, {
      method: 'POST',
      url: '/api/v1/sources',
      headers: bearer(token),
      payload: { name: 'slow', type: 'fixture', config: { url: 'https://x.test', token: GOOD_TOKEN, pages: 50, delayMs: 200 } },
    });
    assert.equal(created.statusCode, 201);
    const started = await call(h.server, { method: 'POST', url: '/api/v1/sources/slow/sync', headers: bearer(token), payload: {} });
    const runId = (started.data as { runId: string }).runId;
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    await h.server.close();
    assert.ok(Date.now() - t0 < 3000);
    const run = await h.app.store.runs.get(runId);
    assert.notEqual(run.status, 'running');
    assert.match(run.error ?? '', /cancel/);
    await h.app.close();
    rmSync(h.dataDir, { recursive: true, force: true });
  });

  it('startServer listens on a real port and closes', async () => {
    const h = await makeHarness();
    const s = await startServer(h.app, { port: 0, host: '127.0.0.1', env: {}, print: () => {} });
    try {
      assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const health = await fetch(`${s.url}/healthz`);
      assert.equal(health.status, 200);
      assert.equal(((await health.json()) as { ok: boolean }).ok, true);
      const denied = await fetch(`${s.url}/api/v1/sources`);
      assert.equal(denied.status, 401);
      assert.equal(denied.headers.get('content-type'), 'application/json; charset=utf-8');
    } finally {
      await s.close();
      await h.close();
    }
  });
});
