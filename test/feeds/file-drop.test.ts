// Feeds are global state a source's bucket never changes, on both stores: a KEV catalog and an EPSS
// file (gzipped, and a gzip bomb) put in a file-mode source's bucket with only its upload token, dated far in the
// future, are refused by that source's sync with a reason naming `feeds import` (the check says so
// first); the feeds an administrator imported, the findings of every other source and a later import
// of the genuine catalog are untouched by them.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { checkSource } from '../../src/app/sources.ts';
import { importFeedFiles } from '../../src/feeds/index.ts';
import { listImports } from '../../src/filedrop/imports.ts';
import { uploadFiles } from '../../src/filedrop/upload.ts';
import type { SourceRecord } from '../../src/store/index.ts';
import { runSync } from '../../src/sync/runner.ts';
import { SC_HEADER, scRow } from '../connectors/tenable-sc/csv-fixtures.ts';
import { csvText } from '../filedrop/memory-bucket.ts';
import { type FileDropApp, openTestApp } from '../filedrop/helpers.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { day, epssBomb, epssCsv, kevCatalog } from './fixtures.ts';

for (const backend of BACKENDS) {
  describe(`a source's bucket never changes the feeds, on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let app: FileDropApp;
    let scanner: SourceRecord;
    let dir: string;
    const drop = async (source: string, files: Record<string, string | Buffer>) => {
      const paths = Object.entries(files).map(([name, body]) => {
        const p = join(dir, name);
        writeFileSync(p, body);
        return p;
      });
      await uploadFiles(app, source, paths);
    };
    const feeds = async () => (await app.store.feeds.list()).map((f) => [f.kind, f.version, f.records, f.fileName]);
    let other: SourceRecord;
    const otherFinding = async () => (await app.store.records.query('vulnerabilities', { sourceIds: [other.id], limit: 10 })).records[0]!;

    before(async () => {
      db = await backend.create();
      app = await openTestApp(db);
      scanner = await app.store.sources.create('scanner', 'tenable-sc', { inputMode: 'file', bucket: 'vuln-scanner' }, null);
      other = await app.store.sources.create('other', 'tenable-sc', { inputMode: 'file', bucket: 'vuln-other' }, null);
      dir = join(db.dataDir, 'work');
      mkdirSync(dir, { recursive: true });
      await importFeedFiles(app, [
        { name: 'kev.json', data: kevCatalog('2026.11.20', `${day(-1)}T15:00:00.0000Z`, [{ cve: 'CVE-2016-2183', added: day(-30), due: day(-9) }]) },
        { name: 'epss.csv', data: epssCsv('v2025.03.14', `${day(-1)}T12:55:00+0000`, [['CVE-2016-2183', 0.0321, 0.8812]]) },
      ]);
      await drop('other', { 'vulns.csv': csvText(SC_HEADER, [scRow({})]) });
      assert.equal((await runSync(app, 'other')).status, 'succeeded');
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    test('future-dated feed files in another source’s bucket are refused by its sync, naming `feeds import`; nothing else changes', async () => {
      const before = await feeds();
      assert.equal((await otherFinding()).kevDateAdded, `${day(-30)}T00:00:00.000Z`);
      await drop('scanner', {
        'known_exploited_vulnerabilities.json': kevCatalog('2099.12.31', '2099-12-31T00:00:00.000Z', [{ cve: 'CVE-2099-0001', added: '2099-12-31' }]),
        'epss_scores-2099-12-31.csv.gz': epssCsv('v2099', '2099-12-31T00:00:00+0000', [['CVE-2016-2183', 0.00001, 0.00001]], { gzip: true }),
        'epss-bomb.csv.gz': epssBomb(1024 ** 3),
        'vulns.csv': csvText(SC_HEADER, [scRow({})]),
      });
      const check = await checkSource(app, 'scanner');
      const line = (key: string) => check.checks.find((c) => c.id === `file:${key}`)!;
      for (const key of ['known_exploited_vulnerabilities.json', 'epss_scores-2099-12-31.csv.gz', 'epss-bomb.csv.gz']) {
        assert.equal(line(key).ok, false, key);
        assert.match(line(key).message, /will be rejected: it is a .* feed file: a source's bucket never changes the feeds .*`tributary feeds import FILE`/);
      }

      // The feed files it refused make the run partial, and it names them.
      const run = await runSync(app, 'scanner');
      assert.equal(run.status, 'partial', run.error ?? '');
      assert.deepEqual(run.shortfalls.rejected.map((f) => f.file).sort(), [
        'epss-bomb.csv.gz',
        'epss_scores-2099-12-31.csv.gz',
        'known_exploited_vulnerabilities.json',
      ]);
      const byKey = new Map((await listImports(app, scanner.id)).map((i) => [i.key, i]));
      assert.equal(byKey.get('vulns.csv')!.status, 'imported');
      for (const key of ['known_exploited_vulnerabilities.json', 'epss_scores-2099-12-31.csv.gz', 'epss-bomb.csv.gz']) {
        assert.equal(byKey.get(key)!.status, 'rejected', key);
        assert.match(byKey.get(key)!.error!, /feed file: a source's bucket never changes the feeds/);
      }
      assert.deepEqual(await feeds(), before, 'the feeds are the administrator’s');
      const f = await otherFinding();
      assert.equal(f.kevDateAdded, `${day(-30)}T00:00:00.000Z`);
      assert.equal(f.epssFeedScore, 0.0321);

      // A full run reads every file again: still refused, still nothing changed.
      assert.equal((await runSync(app, 'scanner', { full: true })).status, 'partial');
      assert.deepEqual(await feeds(), before);

      // The administrator's next genuine catalog goes in as usual.
      const next = await importFeedFiles(app, [
        { name: 'kev-new.json', data: kevCatalog('2026.11.21', `${day(0)}T00:00:00.0000Z`, [{ cve: 'CVE-2016-2183', added: day(-30) }]) },
      ]);
      assert.equal(next.imported[0]!.status, 'imported');
    });
  });
}
