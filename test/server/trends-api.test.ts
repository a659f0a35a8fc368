// GET /api/v1/reports/trends on both stores: a known history written through the store at chosen times
// (findings opened on two days, a fix and a sweep, a reopening and a second fix) gives exact open counts
// by severity for every day of a window, before the first run from the findings' first-seen dates, and
// the mean time to remediate per severity of its fixes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TrendsReport } from '../../src/core/api-shapes-reports.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { GOOD_TOKEN } from './fixture-connector.ts';
import { apiToken, bearer, call, type Harness, makeHarness } from './helpers.ts';
import { fullRuns, host, vuln } from './history.ts';

type Counts = TrendsReport['days'][number]['open'];
const counts = (c: Partial<Counts>): Counts => ({ critical: 0, high: 0, medium: 0, low: 0, info: 0, ...c });

for (const backend of BACKENDS) {
  describe(`trends report on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let h: Harness;
    let token = '';
    const get = async (url: string) => call(h.server, { method: 'GET', url, headers: bearer(token) });

    const run = fullRuns(() => h.app.store);

    before(async () => {
      db = await backend.create();
      h = await makeHarness({ db: db.url });
      token = await apiToken(h.server);
      await h.app.store.sources.create('lab', 'fixture', { url: 'https://fixture.example.test', token: GOOD_TOKEN }, null);
      const h1 = (p: string, sev: string, st: string, first: string) => vuln('h1', p, sev, st, first);
      const h2 = (p: string, sev: string, st: string, first: string) => vuln('h2', p, sev, st, first);
      await run('2026-01-01T08:00:00.000Z', {
        hosts: [host('h1'), host('h2')],
        vulnerabilities: [
          h1('1', 'critical', 'open', '2025-12-22T08:00:00.000Z'),
          h1('2', 'high', 'open', '2025-12-01T08:00:00.000Z'),
          h2('3', 'low', 'open', '2025-12-01T08:00:00.000Z'),
          h2('4', 'medium', 'open', '2025-12-31T08:00:00.000Z'),
        ],
      });
      // A second critical appears.
      await run('2026-01-05T08:00:00.000Z', { hosts: [host('h1')], vulnerabilities: [h1('5', 'critical', 'open', '2026-01-05T08:00:00.000Z')] });
      // Finding 1 fixed (19 days after first seen); host h2 gone, its two findings swept fixed (40 and 10 days).
      await run(
        '2026-01-10T08:00:00.000Z',
        {
          hosts: [host('h1')],
          vulnerabilities: [
            h1('1', 'critical', 'fixed', '2025-12-22T08:00:00.000Z'),
            h1('2', 'high', 'open', '2025-12-01T08:00:00.000Z'),
            h1('5', 'critical', 'open', '2026-01-05T08:00:00.000Z'),
          ],
        },
        ['hosts', 'vulnerabilities'],
      );
      // Finding 1 reopened on 1 February, fixed again on 5 February (4 days).
      await run('2026-02-01T08:00:00.000Z', { vulnerabilities: [h1('1', 'critical', 'open', '2025-12-22T08:00:00.000Z')] });
      await run('2026-02-05T08:00:00.000Z', { vulnerabilities: [h1('1', 'critical', 'fixed', '2025-12-22T08:00:00.000Z')] });
    });
    after(async () => {
      await h?.close();
      await db?.drop();
    });

    test('open findings by severity at the end of each day', async () => {
      const res = await get('/api/v1/reports/trends?to=2026-02-06&days=41');
      assert.equal(res.statusCode, 200, res.body);
      const body = res.data as TrendsReport;
      assert.equal(body.from, '2025-12-28');
      assert.equal(body.to, '2026-02-06');
      assert.equal(body.historyFrom, '2025-12-01', 'the history starts with the earliest first-seen date');
      assert.equal(body.days.length, 41);
      const at = (date: string) => body.days.find((d) => d.date === date)?.open;
      // Before the first run: the findings it imported, from their first-seen dates.
      assert.deepEqual(at('2025-12-28'), counts({ critical: 1, high: 1, low: 1 }));
      assert.deepEqual(at('2025-12-31'), counts({ critical: 1, high: 1, medium: 1, low: 1 }));
      assert.deepEqual(at('2026-01-01'), counts({ critical: 1, high: 1, medium: 1, low: 1 }));
      assert.deepEqual(at('2026-01-04'), counts({ critical: 1, high: 1, medium: 1, low: 1 }));
      assert.deepEqual(at('2026-01-05'), counts({ critical: 2, high: 1, medium: 1, low: 1 }));
      assert.deepEqual(at('2026-01-10'), counts({ critical: 1, high: 1 }), 'one fix and a sweep of two');
      assert.deepEqual(at('2026-01-31'), counts({ critical: 1, high: 1 }));
      assert.deepEqual(at('2026-02-01'), counts({ critical: 2, high: 1 }), 'reopened');
      assert.deepEqual(at('2026-02-05'), counts({ critical: 1, high: 1 }), 'fixed again');
      assert.deepEqual(at('2026-02-06'), counts({ critical: 1, high: 1 }));
      assert.deepEqual(
        body.days.map((d) => d.date),
        [...body.days.map((d) => d.date)].sort(),
        'oldest first, one entry per day',
      );
    });

    test('mean time to remediate per severity, from the fixes in the window', async () => {
      const body = (await get('/api/v1/reports/trends?to=2026-02-06&days=41')).data as TrendsReport;
      const by = Object.fromEntries(body.remediation.map((r) => [r.severity, [r.fixed, r.meanDaysToRemediate]]));
      assert.deepEqual(by, { critical: [2, 11.5], high: [0, null], medium: [1, 10], low: [1, 40], info: [0, null] });
      // A window of quiet days: no fixes in it, and the counts of the days in between.
      const quiet = (await get('/api/v1/reports/trends?to=2026-01-20&days=10&source=lab')).data as TrendsReport;
      assert.equal(quiet.from, '2026-01-11');
      assert.ok(quiet.days.every((d) => d.open.critical === 1 && d.open.high === 1 && d.open.low === 0));
      assert.ok(quiet.remediation.every((r) => r.fixed === 0 && r.meanDaysToRemediate === null));
    });

    test("today's counts are the store's, and bad input is refused", async () => {
      const body = (await get('/api/v1/reports/trends?days=3')).data as TrendsReport;
      assert.equal(body.days.length, 3);
      assert.deepEqual(body.days.at(-1)?.open, counts({ critical: 1, high: 1 }));
      assert.equal((await get('/api/v1/reports/trends?source=nope')).statusCode, 400);
      assert.equal((await get('/api/v1/reports/trends?days=0')).statusCode, 400);
      assert.equal((await get('/api/v1/reports/trends?to=yesterday')).statusCode, 400);
    });

    test('a later run changes the answer (nothing stale is served)', async () => {
      const before = (await get('/api/v1/reports/trends?days=3')).data as TrendsReport;
      assert.equal(before.days.at(-1)?.open.high, 1);
      await run('2026-02-10T08:00:00.000Z', { vulnerabilities: [vuln('h1', '2', 'high', 'fixed', '2025-12-01T08:00:00.000Z')] });
      const after = (await get('/api/v1/reports/trends?days=3')).data as TrendsReport;
      assert.deepEqual(after.days.at(-1)?.open, counts({ critical: 1 }));
      const high = ((await get('/api/v1/reports/trends?to=2026-02-11&days=2')).data as TrendsReport).remediation.find((r) => r.severity === 'high');
      assert.deepEqual([high?.fixed, high?.meanDaysToRemediate], [1, 71]);
    });
  });
}
