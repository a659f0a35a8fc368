// GET /api/v1/changes and GET /api/v1/reports/remediation on both stores: pages written through the
// store at chosen times (a fix, a sweep, a reopening and a second fix, a ticket's status change), then
// read back filtered, after a run, from a time and of one run, page by page; the report's mean time to remediate counts
// the second fix from the reopening; every event parses with the shared shape; the CLI's `changes`
// answers the same; the OpenAPI document lists both routes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { changePage } from '../../src/core/api-shapes-reports.ts';
import type { IncomingRecord } from '../../src/core/models.ts';
import { runCliAsync } from '../helpers/cli.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { GOOD_TOKEN } from './fixture-connector.ts';
import { apiToken, bearer, call, type Harness, makeHarness } from './helpers.ts';
import { fullRuns, host, vuln } from './history.ts';

type Json = Record<string, unknown>;
const ticket = (id: string, status: string): IncomingRecord => ({ key: id, externalId: id, fields: { subject: `Ticket ${id}`, status } });

for (const backend of BACKENDS) {
  describe(`change feed API on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let h: Harness;
    let token = '';
    const runs: string[] = [];
    const get = async (url: string) => call(h.server, { method: 'GET', url, headers: bearer(token) });

    const writeRun = fullRuns(() => h.app.store);
    /** A full run at a chosen time, its id kept in `runs`. */
    const run = async (...args: Parameters<typeof writeRun>) => {
      const id = await writeRun(...args);
      runs.push(id);
      return id;
    };

    before(async () => {
      db = await backend.create();
      h = await makeHarness({ db: db.url });
      token = await apiToken(h.server);
      await h.app.store.sources.create('lab', 'fixture', { url: 'https://fixture.example.test', token: GOOD_TOKEN }, null);
      const first = {
        hosts: [host('h1'), host('h2')],
        vulnerabilities: [
          vuln('h1', '1', 'critical', 'open', '2025-12-22T00:00:00.000Z'),
          vuln('h1', '2', 'high', 'open', '2025-12-01T00:00:00.000Z'),
          vuln('h2', '3', 'low', 'open', '2025-12-01T00:00:00.000Z'),
        ],
        tickets: [ticket('T1', 'Open')],
      };
      await run('2026-01-01T00:00:00.000Z', first);
      // The same again: no event.
      await run('2026-01-05T00:00:00.000Z', first);
      // Finding 1 fixed 19 days after it was first seen; host h2 and its finding 3 gone; T1 resolved.
      await run(
        '2026-01-10T00:00:00.000Z',
        {
          hosts: [host('h1')],
          vulnerabilities: [vuln('h1', '1', 'critical', 'fixed', '2025-12-22T00:00:00.000Z'), vuln('h1', '2', 'high', 'open', '2025-12-01T00:00:00.000Z')],
          tickets: [ticket('T1', 'Resolved')],
        },
        ['hosts', 'vulnerabilities'],
      );
      // Finding 1 reopened on 2026-02-01, fixed again on 2026-02-05 (4 days).
      await run('2026-02-01T00:00:00.000Z', { vulnerabilities: [vuln('h1', '1', 'critical', 'open', '2025-12-22T00:00:00.000Z')] });
      await run('2026-02-05T00:00:00.000Z', { vulnerabilities: [vuln('h1', '1', 'critical', 'fixed', '2025-12-22T00:00:00.000Z')] });
    });
    after(async () => {
      await h?.close();
      await db?.drop();
    });

    const brief = (items: Json[]) => items.map((c) => `${c.model} ${c.externalId} ${c.change} ${c.from ?? '-'}→${c.to ?? '-'}`);

    test('the feed, oldest first, after a run, from a time, of one run', async () => {
      const all = await get('/api/v1/changes?limit=1000');
      assert.equal(all.statusCode, 200, all.body);
      const items = changePage.parse(all.data).items;
      assert.deepEqual(items, (all.data as { items: Json[] }).items, 'every kind of event in the shared shape, all of it');
      assert.equal(items.length, 6 + 0 + 4 + 1 + 1, 'the unchanged second run added nothing');
      const times = items.map((c) => String(c.at));
      assert.deepEqual(times, [...times].sort(), 'oldest first (in the order they were written)');
      assert.equal(new Set(items.map((c) => c.id)).size, items.length, 'ids are unique');
      assert.equal(((await get(`/api/v1/changes?id=${items[0]!.id}`)).data as { items: Json[] }).items.length, 1);
      assert.deepEqual(brief(items.slice(-2)), ['vulnerabilities h1-1 reopened fixed→reopened', 'vulnerabilities h1-1 fixed reopened→fixed']);
      assert.ok(items.every((c) => c.source === 'lab' && runs.includes(String(c.runId))));
      const items$ = async (url: string) => ((await get(url)).data as { items: Json[] }).items;
      // One run: exactly its events.
      const third = await items$(`/api/v1/changes?run=${runs[2]}&limit=1000`);
      assert.deepEqual(brief(third).sort(), [
        'hosts h2 removed -→-',
        'tickets T1 updated Open→Resolved',
        'vulnerabilities h1-1 fixed open→fixed',
        'vulnerabilities h2-3 fixed open→fixed',
      ]);
      assert.deepEqual(await items$(`/api/v1/changes?run=${runs[1]}`), [], 'the unchanged run');
      // After a run: the events of the runs that started after it, never its own.
      assert.deepEqual(brief(await items$(`/api/v1/changes?since=${runs[2]}&limit=1000`)), [
        'vulnerabilities h1-1 reopened fixed→reopened',
        'vulnerabilities h1-1 fixed reopened→fixed',
      ]);
      assert.deepEqual(await items$(`/api/v1/changes?since=${runs[0]}&limit=1000`), [
        ...third,
        ...(await items$(`/api/v1/changes?run=${runs[3]}`)),
        ...(await items$(`/api/v1/changes?run=${runs[4]}`)),
      ]);
      assert.deepEqual(await items$(`/api/v1/changes?since=${runs[4]}`), []);
      // From a time: at or after it, so the run that started then counts.
      assert.deepEqual((await get('/api/v1/changes?since=2026-02-01&limit=1000')).data, (await get(`/api/v1/changes?since=${runs[2]}&limit=1000`)).data);
      assert.deepEqual(await items$('/api/v1/changes?since=2026-01-10T00:00:00Z&limit=1000'), await items$(`/api/v1/changes?since=${runs[1]}&limit=1000`));
      assert.deepEqual(brief(await items$('/api/v1/changes?since=2026-02-01T00:00:00Z&model=vulnerabilities&change=fixed')), [
        'vulnerabilities h1-1 fixed reopened→fixed',
      ]);
      assert.deepEqual(brief(await items$('/api/v1/changes?model=tickets,hosts&where=change!=new')).sort(), [
        'hosts h2 removed -→-',
        'tickets T1 updated Open→Resolved',
      ]);
      const recordId = String(items.find((c) => c.externalId === 'h1-1')!.recordId);
      assert.deepEqual(
        ((await get(`/api/v1/changes?recordId=${recordId}`)).data as { items: Json[] }).items.map((c) => c.change),
        ['new', 'fixed', 'reopened', 'fixed'],
        "a finding's history",
      );
    });

    test('the CLI answers ?since= and ?run= the same', async () => {
      // The harness's own data folder holds its master key file: no key in the environment.
      const { TRIBUTARY_MASTER_KEY: _, ...env } = process.env;
      const cli = async (...args: string[]) => {
        const r = await runCliAsync(['--data-dir', h.dataDir, '--db', db.url, 'changes', '--json', ...args], env);
        assert.equal(r.code, 0, r.stderr);
        return r.stdout
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Json);
      };
      for (const [param, value] of [
        ['since', runs[2]!],
        ['run', runs[2]!],
        ['since', '2026-01-10'],
      ]) {
        const api = ((await get(`/api/v1/changes?${param}=${value}&limit=1000`)).data as { items: Json[] }).items;
        assert.ok(api.length > 0, `${param}=${value}`);
        assert.deepEqual(await cli(`--${param}`, value), api, `${param}=${value}`);
      }
    });

    test('cursor paging returns every event once, in order', async () => {
      const all = ((await get('/api/v1/changes?limit=1000')).data as { items: Json[] }).items;
      const paged: Json[] = [];
      let cursor: string | null = null;
      do {
        const res = await get(`/api/v1/changes?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
        const body = res.data as { items: Json[]; nextCursor: string | null };
        assert.ok(body.items.length <= 4);
        paged.push(...body.items);
        cursor = body.nextCursor;
      } while (cursor);
      assert.deepEqual(paged, all);
    });

    test('bad parameters are 400 naming the parameter', async () => {
      for (const [url, field] of [
        ['/api/v1/changes?since=someday', 'since'],
        ['/api/v1/changes?run=no-such-run', 'run'],
        ['/api/v1/changes?run=2026-01-01', 'run'],
        [`/api/v1/changes?run=${runs[2]}&since=${runs[1]}`, 'run'],
        ['/api/v1/changes?model=widgets', 'model'],
        ['/api/v1/changes?change=exploded', 'change'],
        ['/api/v1/changes?cursor=abc', 'cursor'],
        ['/api/v1/changes?colour=red', 'colour'],
        ['/api/v1/changes?source=nope', 'source'],
      ] as const) {
        const res = await get(url);
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
        assert.equal((res.data as { error: { field: string } }).error.field, field, url);
      }
      assert.equal((await call(h.server, { method: 'GET', url: '/api/v1/changes' })).statusCode, 401);
    });

    test('remediation report: mean time to remediate per severity from the fixes, open age', async () => {
      const res = await get('/api/v1/reports/remediation');
      assert.equal(res.statusCode, 200, res.body);
      const items = (res.data as { items: Json[] }).items;
      const critical = items.find((i) => i.severity === 'critical')!;
      // Fixed after 19 days (first seen 2025-12-22, fixed 2026-01-10), then 4 days after its reopening.
      assert.deepEqual([critical.source, critical.fixed, critical.meanDaysToRemediate, critical.open], ['lab', 2, 11.5, 0]);
      const high = items.find((i) => i.severity === 'high')!;
      assert.equal(high.fixed, 0);
      assert.equal(high.open, 1);
      const age = (Date.parse(String((res.data as Json).generatedAt)) - Date.parse('2025-12-01T00:00:00.000Z')) / 86_400_000;
      assert.ok(Math.abs(Number(high.meanOpenAgeDays) - age) <= 0.1, `${high.meanOpenAgeDays} ≈ ${age}`);
      assert.equal(high.oldestOpenAgeDays, high.meanOpenAgeDays);
      const low = items.find((i) => i.severity === 'low')!;
      assert.equal(low.fixed, 1, 'the swept finding counts as fixed');
      const since = (await get('/api/v1/reports/remediation?since=2026-02-01')).data as { items: Json[] };
      assert.deepEqual(
        since.items.filter((i) => Number(i.fixed) > 0).map((i) => [i.severity, i.fixed, i.meanDaysToRemediate]),
        [['critical', 1, 4]],
      );
      // After a run: the fix of the run after the reopening counts, the reopening run's own fixes (none) and earlier ones do not.
      const fixedAfter = async (run: string) =>
        ((await get(`/api/v1/reports/remediation?since=${run}`)).data as { items: Json[] }).items
          .filter((i) => Number(i.fixed) > 0)
          .map((i) => [i.severity, i.fixed, i.meanDaysToRemediate]);
      assert.deepEqual(await fixedAfter(runs[3]!), [['critical', 1, 4]]);
      assert.deepEqual(await fixedAfter(runs[4]!), [], "the last fix was the last run's own");
      assert.equal((await get('/api/v1/reports/remediation?since=nope')).statusCode, 400);
    });

    test('the OpenAPI document lists the feed and the report', async () => {
      const doc = (await call(h.server, { method: 'GET', url: '/api/v1/openapi.json' })).data as { paths: Record<string, Json> };
      assert.ok(doc.paths['/api/v1/changes']);
      assert.ok(doc.paths['/api/v1/reports/remediation']);
    });
  });
}
