// Feeds and the SLA in the store, on both backends: importing (versions, unchanged, older, bad files
// change nothing), the feed fields findings get (on import and when written afterwards, beside the
// scanner's own values), staleness, and dueAt/overdue as read and as filtered.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppContext } from '../../src/app/context.ts';
import { InputError } from '../../src/core/errors.ts';
import type { IncomingRecord } from '../../src/core/models.ts';
import { SecretBox } from '../../src/core/secrets.ts';
import { importFeedFiles, staleFeedWarnings } from '../../src/feeds/index.ts';
import { dueAtOf, openStore, parseSlaPolicy, type SourceRecord, type Store } from '../../src/store/index.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { day, epssCsv, kevCatalog } from './fixtures.ts';

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();

test('dueAt: first seen + the severity’s days, capped by the KEV due date; none when fixed or without a policy', () => {
  const first = '2026-01-01T00:00:00.000Z';
  const p = parseSlaPolicy(undefined);
  assert.deepEqual(p, { critical: 15, high: 30, medium: 90, low: 180 });
  assert.equal(dueAtOf({ status: 'open', severity: 'critical', firstSeen: first }, p), '2026-01-16T00:00:00.000Z');
  assert.equal(dueAtOf({ status: 'reopened', severity: 'low', firstSeen: first }, p), '2026-06-30T00:00:00.000Z');
  assert.equal(
    dueAtOf({ status: 'open', severity: 'high', firstSeen: first, kevDueDate: '2026-01-10T00:00:00.000Z' }, p),
    '2026-01-10T00:00:00.000Z',
    'KEV earlier wins',
  );
  assert.equal(
    dueAtOf({ status: 'open', severity: 'high', firstSeen: first, kevDueDate: '2026-03-10T00:00:00.000Z' }, p),
    '2026-01-31T00:00:00.000Z',
    'KEV later: the SLA stands',
  );
  assert.equal(
    dueAtOf({ status: 'open', severity: 'info', firstSeen: first, kevDueDate: '2026-03-10T00:00:00.000Z' }, p),
    '2026-03-10T00:00:00.000Z',
    'no policy: the KEV date alone',
  );
  assert.equal(dueAtOf({ status: 'fixed', severity: 'critical', firstSeen: first }, p), null);
  assert.equal(dueAtOf({ status: 'open', severity: 'info', firstSeen: first }, p), null);
  assert.equal(dueAtOf({ status: 'open', severity: 'critical', firstSeen: null }, p), null);
  assert.deepEqual(parseSlaPolicy('critical:7, HIGH=14,low:off'), { critical: 7, high: 14, medium: 90 });
  assert.deepEqual(parseSlaPolicy('info:365,medium:0'), { critical: 15, high: 30, low: 180, info: 365 });
  for (const bad of ['critical', 'urgent:5', 'high:-1', 'low:1.5']) assert.throws(() => parseSlaPolicy(bad), InputError, bad);
});

