// Tenable.sc file mode: Vulnerability Detail List and Host Assets exports through the file stream
// (in-memory bucket): header aliases, the inventory carried by plugin output, bad rows and bad files,
// the snapshot rule (per-repository exports) and its sweep decision, and resuming mid-file.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from '../../../src/core/connector.ts';
import { tenableScConfigSchema } from '../../../src/connectors/tenable-sc/config.ts';
import { tenableScFileStreams } from '../../../src/connectors/tenable-sc/csv/index.ts';
import { stripPluginOutputPrefix, tenableScFileKinds, vulndetailsRowOf } from '../../../src/connectors/tenable-sc/csv/kinds.ts';
import { CsvRow, detectKind } from '../../../src/filedrop/csv/columns.ts';
import { originOf } from '../../../src/filedrop/csv/stream.ts';
import { csvText, MemoryBucket, readPages, recordsOf, streamContext } from '../../filedrop/memory-bucket.ts';
import { SC_HEADER, scRow } from './csv-fixtures.ts';

const streamOf = (includeInformational = false) => tenableScFileStreams(tenableScConfigSchema.parse({ inputMode: 'file', includeInformational }))[0]!;

function rowOf(header: string[], cells: string[]) {
  const d = detectKind(header, tenableScFileKinds({ includeInformational: false }), 'Tenable.sc');
  assert.ok(d.ok, JSON.stringify(d));
  return new CsvRow(cells, 2, d.match.index);
}

test('a row maps by header name: SC and other spellings, Plugin Output prefix stripped, dates, N/A', () => {
  const sc = vulndetailsRowOf(rowOf(SC_HEADER, scRow({})));
  assert.equal(sc.pluginID, '42873');
  assert.equal(sc.severity, '2');
  assert.equal(sc.ip, '10.0.0.1');
  assert.equal(sc.solution, 'Reconfigure the service.');
  assert.equal(sc.pluginText, '\n  Medium Strength Ciphers\n');
  assert.equal(sc.firstSeen, String(Date.parse('2024-02-09T10:48:42Z') / 1000));
  assert.deepEqual(sc.repository, { name: 'Corp' });
  // Steps to Remediate (SC 2024+), Plugin Text (older exports), other Tenable products' names, any case.
  const other = ['plugin id', 'NAME', 'risk', 'Host', 'port', 'protocol', 'Plugin Text', 'Steps to Remediate', 'CVSS v3.0 Base Score', 'Last Seen'];
  const r = vulndetailsRowOf(
    rowOf(other, [
      '19506',
      'Nessus Scan Information',
      'None',
      '10.9.9.9',
      '0',
      'tcp',
      'Plugin Text: Credentialed checks : yes',
      'Nothing to do.',
      '9.8',
      '2024-05-01 10:00:00',
    ]),
  );
  assert.equal(r.pluginID, '19506');
  assert.equal(r.severity, '0');
  assert.equal(r.solution, 'Nothing to do.');
  assert.equal(r.pluginText, 'Credentialed checks : yes');
  assert.equal(r.cvssV3BaseScore, '9.8');
  assert.equal(r.lastSeen, String(Date.parse('2024-05-01T10:00:00Z') / 1000));
  assert.equal(stripPluginOutputPrefix('Plugin Output: x'), 'x');
});

test('header detection: required columns named when missing; a host list is not a vulnerability list', () => {
  const kinds = tenableScFileKinds({ includeInformational: false });
  const noSev = detectKind(['Plugin', 'Plugin Name', 'IP Address', 'Port'], kinds, 'Tenable.sc');
  assert.ok(!noSev.ok && /Vulnerability Detail List export but lacks the required column: Severity/.test(noSev.reason), JSON.stringify(noSev));
  const noIp = detectKind(['Plugin', 'Severity', 'Plugin Name', 'DNS Name'], kinds, 'Tenable.sc');
  assert.ok(!noIp.ok && /lacks the required column: IP Address/.test(noIp.reason));
  const hosts = detectKind(['Name', 'IP Address', 'OS', 'Last Seen', 'ACR', 'AES'], kinds, 'Tenable.sc');
  assert.ok(hosts.ok && hosts.match.kind.name === 'host-assets');
  const other = detectKind(['name', 'email', 'phone'], kinds, 'Tenable.sc');
  assert.ok(!other.ok && /not a Tenable.sc export/.test(other.reason));
});

