// A CSV export is the whole state of its scope on every import (issue 28.3, docs/csv-import.md), through
// runSync on both stores: what a newer export of a repository lacks is fixed in that very run, full or
// incremental; an older export changes nothing and says so; files uploaded together are one snapshot;
// a file without a Repository column is the state of its file name; a Host Assets export removes the
// hosts it lacks; the sweep guard judges each scope; a file with rejected rows removes nothing. Also
// with the real exports of the shared corpus (skipped with a message when it is absent).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { type AppContext, openApp } from '../../src/app/context.ts';
import { silentLogger } from '../../src/core/log.ts';
import type { StoredRecord } from '../../src/core/models.ts';
import { readCsv } from '../../src/filedrop/csv/reader.ts';
import { listImports } from '../../src/filedrop/imports.ts';
import { uploadFiles } from '../../src/filedrop/upload.ts';
import { runSync } from '../../src/sync/runner.ts';
import { SC_HEADER, scRow } from '../connectors/tenable-sc/csv-fixtures.ts';
import { csvText } from '../filedrop/memory-bucket.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';

const env = { TRIBUTARY_MASTER_KEY: Buffer.alloc(32, 9).toString('base64') };
const corpus = fileURLToPath(new URL('../../../shared/corpus/tenable-sc/csv/', import.meta.url));
const corpusSkip = existsSync(`${corpus}nessus_many_vuln.csv`) ? false : `the shared corpus is not at ${corpus}`;
if (corpusSkip) console.log(`# skipping the corpus cases of the scope-state tests: ${corpusSkip}`);

const HOST_HEADER = ['Name', 'IP Address', 'OS', 'Repository'];
const row = (repo: string, plugin: string, ip = '10.0.0.1', extra: Record<string, string> = {}) =>
  scRow({ Repository: repo, Plugin: plugin, 'IP Address': ip, 'DNS Name': `h${ip.replaceAll('.', '-')}.example`, ...extra });

