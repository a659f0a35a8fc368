// The file snapshot rule through runSync on both stores (docs/csv-import.md): exports per repository
// do not remove each other's records; a newer export of a repository is its whole state in any run,
// and a full run re-reading every file agrees; and a finding written as one row per CVE keeps every CVE.
import assert from 'node:assert/strict';
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type AppContext, openApp } from '../../src/app/context.ts';
import { silentLogger } from '../../src/core/log.ts';
import type { StoredRecord } from '../../src/core/models.ts';
import { uploadFiles } from '../../src/filedrop/upload.ts';
import { runSync } from '../../src/sync/runner.ts';
import { SC_HEADER, scRow } from '../connectors/tenable-sc/csv-fixtures.ts';
import { csvText } from '../filedrop/memory-bucket.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';

const env = { TRIBUTARY_MASTER_KEY: Buffer.alloc(32, 9).toString('base64') };

for (const backend of BACKENDS) {
  describe(`CSV snapshots on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let app: AppContext;
    let clock = Date.parse('2026-03-01T00:00:00Z');
    before(async () => {
      db = await backend.create();
      app = await openApp({ dataDir: db.dataDir, db: db.url, log: silentLogger, env });
      await app.store.sources.create('scans', 'tenable-sc', { inputMode: 'file' }, null);
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    /** Uploads exports (in this order, a minute apart: upload time orders them). */
    async function upload(files: Record<string, string[][]>, header = SC_HEADER): Promise<void> {
      const paths = Object.entries(files).map(([name, rows]) => {
        const p = join(db.dataDir, name);
        writeFileSync(p, csvText(header, rows));
        return p;
      });
      await uploadFiles(app, 'scans', paths);
      for (const name of Object.keys(files)) {
        clock += 60_000;
        utimesSync(join(db.dataDir, 'drop', 'vuln-scanner', name), clock / 1000, clock / 1000);
      }
    }

    async function all(model: 'vulnerabilities' | 'hosts'): Promise<StoredRecord[]> {
      const src = await app.store.sources.get('scans');
      return (await app.store.records.query(model, { sourceIds: [src.id], limit: 10_000 })).records;
    }
    const state = async () =>
      Object.fromEntries((await all('vulnerabilities')).map((v) => [`${v.pluginId}@${String(v.hostId).slice(0, 4)}:${v.port}`, v.status]));
    const statusOf = async (pluginId: string) => (await all('vulnerabilities')).filter((v) => v.pluginId === pluginId).map((v) => v.status);

    const row = (repo: string, plugin: string, ip = '10.0.0.1', extra: Record<string, string> = {}) =>
      scRow({ Repository: repo, Plugin: plugin, 'IP Address': ip, ...extra });

    test('per-repository exports: a newer export fixes what its repository lacks in an incremental run; a full run agrees', async () => {
      // Run 1 (full: the first): Corp and Lab exported separately, uploaded together.
      await upload({
        'corp-week1.csv': [row('Corp', '42873'), row('Corp', '51192'), row('Corp', '57582', '10.0.0.2', { 'DNS Name': 'old.corp.example' })],
        'lab-week1.csv': [row('Lab', '65821', '10.9.0.1', { 'DNS Name': 'lab1.corp.example' })],
      });
      const r1 = await runSync(app, 'scans');
      assert.equal(r1.status, 'succeeded', r1.error ?? '');
      assert.equal(r1.mode, 'full');
      assert.deepEqual(await statusOf('65821'), ['open']);
      assert.equal((await all('vulnerabilities')).length, 4);

      // Run 2 (incremental): a new Corp export without 51192 and without host 10.0.0.2 is Corp's whole
      // state: those are fixed and removed in this very run; Lab's export is no snapshot of Corp.
      await upload({ 'corp-week2.csv': [row('Corp', '42873')] });
      const r2 = await runSync(app, 'scans');
      assert.equal(r2.mode, 'incremental');
      assert.equal(r2.status, 'succeeded', r2.error ?? '');
      assert.equal(r2.swept.vulnerabilities, 2);
      assert.equal(r2.swept.hosts, 1);
      assert.deepEqual(await statusOf('42873'), ['open']);
      assert.deepEqual(await statusOf('51192'), ['fixed']);
      assert.deepEqual(await statusOf('57582'), ['fixed']);
      assert.deepEqual(await statusOf('65821'), ['open'], "another repository's export is not a snapshot of Corp");
      const hosts = await all('hosts');
      assert.deepEqual(
        hosts.filter((h) => h.removed).map((h) => (h.ipAddresses as string[])[0]),
        ['10.0.0.2'],
      );

      // A full run re-reads every file and comes to the same state (week 1's Corp rows are older).
      const before = await state();
      const r3 = await runSync(app, 'scans', { full: true });
      assert.equal(r3.status, 'succeeded', r3.error ?? '');
      assert.deepEqual(await state(), before);
      assert.deepEqual(
        (await all('hosts'))
          .filter((h) => !h.removed)
          .map((h) => (h.ipAddresses as string[])[0])
          .sort(),
        ['10.0.0.1', '10.9.0.1'],
      );
    });

    test('one finding written as one row per CVE (Nessus, Tenable VM exports) keeps every CVE', async () => {
      const cve = (c: string) => row('Cve', '97833', '10.7.0.1', { CVE: c, 'DNS Name': 'cve1.example' });
      await upload({ 'per-cve.csv': [cve('CVE-2017-0143'), cve('CVE-2017-0144'), cve('CVE-2017-0145')] });
      const r = await runSync(app, 'scans');
      assert.equal(r.status, 'succeeded', r.error ?? '');
      const found = (await all('vulnerabilities')).filter((v) => v.pluginId === '97833');
      assert.equal(found.length, 1);
      assert.deepEqual(found[0]!.cves, ['CVE-2017-0143', 'CVE-2017-0144', 'CVE-2017-0145']);
    });

    test('…also when its rows fall on both sides of a page boundary (2000 rows a page)', async () => {
      const filler = Array.from({ length: 1998 }, (_, i) => row('Pages', String(200000 + i), '10.8.0.1', { 'DNS Name': 'pages.example', CVE: '' }));
      const cve = (c: string) => row('Pages', '97834', '10.8.0.2', { CVE: c, 'DNS Name': 'cve2.example' });
      // Rows 1999 and 2000 end the first page, 2001 starts the second.
      await upload({ 'paged.csv': [...filler, cve('CVE-2019-0708'), cve('CVE-2019-1181'), cve('CVE-2019-1182')] });
      const r = await runSync(app, 'scans');
      assert.equal(r.status, 'succeeded', r.error ?? '');
      const found = (await all('vulnerabilities')).filter((v) => v.pluginId === '97834');
      assert.equal(found.length, 1);
      assert.deepEqual(found[0]!.cves, ['CVE-2019-0708', 'CVE-2019-1181', 'CVE-2019-1182']);
    });
  });
}
