// The API additions for the web UI, on SQLite and PostgreSQL: server-side sorting with keyset
// pagination on (field, id), grouped counts, the compliance summary per host and benchmark.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GOOD_TOKEN, HOSTS_PER_PAGE } from './fixture-connector.ts';
import { apiToken, bearer, call, freshPgDatabase, type Harness, makeHarness, waitForRun } from './helpers.ts';

type Json = Record<string, unknown>;
const PAGES = 5;

const probe = await freshPgDatabase();
if (probe) await probe.drop();
const backends: { label: string; db: () => Promise<{ url?: string; drop?: () => Promise<void> } | null>; skip: string | false }[] = [
  { label: 'sqlite', db: async () => null, skip: false },
  { label: 'postgres', db: freshPgDatabase, skip: probe ? false : 'PostgreSQL unreachable' },
];

for (const backend of backends) {
  describe(`UI API additions (${backend.label})`, { skip: backend.skip }, () => {
    let h: Harness;
    let drop: (() => Promise<void>) | undefined;
    let token = '';
    const get = async (url: string) => {
      const res = await call(h.server, { method: 'GET', url, headers: bearer(token) });
      return res;
    };
    /** Every record of a sorted listing, page by page. */
    const all = async (url: string, limit: number): Promise<Json[]> => {
      const out: Json[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 100; i++) {
        const res = await get(`${url}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        assert.equal(res.statusCode, 200, res.body);
        const page = res.data as { items: Json[]; nextCursor: string | null };
        out.push(...page.items);
        cursor = page.nextCursor;
        if (!cursor) return out;
      }
      throw new Error('too many pages');
    };

    before(async () => {
      const pg = await backend.db();
      drop = pg?.drop;
      h = await makeHarness({ db: pg?.url, server: { webUi: false } });
      token = await apiToken(h.server);
      const res = await call(h.server, {
        method: 'POST',
        url: '/api/v1/sources',
        headers: bearer(token),
        payload: { name: 'lab', type: 'fixture', config: { url: 'https://fixture.example.test', token: GOOD_TOKEN, pages: PAGES } },
      });
      assert.equal(res.statusCode, 201, res.body);
      const sync = await call(h.server, { method: 'POST', url: '/api/v1/sources/lab/sync', headers: bearer(token), payload: { full: true } });
      assert.equal((await waitForRun(h.server, token, (sync.data as { runId: string }).runId)).status, 'succeeded');
    });
    after(async () => {
      await h?.close();
      await drop?.();
    });

    it('sorts by a field both ways, nulls last, and pages through every record exactly once', async () => {
      const total = PAGES * HOSTS_PER_PAGE * 2;
      for (const sort of [
        'cvssV3BaseScore',
        '-cvssV3BaseScore',
        'pluginName',
        '-pluginName',
        'severity',
        '-severity',
        'source',
        '-id',
        '-lastSeen',
        'epssScore',
        '-vprScore',
        'status',
      ]) {
        const items = await all(`/api/v1/vulnerabilities?sort=${sort}`, 4);
        assert.equal(items.length, total, sort);
        assert.equal(new Set(items.map((i) => i.id)).size, total, `${sort}: no duplicates`);
        const field = sort.replace(/^-/, '');
        const desc = sort.startsWith('-');
        const rank = (v: unknown) => (field === 'severity' ? ['info', 'low', 'medium', 'high', 'critical'].indexOf(String(v)) : v);
        const values = items.map((i) => rank(i[field]));
        const nonNull = values.filter((v) => v !== null);
        // Nulls come last in both directions.
        assert.deepEqual(
          values.slice(nonNull.length),
          values.slice(nonNull.length).map(() => null),
          `${sort}: nulls last`,
        );
        for (let i = 1; i < nonNull.length; i++) {
          const [a, b] = [nonNull[i - 1] as string | number, nonNull[i] as string | number];
          assert.ok(desc ? a >= b : a <= b, `${sort}: ${a} then ${b}`);
        }
      }
      const critical = await get('/api/v1/vulnerabilities?sort=-severity&limit=1');
      assert.equal(((critical.data as { items: Json[] }).items[0] as Json).severity, 'critical');
      const filtered = await all('/api/v1/vulnerabilities?sort=-cvssV3BaseScore&severity=high', 2);
      assert.ok(filtered.length > 0 && filtered.every((v) => v.severity === 'high'));
    });

    it('refuses an unknown sort field, a list field and a cursor of another order, naming the parameter', async () => {
      for (const [url, field] of [
        ['/api/v1/hosts?sort=bogus', 'sort'],
        ['/api/v1/hosts?sort=ipAddresses', 'sort'],
        ['/api/v1/hosts?sort=a-b', 'sort'],
      ]) {
        const res = await get(url);
        assert.equal(res.statusCode, 400, url);
        assert.equal((res.data as { error: { field: string } }).error.field, field);
      }
      const plain = (await get('/api/v1/vulnerabilities?limit=2')).data as { nextCursor: string };
      const res = await get(`/api/v1/vulnerabilities?limit=2&sort=pluginName&cursor=${plain.nextCursor}`);
      assert.equal(res.statusCode, 400);
      assert.equal((res.data as { error: { field: string } }).error.field, 'cursor');
    });

    it('counts records grouped by fields, with filters', async () => {
      const res = await get('/api/v1/vulnerabilities/counts?by=severity&removed=false');
      assert.equal(res.statusCode, 200, res.body);
      const items = (res.data as { items: { values: Json; count: number }[] }).items;
      const by = Object.fromEntries(items.map((i) => [i.values.severity, i.count]));
      const hosts = PAGES * HOSTS_PER_PAGE;
      assert.equal(by.info, hosts);
      assert.equal((by.critical ?? 0) + (by.high ?? 0), hosts);
      const two = await get('/api/v1/vulnerabilities/counts?by=severity&by=knownExploited&knownExploited=true');
      assert.deepEqual((two.data as { items: unknown[] }).items, [{ values: { severity: 'critical', knownExploited: true }, count: 1 }]);
      const bad = await get('/api/v1/vulnerabilities/counts?by=cves');
      assert.equal(bad.statusCode, 400);
      assert.equal((await get('/api/v1/vulnerabilities/counts')).statusCode, 400);
    });

    it('summarises compliance per host and benchmark with the host name', async () => {
      const source = await h.app.store.sources.get('lab');
      const hostId = ((await get('/api/v1/hosts?hostname=web-0.example.test')).data as { items: Json[] }).items[0].id as string;
      const rule = (n: number, result: string, benchmark = 'CIS Ubuntu 22.04 L1') => ({
        key: `host-0|${benchmark}|r${n}`,
        hostKey: 'host-0',
        fields: { benchmark, ruleId: `r${n}`, ruleName: `Rule ${n}`, result },
      });
      await h.app.store.records.upsert(
        'compliance',
        [rule(1, 'passed'), rule(2, 'passed'), rule(3, 'failed'), rule(4, 'warning'), rule(5, 'failed', 'Other')],
        {
          sourceId: source.id,
          sourceName: 'lab',
          runId: 'manual',
          generation: 'g',
          now: new Date().toISOString(),
        },
      );
      // Written around the store's page writer: the summaries are rebuilt as a run's epilogue would.
      await h.app.store.reports.refreshSummaries();
      const res = await get('/api/v1/compliance/summary');
      assert.equal(res.statusCode, 200, res.body);
      const items = (res.data as { items: Json[] }).items;
      assert.equal(items.length, 2);
      const cis = items.find((i) => i.benchmark === 'CIS Ubuntu 22.04 L1');
      assert.deepEqual(cis, {
        hostId,
        hostname: 'web-0.example.test',
        ipAddresses: ['10.0.0.1'],
        source: 'lab',
        benchmark: 'CIS Ubuntu 22.04 L1',
        passed: 2,
        failed: 1,
        warning: 1,
        error: 0,
        total: 4,
      });
      const forHost = await get(`/api/v1/compliance/summary?hostId=${hostId}&limit=1`);
      assert.equal((forHost.data as { items: unknown[] }).items.length, 1);
      const none = await get('/api/v1/compliance/summary?hostId=nope');
      assert.deepEqual((none.data as { items: unknown[] }).items, []);
    });

    it('labels hosts by id for per-host listings', async () => {
      const hosts = ((await get('/api/v1/hosts?limit=2&sort=hostname')).data as { items: Json[] }).items;
      const res = await get(`/api/v1/hosts/labels?id=${hosts[0].id}&id=${hosts[1].id}&id=unknown`);
      assert.equal(res.statusCode, 200, res.body);
      const items = (res.data as { items: Json[] }).items.sort((a, b) => String(a.hostname).localeCompare(String(b.hostname)));
      assert.deepEqual(
        items,
        hosts.map((h) => ({ id: h.id, hostname: h.hostname, ipAddresses: h.ipAddresses })),
      );
      assert.equal((await get('/api/v1/hosts/labels')).statusCode, 400);
    });
  });
}
