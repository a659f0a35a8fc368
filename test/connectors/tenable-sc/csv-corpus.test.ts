// The real Tenable.sc CSV exports of the shared corpus (DefectDojo's issue_9612.csv, issue_11102.csv,
// nessus_many_vuln.csv) through the file stream: the values they hold, under either header spelling.
// Read from ../shared/corpus beside the repository; skipped with a message when it is absent.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tenableScConfigSchema } from '../../../src/connectors/tenable-sc/config.ts';
import { tenableScFileStreams } from '../../../src/connectors/tenable-sc/csv/index.ts';
import { tenableScFileKinds, vulndetailsRowOf } from '../../../src/connectors/tenable-sc/csv/kinds.ts';
import { CsvRow, detectKind } from '../../../src/filedrop/csv/columns.ts';
import { readCsv } from '../../../src/filedrop/csv/reader.ts';
import { MemoryBucket, readPages, recordsOf, streamContext } from '../../filedrop/memory-bucket.ts';

const dir = fileURLToPath(new URL('../../../../shared/corpus/tenable-sc/csv/', import.meta.url));
const present = existsSync(`${dir}issue_9612.csv`);
const skip = present ? false : `the shared corpus is not at ${dir}`;
if (!present) console.log(`# skipping the Tenable.sc CSV corpus tests: ${skip}`);

async function importOne(name: string) {
  const bucket = new MemoryBucket();
  bucket.chunk = 1000;
  bucket.put(name, readFileSync(dir + name));
  const stream = tenableScFileStreams(tenableScConfigSchema.parse({ inputMode: 'file' }))[0]!;
  const pages = await readPages(stream, streamContext(bucket));
  return { pages, result: bucket.last(name)!, vulns: recordsOf(pages, 'vulnerabilities'), hosts: recordsOf(pages, 'hosts') };
}

/** The export's rows as the vulndetails rows the mappers get (for columns no model keeps, e.g. the remediation text). */
async function rowsOf(name: string) {
  const kinds = tenableScFileKinds({ includeInformational: false });
  const out: Record<string, unknown>[] = [];
  let index: Map<string, number> | null = null;
  for await (const batch of readCsv(Readable.from([readFileSync(dir + name)]))) {
    for (const r of batch) {
      if (!index) {
        const d = detectKind(r.fields, kinds, 'Tenable.sc');
        assert.ok(d.ok);
        index = d.match.index;
      } else if (r.fields.some((f) => f.trim())) out.push(vulndetailsRowOf(new CsvRow(r.fields, r.line, index)));
    }
  }
  return out;
}

