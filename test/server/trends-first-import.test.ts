// A first import draws the scanner's history, on both stores: one run stores findings first seen weeks
// before it, some already fixed with the scanner's mitigation date and one without; the trends (API and
// `tributary report trends`, one answer) count them open by severity on the days before the import, the
// time to remediate is the mean of their first-seen-to-mitigation days, and a blank one says why.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RemediationReport, TrendsReport } from '../../src/core/api-shapes-reports.ts';
import type { IncomingRecord } from '../../src/core/models.ts';
import { cliEnv, runCliAsync } from '../helpers/cli.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { apiToken, bearer, call, type Harness, makeHarness } from './helpers.ts';
import { fullRuns, host } from './history.ts';

type Counts = TrendsReport['days'][number]['open'];
const counts = (c: Partial<Counts>): Counts => ({ critical: 0, high: 0, medium: 0, low: 0, info: 0, ...c });
const day = (d: string) => `${d}T08:00:00.000Z`;

/** A finding as the scanner sends it: its first-seen date, and for a fixed one its mitigation date when it has one. */
const finding = (plugin: string, severity: string, status: string, firstSeen: string, mitigatedAt?: string): IncomingRecord => ({
  key: `h1|${plugin}`,
  hostKey: 'h1',
  externalId: `h1-${plugin}`,
  firstSeen: day(firstSeen),
  fields: { pluginId: plugin, severity, status, ...(mitigatedAt ? { mitigatedAt: day(mitigatedAt) } : {}) },
});

const NO_FIX = 'no finding fixed in this window';
const NO_DATE = 'no mitigation date: found already fixed by the first import, and the scanner sent no date';

for (const backend of BACKENDS) {
  describe(`a first import's history on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let h: Harness;
    let token = '';
    const get = async <T>(url: string) => {
      const res = await call(h.server, { method: 'GET', url, headers: bearer(token) });
      assert.equal(res.statusCode, 200, res.body);
      return res.data as T;
    };

    before(async () => {
      db = await backend.create();
      h = await makeHarness({ db: db.url });
      token = await apiToken(h.server);
      // A source the command line knows too (it never reaches the console here).
      await h.app.store.sources.create('lab', 'tenable-sc', { apiUrl: 'https://sc.example.test' }, null);
      await fullRuns(() => h.app.store)(day('2026-03-01'), {
        hosts: [host('h1')],
        vulnerabilities: [
          finding('1', 'critical', 'open', '2026-02-01'),
          finding('2', 'high', 'open', '2026-02-10'),
          finding('3', 'critical', 'fixed', '2026-01-20', '2026-02-04'), // 15 days
          finding('4', 'critical', 'fixed', '2026-01-26', '2026-02-20'), // 25 days
          finding('5', 'medium', 'fixed', '2026-02-15'), // fixed, but when is not known
          finding('6', 'low', 'open', '2026-02-25'),
          finding('7', 'critical', 'fixed', '2026-01-17', '2026-03-01'), // 43 days
        ],
      });
    });
    after(async () => {
      await h?.close();
      await db?.drop();
    });

    test("open findings by severity on the days before the import, from the scanner's dates", async () => {
      const r = await get<TrendsReport>('/api/v1/reports/trends?to=2026-03-01&days=45');
      assert.equal(r.from, '2026-01-16');
      assert.equal(r.historyFrom, '2026-01-17', 'the earliest first-seen date');
      const at = (date: string) => r.days.find((d) => d.date === date)?.open;
      assert.deepEqual(at('2026-01-16'), counts({}));
      assert.deepEqual(at('2026-01-17'), counts({ critical: 1 }));
      assert.deepEqual(at('2026-01-20'), counts({ critical: 2 }));
      assert.deepEqual(at('2026-01-26'), counts({ critical: 3 }));
      assert.deepEqual(at('2026-02-01'), counts({ critical: 4 }));
      assert.deepEqual(at('2026-02-04'), counts({ critical: 3 }), 'mitigated on the scanner that day');
      assert.deepEqual(at('2026-02-10'), counts({ critical: 3, high: 1 }));
      assert.deepEqual(at('2026-02-20'), counts({ critical: 2, high: 1, medium: 1 }));
      assert.deepEqual(at('2026-02-28'), counts({ critical: 2, high: 1, medium: 1, low: 1 }), 'the undated fix counts open until the import');
      assert.deepEqual(at('2026-03-01'), counts({ critical: 1, high: 1, low: 1 }), "the import day's end: the store's counts");
    });

    test("time to remediate from first seen to the scanner's mitigation date, and why a blank is blank", async () => {
      const r = await get<TrendsReport>('/api/v1/reports/trends?to=2026-03-01&days=45');
      const by = Object.fromEntries(
        r.remediation.map((m) => [m.severity, [m.fixed, m.meanDaysToRemediate, m.medianDaysToRemediate, m.undatedFixes, m.meanBlankReason]]),
      );
      assert.deepEqual(by, {
        critical: [3, 27.7, 25, 0, null], // 15, 25 and 43 days
        high: [0, null, null, 0, NO_FIX],
        medium: [1, null, null, 1, NO_DATE],
        low: [0, null, null, 0, NO_FIX],
        info: [0, null, null, 0, NO_FIX],
      });
      // Fixes are dated by the scanner: a window before the import holds the first one only.
      const early = await get<TrendsReport>('/api/v1/reports/trends?to=2026-02-10&days=10');
      assert.deepEqual(
        early.remediation.filter((m) => m.fixed > 0).map((m) => [m.severity, m.fixed, m.meanDaysToRemediate]),
        [['critical', 1, 15]],
      );

      const report = await get<RemediationReport>('/api/v1/reports/remediation?source=lab');
      assert.deepEqual(
        report.items.map((i) => [i.severity, i.fixed, i.meanDaysToRemediate, i.medianDaysToRemediate, i.undatedFixes, i.meanBlankReason, i.open]),
        [
          ['critical', 3, 27.7, 25, 0, null, 1],
          ['high', 0, null, null, 0, NO_FIX, 1],
          ['medium', 1, null, null, 1, NO_DATE, 0],
          ['low', 0, null, null, 0, NO_FIX, 1],
        ],
      );
    });

    test('`report trends` gives the API answer, and its table says why a time to remediate is blank', async () => {
      const cli = (...args: string[]) => runCliAsync(['--data-dir', db.dataDir, '--db', db.url, ...args], cliEnv());
      const api = await get<TrendsReport>('/api/v1/reports/trends?to=2026-03-01&days=45&source=lab');
      const json = await cli('--json', 'report', 'trends', '--to', '2026-03-01', '--days', '45', '--source', 'lab');
      assert.equal(json.code, 0, json.stderr);
      const { generatedAt: _a, ...fromCli } = JSON.parse(json.stdout) as TrendsReport;
      const { generatedAt: _b, ...fromApi } = api;
      assert.deepEqual(fromCli, fromApi);
      const table = await cli('report', 'trends', '--to', '2026-03-01', '--days', '45');
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, /^2026-02-20 +2 +1 +1 +0 +0 *$/m);
      assert.match(table.stdout, /^critical +3 +27\.7 +25 *$/m);
      assert.match(table.stdout, /^medium +1 +no mitigation date/m);
      assert.match(table.stdout, /^high +0 +no finding fixed in this window/m);
      const bad = await cli('report', 'trends', '--to', 'yesterday');
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--to must be a day/);
    });
  });
}
