// The plugin catalog and a finding's detail: from a vulndetails row (fixture and recorded rows), a
// `/rest/plugin` object (Elastic's recorded plugin stream) and the real CSV exports of the corpus;
// the proof cap on a character boundary. Corpus files are read from ../shared/corpus (skipped when absent).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { tenableScConfigSchema } from '../../../src/connectors/tenable-sc/config.ts';
import { tenableScFileStreams } from '../../../src/connectors/tenable-sc/csv/index.ts';
import { capUtf8, findingDetail, mapPlugin, vprDrivers } from '../../../src/connectors/tenable-sc/map/plugins.ts';
import { mapVulnerability } from '../../../src/connectors/tenable-sc/map/vulndetails.ts';
import { csvText, MemoryBucket, readPages, recordsOf, streamContext } from '../../filedrop/memory-bucket.ts';
import { SC_HEADER, scRow } from './csv-fixtures.ts';
import { corpusDir, corpusPresent, SKIP } from './corpus.ts';
import { vulnRow } from './fixtures/rows.ts';

test('a vulndetails row → its plugin record', () => {
  const p = mapPlugin(
    vulnRow({
      description: 'The remote host runs a vulnerable Log4j.',
      solution: 'Upgrade to Apache Log4j version 2.16.0 or later.',
      seeAlso: 'https://logging.apache.org/log4j/2.x/security.html\nhttps://www.cve.org/CVERecord?id=CVE-2021-44228',
      exploitFrameworks: 'Metasploit, Core Impact',
      pluginPubDate: '1639094400',
      pluginModDate: '1700000000',
      cvssVector: 'AV:N/AC:L/Au:N/C:C/I:C/A:C',
      vprContext:
        '[{"id":"exploit_code_maturity","name":"Exploit Code Maturity","type":"string","value":"High"},{"id":"threat_sources_last_28","name":"Threat Sources (Last 28 Days)","type":"string","value":"Social Media"}]',
    }),
  );
  assert.ok(p);
  assert.equal(p.key, '156032');
  assert.equal(p.hostKey, undefined, 'a plugin belongs to no host');
  assert.deepEqual(p.fields, {
    pluginId: '156032',
    name: 'Apache Log4j < 2.15.0 Remote Code Execution',
    family: 'Misc.',
    synopsis: 'A logging library is affected.',
    description: 'The remote host runs a vulnerable Log4j.',
    solution: 'Upgrade to Apache Log4j version 2.16.0 or later.',
    seeAlso: ['https://logging.apache.org/log4j/2.x/security.html', 'https://www.cve.org/CVERecord?id=CVE-2021-44228'],
    riskFactor: 'Critical',
    cvssV2BaseScore: 10,
    cvssV2Vector: 'AV:N/AC:L/Au:N/C:C/I:C/A:C',
    cvssV3BaseScore: 10,
    cvssV3Vector: 'AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H',
    cvssV4BaseScore: null,
    cvssV4Vector: null,
    vprScore: 9.9,
    vprDrivers: [
      { id: 'exploit_code_maturity', name: 'Exploit Code Maturity', value: 'High' },
      { id: 'threat_sources_last_28', name: 'Threat Sources (Last 28 Days)', value: 'Social Media' },
    ],
    epssScore: 0.97,
    exploitAvailable: true,
    exploitFrameworks: ['Metasploit', 'Core Impact'],
    cves: ['CVE-2021-44228', 'CVE-2021-45046'],
    xrefs: ['IAVA #2021-A-0573', 'CISA-KNOWN-EXPLOITED #2021/12/24'],
    pluginPublished: '2021-12-10T00:00:00.000Z',
    pluginModified: '2023-11-14T22:13:20.000Z',
    vulnPublished: '2021-12-07T00:00:00.000Z',
    patchPublished: null,
    checkType: 'remote',
  });
  assert.equal(mapPlugin(vulnRow({ pluginID: '' })), null);
  assert.equal(mapPlugin(vulnRow({ checkType: '' }))?.fields.checkType, null, 'no check type is null, never ""');
  assert.equal(vprDrivers('[]'), null);
  assert.equal(vprDrivers('not json'), null);
});