describe('Tenable.sc CSV corpus', { skip }, () => {
  test('issue_9612.csv (Feb 2024, `Solution`): three Critical MS SQL findings on two hosts', async () => {
    const { result, vulns, hosts } = await importOne('issue_9612.csv');
    assert.deepEqual(
      { status: result.status, kind: result.kind, read: result.rowsRead, imported: result.rowsImported, rejected: result.rowsRejected },
      { status: 'imported', kind: 'vulnerability-detail-list', read: 3, imported: 3, rejected: 0 },
    );
    // The two addresses share a MAC and a NetBIOS name, but the console lists them as two hosts (no
    // UUID: its uniqueness is repository, IP, DNS name), so they stay two.
    assert.deepEqual(
      vulns.map((v) => [v.hostKey, v.fields.port, v.fields.pluginId, v.fields.severity]),
      [
        ['addr:Individual Scan|2.3.4.5|', 1433, '73756', 'critical'],
        ['addr:Individual Scan|2.3.4.5|', 5555, '73756', 'critical'],
        ['addr:Individual Scan|1.2.3.4|', 1433, '73756', 'critical'],
      ],
    );
    assert.deepEqual([...new Set(hosts.map((x) => x.key))].sort(), ['addr:Individual Scan|1.2.3.4|', 'addr:Individual Scan|2.3.4.5|']);
    const v = vulns[0]!;
    assert.equal(v.fields.pluginName, 'Microsoft SQL Server Unsupported Version Detection (remote check)');
    assert.equal(v.fields.cvssV2BaseScore, 10);
    assert.equal(v.fields.cvssV3BaseScore, 10);
    assert.equal(v.fields.vprScore, null);
    assert.deepEqual(v.fields.cves, []);
    assert.equal(v.fields.protocol, 'tcp');
    assert.equal(v.firstSeen, '2024-02-05T21:01:08.000Z');
    assert.equal(v.lastSeen, '2024-02-19T21:01:01.000Z');
    const h = hosts.find((x) => x.key === 'addr:Individual Scan|2.3.4.5|')!;
    assert.deepEqual(h.fields.ipAddresses, ['2.3.4.5']);
    assert.deepEqual(h.fields.macAddresses, ['9c:8e:99:1b:8b:dc']);
    assert.equal(h.fields.netbiosName, 'WORKGROUP\\ECODARCHDB');
    assert.equal(h.fields.hostname, 'ecodarchdb');
    assert.equal(h.fields.repository, 'Individual Scan');
    const rows = await rowsOf('issue_9612.csv');
    assert.match(String(rows[0]!.solution), /^Upgrade to a version of Microsoft SQL Server that is currently supported/);
    assert.match(String(rows[0]!.pluginText), /^\nThe following unsupported installation of Microsoft SQL Server was\ndetected :/);
  });

  test('issue_11102.csv (Oct 2024, `Steps to Remediate`): SWEET32 on three host/ports, CVE-2016-2183', async () => {
    const { result, vulns } = await importOne('issue_11102.csv');
    assert.equal(result.status, 'imported');
    assert.equal(result.rowsImported, 3);
    assert.deepEqual(
      vulns.map((v) => `${v.key.split('|')[1]}:${v.fields.port}`),
      ['1.2.3.4:443', '2.3.4.5:443', '1.2.3.4:8443'],
    );
    assert.equal(new Set(vulns.map((v) => v.hostKey)).size, 2, 'one MAC, but two hosts on the console');
    for (const v of vulns) {
      assert.equal(v.fields.pluginId, '42873');
      assert.equal(v.fields.severity, 'high');
      assert.deepEqual(v.fields.cves, ['CVE-2016-2183']);
      assert.equal(v.fields.vprScore, 5.1);
      assert.equal(v.fields.cvssV3BaseScore, 7.5);
      assert.equal(v.firstSeen, '2024-02-09T10:48:42.000Z');
      assert.equal(v.lastSeen, '2024-10-17T17:24:54.000Z');
    }
    const rows = await rowsOf('issue_11102.csv');
    assert.match(String(rows[0]!.solution), /^Reconfigure the affected application if possible to avoid use of medium strength ciphers\.?/);
    assert.match(String(rows[0]!.pluginText), /Medium Strength Ciphers \(> 64-bit and < 112-bit key, or 3DES\)/);
  });

  test('nessus_many_vuln.csv: `Plugin Text`, MST/MDT dates, a mangled BID; 529 comma-only rows skipped as blank', async () => {
    const { result, vulns, hosts } = await importOne('nessus_many_vuln.csv');
    assert.deepEqual(
      { status: result.status, read: result.rowsRead, imported: result.rowsImported, rejected: result.rowsRejected },
      { status: 'imported', read: 4, imported: 4, rejected: 0 },
    );
    assert.deepEqual(
      vulns.map((v) => [v.hostKey?.split('|')[1], v.fields.pluginId, v.fields.severity]),
      [
        ['10.1.1.1', '35291', 'medium'],
        ['10.1.1.1', '51192', 'medium'],
        ['10.2.1.1', '57582', 'medium'],
        ['10.2.1.1', '65821', 'medium'],
      ],
    );
    assert.equal(vulns[0]!.firstSeen, '2021-01-05T17:24:08.000Z', '10:24:08 MST is 17:24:08 UTC');
    assert.deepEqual(vulns[0]!.fields.cves, ['CVE-2004-2761']);
    assert.deepEqual(vulns[3]!.fields.cves, ['CVE-2013-2566', 'CVE-2015-2808']);
    assert.equal(vulns[0]!.fields.vprScore, 4.4);
    assert.equal(vulns[0]!.fields.cvssV2BaseScore, 5);
    assert.deepEqual(hosts.map((h) => h.key).sort(), ['addr:Individual Scan|10.1.1.1|', 'addr:Individual Scan|10.2.1.1|']);
    const rows = await rowsOf('nessus_many_vuln.csv');
    assert.equal(rows.length, 4);
    assert.match(String(rows[0]!.pluginText), /^\nThe following certificates were part of the certificate chain sent by/);
    assert.match(String(rows[0]!.solution), /^Contact the Certificate Authority to have the SSL certificate reissued\.?/);
  });
});
