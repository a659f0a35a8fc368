import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UpstreamError } from '../../../src/core/errors.ts';
import { envelopeError, readAnalysisResponse, readEnvelope } from '../../../src/connectors/tenable-sc/map/envelope.ts';
import { HostResolver } from '../../../src/connectors/tenable-sc/map/host-resolver.ts';
import { hostsApiHost, mapHostsApiRow } from '../../../src/connectors/tenable-sc/map/hosts-api.ts';
import { complianceKey, hostKey } from '../../../src/connectors/tenable-sc/map/identity.ts';
import { hostNames, mapSumipRow, osFromCpe } from '../../../src/connectors/tenable-sc/map/sumip.ts';
import { bool, compareVersions, epochToIso, int, isoOfSeconds, list, macs, num, text } from '../../../src/connectors/tenable-sc/map/values.ts';
import {
  isComplianceRow,
  mapComplianceRow,
  mapHostEnrichment,
  mapPortRow,
  mapSoftwareRow,
  mapVulndetailsRow,
  mapVulnerability,
} from '../../../src/connectors/tenable-sc/map/vulndetails.ts';
import { fixture, sumipRow, vulnRow } from './fixtures/rows.ts';

test('values: string numbers, -1, empty strings, epochs, booleans, lists', () => {
  assert.equal(num('6.7'), 6.7);
  assert.equal(num('-1'), null);
  assert.equal(num(''), null);
  assert.equal(num(null), null);
  assert.equal(num(5), 5);
  assert.equal(int('443'), 443);
  assert.equal(int('4.5'), null);
  assert.equal(text(''), null);
  assert.equal(text('  x '), 'x');
  assert.equal(epochToIso('1545074182'), '2018-12-17T19:16:22.000Z');
  assert.equal(epochToIso('-1'), null);
  assert.equal(epochToIso(''), null);
  assert.equal(epochToIso(1545074182.5), '2018-12-17T19:16:22.500Z');
  assert.equal(epochToIso('1545074182123'), '2018-12-17T19:16:22.123Z', 'milliseconds tolerated');
  // Whole seconds are formatted by arithmetic: as Date writes them, across leap days and centuries (2000, 2100).
  const edges = [0, 1, 59, 86399, 86400, 951782400, 951868799, 4107542400, 4107628800, 253402300799];
  const spread = Array.from({ length: 20000 }, (_, i) => Math.floor((i * 12_670_000_007) % 253_402_300_799) + 1);
  for (const s of [...edges, ...spread]) assert.equal(isoOfSeconds(s), new Date(s * 1000).toISOString(), String(s));
  assert.equal(bool('1'), true);
  assert.equal(bool('false'), false);
  assert.equal(bool('maybe'), null);
  assert.deepEqual(list('a, b,,a'), ['a', 'b']);
  assert.deepEqual(macs('00:50:56:A6:60:BC, 00-50-56-a6-60-bd junk'), ['00:50:56:a6:60:bc', '00:50:56:a6:60:bd']);
  assert.equal(compareVersions('5.12.9', '5.13.0'), -1);
  assert.equal(compareVersions('5.20', '5.20.0'), 0);
  assert.equal(compareVersions('6.4.0', '5.20.0'), 1);
});

test('envelope: error_code on HTTP 200 is an error; database is locked is transient', () => {
  const ok = readEnvelope(200, '{"type":"regular","response":{"a":1},"error_code":0,"error_msg":"","warnings":[],"timestamp":1716000000}');
  assert.ok(ok.ok);
  assert.deepEqual(ok.envelope.response, { a: 1 });
  assert.equal(ok.envelope.timestamp, 1716000000);
  const str = readEnvelope(200, '{"response":[],"error_code":"0","timestamp":"1"}');
  assert.ok(str.ok);

  const e200 = readEnvelope(
    200,
    '{"type":"regular","response":"","error_code":143,"error_msg":"Permission denied for filtering on Audit File #1000023","warnings":[]}',
  );
  assert.ok(!e200.ok);
  const err = envelopeError('POST /rest/analysis', e200.problem);
  assert.match(err.message, /error 143: Permission denied/);
  assert.equal(err.transient, false);

  const locked = readEnvelope(200, '{"response":"","error_code":1,"error_msg":"Unable to query: database is locked"}');
  assert.ok(!locked.ok);
  assert.equal(envelopeError('POST /rest/analysis', locked.problem).transient, true);

  const denied = readEnvelope(400, '{"response":"","error_code":0,"error_msg":""}');
  assert.ok(!denied.ok);
  const e400 = envelopeError('POST /rest/analysis', denied.problem);
  assert.equal(e400.status, 400);
  assert.match(e400.message, /lacks permission/);
  assert.match(e400.hint ?? '', /organizational user/);

  const keys = readEnvelope(403, '{"type":"regular","response":"","error_code":0,"error_msg":"","warnings":[],"timestamp":1638312171}');
  assert.ok(!keys.ok);
  const ek = envelopeError('GET /rest/system', keys.problem);
  assert.match(ek.message, /rejected the API keys/);
  assert.match(ek.hint ?? '', /new pair revokes/);

  const html = readEnvelope(200, '<html><body>Login</body></html>');
  assert.ok(!html.ok);
  assert.match(envelopeError('GET /rest/system', html.problem).hint ?? '', /without \/rest/);
  assert.ok(envelopeError('x', html.problem) instanceof UpstreamError);
});

