// Test Connection before saving (POST /api/v1/sources/check and /sources/{name}/check with a body) against
// the simulators: a wrong Tenable.sc key fails and a right one passes without storing anything; an
// on-premises ServiceDesk Plus key is checked unsaved; a cloud test exchanges the one-time authorization
// code and the save keeps the tokens (a second exchange would be refused); a stored source's unsaved
// changes are tested with its stored secrets; no secret comes back or reaches the log.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type AppContext, openApp } from '../../src/app/context.ts';
import { createLogger } from '../../src/core/log.ts';
import { buildServer } from '../../src/server/server.ts';
import { type RunningSdpSim, startSdpSim } from '../../sim/servicedesk-plus/index.ts';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { ADMIN_PASSWORD, call, login } from './helpers.ts';

type Check = { ok: boolean; checks: { id: string; ok: boolean; message: string }[]; connectionTest?: string | null };

describe('Test Connection before saving', { timeout: 60_000 }, () => {
  let app: AppContext;
  let server: FastifyInstance;
  let dataDir: string;
  let sc: RunningTenableSim;
  let sdp: RunningSdpSim;
  let auth: { cookie: string; csrf: string };
  const logs: string[] = [];
  const bodies: string[] = [];
  const post = async (url: string, payload: unknown, method: 'POST' | 'PATCH' = 'POST') => {
    const res = await call(server, { method, url, headers: { cookie: auth.cookie, 'x-csrf-token': auth.csrf }, payload: payload as object });
    bodies.push(res.body);
    return res;
  };
  const scConfig = (secretKey: string) => ({ apiUrl: sc.url, accessKey: sc.analyst.accessKey, secretKey });
  const sdpCloud = (code: string) => ({
    clientId: sdp.clientId,
    clientSecret: sdp.clientSecret,
    authorizationCode: code,
    accountsUrl: sdp.accountsUrl,
    serverUrl: sdp.url,
    portal: sdp.portal,
  });

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tributary-trial-'));
    const destination = new Writable({
      write(chunk, _enc, cb) {
        logs.push(chunk.toString());
        cb();
      },
    });
    app = await openApp({ dataDir, env: {}, log: createLogger({ destination, level: 'debug' }) });
    server = await buildServer(app, { env: { TRIBUTARY_ADMIN_PASSWORD: ADMIN_PASSWORD }, print: () => {} });
    [sc, sdp] = await Promise.all([startTenableSim({ port: 0, hosts: 3, seed: 5 }), startSdpSim({ port: 0, requests: 5, assets: 3, users: 3 })]);
    auth = await login(server);
  });

  after(async () => {
    await server?.close();
    await app?.close();
    await sc?.close();
    await sdp?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('Tenable.sc: a wrong secret key fails, the right one passes, and nothing is stored', async () => {
    const bad = await post('/api/v1/sources/check', { type: 'tenable-sc', name: 'sc-new', config: scConfig('wrong-secret-key-1234') });
    assert.equal(bad.statusCode, 200, bad.body);
    assert.equal((bad.data as Check).ok, false);
    const good = await post('/api/v1/sources/check', { type: 'tenable-sc', config: scConfig(sc.analyst.secretKey) });
    const g = good.data as Check;
    assert.equal(g.ok, true, JSON.stringify(g.checks));
    assert.ok(g.checks.length >= 2);
    assert.equal(g.connectionTest ?? null, null, 'nothing to keep for an API key');
    assert.deepEqual(await app.store.sources.list(), [], 'a test stores nothing');
  });

  test('a file-mode form is tested against its bucket', async () => {
    const res = await post('/api/v1/sources/check', { type: 'tenable-sc', name: 'sc-files', config: { inputMode: 'file' } });
    assert.equal(res.statusCode, 200, res.body);
    const c = res.data as Check;
    assert.ok(c.checks.length >= 1);
    assert.match(JSON.stringify(c.checks), /vuln-scanner/, 'the check names the bucket it reads');
    assert.deepEqual(await app.store.sources.list(), []);
  });

  test('an invalid configuration is refused with its field, as a save would be', async () => {
    const res = await post('/api/v1/sources/check', { type: 'tenable-sc', config: { apiUrl: `${sc.url}/rest`, accessKey: 'a', secretKey: 'b' } });
    assert.equal(res.statusCode, 400);
    assert.equal((res.data as { error: { field: string } }).error.field, 'apiUrl');
  });

  test('ServiceDesk Plus on-premises: the API key is checked unsaved', async () => {
    const good = await post('/api/v1/sources/check', { type: 'servicedesk-plus', config: { serverUrl: sdp.url, apiKey: sdp.apiKey } });
    assert.equal((good.data as Check).ok, true, good.body);
    const bad = await post('/api/v1/sources/check', { type: 'servicedesk-plus', config: { serverUrl: sdp.url, apiKey: 'not-a-key' } });
    assert.equal((bad.data as Check).ok, false);
  });

  test('ServiceDesk Plus cloud: the test exchanges the code once and the save keeps its token', async () => {
    const code = sdp.mintAuthorizationCode();
    const tested = await post('/api/v1/sources/check', { type: 'servicedesk-plus', name: 'desk', config: sdpCloud(code) });
    const t = tested.data as Check;
    assert.equal(t.ok, true, tested.body);
    assert.ok(t.connectionTest, 'the test hands over what the save keeps');
    // The code is spent: a save without the test's result must exchange it again and is refused.
    const refused = await post('/api/v1/sources', { name: 'desk-0', type: 'servicedesk-plus', config: sdpCloud(code) });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /invalid_code/);
    // Another session cannot use the result.
    const other = await login(server);
    const stolen = await call(server, {
      method: 'POST',
      url: '/api/v1/sources',
      headers: { cookie: other.cookie, 'x-csrf-token': other.csrf },
      payload: { name: 'desk-x', type: 'servicedesk-plus', config: sdpCloud(code), connectionTest: t.connectionTest },
    });
    assert.equal(stolen.statusCode, 400);
    // A refused save keeps the test's result for the next attempt.
    const badName = await post('/api/v1/sources', { name: 'no spaces', type: 'servicedesk-plus', config: sdpCloud(code), connectionTest: t.connectionTest });
    assert.equal(badName.statusCode, 400);
    const saved = await post('/api/v1/sources', { name: 'desk', type: 'servicedesk-plus', config: sdpCloud(code), connectionTest: t.connectionTest });
    assert.equal(saved.statusCode, 201, saved.body);
    const check = await post('/api/v1/sources/desk/check', undefined);
    assert.equal((check.data as Check).ok, true, check.body);
    // The result is taken once.
    const again = await post('/api/v1/sources', { name: 'desk-2', type: 'servicedesk-plus', config: sdpCloud(code), connectionTest: t.connectionTest });
    assert.equal(again.statusCode, 400);
  });

  test('ServiceDesk Plus cloud: a new code tested on a stored source keeps the old token until the save, which revokes it', async () => {
    const source = await app.store.sources.get('desk');
    const oldToken = String((await app.store.sources.getState(source.id)).refreshToken);
    const live = sdp.accounts.liveRefreshTokens();
    const code = sdp.mintAuthorizationCode();
    const tested = await post('/api/v1/sources/desk/check', { config: { authorizationCode: code } });
    const t = tested.data as Check;
    assert.equal(t.ok, true, tested.body);
    assert.ok(t.connectionTest);
    assert.equal(sdp.accounts.isRevoked(oldToken), false, 'a test revokes nothing');
    assert.equal(String((await app.store.sources.getState(source.id)).refreshToken), oldToken, 'a test stores nothing');
    assert.equal(sdp.accounts.liveRefreshTokens(), live + 1);
    const saved = await post('/api/v1/sources/desk', { config: { authorizationCode: code }, connectionTest: t.connectionTest }, 'PATCH');
    assert.equal(saved.statusCode, 200, saved.body);
    const newToken = String((await app.store.sources.getState(source.id)).refreshToken);
    assert.notEqual(newToken, oldToken);
    assert.equal(sdp.accounts.isRevoked(oldToken), true, 'the save revokes the replaced token');
    assert.equal(sdp.accounts.liveRefreshTokens(), live);
    assert.equal(((await post('/api/v1/sources/desk/check', undefined)).data as Check).ok, true);
  });

  test("a stored source's unsaved changes are tested with its stored secrets, and nothing changes", async () => {
    const add = await post('/api/v1/sources', { name: 'sc', type: 'tenable-sc', config: scConfig('stored-wrong-1234') });
    assert.equal(add.statusCode, 201, add.body);
    const before = await app.store.sources.get('sc');
    // The form's change: the right secret (not saved); the access key left out keeps the stored one.
    const fixed = await post('/api/v1/sources/sc/check', { config: { secretKey: sc.analyst.secretKey } });
    assert.equal((fixed.data as Check).ok, true, fixed.body);
    const unchanged = await post('/api/v1/sources/sc/check', { config: { pageSize: 500 } });
    assert.equal((unchanged.data as Check).ok, false, 'the stored (wrong) secret is used');
    const after = await app.store.sources.get('sc');
    assert.equal(after.updatedAt, before.updatedAt);
    assert.equal(after.config.secretKey, 'stored-wrong-1234');
    assert.equal(after.lastCheck, null, 'a test of unsaved changes is not the stored configuration’s check');
    // A new address without the secret entered again is refused, as a save would refuse it.
    const moved = await post('/api/v1/sources/sc/check', { config: { apiUrl: 'https://elsewhere.example.test' } });
    assert.equal(moved.statusCode, 400);
  });

  test('no secret came back in an answer or went to the log', () => {
    const out = bodies.join('\n') + logs.join('\n');
    for (const secret of [sc.analyst.secretKey, sc.analyst.accessKey, sdp.clientSecret, sdp.apiKey, 'wrong-secret-key-1234', 'stored-wrong-1234'])
      assert.ok(!out.includes(secret), `a secret was echoed or logged`);
  });
});