for (const backend of BACKENDS) {
  describe(`feeds and SLA on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let store: Store;
    let source: SourceRecord;
    let app: AppContext;
    let n = 0;
    const write = async (records: IncomingRecord[]) => {
      const stamp = { sourceId: source.id, sourceName: source.name, runId: `run-${++n}`, generation: 'g1', now: new Date().toISOString() };
      await store.records.writePage(stamp, 'vulnerabilities', 'full', { vulnerabilities: records }, { value: null, complete: false });
    };
    const finding = (
      key: string,
      severity: string,
      firstDays: number,
      cves: string[],
      status = 'open',
      scannerEpssScore: number | null = null,
    ): IncomingRecord => ({
      key,
      hostKey: 'h1',
      firstSeen: ago(firstDays),
      fields: { pluginId: key, severity, cves, status, scannerEpssScore },
    });
    const all = async (filters: { field: string; op: '=' | '!=' | '<' | '<=' | '>' | '>='; value: string }[] = []) =>
      (await store.records.query('vulnerabilities', { filters, limit: 1000 })).records;
    const keysOf = async (filters: Parameters<typeof all>[0]) => (await all(filters)).map((r) => r.pluginId as string).sort();

    before(async () => {
      db = await backend.create();
      store = await openStore(db.url, new SecretBox(Buffer.alloc(32, 3)), () => []);
      source = await store.sources.create('lab', 'fixture', {}, null);
      app = { store } as unknown as AppContext;
      await write([
        finding('f1-crit-old', 'critical', 20, ['CVE-2024-0001'], 'open', 0.02),
        finding('f2-crit-new', 'critical', 10, []),
        finding('f3-high-kev', 'high', 10, ['CVE-2024-0003', 'CVE-2024-0004']),
        finding('f4-high-fixed', 'high', 40, ['CVE-2024-0003'], 'fixed'),
        finding('f5-info', 'info', 400, []),
        finding('f6-low-reopened', 'low', 100, ['CVE-2024-0006'], 'reopened', 0.3),
        finding('f7-medium-old', 'medium', 91, []),
      ]);
    });
    after(async () => {
      await store?.close();
      await db?.drop();
    });

    test('without feeds: dueAt from the policy, overdue as read and as filtered', async () => {
      const byKey = new Map((await all()).map((r) => [r.pluginId, r]));
      assert.equal(byKey.get('f1-crit-old')!.overdue, true);
      assert.equal(byKey.get('f2-crit-new')!.overdue, false);
      assert.equal(byKey.get('f3-high-kev')!.overdue, false);
      assert.equal(byKey.get('f4-high-fixed')!.dueAt, null);
      assert.equal(byKey.get('f5-info')!.dueAt, null);
      assert.equal(byKey.get('f1-crit-old')!.kevDueDate, null);
      assert.deepEqual(await keysOf([{ field: 'overdue', op: '=', value: 'true' }]), ['f1-crit-old', 'f7-medium-old']);
      assert.deepEqual(await keysOf([{ field: 'overdue', op: '=', value: 'false' }]), [
        'f2-crit-new',
        'f3-high-kev',
        'f4-high-fixed',
        'f5-info',
        'f6-low-reopened',
      ]);
      assert.deepEqual(await keysOf([{ field: 'overdue', op: '!=', value: 'true' }]), await keysOf([{ field: 'overdue', op: '=', value: 'false' }]));
    });

    test('feeds import: findings get the feed values beside the scanner’s; a finding written later gets them too', async () => {
      const kev = kevCatalog('2026.11.20', new Date().toISOString(), [
        { cve: 'CVE-2024-0003', added: day(-30), due: day(-1), ransomware: 'Known' },
        { cve: 'CVE-2024-0004', added: day(-60), due: day(20) },
        { cve: 'CVE-2024-0006', added: day(-5), due: day(400) },
      ]);
      const epss = epssCsv(
        'v2025.03.14',
        `${day(-8)}T00:00:00+0000`,
        [
          ['CVE-2024-0001', 0.91, 0.999],
          ['CVE-2024-0003', 0.1, 0.8],
          ['CVE-2024-0004', 0.3, 0.9],
        ],
        { gzip: true },
      );
      const res = await importFeedFiles(app, [
        { name: 'kev.json', data: kev },
        { name: 'epss.csv.gz', data: epss },
      ]);
      assert.deepEqual(
        res.imported.map((i) => [i.kind, i.status, i.records]),
        [
          ['kev', 'imported', 3],
          ['epss', 'imported', 3],
        ],
      );
      assert.equal(res.findingsUpdated, 4, 'f1, f3, f4 and f6 name a CVE the feeds list');
      const byKey = new Map((await all()).map((r) => [r.pluginId, r]));
      const f1 = byKey.get('f1-crit-old')!;
      assert.deepEqual([f1.epssScore, f1.epssPercentile, f1.epssSource], [0.91, 0.999, 'feed'], 'score and percentile of one origin: the feed');
      assert.equal(f1.scannerEpssScore, 0.02, 'the scanner’s EPSS is kept');
      assert.equal(f1.epssFeedScore, 0.91);
      assert.equal(f1.kevDateAdded, null);
      const f3 = byKey.get('f3-high-kev')!;
      assert.equal(f3.kevDateAdded, `${day(-60)}T00:00:00.000Z`, 'the earliest of its CVEs');
      assert.equal(f3.kevDueDate, `${day(-1)}T00:00:00.000Z`);
      assert.equal(f3.epssFeedScore, 0.3, 'the highest of its CVEs');
      assert.equal(f3.dueAt, f3.kevDueDate, 'the KEV due date is earlier than the SLA');
      assert.equal(f3.overdue, true);
      assert.equal(byKey.get('f6-low-reopened')!.overdue, false, 'a later KEV due date leaves the SLA');
      const f6 = byKey.get('f6-low-reopened')!;
      assert.deepEqual([f6.epssScore, f6.epssPercentile, f6.epssSource], [0.3, null, 'scanner'], 'no feed score for its CVE: the scanner’s, alone');
      assert.deepEqual(
        [...byKey.values()].map((r) => [r.pluginId, r.knownExploited, r.knownExploitedBy]).sort(),
        [
          ['f1-crit-old', null, null],
          ['f2-crit-new', null, null],
          ['f3-high-kev', true, 'feed'],
          ['f4-high-fixed', true, 'feed'],
          ['f5-info', null, null],
          ['f6-low-reopened', true, 'feed'],
          ['f7-medium-old', null, null],
        ],
        'listed in the catalog: known exploited though the scanner did not say so',
      );
      assert.deepEqual(await keysOf([{ field: 'overdue', op: '=', value: 'true' }]), ['f1-crit-old', 'f3-high-kev', 'f7-medium-old']);
      assert.deepEqual(await keysOf([{ field: 'kevDateAdded', op: '!=', value: 'null' }]), ['f3-high-kev', 'f4-high-fixed', 'f6-low-reopened']);
      assert.deepEqual(await keysOf([{ field: 'epssPercentile', op: '>=', value: '0.9' }]), ['f1-crit-old', 'f3-high-kev']);
      // Written after the import: the values come with the write (and a rewrite keeps them).
      await write([finding('f8-new-kev', 'medium', 1, ['CVE-2024-0003']), finding('f1-crit-old', 'critical', 20, ['CVE-2024-0001'], 'open', 0.02)]);
      const again = new Map((await all()).map((r) => [r.pluginId, r]));
      assert.equal(again.get('f8-new-kev')!.kevDueDate, `${day(-1)}T00:00:00.000Z`);
      assert.equal(again.get('f8-new-kev')!.overdue, true);
      assert.equal(again.get('f1-crit-old')!.epssFeedScore, 0.91);
      // One row per CVE (a CSV export), in one page and across pages of one generation: the KEV values
      // are those of every CVE the finding now names, not of the last row's.
      const rows = (key: string) => [finding(key, 'low', 1, ['CVE-2024-0006']), finding(key, 'low', 1, ['CVE-2024-0009'])];
      await write(rows('f9-one-page'));
      const [first, second] = rows('f10-two-pages');
      await write([first!]);
      await write([second!]);
      for (const r of (await all()).filter((x) => x.pluginId === 'f9-one-page' || x.pluginId === 'f10-two-pages')) {
        assert.deepEqual(
          [r.cves, r.kevDateAdded, r.kevDueDate, r.knownExploited, r.knownExploitedBy],
          [['CVE-2024-0006', 'CVE-2024-0009'], `${day(-5)}T00:00:00.000Z`, `${day(400)}T00:00:00.000Z`, true, 'feed'],
          String(r.pluginId),
        );
      }
      const counts = await store.records.groupCount('vulnerabilities', ['severity'], { filters: [{ field: 'overdue', op: '=', value: 'true' }] });
      assert.deepEqual(Object.fromEntries(counts.map((c) => [c.values.severity, c.count])), { critical: 1, high: 1, medium: 2 });
    });

    test('dueAt filters agree with dueAt as read, for every comparison', async () => {
      const records = await all();
      for (const d of [day(-60), day(-1), day(0), day(5), day(30), day(200)]) {
        const t = `${d}T00:00:00.000Z`;
        for (const op of ['<', '<=', '>', '>='] as const) {
          const cmp = (due: string) => (op === '<' ? due < t : op === '<=' ? due <= t : op === '>' ? due > t : due >= t);
          const want = records
            .filter((r) => typeof r.dueAt === 'string' && cmp(r.dueAt))
            .map((r) => r.pluginId as string)
            .sort();
          assert.deepEqual(await keysOf([{ field: 'dueAt', op, value: d }]), want, `dueAt${op}${d}`);
        }
      }
      assert.deepEqual(
        await keysOf([{ field: 'dueAt', op: '=', value: 'null' }]),
        records
          .filter((r) => r.dueAt === null)
          .map((r) => r.pluginId as string)
          .sort(),
      );
      assert.deepEqual(
        await keysOf([{ field: 'dueAt', op: '!=', value: 'null' }]),
        records
          .filter((r) => r.dueAt !== null)
          .map((r) => r.pluginId as string)
          .sort(),
      );
      for (const bad of [
        { field: 'dueAt', op: '=' as const, value: day(1) },
        { field: 'dueAt', op: '<' as const, value: 'soon' },
        { field: 'overdue', op: '=' as const, value: 'maybe' },
      ]) {
        await assert.rejects(all([bad]), InputError);
      }
      await assert.rejects(store.records.query('vulnerabilities', { sort: { field: 'dueAt' } }), InputError);
    });

    test('the policy setting changes due dates at once', async () => {
      const before = process.env.TRIBUTARY_SLA_DAYS;
      process.env.TRIBUTARY_SLA_DAYS = 'critical:5,medium:off';
      try {
        assert.deepEqual(await keysOf([{ field: 'overdue', op: '=', value: 'true' }]), ['f1-crit-old', 'f2-crit-new', 'f3-high-kev', 'f8-new-kev']);
        const f7 = (await all()).find((r) => r.pluginId === 'f7-medium-old')!;
        assert.equal(f7.dueAt, null);
      } finally {
        if (before === undefined) delete process.env.TRIBUTARY_SLA_DAYS;
        else process.env.TRIBUTARY_SLA_DAYS = before;
      }
    });

    test('versions: the same bytes are unchanged, an older one or a bad one changes nothing; staleness by the feed’s date', async () => {
      const before = await store.feeds.list();
      assert.deepEqual(
        before.map((f) => [f.kind, f.stale]),
        [
          ['epss', true],
          ['kev', false],
        ],
        'EPSS dated 8 days ago is stale',
      );
      assert.match((await staleFeedWarnings(app)).join('\n'), /FIRST EPSS scores v2025\.03\.14 is 8 days old/);
      const older = kevCatalog('2026.10.01', `${day(-50)}T00:00:00Z`, [{ cve: 'CVE-2024-0009', added: day(-50) }]);
      await assert.rejects(importFeedFiles(app, [{ name: 'old-kev.json', data: older }]), /old-kev\.json: .*older than the one imported/);
      const good = epssCsv('v2025.03.14', new Date().toISOString(), [['CVE-2024-0001', 0.5, 0.5]]);
      await assert.rejects(
        importFeedFiles(app, [
          { name: 'new.csv', data: good },
          { name: 'junk.bin', data: Buffer.from([0, 1, 2]) },
        ]),
        /junk\.bin: not a CISA KEV catalog/,
      );
      assert.deepEqual(await store.feeds.list(), before, 'nothing changed');
      assert.equal((await all()).find((r) => r.pluginId === 'f1-crit-old')!.epssFeedScore, 0.91);
      const bytes = epssCsv('v2025.03.14', new Date().toISOString(), [['CVE-2024-0001', 0.5, 0.55]]);
      const first = await importFeedFiles(app, [{ name: 'epss-today.csv', data: bytes }]);
      assert.equal(first.imported[0]!.status, 'imported');
      assert.equal(first.findingsUpdated, 4, 'f1 gets the new score; f3, f4 and f8 lose theirs (not in the new file)');
      const second = await importFeedFiles(app, [{ name: 'epss-today.csv', data: bytes }]);
      assert.equal(second.imported[0]!.status, 'unchanged');
      assert.equal(second.findingsUpdated, 0);
      const now = await store.feeds.list();
      assert.equal(now.find((f) => f.kind === 'epss')!.stale, false);
      assert.equal(now.find((f) => f.kind === 'epss')!.versions, 2);
      assert.deepEqual(await staleFeedWarnings(app), []);
      assert.equal((await all()).find((r) => r.pluginId === 'f1-crit-old')!.epssPercentile, 0.55);
    });

    test('a feed dated more than a day ahead is refused even with replace; an older one goes in only with replace', async () => {
      const before = await store.feeds.list();
      const kevNow = before.find((f) => f.kind === 'kev')!;
      const future = kevCatalog('2099.12.31', '2099-12-31T00:00:00Z', [{ cve: 'CVE-2024-0003', added: '2099-12-31' }]);
      for (const replace of [false, true]) {
        await assert.rejects(
          importFeedFiles(app, [{ name: 'kev-2099.json', data: future }], { replace }),
          (err: unknown) =>
            err instanceof InputError && /^kev-2099\.json: .* 2099\.12\.31 of 2099-12-31 is dated in the future .*nothing was changed/.test(err.message),
        );
      }
      // Within a day of clock skew is fine (a catalog released "tomorrow" in another time zone).
      const skewed = epssCsv('v2025.03.14', new Date(Date.now() + 12 * 3_600_000).toISOString(), [['CVE-2024-0001', 0.5, 0.56]]);
      assert.equal((await importFeedFiles(app, [{ name: 'epss-skew.csv', data: skewed }])).imported[0]!.status, 'imported');
      assert.deepEqual(
        (await store.feeds.list()).find((f) => f.kind === 'kev'),
        kevNow,
        'the KEV catalog is unchanged',
      );

      const older = kevCatalog('2026.10.01', `${day(-50)}T00:00:00Z`, [{ cve: 'CVE-2024-0009', added: day(-50) }]);
      await assert.rejects(importFeedFiles(app, [{ name: 'old-kev.json', data: older }]), /older than the one imported .*--replace/);
      const replaced = await importFeedFiles(app, [{ name: 'old-kev.json', data: older }], { replace: true });
      assert.deepEqual(
        replaced.imported.map((i) => [i.version, i.status]),
        [['2026.10.01', 'imported']],
      );
      const kev = (await store.feeds.list()).find((f) => f.kind === 'kev')!;
      assert.deepEqual([kev.version, kev.fileName, kev.records], ['2026.10.01', 'old-kev.json', 1]);
      assert.equal((await all()).find((r) => r.pluginId === 'f3-high-kev')!.kevDateAdded, null, 'the findings follow the installed catalog');
    });

    test('findings get values from a feed larger than one page of the recompute (20,000 rows)', async () => {
      const rows: [string, number, number][] = Array.from({ length: 45_000 }, (_, i) => [`CVE-2023-${10000 + i}`, 0.001, 0.01]);
      rows.push(['CVE-2024-0001', 0.77, 0.97]);
      const big = epssCsv('v2025.03.14', new Date(Date.now() + 20 * 3_600_000).toISOString(), rows);
      const res = await importFeedFiles(app, [{ name: 'epss-big.csv', data: big }]);
      assert.deepEqual(
        res.imported.map((i) => [i.status, i.records]),
        [['imported', 45_001]],
      );
      assert.equal((await all()).find((r) => r.pluginId === 'f1-crit-old')!.epssFeedScore, 0.77, 'its CVE is on the last page');
    });

    test('two imports racing leave the newer current, whichever finishes reading first', async () => {
      // The older file is the larger one, so it is read last: checked apart from the write, it would win.
      const newer = kevCatalog('2026.11.25', new Date().toISOString(), [{ cve: 'CVE-2024-0003', added: day(-30) }]);
      const older = kevCatalog(
        '2026.11.24',
        `${day(-1)}T00:00:00Z`,
        Array.from({ length: 20_000 }, (_, i) => ({ cve: `CVE-2023-${10000 + i}`, added: day(-40) })),
      );
      const outcomes = await Promise.allSettled([
        importFeedFiles(app, [{ name: 'newer.json', data: newer }]),
        importFeedFiles(app, [{ name: 'older.json', data: older }]),
      ]);
      assert.equal(outcomes[0]!.status, 'fulfilled');
      const kev = (await store.feeds.list()).find((f) => f.kind === 'kev')!;
      assert.equal(kev.version, '2026.11.25', 'the newer catalog is current');
      if (outcomes[1]!.status === 'rejected') assert.match(String(outcomes[1].reason), /older\.json: .*older than the one imported/);
      assert.equal((await all()).find((r) => r.pluginId === 'f3-high-kev')!.kevDateAdded, `${day(-30)}T00:00:00.000Z`);
    });
  });
}
