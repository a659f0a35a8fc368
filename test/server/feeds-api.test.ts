// The feeds, SLA and plugin detail over HTTP on both stores: upload (JSON, gzipped CSV, a bad file that
// changes nothing), the feed list with staleness, findings with the feed values, overdue as a filter,
// as counts per severity and in /api/v1/stats, and the stale-feed warning of a source check.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { day, epssCsv, kevCatalog } from '../feeds/fixtures.ts';
import { GOOD_TOKEN } from './fixture-connector.ts';
import { apiToken, bearer, call, type Harness, makeHarness, type Res, waitForRun } from './helpers.ts';

type Json = Record<string, unknown>;

for (const backend of BACKENDS) {
  describe(`feeds, SLA and detail over the API (${backend.kind})`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let h: Harness;
    let token = '';
    const auth = (opts: InjectOptions): Promise<Res> => call(h.server, { ...opts, headers: { ...bearer(token), ...(opts.headers ?? {}) } });
    const items = async (url: string) => ((await auth({ method: 'GET', url })).data as { items: Json[] }).items;

    before(async () => {
      db = await backend.create();
      h = await makeHarness({ db: db.url });
      token = await apiToken(h.server);
      assert.equal(
        (
          await auth({
            method: 'POST',
            url: '/api/v1/sources',
            payload: { name: 'lab', type: 'fixture', config: { url: 'https://fixture.example.test', token: GOOD_TOKEN } },
          })
        ).statusCode,
        201,
      );
      const res = await auth({ method: 'POST', url: '/api/v1/sources/lab/sync', payload: { full: true } });
      assert.equal((await waitForRun(h.server, token, (res.data as { runId: string }).runId)).status, 'succeeded');
    });
    after(async () => {
      await h?.close();
      await db?.drop();
    });

    it('lists no feeds, refuses a file that is none (400, nothing changed), imports KEV JSON and gzipped EPSS', async () => {
      assert.deepEqual(await items('/api/v1/feeds'), []);
      const bad = await auth({ method: 'POST', url: '/api/v1/feeds?name=notes.txt', headers: { 'content-type': 'text/plain' }, payload: 'not a feed' });
      assert.equal(bad.statusCode, 400, bad.body);
      assert.match((bad.data as { error: { message: string } }).error.message, /notes\.txt: not a CISA KEV catalog/);
      assert.deepEqual(await items('/api/v1/feeds'), []);
      const kev = kevCatalog('2026.11.21', new Date().toISOString(), [{ cve: 'CVE-2024-1000', added: day(-10), due: day(-1), ransomware: 'Known' }]);
      const res = await auth({ method: 'POST', url: '/api/v1/feeds?name=kev.json', headers: { 'content-type': 'application/json' }, payload: kev });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        (res.data as { imported: Json[] }).imported.map((i) => [i.kind, i.status, i.records]),
        [['kev', 'imported', 1]],
      );
      assert.equal((res.data as Json).findingsUpdated, 1);
      const epss = epssCsv('v2025.03.14', `${day(-9)}T00:00:00+0000`, [['CVE-2024-1001', 0.42, 0.97]], { gzip: true });
      const e = await auth({ method: 'POST', url: '/api/v1/feeds', headers: { 'content-type': 'application/gzip' }, payload: epss });
      assert.equal(e.statusCode, 200, e.body);
      const list = await items('/api/v1/feeds');
      assert.deepEqual(
        list.map((f) => [f.kind, f.version, f.records, f.size, f.stale]),
        [
          ['epss', 'v2025.03.14', 1, epss.length, true],
          ['kev', '2026.11.21', 1, kev.length, false],
        ],
      );
      assert.equal(list[0]!.ageDays, 9);
    });

    it('tells per CVE what the feeds say (a finding page lists its CVEs with KEV and EPSS)', async () => {
      const facts = await items('/api/v1/feeds/cves?cve=CVE-2024-1000&cve=cve-2024-1001&cve=CVE-2020-0001');
      assert.deepEqual(facts, [
        {
          cve: 'CVE-2024-1000',
          kev: {
            dateAdded: `${day(-10)}T00:00:00.000Z`,
            dueDate: `${day(-1)}T00:00:00.000Z`,
            ransomware: 'Known',
            name: 'Example Product flaw (CVE-2024-1000)',
          },
          epss: null,
        },
        { cve: 'CVE-2024-1001', kev: null, epss: { score: 0.42, percentile: 0.97 } },
        { cve: 'CVE-2020-0001', kev: null, epss: null },
      ]);
      assert.equal((await auth({ method: 'GET', url: '/api/v1/feeds/cves' })).statusCode, 400);
    });

    it('serves findings with the feed values beside the scanner’s, overdue as a filter, counts and stats', async () => {
      const kevd = await items('/api/v1/vulnerabilities?where=kevDateAdded!=null');
      assert.equal(kevd.length, 1);
      assert.equal(kevd[0]!.pluginId, '100000');
      assert.deepEqual([kevd[0]!.knownExploited, kevd[0]!.knownExploitedBy], [true, 'both'], 'the scanner and the feed both say so');
      assert.equal(kevd[0]!.kevDueDate, `${day(-1)}T00:00:00.000Z`);
      assert.equal(kevd[0]!.dueAt, kevd[0]!.kevDueDate);
      assert.equal(kevd[0]!.overdue, true);
      const epssd = await items('/api/v1/vulnerabilities?epssPercentile>=0.9');
      assert.deepEqual(
        epssd.map((v) => [v.pluginId, v.epssScore, v.epssPercentile, v.epssSource, v.scannerEpssScore]),
        [['100001', 0.42, 0.97, 'feed', null]],
      );
      const overdue = await items('/api/v1/vulnerabilities?overdue=true');
      assert.deepEqual(
        overdue.map((v) => v.pluginId),
        ['100000'],
      );
      const notOverdue = await items('/api/v1/vulnerabilities?where=overdue=false&limit=100');
      assert.equal(notOverdue.length, 11);
      assert.ok(notOverdue.every((v) => v.overdue === false));
      const counts = (await auth({ method: 'GET', url: '/api/v1/vulnerabilities/counts?by=severity&overdue=true' })).data as {
        items: { values: Json; count: number }[];
      };
      assert.deepEqual(counts.items, [{ values: { severity: 'critical' }, count: 1 }]);
      const stats = (await auth({ method: 'GET', url: '/api/v1/stats' })).data as { overdue: Json; models: Json };
      assert.deepEqual(stats.overdue, { critical: 1, high: 0, medium: 0, low: 0 });
      assert.equal(stats.models.plugins, 0);
      const due = await items('/api/v1/vulnerabilities?where=dueAt<' + day(20));
      assert.deepEqual(due.map((v) => v.pluginId).sort(), ['100000', '100003'], 'the KEV date, and a critical seen today (due in 15 days)');
      const badFilter = await auth({ method: 'GET', url: '/api/v1/vulnerabilities?overdue=perhaps' });
      assert.equal(badFilter.statusCode, 400);
      const badSort = await auth({ method: 'GET', url: '/api/v1/vulnerabilities?sort=dueAt' });
      assert.equal(badSort.statusCode, 400);
      const one = await auth({ method: 'GET', url: `/api/v1/vulnerabilities/${kevd[0]!.id}` });
      assert.equal((one.data as Json).overdue, true);
      assert.equal((one.data as Json).proof, null);
    });

    it('knownExploited is the scanner’s flag or the current KEV catalog, in every filter, count, report and export, and follows a new catalog', async () => {
      const kevOnly = async () =>
        (await items('/api/v1/vulnerabilities?knownExploited=true&limit=100')).map((v) => [v.pluginId, v.knownExploitedBy, v.scannerKnownExploited]);
      const urgentWithoutTicket = async () => ((await auth({ method: 'GET', url: '/api/v1/reports/coverage' })).data as Json).findingsWithoutTicket as number;
      const importKev = async (version: string, cves: string[]) => {
        const kev = kevCatalog(
          version,
          new Date().toISOString(),
          cves.map((cve) => ({ cve, added: day(-3), due: day(200) })),
        );
        const res = await auth({
          method: 'POST',
          url: `/api/v1/feeds?name=kev-${version}.json`,
          headers: { 'content-type': 'application/json' },
          payload: kev,
        });
        assert.equal(res.statusCode, 200, res.body);
      };
      assert.deepEqual(await kevOnly(), [['100000', 'both', true]]);
      const urgentBefore = await urgentWithoutTicket();
      // A newer catalog lists the CVE of 100002 (a high the scanner does not flag) and no longer that of 100000.
      await importKev('2026.11.22', ['CVE-2024-1002']);
      assert.deepEqual(await kevOnly(), [
        ['100000', 'scanner', true],
        ['100002', 'feed', false],
      ]);
      const count = async (url: string) => ((await auth({ method: 'GET', url })).data as { items: { values: Json; count: number }[] }).items;
      const by = await count('/api/v1/vulnerabilities/counts?by=knownExploitedBy&knownExploited=true');
      assert.deepEqual(by.map((i) => [i.values.knownExploitedBy, i.count]).sort(), [
        ['feed', 1],
        ['scanner', 1],
      ]);
      // The overview's figure: open findings by severity and knownExploited.
      const overview = await count('/api/v1/vulnerabilities/counts?by=severity&by=knownExploited&removed=false&status!=fixed');
      assert.deepEqual(
        overview.filter((i) => i.values.knownExploited === true).map((i) => [i.values.severity, i.count]),
        [
          ['critical', 1],
          ['high', 1],
        ],
      );
      const plugins = ((await auth({ method: 'GET', url: '/api/v1/vulnerabilities/plugins?knownExploited=true' })).data as { items: Json[] }).items;
      assert.deepEqual(plugins.map((p) => p.pluginId).sort(), ['100000', '100002'], 'the plugin report');
      assert.equal(await urgentWithoutTicket(), urgentBefore + 1, 'coverage: a high known exploited is urgent');
      // NDJSON and CSV bodies, read as text (call() would parse an NDJSON body as one JSON document).
      const body = async (url: string) => (await h.server.inject({ method: 'GET', url, headers: bearer(token) })).body;
      const ocsf = (await body('/api/v1/export/vulnerabilities?format=ocsf&knownExploited=true'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { unmapped: Json });
      assert.deepEqual(ocsf.map((e) => [e.unmapped.pluginId, e.unmapped.knownExploited, e.unmapped.knownExploitedBy]).sort(), [
        ['100000', true, 'scanner'],
        ['100002', true, 'feed'],
      ]);
      const csv = (await body('/api/v1/export/vulnerabilities?format=csv&knownExploitedBy=feed')).trim().split('\n');
      const head = csv[0]!.split(',');
      assert.equal(csv.length, 2, csv.join('\n'));
      const row = csv[1]!.split(',');
      assert.deepEqual(
        ['pluginId', 'knownExploited', 'knownExploitedBy', 'scannerKnownExploited'].map((c) => row[head.indexOf(c)]),
        ['100002', 'true', 'feed', 'false'],
      );
      // A catalog without it: back to the scanner's word.
      await importKev('2026.11.23', ['CVE-2020-0001']);
      assert.deepEqual(await kevOnly(), [['100000', 'scanner', true]]);
      assert.equal(await urgentWithoutTicket(), urgentBefore);
    });

    it('a source check warns about a stale feed without failing', async () => {
      const res = await auth({ method: 'POST', url: '/api/v1/sources/lab/check' });
      const body = res.data as { ok: boolean; warnings: string[] };
      assert.equal(body.ok, true);
      assert.equal(body.warnings.length, 1);
      assert.match(body.warnings[0]!, /FIRST EPSS scores v2025\.03\.14 is 9 days old/);
    });

    it('documents the routes and guards them', async () => {
      const doc = JSON.parse((await call(h.server, { method: 'GET', url: '/api/v1/openapi.json' })).body) as { paths: Record<string, Json> };
      assert.ok(doc.paths['/api/v1/feeds']?.get && doc.paths['/api/v1/feeds']?.post);
      assert.ok(doc.paths['/api/v1/plugins']);
      assert.equal((await call(h.server, { method: 'POST', url: '/api/v1/feeds', payload: 'x' })).statusCode, 401);
      assert.equal((await call(h.server, { method: 'GET', url: '/api/v1/feeds' })).statusCode, 401);
    });
  });
}