test('analysis response: totalRecords string, returnedRecords number, missing total, null results', () => {
  const p = readAnalysisResponse({ totalRecords: '1629', returnedRecords: 5, startOffset: '0', endOffset: '5', results: [{ a: 1 }, null, 'x'] });
  assert.equal(p.total, 1629);
  assert.equal(p.rows.length, 1);
  assert.equal(readAnalysisResponse({ results: [] }).total, null);
  assert.equal(readAnalysisResponse({ results: null }).rows.length, 0);
  assert.throws(() => readAnalysisResponse(''), UpstreamError);
});

test('host keys: uuid lowercased, else repository|ip|dns', () => {
  assert.equal(hostKey({ uuid: 'ABC-1' }), 'uuid:abc-1');
  assert.equal(hostKey({ uuid: '', repositoryId: '1', ip: '10.0.0.1', dnsName: 'A.example' }), 'addr:1|10.0.0.1|a.example');
  assert.notEqual(hostKey({ uuid: '', repositoryId: '1', ip: '10.0.0.1', dnsName: '' }), hostKey({ uuid: '', repositoryId: '2', ip: '10.0.0.1', dnsName: '' }));
  assert.equal(complianceKey('h', '1003368', 'x'), 'h|1003368');
  assert.equal(complianceKey('h', '21156', 'x'), 'h|21156|x');
});

test('sumip row → host', () => {
  const h = mapSumipRow(sumipRow());
  assert.equal(h.key, 'addr:2|10.20.30.41|ws041.corp.example');
  assert.equal(h.externalId, null);
  assert.deepEqual(h.fields, {
    ipAddresses: ['10.20.30.41'],
    hostname: 'ws041',
    fqdn: 'ws041.corp.example',
    netbiosName: 'CORP\\WS041',
    repository: 'Workstations',
    credentialed: false,
    scannerLastSeen: '2024-05-18T02:40:00.000Z',
    macAddresses: ['00:50:56:a1:b2:c9'],
    os: 'Microsoft Windows 10',
  });
  const agent = mapSumipRow(
    sumipRow({ uuid: 'F89A0AA7-5F35-4F05-9462-09C2B73B70BA', macAddress: '', osCPE: '', repository: { id: '5', name: 'Agents', dataFormat: 'agent' } }),
  );
  assert.equal(agent.key, 'uuid:f89a0aa7-5f35-4f05-9462-09c2b73b70ba');
  assert.equal(agent.fields.credentialed, true);
  assert.equal('macAddresses' in agent.fields, false, 'unknown MACs are left untouched');
  assert.equal('os' in agent.fields, false);
  assert.equal(osFromCpe('cpe:/o:freebsd:freebsd:11.1'), 'Freebsd 11.1');
  assert.equal(osFromCpe('cpe:/o:cisco:ios:15'), 'Cisco Ios 15');
  assert.deepEqual(hostNames('', 'UNKNOWN\\X.EXAMPLE'), { hostname: 'x', fqdn: null });
});