test('inventory from plugin output: software, OS, ports, last user, compliance; Info findings only when asked', async () => {
  const rows = [
    scRow({
      Plugin: '22869',
      'Plugin Name': 'Software Enumeration (SSH)',
      Severity: 'Info',
      Port: '0',
      'Plugin Output':
        'Plugin Output: \nHere is the list of packages installed on the remote CentOS Linux system : \n\n  openssl-1.0.2k-19.el7|(none)\n  bash-4.2.46-34.el7|(none)\n',
    }),
    scRow({
      Plugin: '11936',
      'Plugin Name': 'OS Identification',
      Severity: 'Info',
      Port: '0',
      'Plugin Output': 'Plugin Output: \nRemote operating system : CentOS Linux 7\nConfidence level : 95\nMethod : LinuxDistribution\n',
    }),
    scRow({
      Plugin: '34220',
      'Plugin Name': 'Netstat Portscanner (WMI)',
      Severity: 'Info',
      Port: '3389',
      'Plugin Output': 'Plugin Output: Port 3389/tcp was found to be open',
    }),
    scRow({
      Plugin: '38689',
      'Plugin Name': 'Last Logged On User',
      Severity: 'Info',
      'IP Address': '10.0.0.2',
      'DNS Name': '',
      'Plugin Output': 'Plugin Output: Last Successful logon : CORP\\alice',
    }),
    scRow({
      Plugin: '1000200',
      'Plugin Name': '1.1.1 Ensure mounting of cramfs is disabled',
      Family: 'Policy Compliance',
      Severity: 'High',
      Port: '0',
      'Plugin Output':
        'Plugin Output: <cm:compliance-check-name>1.1.1 Ensure cramfs disabled</cm:compliance-check-name>\n<cm:compliance-result>FAILED</cm:compliance-result>\n<cm:compliance-audit-file>CIS_CentOS_7_L1.audit</cm:compliance-audit-file>',
    }),
    scRow({}),
  ];
  const bucket = new MemoryBucket();
  bucket.put('export.csv', csvText(SC_HEADER, rows));
  const pages = await readPages(streamOf(), streamContext(bucket));
  assert.deepEqual(
    recordsOf(pages, 'software')
      .map((s) => `${s.fields.name} ${s.fields.version}`)
      .sort(),
    ['bash 4.2.46-34.el7', 'openssl 1.0.2k-19.el7'],
  );
  assert.deepEqual(
    recordsOf(pages, 'ports').map((p) => [p.fields.port, p.fields.protocol]),
    [[3389, 'tcp']],
  );
  const compliance = recordsOf(pages, 'compliance');
  assert.equal(compliance.length, 1);
  assert.equal(compliance[0]!.fields.result, 'failed');
  assert.equal(compliance[0]!.fields.benchmark, 'CIS_CentOS_7_L1.audit');
  const hosts = recordsOf(pages, 'hosts');
  const web1 = hosts.find((h) => h.key === 'addr:Corp|10.0.0.1|web1.corp.example')!;
  assert.equal(web1.fields.os, 'CentOS Linux 7');
  assert.equal(web1.fields.hostname, 'web1');
  assert.equal(web1.fields.fqdn, 'web1.corp.example');
  assert.equal(web1.fields.credentialed, true);
  assert.deepEqual(web1.fields.macAddresses, ['00:50:56:aa:bb:cc']);
  assert.equal(web1.fields.scannerLastSeen, '2024-10-17T17:24:54.000Z');
  assert.equal(hosts.find((h) => h.key === 'addr:Corp|10.0.0.2|')!.fields.lastLoggedOnUser, 'CORP\\alice');
  // Info rows are not vulnerabilities by default; the compliance row is not one either.
  assert.deepEqual(
    recordsOf(pages, 'vulnerabilities').map((v) => v.fields.pluginId),
    ['42873'],
  );
  const v = recordsOf(pages, 'vulnerabilities')[0]!;
  assert.equal(v.key, 'addr:Corp|10.0.0.1|web1.corp.example|443|tcp|42873');
  assert.equal(v.hostKey, 'addr:Corp|10.0.0.1|web1.corp.example');
  assert.deepEqual(v.fields.cves, ['CVE-2016-2183']);
  assert.equal(v.fields.severity, 'medium');
  assert.equal(v.fields.vprScore, 5.1);
  assert.equal(v.firstSeen, '2024-02-09T10:48:42.000Z');
  const withInfo = await readPages(streamOf(true), streamContext(Object.assign(new MemoryBucket(), {})));
  assert.equal(withInfo.length, 1, 'an empty bucket: one page, nothing read');
  const b2 = new MemoryBucket();
  b2.put('export.csv', csvText(SC_HEADER, rows));
  assert.equal(recordsOf(await readPages(streamOf(true), streamContext(b2)), 'vulnerabilities').length, 5);
  assert.equal(bucket.last('export.csv')!.rowsImported, 6);
});