for (const backend of BACKENDS) {
  describe(`CSV exports as the state of their scope on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let app: AppContext;
    let clock = Date.parse('2026-03-01T00:00:00Z');
    before(async () => {
      db = await backend.create();
      app = await openApp({ dataDir: db.dataDir, db: db.url, log: silentLogger, env });
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    /** A file-mode Tenable.sc source with a bucket of its own. */
    async function source(name: string): Promise<string> {
      await app.store.sources.create(name, 'tenable-sc', { inputMode: 'file', bucket: `b-${name}` }, null);
      return name;
    }

    /** Uploads files together (one sync batch), a minute apart in upload time, in this order. */
    async function upload(src: string, files: Record<string, string | Buffer>): Promise<void> {
      const paths = Object.entries(files).map(([name, text]) => {
        const p = join(db.dataDir, name);
        writeFileSync(p, text);
        return p;
      });
      await uploadFiles(app, src, paths);
      for (const name of Object.keys(files)) {
        clock += 60_000;
        utimesSync(join(db.dataDir, 'drop', `b-${src}`, name), clock / 1000, clock / 1000);
      }
    }
    const vulns = (rows: string[][]) => csvText(SC_HEADER, rows);

    async function all(src: string, model: 'vulnerabilities' | 'hosts'): Promise<StoredRecord[]> {
      const s = await app.store.sources.get(src);
      return (await app.store.records.query(model, { sourceIds: [s.id], limit: 10_000 })).records;
    }
    /** Finding statuses by plugin@ip:port. */
    async function findings(src: string): Promise<Record<string, string>> {
      const hosts = new Map((await all(src, 'hosts')).map((h) => [h.id, (h.ipAddresses as string[])[0]]));
      return Object.fromEntries((await all(src, 'vulnerabilities')).map((v) => [`${v.pluginId}@${hosts.get(v.hostId as string)}:${v.port}`, String(v.status)]));
    }
    const liveHosts = async (src: string) =>
      (await all(src, 'hosts'))
        .filter((h) => !h.removed)
        .map((h) => (h.ipAddresses as string[])[0])
        .sort();

    test('a newer Corp Servers export lacking three findings: those three are fixed in an incremental run, other repositories untouched', async () => {
      const src = await source('corp');
      const corpRows = [
        row('Corp Servers', '42873'),
        row('Corp Servers', '51192'),
        row('Corp Servers', '57582'),
        row('Corp Servers', '65821', '10.0.0.2'),
        row('Corp Servers', '97833', '10.0.0.2'),
      ];
      await upload(src, { 'corp-servers.csv': vulns(corpRows), 'lab.csv': vulns([row('Lab', '51192', '10.9.0.1')]) });
      assert.equal((await runSync(app, src)).mode, 'full');
      // The next scan cycle's export of Corp Servers (same file name) lacks 51192, 57582 and 65821.
      await upload(src, { 'corp-servers.csv': vulns([row('Corp Servers', '42873'), row('Corp Servers', '97833', '10.0.0.2')]) });
      const r = await runSync(app, src);
      assert.equal(r.mode, 'incremental');
      assert.equal(r.status, 'succeeded', r.error ?? '');
      assert.equal(r.swept.vulnerabilities, 3);
      assert.deepEqual(await findings(src), {
        '42873@10.0.0.1:443': 'open',
        '51192@10.0.0.1:443': 'fixed',
        '57582@10.0.0.1:443': 'fixed',
        '65821@10.0.0.2:443': 'fixed',
        '97833@10.0.0.2:443': 'open',
        '51192@10.9.0.1:443': 'open',
      });
      assert.deepEqual(await liveHosts(src), ['10.0.0.1', '10.0.0.2', '10.9.0.1']);
      const s = await app.store.sources.get(src);
      const fixed = (await app.store.records.changes({ sourceIds: [s.id], changes: ['fixed'], limit: 100 })).records;
      assert.equal(fixed.length, 3, 'three fixed events');
      assert.ok(fixed.every((e) => e.runId === r.runId));
    });

    test('an export older than one already imported for its repository changes nothing and says so', async () => {
      const src = await source('older');
      await upload(src, { 'corp-2026-03-08.csv': vulns([row('Corp', '42873'), row('Corp', '51192')]) });
      await runSync(app, src);
      const before = await findings(src);
      // Uploaded later, but its file name dates it a week earlier: it lacks 51192 and names 57582.
      await upload(src, { 'corp-2026-03-01.csv': vulns([row('Corp', '42873'), row('Corp', '57582')]) });
      const r = await runSync(app, src);
      assert.equal(r.status, 'succeeded', r.error ?? '');
      assert.deepEqual(r.swept, {});
      assert.deepEqual(await findings(src), before, 'nothing changed');
      assert.equal(r.skipped?.length, 1);
      assert.equal(r.skipped![0]!.file, 'corp-2026-03-01.csv');
      assert.match(
        r.skipped![0]!.reason,
        /older than the export already imported for repository 'Corp' \(corp-2026-03-08\.csv, exported 2026-03-08T00:00:00\.000Z\)/,
      );
      const s = await app.store.sources.get(src);
      const [imp] = await listImports(app, s.id, 'corp-2026-03-01.csv');
      assert.equal(imp!.status, 'skipped');
      // A full run reads the newer export again and leaves the older one out: the same state.
      const full = await runSync(app, src, { full: true });
      assert.equal(full.status, 'succeeded', full.error ?? '');
      assert.deepEqual(await findings(src), before);
    });

    test('two files uploaded together are one snapshot: what neither has is fixed, neither hides the other', async () => {
      const src = await source('together');
      await upload(src, { 'corp-all.csv': vulns([row('Corp', '42873'), row('Corp', '51192'), row('Corp', '57582')]) });
      await runSync(app, src);
      await upload(src, { 'corp-critical.csv': vulns([row('Corp', '42873')]), 'corp-high.csv': vulns([row('Corp', '51192')]) });
      const r = await runSync(app, src);
      assert.equal(r.status, 'succeeded', r.error ?? '');
      assert.deepEqual(await findings(src), { '42873@10.0.0.1:443': 'open', '51192@10.0.0.1:443': 'open', '57582@10.0.0.1:443': 'fixed' });
    });

    test('an export without a Repository column is the state of its file name', async () => {
      const src = await source('noscope');
      const header = SC_HEADER.filter((h) => h !== 'Repository');
      const plain = (plugin: string) => row('', plugin, '10.5.0.1').filter((_, i) => SC_HEADER[i] !== 'Repository');
      await upload(src, { 'nessus.csv': csvText(header, [plain('10001'), plain('10002')]), 'other.csv': csvText(header, [plain('10003')]) });
      await runSync(app, src);
      await upload(src, { 'nessus.csv': csvText(header, [plain('10001')]) });
      const r = await runSync(app, src);
      assert.equal(r.mode, 'incremental');
      assert.deepEqual(await findings(src), { '10001@10.5.0.1:443': 'open', '10002@10.5.0.1:443': 'fixed', '10003@10.5.0.1:443': 'open' });
    });

    test('a Host Assets export removes the hosts of its repository it lacks', async () => {
      const src = await source('assets');
      const hosts = (ips: string[]) =>
        csvText(
          HOST_HEADER,
          ips.map((ip) => [`h${ip.replaceAll('.', '-')}.example`, ip, 'Linux', 'Corp']),
        );
      await upload(src, {
        'vulns.csv': vulns([row('Corp', '42873', '10.0.0.1'), row('Corp', '42873', '10.0.0.2')]),
        'hosts.csv': hosts(['10.0.0.1', '10.0.0.2', '10.0.0.3']),
        'lab-hosts.csv': csvText(HOST_HEADER, [['lab1', '10.9.0.1', 'Linux', 'Lab']]),
      });
      await runSync(app, src);
      assert.deepEqual(await liveHosts(src), ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.9.0.1']);
      await upload(src, { 'hosts.csv': hosts(['10.0.0.1', '10.0.0.2']) });
      const r = await runSync(app, src);
      assert.equal(r.mode, 'incremental');
      assert.equal(r.status, 'succeeded', r.error ?? '');
      assert.deepEqual(r.swept, { hosts: 1 });
      assert.deepEqual(await liveHosts(src), ['10.0.0.1', '10.0.0.2', '10.9.0.1'], "10.0.0.3 removed; Lab's host untouched");
      assert.deepEqual(Object.values(await findings(src)), ['open', 'open'], 'a host list fixes no finding');
    });

    test('the sweep guard judges each scope: a Corp export that lost most of Corp is refused, Lab is swept', async () => {
      const src = await source('guard');
      const corp = Array.from({ length: 12 }, (_, i) => row('Corp', String(20000 + i)));
      await upload(src, { 'corp.csv': vulns(corp), 'lab.csv': vulns([row('Lab', '42873', '10.9.0.1'), row('Lab', '51192', '10.9.0.1')]) });
      await runSync(app, src);
      await upload(src, { 'corp.csv': vulns([row('Corp', '20000')]), 'lab.csv': vulns([row('Lab', '42873', '10.9.0.1')]) });
      const r = await runSync(app, src);
      assert.equal(r.status, 'partial');
      assert.match(r.error ?? '', /vulnerabilities of repository 'Corp': it would mark 11 of its 12 records removed/);
      assert.equal(r.swept.vulnerabilities, 1, "Lab's missing finding is fixed");
      const st = await findings(src);
      assert.equal(st['51192@10.9.0.1:443'], 'fixed');
      assert.equal(Object.entries(st).filter(([k, v]) => k.endsWith('10.0.0.1:443') && v === 'open').length, 12, 'Corp left as it was');
      const ok = await runSync(app, src, { full: true, allowLargeRemoval: true });
      assert.equal(ok.status, 'succeeded', ok.error ?? '');
      assert.equal(Object.values(await findings(src)).filter((v) => v === 'fixed').length, 12);
    });

    test('a file with a rejected row removes nothing in its scope', async () => {
      const src = await source('rejects');
      await upload(src, { 'corp.csv': vulns([row('Corp', '42873'), row('Corp', '51192')]) });
      await runSync(app, src);
      await upload(src, { 'corp.csv': vulns([row('Corp', '42873'), row('Corp', '57582', '10.0.0.1', { Severity: 'Urgent' })]) });
      const r = await runSync(app, src);
      assert.deepEqual(r.swept, {});
      assert.equal((await findings(src))['51192@10.0.0.1:443'], 'open');
    });

    test('corpus: a newer copy of nessus_many_vuln.csv lacking three of its findings fixes them; an older issue_9612.csv changes nothing', {
      skip: corpusSkip,
    }, async () => {
      const src = await source('corpus');
      const real = readFileSync(`${corpus}nessus_many_vuln.csv`);
      const records: string[][] = [];
      for await (const batch of readCsv(Readable.from([real]))) for (const r of batch) records.push(r.fields);
      await upload(src, { 'individual-scan.csv': real });
      await runSync(app, src);
      assert.equal(Object.values(await findings(src)).filter((v) => v === 'open').length, 4);
      // The next export of the same repository keeps only its first finding.
      await upload(src, { 'individual-scan.csv': csvText(records[0]!, [records[1]!]) });
      const r = await runSync(app, src);
      assert.equal(r.mode, 'incremental');
      assert.equal(r.status, 'succeeded', r.error ?? '');
      assert.equal(r.swept.vulnerabilities, 3);
      assert.deepEqual(Object.values(await findings(src)).sort(), ['fixed', 'fixed', 'fixed', 'open']);
      // Real exports of the same repository ("Individual Scan"), dated by their file names.
      await upload(src, { 'individual-scan-2024-10-17.csv': readFileSync(`${corpus}issue_11102.csv`) });
      await runSync(app, src);
      const now = await findings(src);
      await upload(src, { 'individual-scan-2024-02-19.csv': readFileSync(`${corpus}issue_9612.csv`) });
      const old = await runSync(app, src);
      assert.equal(old.skipped?.[0]?.file, 'individual-scan-2024-02-19.csv');
      assert.deepEqual(await findings(src), now);
    });
  });
}