test('vulndetails row → vulnerability', () => {
  const v = mapVulnerability(vulnRow(), 'cumulative');
  assert.ok(v);
  assert.equal(v.hostKey, 'uuid:7f3a0c1e-5b2d-4e8f-9a6b-112233445566');
  assert.equal(v.key, 'uuid:7f3a0c1e-5b2d-4e8f-9a6b-112233445566|8443|tcp|156032');
  assert.equal(v.externalId, 'a1b2c3d4-0000-4000-8000-000000000001');
  assert.equal(v.firstSeen, '2023-11-14T22:13:20.000Z');
  assert.equal(v.lastSeen, '2024-05-18T06:05:45.000Z');
  assert.deepEqual(v.fields, {
    pluginId: '156032',
    pluginName: 'Apache Log4j < 2.15.0 Remote Code Execution',
    severity: 'critical',
    cves: ['CVE-2021-44228', 'CVE-2021-45046'],
    cvssV2BaseScore: 10,
    cvssV3BaseScore: 10,
    cvssV3Vector: 'AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H',
    cvssV2Vector: null,
    scannerEpssScore: 0.97,
    vprScore: 9.9,
    scannerKnownExploited: true,
    status: 'open',
    port: 8443,
    protocol: 'tcp',
    acceptedRisk: false,
    recastRisk: false,
    ...{ pluginFamily: 'Misc.', proof: 'log4j detected', proofTruncated: false, exploitAvailable: true },
  });
  assert.equal(mapVulnerability(vulnRow({ hasBeenMitigated: '1' }), 'cumulative')?.fields.status, 'reopened');
  assert.equal(mapVulnerability(vulnRow(), 'patched')?.fields.status, 'fixed');
  // The console's mitigation date: its own field where the row has one, else a patched row's lastSeen; an open row has none.
  assert.equal(mapVulnerability(vulnRow(), 'patched')?.fields.mitigatedAt, '2024-05-18T06:05:45.000Z');
  assert.equal(mapVulnerability(vulnRow({ lastMitigated: '1715000000' }), 'patched')?.fields.mitigatedAt, '2024-05-06T12:53:20.000Z');
  assert.equal(mapVulnerability(vulnRow({ mitigatedOn: '1715000000', hasBeenMitigated: '1' }), 'cumulative')?.fields.mitigatedAt, '2024-05-06T12:53:20.000Z');
  const plain = mapVulnerability(vulnRow({ xref: 'CWE #200', vprScore: '', epssScore: undefined, cve: '', uuid: '', hostUUID: 'AA-BB' }), 'cumulative');
  assert.equal(plain?.fields.scannerKnownExploited, false);
  assert.equal(plain?.fields.vprScore, null);
  assert.equal(plain?.fields.scannerEpssScore, null);
  assert.deepEqual(plain?.fields.cves, []);
  assert.equal(plain?.hostKey, 'uuid:aa-bb');
});

test('compliance rows are never vulnerabilities', () => {
  const row = vulnRow({
    pluginID: '1003368',
    severity: { id: '3', name: 'High' },
    family: { id: '39', name: 'Policy Compliance', type: 'compliance' },
    pluginName: 'CIS check',
    pluginText: fixture('compliance-twice.txt'),
  });
  assert.equal(isComplianceRow(row), true);
  const out = mapVulndetailsRow(row, { includeInformational: true });
  assert.equal(out.vulnerabilities, undefined);
  const c = out.compliance?.[0];
  assert.ok(c);
  assert.equal(c.key, 'uuid:7f3a0c1e-5b2d-4e8f-9a6b-112233445566|1003368');
  assert.equal(c.fields.benchmark, 'CIS_MS_Windows_Server_2019_Level_1_v2.0.0.audit');
  assert.equal(c.fields.result, 'failed');
  assert.equal(c.fields.ruleId, '6f1c2e1b8d9a4c3e');
  assert.equal(c.lastSeen, '2024-05-18T06:05:45.000Z');
  const pci = mapComplianceRow(vulnRow({ pluginID: '33929', pluginName: 'PCI DSS compliance', severity: { id: '0' }, riskFactor: 'None', pluginText: 'ok' }));
  assert.equal(pci?.fields.result, 'passed');
  assert.equal(pci?.key, 'uuid:7f3a0c1e-5b2d-4e8f-9a6b-112233445566|33929|PCI DSS compliance');
});