test('host facts in file mode: FQDN from 12053 (trailing dot dropped), credentialed from 19506 yes and no', async () => {
  const host = (ip: string, c: Record<string, string>) => scRow({ Severity: 'Info', Port: '0', 'IP Address': ip, 'DNS Name': '', 'NetBIOS Name': '', ...c });
  const bucket = new MemoryBucket();
  bucket.put(
    'facts.csv',
    csvText(SC_HEADER, [
      host('10.0.0.8', { Plugin: '12053', 'Plugin Output': 'Plugin Output: \n10.0.0.8 resolves as App8.Corp.Example.\n' }),
      host('10.0.0.8', { Plugin: '19506', 'Plugin Output': 'Plugin Output: \nNessus version : 10.7.1\nCredentialed checks : no\n' }),
      host('10.0.0.9', { Plugin: '19506', 'Plugin Output': "Plugin Output: \nCredentialed checks : yes, as 'CORP\\svc-scan' via SMB\n" }),
    ]),
  );
  const hosts = recordsOf(await readPages(streamOf(), streamContext(bucket)), 'hosts');
  const h8 = hosts.find((h) => h.key === 'addr:Corp|10.0.0.8|')!;
  assert.equal(h8.fields.fqdn, 'app8.corp.example');
  assert.equal(h8.fields.credentialed, false);
  assert.equal(hosts.find((h) => h.key === 'addr:Corp|10.0.0.9|')!.fields.credentialed, true);
});

test('bad rows are rejected with physical line numbers and reasons, the rest imports; no sweep then', async () => {
  const rows = [
    scRow({ 'Plugin Output': 'Plugin Output: one\ntwo\nthree' }), // lines 2-4
    scRow({ Plugin: '', 'IP Address': '10.0.0.3' }), // lines 5-7 (the default output has 3 lines)
    scRow({ Severity: 'Urgent', 'IP Address': '10.0.0.4' }), // lines 8-10
    scRow({ Port: 'https', 'IP Address': '10.0.0.5' }), // lines 11-13
    scRow({ 'Last Observed': 'last tuesday', 'IP Address': '10.0.0.6' }), // lines 14-16
    scRow({ 'IP Address': '10.0.0.7', 'Plugin Output': 'Plugin Output: a\r\nb' }), // lines 17-18
  ];
  const text = `${csvText(SC_HEADER, rows).trimEnd()}\n"1","x"\n,,,,\n`; // line 19: fewer fields is fine but no IP; line 20 blank
  const bucket = new MemoryBucket();
  bucket.chunk = 97;
  bucket.put('partial.csv', text);
  const pages = await readPages(streamOf(), streamContext(bucket));
  const r = bucket.last('partial.csv')!;
  assert.equal(r.status, 'partial');
  assert.equal(r.kind, 'vulnerability-detail-list');
  assert.equal(r.rowsRead, 7, 'the blank row is not counted');
  assert.equal(r.rowsImported, 2);
  assert.equal(r.rowsRejected, 5);
  assert.deepEqual(r.rejections, [
    { line: 5, reason: 'Plugin is empty' },
    { line: 8, reason: "Severity 'Urgent' is not one of Info, Low, Medium, High, Critical" },
    { line: 11, reason: "Port 'https' is not a port number" },
    { line: 14, reason: "Last Observed 'last tuesday' is not a date this import reads (e.g. Feb 9, 2024 10:48:42 UTC)" },
    { line: 19, reason: 'IP Address is empty' },
  ]);
  assert.deepEqual(
    recordsOf(pages, 'vulnerabilities').map((v) => v.hostKey?.split('|')[1]),
    ['10.0.0.1', '10.0.0.7'],
  );
  assert.deepEqual(pages.at(-1)!.sweep, [], 'a snapshot with rejected rows sweeps nothing');
});

