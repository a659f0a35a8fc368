// What the screens read, through the API on both stores: a list's total (/count) and a page by offset,
// the runs filter with each run's retries and log excerpt, live-only stats after a sweep, the file-drop
// guide refused to an API-mode source; and the models the real connectors declare against their streams.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import tenableScConnector, { tenableScStreams } from '../../src/connectors/tenable-sc/index.ts';
import { servicedeskPlusConnector } from '../../src/connectors/servicedesk-plus/index.ts';
import { runSync } from '../../src/sync/runner.ts';
import { GOOD_TOKEN } from './fixture-connector.ts';
import { apiToken, bearer, call, freshPgDatabase, type Harness, login, makeHarness } from './helpers.ts';

type Json = Record<string, unknown>;

const pg = await freshPgDatabase();
const stores: { label: string; db: () => Promise<{ url: string; drop(): Promise<void> } | null>; skip: string | false }[] = [
  { label: 'sqlite', db: async () => null, skip: false },
  { label: 'postgres', db: freshPgDatabase, skip: pg ? false : 'PostgreSQL unreachable on 127.0.0.1:5432' },
];
await pg?.drop();

for (const store of stores) {
  describe(`screens API (${store.label})`, { skip: store.skip }, () => {
    let h: Harness;
    let drop: (() => Promise<void>) | undefined;
    let token = '';
    const get = async (url: string) => {
      const res = await call(h.server, { method: 'GET', url, headers: bearer(token) });
      return { status: res.statusCode, data: res.data as Json };
    };
    const ok = async (url: string) => {
      const r = await get(url);
      assert.equal(r.status, 200, `${url}: ${JSON.stringify(r.data)}`);
      return r.data;
    };

    before(async () => {
      const db = await store.db();
      drop = db?.drop;
      h = await makeHarness({ db: db?.url });
      token = await apiToken(h.server);
      await h.app.store.sources.create('lab', 'fixture', { url: 'https://fixture.example.test', token: GOOD_TOKEN, pages: 4 }, null);
      assert.equal((await runSync(h.app, 'lab')).status, 'succeeded');
    });
    after(async () => {
      await h?.close();
      await drop?.();
    });

    it("counts a list's matches with the list's own filters, and pages by offset as by cursor", async () => {
      assert.deepEqual(await ok('/api/v1/vulnerabilities/count'), { count: 24 });
      const critical = (await ok('/api/v1/vulnerabilities?severity=critical&limit=100')).items as Json[];
      assert.deepEqual(await ok('/api/v1/vulnerabilities/count?severity=critical'), { count: critical.length });
      assert.deepEqual(await ok('/api/v1/vulnerabilities/count?where=severity%3E%3Dhigh&removed=false'), { count: 12 });
      assert.equal((await get('/api/v1/vulnerabilities/count?where=nosuch%3D1')).status, 400);

      const first = await ok('/api/v1/vulnerabilities?sort=-severity&limit=5');
      const byCursor = await ok(`/api/v1/vulnerabilities?sort=-severity&limit=5&cursor=${encodeURIComponent(String(first.nextCursor))}`);
      const byOffset = await ok('/api/v1/vulnerabilities?sort=-severity&limit=5&offset=5');
      const ids = (p: Json) => (p.items as Json[]).map((r) => r.id);
      assert.deepEqual(ids(byOffset), ids(byCursor));
      assert.equal(byOffset.nextCursor !== null, true, 'an offset page hands on a cursor');
      assert.deepEqual(((await ok('/api/v1/vulnerabilities?limit=5&offset=100')).items as Json[]).length, 0);
    });

    it('filters runs by source and status; each run has its retries, 429s and log excerpt', async () => {
      const runs = (await ok('/api/v1/runs?source=lab&status=succeeded')).items as Json[];
      assert.equal(runs.length, 1);
      const activity = runs[0]!.activity as { retries: number; rateLimited: number; log: { level: string; msg: string }[] };
      assert.equal(activity.retries, 0);
      assert.equal(activity.rateLimited, 0);
      assert.ok(activity.log.some((l) => l.msg.startsWith('sync started')));
      assert.ok(activity.log.some((l) => l.msg.startsWith('sync finished')));
      assert.ok(!JSON.stringify(activity).includes(GOOD_TOKEN));
      assert.deepEqual((await ok('/api/v1/runs?status=failed&status=partial')).items, []);
      assert.equal(((await ok('/api/v1/sources/lab/runs?status=succeeded')).items as Json[]).length, 1);
      assert.equal((await get('/api/v1/runs?source=nosuch')).status, 404);
      assert.equal((await get('/api/v1/runs?status=finished')).status, 400);
      // Counts stay what they were: the activity does not show up as a model.
      assert.deepEqual(Object.keys(runs[0]!.counts as Json).sort(), ['hosts', 'vulnerabilities']);
    });

    it('counts live records only in the stats once a full run removed some', async () => {
      const source = await h.app.store.sources.get('lab');
      await h.app.store.sources.update(source.name, { ...source.config, pages: 2 }, null);
      const r = await runSync(h.app, 'lab', { full: true, allowLargeRemoval: true });
      assert.equal(r.status, 'succeeded');
      assert.deepEqual(r.swept, { hosts: 6, vulnerabilities: 12 });
      assert.deepEqual(await ok('/api/v1/hosts/count?all=true'), { count: 12 }, 'removed hosts are still stored');
      assert.deepEqual(await ok('/api/v1/hosts/count'), { count: 6 }, 'a list holds live records by default');
      assert.deepEqual(await ok('/api/v1/hosts/count?removed=true'), { count: 6 }, 'a filter on removed widens it');
      assert.deepEqual(await ok('/api/v1/vulnerabilities/count?status=fixed'), { count: 12 }, 'a filter on status widens it');
      assert.deepEqual(await ok('/api/v1/vulnerabilities/count'), { count: 12 }, 'findings: open or reopened, not removed');
      const stats = await ok('/api/v1/stats');
      assert.equal((stats.models as Json).hosts, 6);
      assert.equal((stats.models as Json).vulnerabilities, 12);
      assert.equal(((stats.sources as Json).lab as Json).hosts, 6);
    });

    it('refuses the file-drop guide to a source that reads its API', async () => {
      const { cookie, csrf } = await login(h.server);
      const res = await call(h.server, {
        method: 'POST',
        url: '/api/v1/sources/lab/file-drop',
        headers: { cookie, 'x-csrf-token': csrf },
        payload: {},
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.match((res.data as { error: { message: string } }).error.message, /reads from its API.*file-mode sources/);
    });
  });
}

describe('connectors declare the models their streams write', () => {
  it('Tenable.sc in API and file mode, ServiceDesk Plus', () => {
    const declared = new Set(tenableScConnector.models);
    const api = tenableScStreams({ inputMode: 'api', apiUrl: 'https://sc.example', accessKey: 'a', secretKey: 'b' } as never);
    const file = tenableScStreams({ inputMode: 'file' } as never);
    assert.ok(api.length > 0 && file.length > 0);
    for (const s of [...api, ...file]) for (const m of s.models) assert.ok(declared.has(m), `${s.name} writes ${m}`);
    assert.ok(declared.has('vulnerabilities') && !declared.has('tickets'));
    assert.deepEqual([...(servicedeskPlusConnector.models ?? [])].sort(), ['cmdb-assets', 'services', 'tickets', 'users']);
  });
});