test('inventory rows: software, ports, host enrichment; info findings only with includeInformational', () => {
  const sw = vulnRow({ pluginID: '20811', severity: { id: '0', name: 'Info' }, port: '445', pluginText: fixture('plugin-20811.txt') });
  const soft = mapSoftwareRow(sw);
  assert.equal(soft.length, 4);
  assert.equal(soft[0]?.key, 'uuid:7f3a0c1e-5b2d-4e8f-9a6b-112233445566|Mozilla Firefox (x64 en-US)|121.0.1');
  assert.deepEqual(soft[2]?.fields, { name: 'Contoso Line-of-Business Agent', version: null });
  const without = mapVulndetailsRow(sw);
  assert.equal(without.vulnerabilities, undefined);
  assert.equal(without.software?.length, 4);
  assert.deepEqual(without.hosts?.[0]?.fields, { credentialed: true });
  assert.equal(mapVulndetailsRow(sw, { includeInformational: true }).vulnerabilities?.[0]?.fields.severity, 'info');

  const port = mapPortRow(vulnRow({ pluginID: '34220', port: '3389', protocol: 'TCP', pluginText: fixture('plugin-34220.txt') }));
  assert.deepEqual(port, {
    key: 'uuid:7f3a0c1e-5b2d-4e8f-9a6b-112233445566|3389|tcp',
    hostKey: 'uuid:7f3a0c1e-5b2d-4e8f-9a6b-112233445566',
    fields: { port: 3389, protocol: 'tcp' },
  });
  assert.equal(mapPortRow(vulnRow({ pluginID: '34220', port: '0', pluginText: 'Nessus was able to find 3 open ports.' })), null);
  assert.equal(
    mapPortRow(vulnRow({ pluginID: '22964', port: '22', pluginText: '<plugin_output>An SSH server is running on this port.</plugin_output>' }))?.fields.service,
    'ssh',
  );

  const hw = mapHostEnrichment(vulnRow({ pluginID: '24270', pluginText: fixture('plugin-24270.txt') }));
  assert.deepEqual(hw?.fields, { manufacturer: 'Dell Inc.', model: 'Latitude 7440', serialNumber: '7XK2Q93', credentialed: true });
  assert.deepEqual(mapHostEnrichment(vulnRow({ pluginID: '38689', pluginText: fixture('plugin-38689.txt') }))?.fields, {
    lastLoggedOnUser: 'CORP\\jdoe',
    credentialed: true,
  });
  assert.deepEqual(mapHostEnrichment(vulnRow({ pluginID: '11936', pluginText: fixture('plugin-11936.txt') }))?.fields, {
    os: 'Microsoft Windows Server 2019 Standard Build 17763',
  });
  assert.deepEqual(mapHostEnrichment(vulnRow({ pluginID: '86420', pluginText: fixture('plugin-86420.txt') }))?.fields, {
    macAddresses: ['00:50:56:a1:b2:c3', '00:50:56:a1:b2:c4'],
  });
  assert.equal(mapHostEnrichment(vulnRow({ pluginID: '19506', pluginText: 'Credentialed checks : no' })), null, 'API mode: sumip decides');
  assert.deepEqual(mapHostEnrichment(vulnRow({ pluginID: '19506', pluginText: 'Credentialed checks : no' }), { uncredentialedScan: true })?.fields, {
    credentialed: false,
  });
  assert.deepEqual(
    mapVulndetailsRow(vulnRow({ pluginID: '19506', severity: '0', pluginText: fixture('plugin-19506.txt') }), { file: true }).hosts?.[0]?.fields,
    { credentialed: true },
  );
  // 12053's reverse DNS fills the names a host lacks (the short name from the FQDN), never overwriting.
  const fqdn = mapHostEnrichment(vulnRow({ pluginID: '12053', pluginText: fixture('plugin-12053.txt') }));
  assert.deepEqual([fqdn?.fill, fqdn?.fields], [true, { fqdn: 'web01.corp.example', hostname: 'web01' }]);
  assert.deepEqual(mapHostEnrichment(vulnRow({ pluginID: '35716', pluginText: fixture('plugin-35716.txt') }))?.fields, {
    macAddresses: ['00:50:56:a1:b2:c3', '00:50:56:a1:b2:c4'],
  });
  assert.equal(mapHostEnrichment(vulnRow({ pluginID: '10107' })), null);
});