test('files that are not exports are rejected whole with a reason, and nothing of them is read', async () => {
  const bucket = new MemoryBucket();
  bucket.put('contacts.csv', 'name,email,phone\nAlice,a@example.com,123\n');
  bucket.put('report.xlsx', Buffer.from([0x50, 0x4b, 3, 4, 20, 0, 6, 0, 8, 0]));
  bucket.put('empty.csv', '');
  bucket.put('nosev.csv', 'Plugin,IP Address,Plugin Name\n19506,10.0.0.1,x\n');
  const pages = await readPages(streamOf(), streamContext(bucket));
  assert.equal(pages.length, 1);
  assert.deepEqual(pages[0]!.records, {});
  assert.deepEqual(pages[0]!.sweep, []);
  const byKey = Object.fromEntries(bucket.imports.map((i) => [i.key, i]));
  for (const k of ['contacts.csv', 'report.xlsx', 'empty.csv', 'nosev.csv']) {
    assert.equal(byKey[k]!.status, 'rejected', k);
    assert.equal(byKey[k]!.kind, null);
    assert.equal(byKey[k]!.rowsRead, 0);
  }
  assert.match(byKey['contacts.csv']!.error!, /not a Tenable.sc export: the header \("name", "email", "phone"\)/);
  assert.match(byKey['report.xlsx']!.error!, /ZIP archive/);
  assert.match(byKey['empty.csv']!.error!, /empty/);
  assert.match(byKey['nosev.csv']!.error!, /lacks the required column: Severity/);
});

type Swept = { models: string[]; scope: { origins: string[]; hostField?: { name: string; values: string[] } } };
/** The scope a page says the run sweeps for one kind of export (by a model it sweeps), or null when it sweeps none of it. */
function sweptScope(p: Page | undefined, model = 'vulnerabilities'): Swept | null {
  const s = p?.sweep;
  if (!Array.isArray(s)) return null;
  return (s as unknown[] as Swept[]).find((x) => typeof x === 'object' && x.models.includes(model)) ?? null;
}

