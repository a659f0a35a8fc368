// File mode end to end through the CLI: CSV exports uploaded into a source's bucket and imported by
// `sync`: a re-sync imports nothing twice, a later export missing a finding marks it fixed (full run), a file that
// is not an export is rejected whole, bad rows are listed with their line numbers (the run ends partial); and an SDP export.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openApp } from '../../src/app/context.ts';
import { silentLogger } from '../../src/core/log.ts';
import { listFiles } from '../../src/filedrop/imports.ts';
import { SC_HEADER, scRow } from '../connectors/tenable-sc/csv-fixtures.ts';
import { csvText } from '../filedrop/memory-bucket.ts';
import { cliEnv, runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/databases.ts';

const dataDir = tempDir();
after(() => rmSync(dataDir, { recursive: true, force: true }));
const d = ['--data-dir', dataDir];

function ok(args: string[]): string {
  const r = runCli([...d, ...args]);
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const write = (name: string, text: string) => {
  const p = join(dataDir, name);
  writeFileSync(p, text);
  return p;
};

const vulns = () =>
  ok(['--json', 'query', 'vulnerabilities', '--source', 'f', '--all'])
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { pluginId: string; status: string; port: number; firstSeen: string })
    .sort((a, b) => a.pluginId.localeCompare(b.pluginId));

async function files(source: string) {
  const app = await openApp({ dataDir, log: silentLogger, env: cliEnv() });
  try {
    const s = await app.store.sources.get(source);
    return (await listFiles(app, s)).items;
  } finally {
    await app.close();
  }
}

test('Tenable.sc CSV exports through upload and sync: lifecycle, re-sync, bad files, bad rows', async () => {
  ok(['sources', 'add', 'tenable-sc', '--name', 'f', '--set', 'inputMode=file']);
  const a = scRow({});
  const b = scRow({ Plugin: '51192', 'Plugin Name': 'SSL Certificate Cannot Be Trusted', Severity: 'High' });
  ok(['upload', 'f', write('2024-10-01.csv', `\uFEFF${csvText(SC_HEADER, [a, b], '\r\n')}`)]);
  const check = JSON.parse(ok(['--json', 'sources', 'check', 'f'])) as { ok: boolean; checks: { id: string; message: string }[] };
  assert.ok(check.ok);
  // The local bucket is named by its folder.
  assert.ok(
    check.checks.find((c) => c.id === 'bucket')!.message.startsWith(`${join(dataDir, 'drop', 'vuln-scanner')}: 1 file, 1 awaiting import (2024-10-01.csv)`),
    JSON.stringify(check.checks),
  );

  const s1 = JSON.parse(ok(['--json', 'sync', 'f'])) as { status: string; streams: Record<string, { records: number }> };
  assert.equal(s1.status, 'succeeded');
  assert.equal(s1.streams.vulnerabilities!.records, 2);
  assert.deepEqual(
    vulns().map((v) => [v.pluginId, v.status]),
    [
      ['42873', 'open'],
      ['51192', 'open'],
    ],
  );
  assert.equal(vulns()[0]!.firstSeen, '2024-02-09T10:48:42.000Z');

  // Again: nothing new, nothing read, nothing swept.
  const before = (await files('f'))[0]!;
  const s2 = JSON.parse(ok(['--json', 'sync', 'f'])) as { status: string; streams: Record<string, { records: number }> };
  assert.equal(s2.status, 'succeeded');
  assert.equal(s2.streams.vulnerabilities!.records, 0, 're-sync imports nothing twice');
  assert.deepEqual((await files('f'))[0]!.import, before.import);
  assert.deepEqual(
    vulns().map((v) => v.status),
    ['open', 'open'],
  );

  // A later export of the same repository without finding 51192: it is the repository's state, so the
  // incremental run that reads it fixes 51192, and a full run agrees.
  ok(['upload', 'f', write('2024-10-08.csv', csvText(SC_HEADER, [a]))]);
  const s3 = JSON.parse(ok(['--json', 'sync', 'f'])) as { status: string };
  assert.equal(s3.status, 'succeeded');
  assert.deepEqual(
    vulns().map((v) => [v.pluginId, v.status]),
    [
      ['42873', 'open'],
      ['51192', 'fixed'],
    ],
  );
  const s3full = JSON.parse(ok(['--json', 'sync', 'f', '--full'])) as { status: string };
  assert.equal(s3full.status, 'succeeded');
  assert.deepEqual(
    vulns().map((v) => [v.pluginId, v.status]),
    [
      ['42873', 'open'],
      ['51192', 'fixed'],
    ],
  );

  // A file that is not an export: rejected whole, nothing stored. A newer export with a bad row:
  // the good rows import, the bad one is listed with its line, and nothing is swept.
  ok(['upload', 'f', write('notes.csv', 'name,email\nAlice,alice@example.com\n')]);
  const c = scRow({ Plugin: '57582', 'Plugin Name': 'SSL Self-Signed Certificate', 'IP Address': '10.0.0.2' });
  ok(['upload', 'f', write('2024-10-15.csv', csvText(SC_HEADER, [c, scRow({ Severity: 'Severe' })]))]);
  // The run ends partial (exit 1) and names the file and the row it could not use.
  const r4 = runCli([...d, '--json', 'sync', 'f']);
  assert.equal(r4.code, 1, r4.stderr);
  const s4 = JSON.parse(r4.stdout) as { status: string; rejected: { file: string; reason: string }[]; errors: { row: string; field: string | null }[] };
  assert.equal(s4.status, 'partial');
  assert.deepEqual(
    s4.rejected.map((f) => f.file),
    ['notes.csv'],
  );
  assert.deepEqual(
    s4.errors.map((e) => [e.row, e.field]),
    [['2024-10-15.csv line 5', 'Severity']],
  );
  assert.deepEqual(
    vulns().map((v) => [v.pluginId, v.status]),
    [
      ['42873', 'open'],
      ['51192', 'fixed'],
      ['57582', 'open'],
    ],
    'a snapshot with rejected rows sweeps nothing',
  );
  const byKey = Object.fromEntries((await files('f')).map((f) => [f.key, f]));
  assert.equal(byKey['notes.csv']!.status, 'rejected');
  assert.match(byKey['notes.csv']!.import!.error!, /not a Tenable.sc export/);
  assert.equal(byKey['notes.csv']!.import!.rowsImported, 0);
  const partial = byKey['2024-10-15.csv']!.import!;
  assert.equal(partial.status, 'partial');
  assert.deepEqual(partial.rejections, [{ line: 5, reason: "Severity 'Severe' is not one of Info, Low, Medium, High, Critical" }]);
  assert.equal(byKey['2024-10-01.csv']!.status, 'imported', 'an export imported before keeps its record');
  const hosts = ok(['--json', 'query', 'hosts', '--source', 'f'])
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { ipAddresses: string[]; hostname: string });
  assert.deepEqual(hosts.map((h) => h.ipAddresses[0]).sort(), ['10.0.0.1', '10.0.0.2']);

  // An export dated before the latest one of its repository changes nothing; the summary names it.
  ok(['upload', 'f', write('2024-09-30.csv', csvText(SC_HEADER, [b]))]);
  const out = ok(['sync', 'f']);
  assert.match(
    out,
    /skipped 2024-09-30\.csv: older than the export already imported for repository 'Corp' \(2024-10-15\.csv, exported 2024-10-15T00:00:00\.000Z\)/,
  );
  assert.equal(vulns().find((v) => v.pluginId === '51192')!.status, 'fixed');
});