test('/rest/hosts rows', () => {
  const row = {
    id: '154',
    uuid: 'E9344880-C32F',
    tenableUUID: 'DCE3A590-70F0',
    name: 'win10',
    ipAddress: '10.1.1.1',
    os: 'Windows 10',
    firstSeen: '1700000000',
    lastSeen: '1716000000',
    repID: '2',
  };
  const resolver = new HostResolver();
  resolver.seed({ key: 'addr:2|10.1.1.1|win10', fields: { repository: 'Workstations', ipAddresses: ['10.1.1.1'] } });
  resolver.learnRepository({ id: '2', name: 'Workstations' });
  assert.equal(hostsApiHost(row, resolver), 'addr:2|10.1.1.1|win10', 'by address and name');
  resolver.seed({ key: 'uuid:dce3a590-70f0', fields: { repository: 'Workstations', tenableUuid: 'dce3a590-70f0' } });
  assert.equal(hostsApiHost(row, resolver), 'uuid:dce3a590-70f0', 'the Tenable UUID before the address');
  // Another repository's host at the same address is another host.
  resolver.learnRepository({ id: '1', name: 'Datacenter' });
  assert.equal(hostsApiHost({ ...row, tenableUUID: '', repID: '1' }, resolver), null);
  assert.deepEqual(mapHostsApiRow({ ...row, acr: { score: '7', overwritten: 'false' }, aes: '612' }, 'h'), {
    key: 'h',
    fields: { scannerLastSeen: '2024-05-18T02:40:00.000Z', tenableUuid: 'dce3a590-70f0', acrScore: 7, aesScore: 612 },
  });
  assert.equal(mapHostsApiRow({ name: 'x' }, 'h'), null);
});

test('SC 6.x row fields are kept: accepted/recast risk, VPR key drivers, uniqueness, SEoL date (strings, numbers, JSON strings)', () => {
  // The fact sheet's constructed modern row: flags "0", vprContext a JSON string of [{id,name,type,value}].
  const wire = mapVulnerability(
    vulnRow({
      acceptRisk: '0',
      recastRisk: '1',
      vprContext:
        '[{"id":"exploit_code_maturity","name":"Exploit Code Maturity","type":"string","value":"Unproven"},{"id":"cvssV3_impactScore","name":"CVSS v3 Impact Score","type":"number","value":5.9}]',
    }),
    'cumulative',
  )!;
  assert.equal(wire.fields.acceptedRisk, false);
  assert.equal(wire.fields.recastRisk, true);
  assert.deepEqual(wire.fields.vprKeyDrivers, { exploit_code_maturity: 'Unproven', cvssV3_impactScore: 5.9 });
  // Numbers and booleans, a keyDrivers object (or its JSON text), uniqueness, SEoL date as epoch or text.
  const loose = mapVulnerability(
    vulnRow({
      acceptRisk: 1,
      recastRisk: false,
      keyDrivers: { threat_recency: 'Less than 7 days' },
      vulnUniqueness: 'repositoryID,ip,dnsName,port,protocol,pluginID',
      seolDate: '1735689600',
    }),
    'cumulative',
  )!;
  assert.equal(loose.fields.acceptedRisk, true);
  assert.equal(loose.fields.recastRisk, false);
  assert.deepEqual(loose.fields.vprKeyDrivers, { threat_recency: 'Less than 7 days' });
  assert.equal(loose.fields.vulnUniqueness, 'repositoryID,ip,dnsName,port,protocol,pluginID');
  assert.equal(loose.fields.seolDate, '2025-01-01T00:00:00.000Z');
  const text = mapVulnerability(vulnRow({ keyDrivers: '{"threat_intensity_last_28":"Low"}', seolDate: '2025-06-30' }), 'cumulative')!;
  assert.deepEqual(text.fields.vprKeyDrivers, { threat_intensity_last_28: 'Low' });
  assert.equal(text.fields.seolDate, '2025-06-30T00:00:00.000Z');
  // What cannot be parsed is kept as sent, not dropped; absent fields stay unset (untouched on update).
  assert.deepEqual(mapVulnerability(vulnRow({ vprContext: 'not json' }), 'cumulative')!.fields.vprKeyDrivers, { value: 'not json' });
  const bare = mapVulnerability(vulnRow({ vprContext: '[]' }), 'cumulative')!.fields;
  for (const f of ['vulnUniqueness', 'seolDate'] as const) assert.equal(bare[f], undefined, f);
  // An empty context clears the drivers (they went away); a row without one (5.x) leaves them unset.
  assert.equal(bare.vprKeyDrivers, null);
  assert.equal(mapVulnerability(vulnRow({}), 'cumulative')!.fields.vprKeyDrivers, undefined);
});
