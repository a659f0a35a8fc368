// Every recorded Tenable.sc response in the shared corpus maps into our models with the values it holds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readUser, versionCheck } from '../../../src/connectors/tenable-sc/check.ts';
import { envelopeError, readAnalysisResponse, readEnvelope } from '../../../src/connectors/tenable-sc/map/envelope.ts';
import { HostResolver } from '../../../src/connectors/tenable-sc/map/host-resolver.ts';
import { hostsApiHost, mapHostsApiRow } from '../../../src/connectors/tenable-sc/map/hosts-api.ts';
import { hostKey, missingFindingIdentity, missingHostIdentity, rowHostKey } from '../../../src/connectors/tenable-sc/map/identity.ts';
import { parseUnixSoftware } from '../../../src/connectors/tenable-sc/map/plugin-output/software.ts';
import { mapSumipRow } from '../../../src/connectors/tenable-sc/map/sumip.ts';
import { num, text } from '../../../src/connectors/tenable-sc/map/values.ts';
import { mapVulndetailsRow, mapVulnerability } from '../../../src/connectors/tenable-sc/map/vulndetails.ts';
import { corpusPresent, readCassette, readElasticMock, readNdjson, SKIP } from './corpus.ts';

function envelopeOf(status: number, body: string) {
  const r = readEnvelope(status, body);
  assert.ok(r.ok, `expected a good envelope: ${body.slice(0, 120)}`);
  return r.envelope;
}

function analysisPages(name: string) {
  return readCassette(name).map((i) => readAnalysisResponse(envelopeOf(i.status, i.body).response));
}

test('pyTenable vulndetails (SC 5.8): 2 pages of 5 findings', (t) => {
  if (!corpusPresent) return t.skip(SKIP);
  const pages = analysisPages('test_analysis_vulns_vulndetails_tool.yaml');
  assert.deepEqual(
    pages.map((p) => [p.total, p.rows.length]),
    [
      [1629, 5],
      [1629, 5],
    ],
  );
  const rows = pages.flatMap((p) => p.rows);
  const vulns = rows.map((r) => mapVulndetailsRow(r, { includeInformational: true }).vulnerabilities?.[0]);
  assert.equal(vulns.filter(Boolean).length, 10);
  const first = vulns[0]!;
  assert.equal(first.key, 'addr:1|192.168.100.1|pfsense.home.cugnet.net|80|tcp|10107');
  assert.equal(first.hostKey, 'addr:1|192.168.100.1|pfsense.home.cugnet.net');
  assert.equal(first.firstSeen, '2018-12-17T19:16:22.000Z');
  assert.equal(first.externalId, null);
  assert.deepEqual(first.fields, {
    pluginId: '10107',
    pluginName: 'HTTP Server Type and Version',
    severity: 'info',
    cves: [],
    cvssV2BaseScore: null,
    cvssV3BaseScore: null,
    // The recorded console sent no vectors for this plugin (informational).
    cvssV2Vector: null,
    cvssV3Vector: null,
    scannerEpssScore: null,
    vprScore: null,
    scannerKnownExploited: false,
    status: 'open',
    port: 80,
    protocol: 'tcp',
    acceptedRisk: false,
    recastRisk: false,
    ...{ pluginFamily: 'Web Servers', proof: 'The remote web server type is :\n\nnginx', proofTruncated: false, exploitAvailable: false },
  });
  const icmp = vulns.find((v) => v?.fields.pluginId === '10114')!;
  assert.deepEqual(icmp.fields.cves, ['CVE-1999-0524']);
  assert.equal(icmp.fields.protocol, 'icmp');
  assert.equal(icmp.fields.port, 0);
  // Every one is Info: without includeInformational none become vulnerabilities.
  assert.equal(rows.filter((r) => mapVulndetailsRow(r).vulnerabilities).length, 0);
  // DNS (11002) on tcp and udp are two findings.
  const dns = vulns.filter((v) => v?.fields.pluginId === '11002').map((v) => v!.key);
  assert.equal(new Set(dns).size, 2);
});

