// The API behaviour, run against SQLite (api.sqlite.test.ts) and PostgreSQL (api.postgres.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { GOOD_TOKEN, HOSTS_PER_PAGE } from './fixture-connector.ts';
import { ADMIN_PASSWORD, bearer, call, type Harness, login, makeHarness, type Res, waitForRun } from './helpers.ts';

type Json = Record<string, unknown>;
type Err = { error: { code: string; message: string; field: string | null; models?: string[] } };

export function apiSuite(label: string, db: () => Promise<{ url?: string; drop?: () => Promise<void> } | null>): void {
  describe(`HTTP API (${label})`, () => {
    let h: Harness;
    let drop: (() => Promise<void>) | undefined;
    let token = '';
    const bodies: string[] = [];
    const req = async (opts: InjectOptions): Promise<Res> => {
      const res = await call(h.server, opts);
      bodies.push(res.body, JSON.stringify(res.headers));
      return res;
    };
    const auth = (opts: InjectOptions): Promise<Res> => req({ ...opts, headers: { ...bearer(token), ...(opts.headers ?? {}) } });
    const field = (res: Res) => (res.data as Err).error.field;
    const srcBody = { name: 'lab', type: 'fixture', config: { url: 'https://fixture.example.test', token: GOOD_TOKEN } };

    before(async () => {
      const pg = await db();
      drop = pg?.drop;
      h = await makeHarness({ db: pg?.url });
      const { cookie, csrf } = await login(h.server);
      const res = await req({ method: 'POST', url: '/api/v1/tokens', headers: { cookie, 'x-csrf-token': csrf }, payload: { name: 'suite', scope: 'admin' } });
      assert.equal(res.statusCode, 201);
      token = (res.data as { token: string }).token;
    });
    after(async () => {
      await h?.close();
      await drop?.();
    });

    it('serves /healthz without auth with the schema version', async () => {
      const res = await req({ method: 'GET', url: '/healthz' });
      assert.equal(res.statusCode, 200);
      const body = res.data as Json;
      assert.equal(body.ok, true);
      assert.equal(body.db, 'ok');
      assert.ok(Number(body.schemaVersion) >= 1);
      assert.ok(res.headers['x-request-id']);
    });

    it('serves an OpenAPI document without auth that lists the model routes', async () => {
      const res = await req({ method: 'GET', url: '/api/v1/openapi.json' });
      assert.equal(res.statusCode, 200);
      const doc = JSON.parse(res.body) as { openapi: string; paths: Record<string, Json>; components: { securitySchemes: Json } };
      assert.match(doc.openapi, /^3\./);
      for (const p of [
        '/api/v1/hosts',
        '/api/v1/vulnerabilities/{id}',
        '/api/v1/cmdb-assets',
        '/api/v1/sources',
        '/api/v1/sources/{name}/sync',
        '/api/v1/runs/{id}',
        '/healthz',
      ]) {
        assert.ok(doc.paths[p], `missing ${p}`);
      }
      assert.ok(!doc.paths['/api/v1/{model}'], 'the unknown-model catch-all is hidden');
      assert.ok(doc.components.securitySchemes.bearer);
    });

    it('answers 401 on every protected route without credentials', async () => {
      const doc = JSON.parse((await req({ method: 'GET', url: '/api/v1/openapi.json' })).body) as { paths: Record<string, Record<string, unknown>> };
      let checked = 0;
      for (const [path, methods] of Object.entries(doc.paths)) {
        if (path === '/healthz' || path === '/api/v1/auth/login') continue;
        for (const method of Object.keys(methods)) {
          const url = path.replace(/\{[^}]+\}/g, 'x');
          for (const headers of [{}, bearer('trb_not-a-token'), { cookie: 'tributary_session=forged' }]) {
            const res = await req({ method: method.toUpperCase() as 'GET', url, headers, payload: method === 'get' ? undefined : {} });
            assert.equal(res.statusCode, 401, `${method} ${url} ${JSON.stringify(headers)}`);
            assert.equal((res.data as Err).error.code, 'unauthorized');
          }
          checked++;
        }
      }
      assert.ok(checked > 25, `only ${checked} routes`);
      assert.equal((await req({ method: 'GET', url: '/api/v1/no-such-thing/at/all' })).statusCode, 401);
      const outside = await req({ method: 'GET', url: '/no-such-page.png' });
      assert.equal(outside.statusCode, 404);
      assert.equal((outside.data as Err).error.code, 'not_found');
    });

    it('logs in with the password, refuses a wrong one, and reports the session', async () => {
      const wrong = await req({ method: 'POST', url: '/api/v1/auth/login', payload: { username: 'admin', password: 'nope' }, remoteAddress: '10.9.9.9' });
      assert.equal(wrong.statusCode, 401);
      assert.equal(wrong.headers['set-cookie'], undefined);
      const unknown = await req({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: 'mallory', password: ADMIN_PASSWORD },
        remoteAddress: '10.9.9.9',
      });
      assert.equal(unknown.statusCode, 401);
      const missing = await req({ method: 'POST', url: '/api/v1/auth/login', payload: { username: 'admin' } });
      assert.equal(missing.statusCode, 400);
      assert.equal(field(missing), 'password');

      const ok = await req({ method: 'POST', url: '/api/v1/auth/login', payload: { username: 'admin', password: ADMIN_PASSWORD } });
      assert.equal(ok.statusCode, 200);
      const setCookie = String(ok.headers['set-cookie']);
      assert.match(setCookie, /HttpOnly/);
      assert.match(setCookie, /SameSite=Lax/);
      assert.doesNotMatch(setCookie, /Secure/);
      const { csrfToken, user } = ok.data as { csrfToken: string; user: { username: string } };
      assert.equal(user.username, 'admin');
      const cookie = `tributary_session=${ok.cookies[0].value}`;
      const session = await req({ method: 'GET', url: '/api/v1/auth/session', headers: { cookie } });
      assert.equal(session.statusCode, 200);
      assert.equal((session.data as Json).csrfToken, csrfToken);
      assert.equal((session.data as Json).via, 'session');

      const out = await req({ method: 'POST', url: '/api/v1/auth/logout', headers: { cookie, 'x-csrf-token': csrfToken } });
      assert.equal(out.statusCode, 204);
      assert.equal((await req({ method: 'GET', url: '/api/v1/auth/session', headers: { cookie } })).statusCode, 401);
    });

    it('requires the CSRF header for cookie sessions on unsafe methods, not for bearer tokens', async () => {
      const { cookie, csrf } = await login(h.server);
      const none = await req({ method: 'POST', url: '/api/v1/tokens', headers: { cookie }, payload: { name: 'x' } });
      assert.equal(none.statusCode, 403);
      assert.equal((none.data as Err).error.code, 'csrf');
      const wrong = await req({ method: 'POST', url: '/api/v1/tokens', headers: { cookie, 'x-csrf-token': 'guess' }, payload: { name: 'x' } });
      assert.equal(wrong.statusCode, 403);
      assert.equal((await req({ method: 'GET', url: '/api/v1/sources', headers: { cookie } })).statusCode, 200);
      const right = await req({ method: 'POST', url: '/api/v1/tokens', headers: { cookie, 'x-csrf-token': csrf }, payload: { name: 'x' } });
      assert.equal(right.statusCode, 201);
      const viaBearer = await auth({ method: 'POST', url: '/api/v1/tokens', payload: { name: 'y' } });
      assert.equal(viaBearer.statusCode, 201);
    });

    it('creates, lists and deletes API tokens; a deleted token stops working', async () => {
      const created = await auth({ method: 'POST', url: '/api/v1/tokens', payload: { name: 'ci', scope: 'operate' } });
      assert.equal(created.statusCode, 201);
      const { id, token: value } = created.data as { id: string; token: string };
      assert.match(value, /^trb_/);
      const list = await auth({ method: 'GET', url: '/api/v1/tokens' });
      const items = (list.data as { items: Json[] }).items;
      assert.ok(items.some((t) => t.id === id && t.name === 'ci' && t.scope === 'operate'));
      assert.ok(!list.body.includes(value), 'the token value is shown only once');
      assert.equal((await req({ method: 'GET', url: '/api/v1/sources', headers: bearer(value) })).statusCode, 200);
      assert.equal((await auth({ method: 'DELETE', url: `/api/v1/tokens/${id}` })).statusCode, 204);
      assert.equal((await req({ method: 'GET', url: '/api/v1/sources', headers: bearer(value) })).statusCode, 401);
      assert.equal((await auth({ method: 'DELETE', url: `/api/v1/tokens/${id}` })).statusCode, 404);
      const bad = await auth({ method: 'POST', url: '/api/v1/tokens', payload: {} });
      assert.equal(bad.statusCode, 400);
      assert.equal(field(bad), 'name');
    });

    it('lists connectors with field metadata and no values', async () => {
      const res = await auth({ method: 'GET', url: '/api/v1/connectors' });
      assert.equal(res.statusCode, 200);
      const fixture = (res.data as { items: { type: string; fields: Json[] }[] }).items.find((c) => c.type === 'fixture');
      assert.ok(fixture);
      const tok = fixture.fields.find((f) => f.key === 'token');
      assert.equal(tok?.secret, true);
      assert.equal(tok?.label, 'Token');
      assert.equal(fixture.fields.find((f) => f.key === 'url')?.secret, false);
    });

    it('refuses bad source input with 400 naming the field, and stores nothing', async () => {
      const cases: [Json, string][] = [
        [{ ...srcBody, config: { ...srcBody.config, bogus: 1 } }, 'bogus'],
        [{ ...srcBody, config: { url: srcBody.config.url } }, 'token'],
        [{ ...srcBody, config: { ...srcBody.config, url: 'ftp://x' } }, 'url'],
        [{ ...srcBody, type: 'nope' }, 'type'],
        [{ ...srcBody, name: 'bad name!' }, 'name'],
        [{ ...srcBody, schedule: 'every tuesday' }, 'schedule'],
        [{ ...srcBody, extra: true }, 'extra'],
        [{ type: 'fixture', config: srcBody.config }, 'name'],
        [{ ...srcBody, config: 'not an object' }, 'config'],
      ];
      for (const [body, name] of cases) {
        const res = await auth({ method: 'POST', url: '/api/v1/sources', payload: body });
        assert.equal(res.statusCode, 400, `${name}: ${res.body}`);
        const err = (res.data as Err).error;
        assert.equal(err.field, name, res.body);
        assert.equal(err.code, 'invalid_input');
        assert.ok(err.message.length > 0);
        assert.doesNotMatch(res.body, /at .*\.ts:\d+/, 'no stack trace');
      }
      assert.deepEqual((await auth({ method: 'GET', url: '/api/v1/sources' })).data, { items: [] });
      const bad = await auth({ method: 'POST', url: '/api/v1/sources', payload: '{"name": ', headers: { 'content-type': 'application/json' } });
      assert.equal(bad.statusCode, 400);
      assert.equal((bad.data as Err).error.code, 'invalid_json');
    });

    it('refuses an oversized body with 413 JSON', async () => {
      const big = { ...srcBody, config: { ...srcBody.config, url: `https://x.test/${'a'.repeat(1024 * 1024 + 10)}` } };
      const res = await auth({ method: 'POST', url: '/api/v1/sources', payload: big });
      assert.equal(res.statusCode, 413);
      assert.equal((res.data as Err).error.code, 'body_too_large');
      assert.deepEqual((await auth({ method: 'GET', url: '/api/v1/sources' })).data, { items: [] });
    });

    it('creates, shows, reconfigures and checks a source with the secret masked', async () => {
      const created = await auth({ method: 'POST', url: '/api/v1/sources', payload: { ...srcBody, schedule: '6h' } });
      assert.equal(created.statusCode, 201, created.body);
      const view = created.data as { config: Json; schedule: string; lastRun: unknown };
      assert.equal(view.config.token, '********');
      assert.equal(view.config.url, srcBody.config.url);
      assert.equal(view.config.pages, 2);
      assert.equal(view.schedule, '6h');
      assert.equal(view.lastRun, null);
      assert.equal((await auth({ method: 'POST', url: '/api/v1/sources', payload: srcBody })).statusCode, 409);

      const shown = await auth({ method: 'GET', url: '/api/v1/sources/lab' });
      assert.equal((shown.data as { config: Json }).config.token, '********');
      const listed = await auth({ method: 'GET', url: '/api/v1/sources' });
      assert.equal((listed.data as { items: { config: Json }[] }).items[0].config.token, '********');

      // The mask and a left-out secret keep the stored value: the check still passes.
      for (const config of [
        { token: '********', pages: 2 },
        { pages: 2, delayMs: 0 },
      ]) {
        const res = await auth({ method: 'PATCH', url: '/api/v1/sources/lab', payload: { config } });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal((res.data as { config: Json }).config.token, '********');
      }
      // A stored secret does not follow a changed address: the token is entered again with it.
      for (const token of [undefined, '********']) {
        const moved = await auth({
          method: 'PATCH',
          url: '/api/v1/sources/lab',
          payload: { config: { url: 'https://collector.example.test', ...(token ? { token } : {}) } },
        });
        assert.equal(moved.statusCode, 400, moved.body);
        assert.equal(field(moved), 'token');
        assert.match(moved.body, /changing url changes where the stored token is sent: enter token again/);
      }
      assert.equal(((await auth({ method: 'GET', url: '/api/v1/sources/lab' })).data as { config: Json }).config.url, srcBody.config.url);
      const moved = await auth({
        method: 'PATCH',
        url: '/api/v1/sources/lab',
        payload: { config: { url: 'https://fixture2.example.test', token: GOOD_TOKEN } },
      });
      assert.equal(moved.statusCode, 200, moved.body);
      const check = await auth({ method: 'POST', url: '/api/v1/sources/lab/check' });
      assert.equal(check.statusCode, 200);
      const result = check.data as { ok: boolean; checks: { id: string; message: string }[] };
      assert.equal(result.ok, true);
      assert.equal(result.checks.find((c) => c.id === 'token')?.message, 'token ******** accepted');

      const before = (await auth({ method: 'GET', url: '/api/v1/sources/lab' })).data as Json;
      const badPatch = await auth({ method: 'PATCH', url: '/api/v1/sources/lab', payload: { config: { nope: 'x' } } });
      assert.equal(badPatch.statusCode, 400);
      assert.equal(field(badPatch), 'nope');
      const badUrl = await auth({ method: 'PATCH', url: '/api/v1/sources/lab', payload: { config: { url: 'not a url' } } });
      assert.equal(field(badUrl), 'url');
      const after = (await auth({ method: 'GET', url: '/api/v1/sources/lab' })).data as Json;
      assert.deepEqual({ ...after, lastCheck: null }, { ...before, lastCheck: null });

      const sched = await auth({ method: 'PATCH', url: '/api/v1/sources/lab', payload: { schedule: null } });
      assert.equal((sched.data as Json).schedule, null);

      const rejected = await auth({ method: 'PATCH', url: '/api/v1/sources/lab', payload: { config: { token: 'another-wrong-token' } } });
      assert.equal(rejected.statusCode, 200);
      const failing = await auth({ method: 'POST', url: '/api/v1/sources/lab/check' });
      assert.equal((failing.data as { ok: boolean }).ok, false);
      assert.ok(!failing.body.includes('another-wrong-token'));
      await auth({ method: 'PATCH', url: '/api/v1/sources/lab', payload: { config: { token: GOOD_TOKEN } } });
    });

    it('answers 404 as JSON for unknown sources, runs, records and models', async () => {
      for (const [method, url] of [
        ['GET', '/api/v1/sources/ghost'],
        ['PATCH', '/api/v1/sources/ghost'],
        ['DELETE', '/api/v1/sources/ghost'],
        ['POST', '/api/v1/sources/ghost/check'],
        ['POST', '/api/v1/sources/ghost/sync'],
        ['GET', '/api/v1/sources/ghost/runs'],
        ['GET', '/api/v1/runs/00000000-0000-0000-0000-000000000000'],
        ['GET', '/api/v1/hosts/0123456789abcdef0123456789abcdef'],
      ] as const) {
        const res = await auth({ method, url, payload: method === 'PATCH' ? { config: {} } : undefined });
        assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
        assert.equal((res.data as Err).error.code, 'not_found');
      }
      const model = await auth({ method: 'GET', url: '/api/v1/gadgets' });
      assert.equal(model.statusCode, 404);
      assert.equal((model.data as Err).error.code, 'unknown_model');
      assert.ok((model.data as Err).error.models?.includes('vulnerabilities'));
      assert.equal((await auth({ method: 'GET', url: '/api/v1/gadgets/abc' })).statusCode, 404);
    });

    it('syncs in the background (202), reports the run and serves the records', async () => {
      const res = await auth({ method: 'POST', url: '/api/v1/sources/lab/sync', payload: { full: true } });
      assert.equal(res.statusCode, 202, res.body);
      const { runId } = res.data as { runId: string };
      assert.equal(res.headers.location, `/api/v1/runs/${runId}`);
      const run = await waitForRun(h.server, token, runId);
      assert.equal(run.status, 'succeeded', JSON.stringify(run));
      assert.equal(run.source, 'lab');
      assert.equal(run.mode, 'full');
      assert.deepEqual(run.counts, { hosts: { records: 2 * HOSTS_PER_PAGE, errors: 0 }, vulnerabilities: { records: 4 * HOSTS_PER_PAGE, errors: 0 } });
      assert.equal(typeof run.durationMs, 'number');
      const runs = await auth({ method: 'GET', url: '/api/v1/sources/lab/runs' });
      assert.equal((runs.data as { items: Json[] }).items[0].id, runId);
      const all = await auth({ method: 'GET', url: '/api/v1/runs?limit=5' });
      assert.ok((all.data as { items: Json[] }).items.some((r) => r.id === runId));
      const view = await auth({ method: 'GET', url: '/api/v1/sources/lab' });
      assert.equal(((view.data as Json).lastRun as Json).status, 'succeeded');
      // A second sync with no body at all is accepted (incremental by default).
      const again = await auth({ method: 'POST', url: '/api/v1/sources/lab/sync' });
      assert.equal(again.statusCode, 202, again.body);
      await waitForRun(h.server, token, (again.data as { runId: string }).runId);
      // The sweep guard's override, as `sync --full --allow-large-removal`: only with a full run.
      const alone = await auth({ method: 'POST', url: '/api/v1/sources/lab/sync', payload: { allowLargeRemoval: true } });
      assert.equal(alone.statusCode, 400, alone.body);
      assert.match(alone.body, /allowLargeRemoval needs full/);
      const allowed = await auth({ method: 'POST', url: '/api/v1/sources/lab/sync', payload: { full: true, allowLargeRemoval: true } });
      assert.equal(allowed.statusCode, 202, allowed.body);
      assert.equal((await waitForRun(h.server, token, (allowed.data as { runId: string }).runId)).status, 'succeeded');
    });

    it('filters records by source and fields and pages with a cursor', async () => {
      const hosts = await auth({ method: 'GET', url: '/api/v1/hosts' });
      assert.equal(hosts.statusCode, 200);
      const items = (hosts.data as { items: Json[]; nextCursor: string | null }).items;
      assert.equal(items.length, 2 * HOSTS_PER_PAGE);
      assert.equal((hosts.data as Json).nextCursor, null);
      const one = items[0];
      assert.equal(one.source, 'lab');
      assert.ok(Array.isArray(one.ipAddresses));
      assert.equal(typeof one.credentialed, 'boolean');
      assert.equal(one.removed, false);

      const got = await auth({ method: 'GET', url: `/api/v1/hosts/${one.id}` });
      assert.deepEqual(got.data, one);

      const count = async (url: string) => {
        const r = await auth({ method: 'GET', url });
        assert.equal(r.statusCode, 200, `${url}: ${r.body}`);
        return (r.data as { items: Json[] }).items;
      };
      assert.equal((await count('/api/v1/hosts?source=lab')).length, 6);
      assert.equal((await count('/api/v1/hosts?source=lab,lab')).length, 6);
      const crit = await count('/api/v1/vulnerabilities?where=severity%3Dcritical');
      assert.ok(crit.length > 0 && crit.every((v) => v.severity === 'critical'));
      const high = await count('/api/v1/vulnerabilities?severity=high&source=lab');
      assert.ok(high.length > 0 && high.every((v) => v.severity === 'high'));
      assert.equal(crit.length + high.length, 6);
      // Severity compares in its order (info < low < medium < high < critical), values in any case.
      const atLeastHigh = await count('/api/v1/vulnerabilities?where=severity%3E%3DHigh');
      assert.equal(atLeastHigh.length, crit.length + high.length);
      assert.deepEqual(await count('/api/v1/vulnerabilities?severity>=high'), atLeastHigh);
      assert.equal((await count('/api/v1/vulnerabilities?severity=CRITICAL')).length, crit.length);
      const notInfo = await count('/api/v1/vulnerabilities?where=severity!%3Dinfo&where=port%3D22');
      assert.equal(notInfo.length, 6);
      const scored = await count('/api/v1/vulnerabilities?where=cvssV3BaseScore%3E%3D8');
      assert.ok(scored.length > 0 && scored.every((v) => (v.cvssV3BaseScore as number) >= 8));
      assert.deepEqual(await count('/api/v1/vulnerabilities?cvssV3BaseScore>=8'), scored);
      const named = await count('/api/v1/hosts?where=hostname~WEB-1.');
      assert.deepEqual(
        named.map((x) => x.hostname),
        ['web-1.example.test'],
      );
      assert.equal((await count('/api/v1/vulnerabilities?knownExploited=true')).length, 1);
      assert.equal((await count('/api/v1/vulnerabilities?cves=CVE-2024-1002')).length, 1);

      const seen = new Set<string>();
      let cursor: string | null = null;
      let pages = 0;
      do {
        const q: string = `/api/v1/vulnerabilities?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const r = await auth({ method: 'GET', url: q });
        const page = r.data as { items: Json[]; nextCursor: string | null };
        assert.ok(page.items.length <= 5);
        for (const v of page.items) seen.add(String(v.id));
        cursor = page.nextCursor;
        pages++;
      } while (cursor);
      assert.equal(seen.size, 12);
      assert.equal(pages, 3);

      const stats = await auth({ method: 'GET', url: '/api/v1/stats' });
      assert.equal(((stats.data as Json).models as Json).vulnerabilities, 12);
      assert.equal((((stats.data as Json).sources as Json).lab as Json).hosts, 6);
    });

    it('refuses malformed filters with 400 naming the field', async () => {
      const cases: [string, string][] = [
        ['/api/v1/hosts?where=nosuchfield%3D1', 'nosuchfield'],
        ['/api/v1/vulnerabilities?where=severity%3E%3Durgent', 'severity'],
        ['/api/v1/vulnerabilities?status=gone', 'status'],
        ['/api/v1/hosts?color=blue', 'color'],
        ['/api/v1/ports?where=port%3Dabc', 'port'],
        ['/api/v1/vulnerabilities?port>=high', 'port'],
        ['/api/v1/hosts?credentialed=maybe', 'credentialed'],
        ['/api/v1/hosts?where=just-text', 'where'],
        ['/api/v1/hosts?limit=1001', 'limit'],
        ['/api/v1/hosts?limit=zero', 'limit'],
        ['/api/v1/hosts?cursor=not-a-cursor', 'cursor'],
        ['/api/v1/hosts?source=ghost', 'source'],
      ];
      for (const [url, name] of cases) {
        const res = await auth({ method: 'GET', url });
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
        assert.equal(field(res), name, `${url}: ${res.body}`);
      }
    });

    it('refuses a second sync of a running source (409) and removal while it runs', async () => {
      const created = await auth({
        method: 'POST',
        url: '/api/v1/sources',
        payload: { name: 'slow', type: 'fixture', config: { ...srcBody.config, pages: 4, delayMs: 100 } },
      });
      assert.equal(created.statusCode, 201);
      const first = await auth({ method: 'POST', url: '/api/v1/sources/slow/sync', payload: {} });
      assert.equal(first.statusCode, 202);
      const runId = (first.data as { runId: string }).runId;
      const second = await auth({ method: 'POST', url: '/api/v1/sources/slow/sync', payload: {} });
      assert.equal(second.statusCode, 409);
      assert.equal((second.data as Err).error.code, 'conflict');
      assert.equal((await auth({ method: 'DELETE', url: '/api/v1/sources/slow' })).statusCode, 409);
      const live = await auth({ method: 'GET', url: `/api/v1/runs/${runId}` });
      assert.equal((live.data as Json).status, 'running');
      assert.equal((live.data as Json).live, true);
      const run = await waitForRun(h.server, token, runId);
      assert.equal(run.status, 'succeeded');
      assert.equal(run.live, false);
      assert.deepEqual((run.counts as Json).hosts, { records: 4 * HOSTS_PER_PAGE, errors: 0 });
      const removed = await auth({ method: 'DELETE', url: '/api/v1/sources/slow' });
      assert.equal(removed.statusCode, 200);
      assert.deepEqual(removed.data, { removed: 'slow', warnings: [] });
      assert.equal((await auth({ method: 'GET', url: '/api/v1/hosts?source=slow' })).statusCode, 400);
      assert.equal(((await auth({ method: 'GET', url: '/api/v1/hosts' })).data as { items: Json[] }).items.length, 6);
    });

    it('never shows the secret or the credentials in a response or a log line', () => {
      const all = bodies.join('\n');
      assert.ok(all.length > 1000);
      assert.ok(!all.includes(GOOD_TOKEN), 'secret in a response');
      assert.ok(!all.includes(ADMIN_PASSWORD), 'password in a response');
      const logs = h.logs.join('');
      assert.ok(logs.includes('"reqId"'), 'request ids in the logs');
      for (const s of [GOOD_TOKEN, ADMIN_PASSWORD, token, 'another-wrong-token']) assert.ok(!logs.includes(s), `log leaks ${s.slice(0, 6)}…`);
      assert.ok(!/tributary_session=/.test(logs), 'cookie in the logs');
    });
  });
}