test('a finding carries its plugin’s family, exploit flag and the proof, capped (synopsis and solution are the plugin’s)', () => {
  const text = `<plugin_output>\n${'é'.repeat(20)}\n</plugin_output>`;
  const d = findingDetail(vulnRow({ pluginText: text, solution: 'Patch it.', exploitAvailable: 'No' }), { proofMaxBytes: 11 });
  assert.deepEqual(d, { pluginFamily: 'Misc.', proof: 'ééééé', proofTruncated: true, exploitAvailable: false });
  const whole = findingDetail(vulnRow({ pluginText: text }));
  assert.equal(whole.proof, 'é'.repeat(20));
  assert.equal(whole.proofTruncated, false);
  const none = findingDetail(vulnRow({ pluginText: '', family: undefined, synopsis: '', exploitAvailable: '' }));
  assert.deepEqual(none, { pluginFamily: null, proof: null, proofTruncated: false, exploitAvailable: null });
  // The default cap: 16 KB.
  const big = mapVulnerability(vulnRow({ pluginText: `<plugin_output>${'x'.repeat(20_000)}</plugin_output>` }), 'cumulative');
  assert.equal(String(big?.fields.proof).length, 16 * 1024);
  assert.equal(big?.fields.proofTruncated, true);
  assert.deepEqual(capUtf8('a€b', 3), { text: 'a', truncated: true }, 'never half a character');
  assert.deepEqual(capUtf8('abc', 0), { text: '', truncated: true });
  assert.equal(tenableScConfigSchema.parse({ inputMode: 'file' }).proofMaxBytes, 16 * 1024);
  assert.equal(tenableScConfigSchema.parse({ inputMode: 'file', proofMaxBytes: '4096' }).proofMaxBytes, 4096);
  assert.equal(tenableScConfigSchema.safeParse({ inputMode: 'file', proofMaxBytes: '-1' }).success, false);
});

test('an export that writes a finding as one row per CVE gives its plugin every CVE', async () => {
  const bucket = new MemoryBucket();
  bucket.put(
    'export.csv',
    csvText(SC_HEADER, [scRow({ CVE: 'CVE-2016-2183' }), scRow({ CVE: 'CVE-2016-6329' }), scRow({ 'IP Address': '10.0.0.2', CVE: 'CVE-2016-2183' })]),
  );
  const pages = await readPages(tenableScFileStreams(tenableScConfigSchema.parse({ inputMode: 'file' }))[0]!, streamContext(bucket));
  const plugins = recordsOf(pages, 'plugins');
  assert.equal(plugins.length, 1);
  assert.deepEqual([...(plugins[0]!.fields.cves as string[])].sort(), ['CVE-2016-2183', 'CVE-2016-6329']);
});