test('pyTenable sumip (SC 5.8): hosts with and without agent UUIDs', (t) => {
  if (!corpusPresent) return t.skip(SKIP);
  const pages = analysisPages('test_analysis_vulns_sumip_tool.yaml');
  assert.equal(pages[0]!.total, 33);
  const hosts = pages.flatMap((p) => p.rows).map((r) => mapSumipRow(r));
  assert.equal(hosts.length, 10);
  assert.equal(hosts[0]!.key, 'addr:1|192.168.100.1|pfsense.home.cugnet.net');
  assert.deepEqual(hosts[0]!.fields, {
    ipAddresses: ['192.168.100.1'],
    hostname: 'pfsense',
    fqdn: 'pfsense.home.cugnet.net',
    netbiosName: null,
    repository: 'Default',
    credentialed: false,
    scannerLastSeen: '2018-12-17T18:29:30.000Z',
    os: 'Freebsd 11.1',
  });
  const agent = hosts.find((h) => h.fields.ipAddresses && (h.fields.ipAddresses as string[])[0] === '192.168.100.114')!;
  assert.equal(agent.key, 'uuid:c2d9e0b8-d88e-46ed-b7f4-86062e3ab42b');
  assert.equal(agent.externalId, 'c2d9e0b8-d88e-46ed-b7f4-86062e3ab42b');
  assert.equal(agent.fields.credentialed, true);
  assert.equal(agent.fields.repository, 'Agents');
  assert.equal(agent.fields.hostname, 'freelancer');
  assert.equal(agent.fields.fqdn, null);
  assert.deepEqual(agent.fields.macAddresses, ['62:45:b4:ed:2f:1c']);
  assert.equal(agent.fields.os, 'Microsoft Windows 10');
  const noDns = hosts.find((h) => (h.fields.ipAddresses as string[])[0] === '192.168.101.1')!;
  assert.equal(noDns.key, 'addr:1|192.168.101.1|');
  assert.equal(noDns.fields.hostname, null);
  assert.equal(new Set(hosts.map((h) => h.key)).size, 10);
});

test('pyTenable other analysis tools: listvuln, listsoftware, per-plugin host lists, summaries', (t) => {
  if (!corpusPresent) return t.skip(SKIP);
  const listvuln = analysisPages('test_analysis_vulns_listvuln_tool.yaml').flatMap((p) => p.rows);
  const v = mapVulnerability(listvuln[0]!, 'cumulative')!;
  assert.equal(v.key, 'addr:1|192.168.100.1|pfsense.home.cugnet.net|80|tcp|10107');
  assert.equal(v.fields.pluginName, null, 'listvuln rows carry `name`, not pluginName');
  assert.equal(v.firstSeen, null);

  const sw = analysisPages('test_analysis_vulns_listsoftware_tool.yaml');
  assert.equal(sw[0]!.total, 1286);
  assert.deepEqual(parseUnixSoftware(`  ${text(sw[0]!.rows[0]!.name)}`), [{ name: 'aic94xx-firmware', version: '30-6.el7' }]);

  for (const f of ['test_analysis_vulns_vulnipdetail_tool.yaml', 'test_analysis_vulns_cveipdetail_tool.yaml']) {
    const rows = analysisPages(f).flatMap((p) => p.rows);
    const keys = rows.flatMap((r) =>
      (r.hosts as { repositoryID?: string; repository?: { id: string }; iplist: Record<string, unknown>[] }[]).flatMap((h) =>
        h.iplist.map((ip) => hostKey({ uuid: ip.uuid, repositoryId: h.repository?.id ?? h.repositoryID ?? r.repositoryID, ip: ip.ip, dnsName: ip.dnsName })),
      ),
    );
    assert.ok(keys.length > 0, f);
    if (f.includes('vulnipdetail')) assert.equal(keys[0], 'addr:1|192.168.101.30|diskstation.home.cugnet.net');
    else assert.equal(keys[0], 'addr:1|192.168.100.1|pfsense.home.cugnet.net');
  }
  const summary = analysisPages('test_analysis_vulns_vulnipsummary_tool.yaml')[0]!;
  assert.equal(summary.total, 358);
  const sumid = analysisPages('test_analysis_vulns_sumid_tool.yaml')[0]!;
  assert.equal(text(sumid.rows[0]!.pluginID), '10092');
  const sev = analysisPages('test_analysis_vulns_sumseverity_tool.yaml')[0]!;
  assert.deepEqual(sev.rows.map((r) => num(r.count)).slice(0, 1), [19]);
  // iplist answers a dict with "results": null, not rows.
  const iplist = envelopeOf(200, readCassette('test_analysis_vulns_iplist_tool.yaml')[0]!.body);
  assert.equal(readAnalysisResponse(iplist.response).rows.length, 0);
});

