// Feeds through the file drop on both stores: a KEV catalog and a gzipped EPSS CSV dropped in a
// file-mode source's bucket beside an export are recognised by content and imported by its next sync
// (the check says so first); a file that is neither, or a feed file that breaks its format or is older
// than the one imported, is rejected with its reason and changes nothing; a full run imports nothing twice.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { checkSource } from '../../src/app/sources.ts';
import { listImports } from '../../src/filedrop/imports.ts';
import { uploadFiles } from '../../src/filedrop/upload.ts';
import { listFeeds } from '../../src/store/feeds.ts';
import type { SourceRecord } from '../../src/store/store.ts';
import { runSync } from '../../src/sync/runner.ts';
import { SC_HEADER, scRow } from '../connectors/tenable-sc/csv-fixtures.ts';
import { csvText } from '../filedrop/memory-bucket.ts';
import { type FileDropApp, openTestApp } from '../filedrop/helpers.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { day, epssCsv, kevCatalog } from './fixtures.ts';

for (const backend of BACKENDS) {
  describe(`feeds through the file drop on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let app: FileDropApp;
    let source: SourceRecord;
    let dir: string;
    const drop = async (files: Record<string, string | Buffer>) => {
      const paths = Object.entries(files).map(([name, body]) => {
        const p = join(dir, name);
        writeFileSync(p, body);
        return p;
      });
      await uploadFiles(app, 'scanner', paths);
    };
    const imports = async () => new Map((await listImports(app, source.id)).map((i) => [i.key, i]));
    const feeds = async () => (await listFeeds(app.store)).map((f) => [f.kind, f.version, f.records, f.fileName]);

    before(async () => {
      db = await backend.create();
      app = await openTestApp(db);
      source = await app.store.createSource('scanner', 'tenable-sc', { inputMode: 'file', bucket: 'vuln-scanner' }, null);
      dir = join(db.dataDir, 'work');
      mkdirSync(dir, { recursive: true });
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    test('KEV JSON and gzipped EPSS CSV in the bucket become feeds; the export beside them gets their values', async () => {
      await drop({
        'known_exploited_vulnerabilities.json': kevCatalog('2026.11.20', `${day(-2)}T15:00:00.0000Z`, [
          { cve: 'CVE-2016-2183', added: day(-30), due: day(-9), ransomware: 'Known' },
          { cve: 'CVE-2024-0002', added: day(-3), due: day(18) },
        ]),
        'epss_scores-current.csv.gz': epssCsv('v2025.03.14', `${day(-1)}T12:55:00+0000`, [['CVE-2016-2183', 0.0321, 0.8812]], { gzip: true }),
        'vulns.csv': csvText(SC_HEADER, [scRow({})]),
        'notes.txt': 'meeting notes, not an export\n',
        'broken-kev.json': JSON.stringify({ catalogVersion: '2026.11.21', dateReleased: 'yesterday', vulnerabilities: [] }),
      });
      const check = await checkSource(app, 'scanner');
      const line = (key: string) => check.checks.find((c) => c.id === `file:${key}`)!;
      assert.equal(line('known_exploited_vulnerabilities.json').ok, true);
      assert.match(line('known_exploited_vulnerabilities.json').message, /CISA Known Exploited Vulnerabilities feed, will be imported by the next sync/);
      assert.match(line('epss_scores-current.csv.gz').message, /FIRST EPSS scores feed, will be imported/);
      assert.equal(line('notes.txt').ok, false);
      assert.match(line('notes.txt').message, /will be rejected: .*nor is it an offline feed/);

      // The files it could not use make the run partial, and it names them.
      const run = await runSync(app, 'scanner');
      assert.equal(run.status, 'partial', run.error ?? '');
      assert.deepEqual(run.shortfalls.rejected.map((f) => f.file).sort(), ['broken-kev.json', 'notes.txt']);
      const byKey = await imports();
      assert.deepEqual(
        ['known_exploited_vulnerabilities.json', 'epss_scores-current.csv.gz', 'vulns.csv'].map((k) => [k, byKey.get(k)?.status, byKey.get(k)?.kind]),
        [
          ['known_exploited_vulnerabilities.json', 'imported', 'kev'],
          ['epss_scores-current.csv.gz', 'imported', 'epss'],
          ['vulns.csv', 'imported', 'vulnerability-detail-list'],
        ],
      );
      assert.equal(byKey.get('known_exploited_vulnerabilities.json')!.rowsImported, 2);
      assert.equal(byKey.get('notes.txt')!.status, 'rejected');
      assert.match(byKey.get('notes.txt')!.error!, /nor is it an offline feed \(CISA KEV catalog JSON or FIRST EPSS CSV/);
      assert.equal(byKey.get('broken-kev.json')!.status, 'rejected');
      assert.match(byKey.get('broken-kev.json')!.error!, /^broken-kev\.json: KEV catalog: dateReleased 'yesterday' is not a date/);
      assert.deepEqual(await feeds(), [
        ['epss', 'v2025.03.14', 1, 'epss_scores-current.csv.gz'],
        ['kev', '2026.11.20', 2, 'known_exploited_vulnerabilities.json'],
      ]);
      const [finding] = (await app.store.query('vulnerabilities', { filters: [], limit: 10 })).records;
      assert.equal(finding!.kevDateAdded, `${day(-30)}T00:00:00.000Z`);
      assert.equal(finding!.kevDueDate, `${day(-9)}T00:00:00.000Z`);
      assert.equal(finding!.epssPercentile, 0.8812);
    });

    test('a full run reads every file again but imports no feed twice; an older catalog is refused and changes nothing', async () => {
      const before = await listFeeds(app.store);
      const run = await runSync(app, 'scanner', { full: true });
      assert.equal(run.status, 'partial', 'the files that are neither export nor feed are rejected again');
      assert.equal(run.error, null);
      const after1 = await listFeeds(app.store);
      assert.deepEqual(
        after1.map((f) => [f.kind, f.importedAt, f.versions]),
        before.map((f) => [f.kind, f.importedAt, f.versions]),
      );
      assert.equal((await imports()).get('known_exploited_vulnerabilities.json')!.status, 'imported');

      await drop({ 'kev-old.json': kevCatalog('2026.10.01', `${day(-50)}T00:00:00.0000Z`, [{ cve: 'CVE-2020-0001', added: day(-60) }]) });
      const refused = await runSync(app, 'scanner');
      assert.equal(refused.status, 'partial');
      assert.deepEqual(
        refused.shortfalls.rejected.map((f) => f.file),
        ['kev-old.json'],
      );
      const old = (await imports()).get('kev-old.json')!;
      assert.equal(old.status, 'rejected');
      assert.match(old.error!, /kev-old\.json: CISA Known Exploited Vulnerabilities 2026\.10\.01 .* is older than the one imported .*nothing was changed/);
      assert.deepEqual(await feeds(), [
        ['epss', 'v2025.03.14', 1, 'epss_scores-current.csv.gz'],
        ['kev', '2026.11.20', 2, 'known_exploited_vulnerabilities.json'],
      ]);
    });
  });
}