describe('plugin detail from the recorded corpus', { skip: corpusPresent ? false : SKIP }, () => {
  test('/rest/plugin objects (Elastic’s plugin stream): id, name, xrefs with CVEs, "false" exploit flag', () => {
    const lines = readFileSync(`${corpusDir}elastic/test-plugin.log`, 'utf8').split('\n').filter(Boolean);
    assert.ok(lines.length > 0);
    const p = mapPlugin(JSON.parse(lines[0]!));
    assert.ok(p);
    assert.equal(p.fields.pluginId, '137395');
    assert.equal(p.fields.name, 'RHEL 7 : gettext (RHSA-2020:2485)');
    assert.equal(p.fields.family, 'Red Hat Local Security Checks');
    assert.equal(p.fields.exploitAvailable, false);
    assert.deepEqual(p.fields.cves, ['CVE-2018-18751']);
    assert.deepEqual(p.fields.xrefs, ['CVE:CVE-2018-18751', 'CWE:416', 'RHSA:2020:2485']);
    assert.equal((p.fields.seeAlso as string[]).length, 4);
    assert.equal(p.fields.cvssV3BaseScore, 9.8);
    assert.equal(p.fields.pluginPublished, '2020-06-12T12:00:00.000Z');
    assert.equal(p.fields.patchPublished, '2020-06-12T12:00:00.000Z');
    assert.equal(p.fields.vprDrivers, null);
    for (const l of lines) assert.ok(mapPlugin(JSON.parse(l)), l.slice(0, 80));
  });

  test('recorded vulndetails rows: proof without the <plugin_output> wrapper, unescaped', () => {
    const rows = readFileSync(`${corpusDir}elastic/test-vulnerability.log`, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const v = mapVulnerability(rows[0]!, 'cumulative');
    assert.equal(v?.fields.proof, 'The remote web server type is :\n\nopenresty/1.17.8.2');
    assert.equal(v?.fields.pluginFamily, 'Web Servers');
    const p = mapPlugin(rows[0]!);
    assert.equal(p?.fields.synopsis, 'A web server is running on the remote host.');
    assert.equal(p?.fields.solution, null, 'an empty solution is null, never ""');
    assert.equal(v?.fields.exploitAvailable, false);
    for (const r of rows) assert.ok(mapPlugin(r));
    assert.deepEqual([...new Set(rows.map((r) => mapPlugin(r)?.fields.checkType))].sort(), ['local', 'remote'], 'the check type as recorded');
  });

  test('real CSV exports: one plugin record per plugin, with the text columns, and finding detail', async () => {
    const bucket = new MemoryBucket();
    bucket.put('issue_9612.csv', readFileSync(`${corpusDir}csv/issue_9612.csv`));
    const stream = tenableScFileStreams(tenableScConfigSchema.parse({ inputMode: 'file' }))[0]!;
    const pages = await readPages(stream, streamContext(bucket));
    const plugins = recordsOf(pages, 'plugins');
    const vulns = recordsOf(pages, 'vulnerabilities');
    assert.equal(vulns.length, 3);
    assert.deepEqual(
      plugins.map((p) => p.key),
      ['73756'],
      'three findings of one plugin: one plugin record',
    );
    const p = plugins[0]!.fields;
    assert.equal(p.family, 'Databases');
    assert.match(p.description as string, /^According to its self-reported version number/);
    assert.equal(p.solution, 'Upgrade to a version of Microsoft SQL Server that is currently supported.');
    assert.deepEqual(p.seeAlso, ['http://www.nessus.org/u?d4418a57']);
    assert.equal(p.cvssV2Vector, 'AV:N/AC:L/Au:N/C:C/I:C/A:C');
    assert.equal(p.pluginPublished, '2014-04-29T12:00:00.000Z');
    assert.equal(p.vulnPublished, null, '"N/A" is no date and rejects nothing');
    assert.deepEqual(p.xrefs, ['IAVA #0001-A-0560']);
    assert.equal(p.checkType, 'remote', 'the "Check Type" column');
    const f = vulns[0]!.fields;
    assert.equal(f.pluginFamily, 'Databases');
    assert.match(f.proof as string, /^The following unsupported installation of Microsoft SQL Server/);
    assert.equal(f.exploitAvailable, false);
    const sweep = pages.at(-1)!.sweep as { models: string[] }[];
    assert.ok(
      sweep.some((s) => s.models.includes('vulnerabilities')) && !sweep.some((s) => s.models.includes('plugins')),
      'a file snapshot sweeps findings, never the plugin catalog',
    );
  });

  test('the other exports (Steps to Remediate, Plugin Text) give plugin records too', async () => {
    for (const name of ['issue_11102.csv', 'nessus_many_vuln.csv']) {
      if (!existsSync(`${corpusDir}csv/${name}`)) continue;
      const bucket = new MemoryBucket();
      bucket.put(name, readFileSync(`${corpusDir}csv/${name}`));
      const pages = await readPages(
        tenableScFileStreams(tenableScConfigSchema.parse({ inputMode: 'file', includeInformational: true }))[0]!,
        streamContext(bucket),
      );
      const plugins = recordsOf(pages, 'plugins');
      const vulns = recordsOf(pages, 'vulnerabilities');
      assert.ok(plugins.length > 0, name);
      assert.equal(new Set(vulns.map((v) => v.fields.pluginId)).size, plugins.length, `${name}: one plugin record per plugin of its findings`);
      assert.ok(
        plugins.every((p) => p.fields.name !== null),
        name,
      );
      assert.ok(
        plugins.some((p) => p.fields.solution !== null),
        `${name}: solution read`,
      );
    }
  });
});