test('pyTenable system, login and error cassettes', (t) => {
  if (!corpusPresent) return t.skip(SKIP);
  const sys = envelopeOf(200, readCassette('test_system_details.yaml')[0]!.body).response as Record<string, unknown>;
  assert.equal(sys.version, '5.8.0');
  const v = versionCheck(text(sys.version));
  assert.equal(v.ok, false);
  assert.match(v.message, /5\.8\.0 does not support API keys/);
  assert.match(v.hint ?? '', /File Import/);
  const login = readCassette('sc_login.yaml');
  const v64 = (envelopeOf(200, login[0]!.body).response as { version: string }).version;
  assert.equal(v64, '6.4.0');
  assert.match(versionCheck(v64).message, /host last-seen dates from \/rest\/hosts are available/);
  assert.equal((envelopeOf(200, login[1]!.body).response as { token: string }).token, '0000000000');
  // A console that hides its version (hand-made cassette): not a failure.
  const hidden = envelopeOf(200, readCassette('sc_login_error.yaml')[0]!.body).response as Record<string, unknown>;
  assert.equal(versionCheck(text(hidden.version)).ok, true);
  // 5.20-era console, placeholder keys: HTTP 403 with error_code 0 → the keys were rejected.
  const bad = readCassette('sc_login_5_20_0.yaml')[0]!;
  const r = readEnvelope(bad.status, bad.body);
  assert.ok(!r.ok);
  const e = envelopeError('GET /rest/system', r.problem);
  assert.equal(e.status, 403);
  assert.match(e.message, /rejected the API keys/);
  assert.match(e.hint ?? '', /new pair revokes the previous one/);
  // Not found (147) and invalid token (12).
  const del = readCassette('test_scans_delete.yaml')[1]!;
  const d = readEnvelope(del.status, del.body);
  assert.ok(!d.ok);
  assert.equal(d.problem.errorCode, 147);
  assert.match(envelopeError('DELETE', d.problem).message, /error 147: Unable to find existing Scan #31/);
  const pol = readEnvelope(403, readCassette('test_policies_delete.yaml')[1]!.body);
  assert.ok(!pol.ok && pol.problem.errorCode === 147);
  const tok = readCassette('test_system_current_locale.yaml')[0]!;
  const tr = readEnvelope(tok.status, tok.body);
  assert.ok(!tr.ok);
  assert.equal(tr.problem.errorCode, 12);
  assert.equal(envelopeError('GET /rest/system/locale', tr.problem).transient, false);
  const diag = envelopeOf(200, readCassette('test_system_status_success.yaml')[0]!.body).response as Record<string, unknown>;
  assert.equal(num(diag.diagnosticsGenerated), 1553200173);
  const cu = readUser(envelopeOf(200, readCassette('test_current_user.yaml')[0]!.body).response);
  assert.equal(cu.username, null, 'the hand-edited cassette asked for id,name only');
});

test('pyTenable /rest/hosts (synthetic shape)', (t) => {
  if (!corpusPresent) return t.skip(SKIP);
  const rows = envelopeOf(200, readCassette('unmerged-synthetic/test_hosts_list_success.yaml')[0]!.body).response as Record<string, unknown>[];
  assert.equal(rows.length, 2);
  // Found by its tenableUUID, by its uuid (the host's own id), or by address and name.
  for (const known of [
    { tenableUuid: '58bd0909-f66d-4248-8c20-2501b208bb65' },
    { hostUuid: '68262460-941b-4762-906e-47298f79911e' },
    { fqdn: null, ipAddresses: ['201.22.196.102'] },
  ]) {
    const resolver = new HostResolver();
    resolver.seed({ key: 'h1', fields: known });
    assert.equal(hostsApiHost(rows[0]!, resolver), 'h1', JSON.stringify(known));
  }
  // Its dates are not real epochs ("1685038" = 1970-01-20), but they still parse.
  assert.equal(mapHostsApiRow(rows[1]!, 'h2')?.fields.scannerLastSeen, '1970-01-15T03:16:16.000Z');
  const fields = envelopeOf(200, readCassette('unmerged-synthetic/test_hosts_list_success_for_fields.yaml')[0]!.body).response as Record<string, unknown>[];
  assert.equal(text(fields[0]!.ipAddress), '201.22.196.102');
  assert.equal(mapHostsApiRow({ ipAddress: fields[0]!.ipAddress, name: fields[0]!.name }, 'h1'), null, 'no lastSeen, identifier or score: nothing to enrich');
});

test('Elastic vulnerability pipeline rows (modern fields)', (t) => {
  if (!corpusPresent) return t.skip(SKIP);
  const rows = readNdjson('test-vulnerability.log');
  assert.equal(rows.length, 5);
  const vulns = rows.map((r) => mapVulnerability(r, 'cumulative')!);
  assert.equal(vulns[0]!.fields.status, 'reopened', 'hasBeenMitigated "1"');
  assert.equal(vulns[0]!.fields.cvssV3BaseScore, 5);
  assert.equal(vulns[0]!.hostKey, 'addr:1|192.168.0.1|_gateway.lxd');
  assert.equal(vulns[2]!.fields.vprScore, 0.8);
  assert.equal(vulns[2]!.fields.cvssV2BaseScore, 0);
  const elf = vulns[3]!;
  assert.equal(elf.key, 'addr:1|10.238.64.9|target-cent7.lxd|0|tcp|128375');
  assert.equal(elf.fields.severity, 'high');
  assert.equal((elf.fields.cves as string[]).length, 10);
  assert.equal((elf.fields.cves as string[])[0], 'CVE-2018-16062');
  assert.equal(elf.fields.cvssV2BaseScore, 7.5);
  assert.equal(elf.fields.cvssV3BaseScore, 9.8);
  assert.equal(elf.fields.vprScore, 5.9);
  // The vectors SSVC reads automatable and technical impact from, as the console sent them; "" is none.
  assert.equal(elf.fields.cvssV3Vector, 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:U/RL:O/RC:C');
  assert.equal(elf.fields.cvssV2Vector, 'AV:N/AC:L/Au:N/C:P/I:P/A:P/E:U/RL:OF/RC:C');
  assert.equal(vulns[0]!.fields.cvssV3Vector, null);
  assert.equal(elf.fields.scannerKnownExploited, false);
  assert.equal(elf.firstSeen, '2019-08-31T16:07:11.000Z');
  assert.equal(elf.lastSeen, '2021-10-30T16:12:20.000Z');
  // SC 6.x fields are kept: risk flags, and the VPR key drivers of the vprContext JSON string.
  assert.equal(elf.fields.acceptedRisk, false);
  assert.equal(elf.fields.recastRisk, false);
  const drivers = elf.fields.vprKeyDrivers as Record<string, unknown>;
  assert.equal(drivers.exploit_code_maturity, 'Unproven');
  assert.equal(drivers.age_of_vuln, '730 days +');
  assert.equal(typeof drivers.cvssV3_impactScore, 'number');
  assert.equal(vulns[0]!.fields.vprKeyDrivers, null, "vprContext '[]': no drivers (cleared, not left as they were)");
  assert.equal(vulns[4]!.fields.severity, 'medium');
  // Only the two non-Info rows become vulnerabilities by default.
  assert.equal(rows.filter((r) => mapVulndetailsRow(r).vulnerabilities).length, 2);
});

test('Elastic patched rows → fixed; empty page past totalRecords', (t) => {
  if (!corpusPresent) return t.skip(SKIP);
  const lines = readNdjson('test-vulnerability-patched.log');
  const rows = lines.filter((l) => 'pluginID' in l);
  assert.equal(rows.length, 5);
  assert.deepEqual([...new Set(rows.map((r) => mapVulnerability(r, 'patched')!.fields.status))], ['fixed']);
  // Recorded patched rows carry no mitigation field: the console's lastSeen stands for the fix date.
  assert.deepEqual(
    rows.map((r) => mapVulnerability(r, 'patched')!.fields.mitigatedAt),
    rows.map((r) => new Date(Number(r.lastSeen) * 1000).toISOString()),
  );
  const env = lines.find((l) => 'response' in l)!;
  const page = readAnalysisResponse(env.response);
  assert.equal(page.rows.length, 0);
  assert.equal(page.total, 116095);
});

test('Elastic asset (sumip) rows and mock server pages', (t) => {
  if (!corpusPresent) return t.skip(SKIP);
  const assets = readNdjson('test-asset.log').map((r) => mapSumipRow(r));
  assert.equal(assets.length, 3);
  assert.equal(assets[0]!.key, 'uuid:4add65d0-27fc-491c-91ba-3f498a61f49e');
  assert.equal(assets[0]!.fields.netbiosName, 'UNKNOWN\\RNKMIGAUV2L8ZEYF.EXAMPLE');
  assert.equal(assets[0]!.fields.hostname, 'rnkmigauv2l8zeyf');
  assert.equal(assets[0]!.fields.repository, 'Staged-Large');
  assert.equal(assets[0]!.fields.scannerLastSeen, undefined, 'no scan dates in the row');

  const rules = readElasticMock().filter((r) => r.path === '/rest/analysis');
  const pages = rules.map((r) => readAnalysisResponse(envelopeOf(r.status, r.body).response));
  assert.deepEqual(
    pages.map((p) => [p.total, p.rows.length]),
    [
      [4, 3],
      [4, 1],
      [4, 0],
      [3, 3],
    ],
  );
  const vulnRows = pages.slice(0, 3).flatMap((p) => p.rows);
  const first = mapVulndetailsRow(vulnRows[0]!, { includeInformational: true }).vulnerabilities![0]!;
  assert.equal(first.fields.pluginId, '10114');
  assert.equal(first.hostKey, rowHostKey(vulnRows[0]!));
  assert.equal(first.lastSeen, '2026-01-25T01:57:16.000Z');
  const hosts = pages[3]!.rows.map((r) => mapSumipRow(r));
  assert.equal(hosts[2]!.key, 'uuid:7113d6ed-f91a-4fe2-bb8b-e653d2570507');
});

test('Elastic /rest/plugin rows: nulls where strings are expected are tolerated', (t) => {
  if (!corpusPresent) return t.skip(SKIP);
  const rows = readNdjson('test-plugin.log');
  assert.equal(rows.length, 4);
  for (const r of rows) {
    assert.ok(text(r.id));
    assert.doesNotThrow(() => num(r.cvssV3BaseScore));
  }
  const plugin = readElasticMock().find((r) => r.path === '/rest/plugin' && r.body.includes('10585'))!;
  const list = envelopeOf(plugin.status, plugin.body).response as Record<string, unknown>[];
  assert.equal(num(list[0]!.cvssV3BaseScore), null);
  assert.equal(num(list[0]!.baseScore), 7.8);
});

test('every recorded sumip and vulndetails page passes the streams\u2019 page validation, and every row has its identity', (t) => {
  if (!corpusPresent) return t.skip(SKIP);
  const pages: unknown[] = [];
  for (const name of ['test_analysis_vulns_vulndetails_tool.yaml', 'test_analysis_vulns_sumip_tool.yaml'])
    for (const i of readCassette(name)) pages.push(envelopeOf(i.status, i.body).response);
  for (const r of readElasticMock().filter((m) => m.path === '/rest/analysis')) pages.push(envelopeOf(r.status, r.body).response);
  pages.push(readNdjson('test-vulnerability-patched.log').find((l) => 'response' in l)!.response);
  let rows = 0;
  for (const p of pages) {
    const page = readAnalysisResponse(p, { strict: true });
    for (const row of page.rows) {
      rows++;
      assert.equal('pluginID' in row ? missingFindingIdentity(row) : missingHostIdentity(row), null, JSON.stringify(row).slice(0, 200));
    }
  }
  assert.ok(pages.length >= 8 && rows >= 20, `${pages.length} pages, ${rows} rows`);
  for (const row of [...readNdjson('test-vulnerability.log'), ...readNdjson('test-vulnerability-patched.log').filter((l) => 'pluginID' in l)])
    assert.equal(missingFindingIdentity(row), null);
  for (const row of readNdjson('test-asset.log')) assert.equal(missingHostIdentity(row), null);
});

test('the streams\u2019 page validation names the field: a missing results list, a null row', () => {
  assert.throws(() => readAnalysisResponse({ totalRecords: '5', returnedRecords: 0 }, { strict: true }), /'results' is missing, expected a list of rows/);
  assert.throws(() => readAnalysisResponse({ results: [{ ip: '1' }, null] }, { strict: true }), /'results\[1\]' is null, expected a row \(an object\)/);
  assert.throws(() => readAnalysisResponse({ returnedRecords: 25, results: null }, { strict: true }), /'results' is null/);
  assert.equal(
    readAnalysisResponse({ returnedRecords: '0', results: null }, { strict: true }).rows.length,
    0,
    'null results with nothing returned: an empty page',
  );
  assert.equal(readAnalysisResponse({ results: null }).rows.length, 0, 'other tools (iplist) keep the lenient reading');
  assert.deepEqual(missingHostIdentity({ ip: null, uuid: '', dnsName: null }), {
    field: 'uuid|hostUUID|ip|dnsName',
    reason: 'a row without a host identity (uuid, hostUUID, ip or dnsName)',
  });
  assert.deepEqual(missingFindingIdentity({ ip: '10.0.0.1' }), { field: 'pluginID', reason: 'a row without a pluginID' });
});