test('snapshot rule: per-repository exports; files of one run are one snapshot; every run sweeps the scopes it read', async () => {
  const bucket = new MemoryBucket();
  const stream = streamOf();
  const b = (repo: string, plugin: string, ip = '10.0.0.1') => scRow({ Repository: repo, Plugin: plugin, 'IP Address': ip });
  // Run 1 (the first run is full): one export per repository, uploaded together.
  bucket.run = 'r1';
  bucket.put('week1-corp.csv', csvText(SC_HEADER, [b('Corp', '42873'), b('Corp', '51192')]));
  bucket.put('week1-lab.csv', csvText(SC_HEADER, [b('Lab', '57582', '10.9.0.1')]));
  const p1 = await readPages(stream, streamContext(bucket));
  assert.deepEqual(
    recordsOf(p1, 'vulnerabilities').map((v) => v.fields.pluginId),
    ['42873', '51192', '57582'],
    'both exports are read (neither supersedes the other)',
  );
  assert.deepEqual(
    bucket.imports.map((i) => [i.key, i.status]),
    [
      ['week1-corp.csv', 'imported'],
      ['week1-lab.csv', 'imported'],
    ],
  );
  const s1 = sweptScope(p1.at(-1));
  assert.deepEqual(s1?.scope.hostField, { name: 'repository', values: ['Corp', 'Lab'] });
  assert.equal(s1?.scope.origins.length, 0, 'files whose rows all name a repository are in its scope, not their file name');
  assert.ok(
    recordsOf(p1, 'vulnerabilities').every((v) => typeof v.origin === 'string' && v.origin.length === 12),
    'findings carry their file',
  );
  // Run 2, incremental: a newer Corp export without 51192 is read, and Corp alone is swept.
  bucket.run = 'r2';
  bucket.put('week2-corp.csv', csvText(SC_HEADER, [b('Corp', '42873')]));
  const p2 = await readPages(stream, streamContext(bucket, { mode: 'incremental' }));
  assert.deepEqual(
    recordsOf(p2, 'vulnerabilities').map((v) => v.fields.pluginId),
    ['42873'],
  );
  assert.deepEqual(sweptScope(p2.at(-1)), {
    models: ['hosts', 'software', 'ports', 'vulnerabilities', 'compliance'],
    scope: { origins: [], originKeys: [], hostField: { name: 'repository', values: ['Corp'] } },
  });
  assert.deepEqual(bucket.last('week2-corp.csv')?.scope, { repositories: ['Corp'], fileName: false });
  // An export dated before week 2's (by its file name) comes later: older for Corp, it is skipped whole.
  bucket.run = 'r2b';
  bucket.put('corp-2025-12-01.csv', csvText(SC_HEADER, [b('Corp', '51192')]));
  const p2b = await readPages(stream, streamContext(bucket, { mode: 'incremental' }));
  assert.equal(recordsOf(p2b, 'vulnerabilities').length, 0);
  assert.deepEqual(p2b.at(-1)!.sweep, [], 'an older export sweeps nothing');
  const skipped = bucket.last('corp-2025-12-01.csv')!;
  assert.equal(skipped.status, 'skipped');
  assert.match(skipped.error!, /older than the export already imported for repository 'Corp' \(week2-corp\.csv, exported 2026-.*\): it changed nothing/);
  // Nothing new: nothing read, nothing recorded, no sweep.
  const before = bucket.imports.length;
  const p3 = await readPages(stream, streamContext(bucket, { mode: 'incremental' }));
  assert.equal(p3.length, 1);
  assert.deepEqual(p3[0]!.sweep, []);
  assert.equal(bucket.imports.length, before);
  // A full run re-reads every file, oldest snapshot first, but not week 1's Corp export (week 2 covers
  // all it names); its Lab export still counts, and the sweep covers both repositories.
  bucket.reimport = true;
  const n4 = bucket.imports.length;
  const p4 = await readPages(stream, streamContext(bucket));
  assert.deepEqual(
    recordsOf(p4, 'vulnerabilities').map((v) => `${v.fields.pluginId}@${v.hostKey?.split('|')[0]}`),
    ['57582@addr:Lab', '42873@addr:Corp'],
  );
  assert.deepEqual(
    bucket.imports.slice(n4).map((i) => i.key),
    ['week1-lab.csv', 'week2-corp.csv'],
  );
  const s4 = sweptScope(p4.at(-1));
  assert.deepEqual(new Set(s4?.scope.hostField?.values), new Set(['Corp', 'Lab']));
  assert.equal(s4?.scope.origins.length, 0);
  // An older export with rows in a covered and an uncovered repository is read, its covered rows skipped.
  const mixed = new MemoryBucket();
  mixed.run = 'm1';
  mixed.put('all-week1.csv', csvText(SC_HEADER, [b('Corp', '42873'), b('Corp', '51192'), b('Lab', '57582', '10.9.0.1')]));
  await readPages(stream, streamContext(mixed));
  mixed.run = 'm2';
  mixed.put('corp-week2.csv', csvText(SC_HEADER, [b('Corp', '42873')]));
  await readPages(stream, streamContext(mixed, { mode: 'incremental' }));
  mixed.reimport = true;
  const pm = await readPages(stream, streamContext(mixed));
  assert.deepEqual(
    recordsOf(pm, 'vulnerabilities').map((v) => v.fields.pluginId),
    ['57582', '42873'],
    "the older file's Corp rows are skipped",
  );
  // Files uploaded together in one run are one snapshot: two Corp files of one run both count.
  const together = new MemoryBucket();
  together.put('corp-critical.csv', csvText(SC_HEADER, [b('Corp', '42873')]));
  together.put('corp-high.csv', csvText(SC_HEADER, [b('Corp', '51192')]));
  const p5 = await readPages(stream, streamContext(together));
  assert.deepEqual(
    recordsOf(p5, 'vulnerabilities').map((v) => v.fields.pluginId),
    ['42873', '51192'],
  );
  together.reimport = true;
  const p6 = await readPages(stream, streamContext(together));
  assert.deepEqual(
    recordsOf(p6, 'vulnerabilities').map((v) => v.fields.pluginId),
    ['42873', '51192'],
    'still one snapshot when re-read',
  );
  // A full run over an empty bucket (files deleted after import) sweeps nothing.
  bucket.files.clear();
  const p7 = await readPages(stream, streamContext(bucket));
  assert.deepEqual(p7.at(-1)!.sweep, []);
});