test('ServiceDesk Plus export through upload and sync', () => {
  ok(['sources', 'add', 'servicedesk-plus', '--name', 'sd', '--set', 'inputMode=file']);
  const header = ['Request ID', 'Subject', 'Requester', 'Technician', 'Request Status', 'Priority', 'Created Time', 'DueBy Time', 'Group', 'Site'];
  ok([
    'upload',
    'sd',
    write(
      'export.csv',
      csvText(header, [['4711', 'Printer jam', 'Alice', 'Bob', 'Open', 'Medium', 'Jun 24, 2020 03:05 PM', 'Jun 26, 2020 09:00 AM', 'Facilities', 'HQ']]),
    ),
  ]);
  const s = JSON.parse(ok(['--json', 'sync', 'sd'])) as { status: string; streams: Record<string, { records: number }> };
  assert.equal(s.status, 'succeeded');
  assert.equal(s.streams.tickets!.records, 1);
  const [t] = ok(['--json', 'query', 'tickets', '--source', 'sd'])
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(t!.externalId, '4711');
  assert.equal(t!.subject, 'Printer jam');
  assert.equal(t!.status, 'Open');
  assert.equal(t!.assignee, 'Bob');
  assert.equal(t!.createdAt, '2020-06-24T15:05:00.000Z');
  assert.equal(t!.dueAt, '2020-06-26T09:00:00.000Z');
});