test('Host Assets export: enriches the hosts a vulnerability export named (same key), adds the others; read with the snapshot', async () => {
  const bucket = new MemoryBucket();
  bucket.put('vulns.csv', csvText(SC_HEADER, [scRow({})]));
  bucket.put(
    'hosts.csv',
    csvText(
      ['Name', 'IP Address', 'OS', 'MAC Address', 'UUID', 'Last Seen', 'ACR'],
      [
        ['web1.corp.example', '10.0.0.1', 'Linux Kernel 3.10', '00:50:56:AA:BB:CC', '', 'Oct 20, 2024 08:00:00 UTC', '7'],
        ['db9', '10.0.0.9', 'Windows Server 2019', '', '4ADD65D0-27FC-491C-91BA-3F498A61F49E', 'N/A', ''],
        ['', '', 'x', '', '', '', ''],
      ],
    ),
  );
  const pages = await readPages(streamOf(), streamContext(bucket));
  const hosts = recordsOf(pages, 'hosts');
  const web1 = hosts.filter((h) => h.key === 'addr:Corp|10.0.0.1|web1.corp.example');
  assert.equal(web1.length, 2, 'one from each export, same key');
  assert.equal(web1[1]!.fields.os, 'Linux Kernel 3.10');
  assert.equal(web1[1]!.fields.scannerLastSeen, '2024-10-20T08:00:00.000Z');
  const db9 = hosts.find((h) => h.key === 'uuid:4add65d0-27fc-491c-91ba-3f498a61f49e')!;
  assert.equal(db9.externalId, '4add65d0-27fc-491c-91ba-3f498a61f49e');
  assert.equal(db9.fields.hostname, 'db9');
  const r = bucket.last('hosts.csv')!;
  assert.equal(r.kind, 'host-assets');
  assert.deepEqual(r.rejections, [{ line: 4, reason: 'IP Address is empty (a host needs an address or a UUID)' }]);
  assert.deepEqual(sweptScope(pages.at(-1))?.scope.hostField?.values, ['Corp'], 'the clean vulnerability export sweeps its scope');
  assert.equal((pages.at(-1)!.sweep as unknown[]).length, 1, 'the host list with a rejected row sweeps nothing');
  // A new host list alone: the vulnerability export is read again for its host index only (nothing of
  // it is stored), so the list's rows still land on the exported hosts.
  bucket.put('hosts2.csv', csvText(['Name', 'IP Address', 'OS'], [['web1.corp.example', '10.0.0.1', 'Linux']]));
  const again = await readPages(streamOf(), streamContext(bucket, { mode: 'incremental' }));
  assert.equal(recordsOf(again, 'vulnerabilities').length, 0);
  assert.deepEqual(
    recordsOf(again, 'hosts').map((h) => [h.key, h.fields.os]),
    [['addr:Corp|10.0.0.1|web1.corp.example', 'Linux']],
  );
  // A clean host list without a repository column is the state of its file name's hosts.
  assert.deepEqual(again.at(-1)!.sweep, [{ models: ['hosts'], scope: { origins: [originOf('hosts2.csv')], originKeys: ['hosts2.csv'] } }]);
});

test('resumed at a Host Assets file, its rows still find the hosts the vulnerability export named', async () => {
  const bucket = new MemoryBucket();
  // The vulnerability export names web1 in repository Corp; the host list has no repository column.
  bucket.put('vulns.csv', csvText(SC_HEADER, [scRow({}), scRow({ Plugin: '19506', 'IP Address': '10.0.0.5', 'DNS Name': 'app5.corp.example' })]));
  bucket.put(
    'hosts.csv',
    csvText(
      ['Name', 'IP Address', 'OS'],
      [
        ['web1.corp.example', '10.0.0.1', 'Linux Kernel 3.10'],
        ['app5.corp.example', '10.0.0.5', 'Linux'],
      ],
    ),
  );
  const { fileImportStream } = await import('../../../src/filedrop/csv/stream.ts');
  const stream = fileImportStream({
    name: 'scan',
    models: ['hosts', 'software', 'ports', 'vulnerabilities', 'compliance'],
    kinds: tenableScFileKinds({ includeInformational: false }),
    what: 'Tenable.sc',
    pageRows: 1,
  });
  const whole = await readPages(stream, streamContext(bucket));
  const wholeKeys = new Set(recordsOf(whole, 'hosts').map((h) => h.key));
  assert.ok(wholeKeys.has('addr:Corp|10.0.0.1|web1.corp.example'));
  // Interrupted after the vulnerability export's second row and again after the first host row.
  const at = (file: number, records: number) =>
    whole.find((p) => {
      const cp = p.checkpoint as { at: { file: number; records: number } };
      return cp.at.file === file && cp.at.records === records;
    })!.checkpoint;
  for (const cp of [at(0, 1), at(1, 1)]) {
    const resumed = await readPages(stream, streamContext(bucket, { resumed: true, checkpoint: cp }));
    const keys = recordsOf(resumed, 'hosts').map((h) => h.key);
    assert.deepEqual(
      keys.filter((k) => !wholeKeys.has(k)),
      [],
      `no host the whole read did not have (${JSON.stringify(cp)})`,
    );
    assert.ok(keys.includes('addr:Corp|10.0.0.5|app5.corp.example'), 'the host list row enriched the exported host');
  }
});

test('a crash mid-file resumes after the last stored page: every row once, same counts', async () => {
  const rows = Array.from({ length: 45 }, (_, i) => scRow({ 'IP Address': `10.1.0.${i}`, 'Plugin Output': `Plugin Output: row ${i}\nsecond line` }));
  const bucket = new MemoryBucket();
  bucket.chunk = 301;
  bucket.put('big.csv', csvText(SC_HEADER, rows));
  const stream = tenableScFileStreams(tenableScConfigSchema.parse({ inputMode: 'file' }))[0]!;
  // Small pages through the stream options: rebuild with pageRows via the generic stream.
  const { fileImportStream } = await import('../../../src/filedrop/csv/stream.ts');
  const small = fileImportStream({
    name: stream.name,
    models: stream.models,
    kinds: tenableScFileKinds({ includeInformational: false }),
    what: 'Tenable.sc',
    pageRows: 10,
  });
  const first = await readPages(small, streamContext(bucket), 2);
  assert.equal(recordsOf(first, 'vulnerabilities').length, 20);
  const rest = await readPages(small, streamContext(bucket, { resumed: true, checkpoint: (first.at(-1) as Page).checkpoint }));
  const all = [...recordsOf(first, 'vulnerabilities'), ...recordsOf(rest, 'vulnerabilities')].map((v) => v.hostKey);
  assert.equal(all.length, 45);
  assert.equal(new Set(all).size, 45, 'no row twice, none lost');
  const r = bucket.last('big.csv')!;
  assert.equal(r.rowsRead, 45);
  assert.equal(r.rowsImported, 45);
  assert.ok(sweptScope(rest.at(-1))?.models.includes('vulnerabilities'));
});
