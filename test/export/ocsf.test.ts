// OCSF mapping: every event validates against the official schema of its version (subset generated
// from ocsf/ocsf-schema at the release tag), and the values land where the issue says.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ocsfVulnerabilityFinding } from '../../src/export/json-fast.ts';
import { OCSF_VERSIONS, ocsfComplianceFinding, ocsfDeviceInventory, ocsfSoftwareInventory } from '../../src/export/ocsf.ts';
import { BARE_FINDING, BARE_HOST, CMDB_ASSET, COMPLIANCE, FINDING, FIXED_FINDING, HOST, PRODUCT, SOFTWARE, SOFTWARE_NO_VERSION } from './fixtures.ts';
import { NO_CVE_DEVIATION, strictOcsfProblems, validateOcsf } from './ocsf-schema.ts';

// biome-ignore lint/suspicious/noExplicitAny: events are arbitrary JSON read loosely in assertions
type Ev = Record<string, any>;

function valid(version: string, event: Ev): Ev {
  assert.deepEqual(validateOcsf(version, event), [], `OCSF ${version} ${event.class_name}: ${JSON.stringify(event)}`);
  return event;
}

for (const version of OCSF_VERSIONS) {
  const o = { version, product: PRODUCT };
  describe(`OCSF ${version}`, () => {
    test('a finding with every field is a valid Vulnerability Finding with CVEs, CVSS, EPSS, remediation, device and unmapped values', () => {
      const e = valid(version, ocsfVulnerabilityFinding(FINDING, HOST, o));
      assert.equal(e.class_uid, 2002);
      assert.equal(e.category_uid, 2);
      assert.equal(e.type_uid, 200202);
      assert.equal(e.activity_id, 2, 'reopened is an update');
      assert.equal(e.severity_id, 5);
      assert.equal(e.time, Date.parse('2026-11-20T09:30:00.000Z'));
      assert.equal(e.metadata.version, version);
      assert.equal(e.metadata.product.vendor_name, 'Tenable');
      assert.equal(e.finding_info.uid, FINDING.id);
      assert.equal(e.finding_info.title, FINDING.pluginName);
      assert.deepEqual(
        e.vulnerabilities.map((v: Ev) => v.cve.uid),
        ['CVE-2021-44228', 'CVE-2021-45046'],
      );
      const cve = e.vulnerabilities[0].cve;
      assert.deepEqual(cve.cvss[0], { version: '3.1', base_score: 10, vector_string: FINDING.cvssV3Vector });
      assert.deepEqual(cve.cvss[1], { version: '2.0', base_score: 9.3 });
      assert.deepEqual(cve.epss, { score: '0.97565', percentile: 0.99996 });
      assert.equal(e.vulnerabilities[0].remediation.desc, FINDING.solution);
      assert.equal(e.vulnerabilities[0].is_exploit_available, true);
      assert.equal(e.device.hostname, 'web-01.corp.example.com');
      assert.equal(e.device.ip, '10.0.4.17');
      assert.equal(e.device.mac, '00:50:56:a1:b2:c3');
      assert.deepEqual(e.device.os, { name: HOST.os, type_id: 100, type: 'Windows' });
      assert.equal(e.device.uid, HOST.id);
      assert.equal(e.unmapped.vprScore, 9.9);
      assert.equal(e.unmapped.vprKeyDrivers.exploitCodeMaturity, 'HIGH');
      assert.equal(e.unmapped.kevDateAdded, '2021-12-10');
      assert.equal(e.unmapped.kevDueDate, '2021-12-24');
      assert.equal(e.unmapped.dueAt, FINDING.dueAt);
      assert.equal(e.unmapped.overdue, true);
      assert.equal(e.unmapped.pluginId, '156032');
      assert.equal(e.unmapped.source, 'lab');
      if (version === '1.1.0') assert.equal(e.unmapped.owner, 'alice@example.com', '1.1.0 has no device.owner');
      else assert.deepEqual(e.device.owner, { name: 'alice@example.com' });
    });

    test('a finding without CVE or scores, on a host whose name is not a DNS name, still validates', () => {
      const e = valid(version, ocsfVulnerabilityFinding(BARE_FINDING, BARE_HOST, o));
      assert.equal(e.activity_id, 1);
      assert.equal(e.status_id, 1);
      assert.equal(e.severity_id, 1);
      // No CVE, no `cve` object (nothing that a query by CVE would take for one); the plugin names the finding.
      assert.equal(e.vulnerabilities.length, 1);
      assert.ok(!('cve' in e.vulnerabilities[0]), JSON.stringify(e.vulnerabilities[0]));
      assert.equal(e.vulnerabilities[0].title, BARE_FINDING.pluginName);
      assert.equal(e.finding_info.title, BARE_FINDING.pluginName);
      assert.deepEqual(e.finding_info.analytic, { uid: '19506', name: BARE_FINDING.pluginName, type_id: 1, type: 'Rule' });
      // The one schema rule this breaks, on purpose (a vulnerability wants a CVE or a CWE).
      assert.deepEqual(
        strictOcsfProblems(version, e).filter((p) => NO_CVE_DEVIATION.test(p)),
        ['vulnerability_finding.vulnerabilities[0]: needs at least one of cve, cwe'],
      );
      assert.equal(e.device.hostname, undefined, 'LAB_PC_7 is no hostname_t');
      assert.equal(e.device.name, 'LAB_PC_7');
    });

    test('a finding without a CVE but with scores keeps them in unmapped; one with CVEs has one vulnerability per CVE', () => {
      const noCve = valid(version, ocsfVulnerabilityFinding({ ...FINDING, cves: null }, HOST, o));
      assert.equal(noCve.vulnerabilities.length, 1);
      assert.ok(!('cve' in noCve.vulnerabilities[0]));
      assert.equal(noCve.vulnerabilities[0].title, FINDING.pluginName);
      assert.deepEqual(noCve.unmapped.cvss, [
        { version: '3.1', base_score: 10, vector_string: FINDING.cvssV3Vector },
        { version: '2.0', base_score: 9.3 },
      ]);
      assert.equal(noCve.unmapped.epssScore, 0.97565);
      const two = ocsfVulnerabilityFinding(FINDING, HOST, o) as Ev;
      assert.equal(two.unmapped.cvss, undefined, 'with a CVE the scores are in cve.cvss');
      assert.deepEqual(
        two.vulnerabilities.map((v: Ev) => [v.cve.uid, v.title]),
        (FINDING.cves as string[]).map((c) => [c, FINDING.pluginName]),
      );
    });

    test('a fixed finding closes; a finding whose host is missing keeps the host id', () => {
      const e = valid(version, ocsfVulnerabilityFinding(FIXED_FINDING, null, o));
      assert.equal(e.activity_id, 3);
      assert.equal(e.status_id, 4);
      assert.equal(e.device.uid, BARE_HOST.id);
    });

    test('compliance results of every kind are valid Compliance Findings', () => {
      const status: Record<string, number | undefined> = { passed: 1, warning: 2, failed: 3, error: undefined };
      for (const result of ['passed', 'failed', 'warning', 'error', null]) {
        const e = valid(version, ocsfComplianceFinding(COMPLIANCE(result), HOST, o));
        assert.equal(e.class_uid, 2003);
        assert.deepEqual(e.compliance.standards, ['CIS Microsoft Windows Server 2019 L1']);
        assert.equal(e.compliance.control, COMPLIANCE(result).ruleName);
        if (result) assert.equal(e.compliance.status_id, status[result]);
      }
    });

    test('hosts and CMDB assets are valid Device Inventory Info', () => {
      for (const rec of [HOST, BARE_HOST, CMDB_ASSET, { ...HOST, removed: true }]) {
        const e = valid(version, ocsfDeviceInventory(rec, o));
        assert.equal(e.class_uid, 5001);
        assert.equal(e.device.uid, rec.id);
      }
      const asset = ocsfDeviceInventory(CMDB_ASSET, o) as Ev;
      assert.equal(asset.device.hw_info.serial_number, '5CG1234XYZ');
      assert.equal(asset.device.mac, '3c:52:82:aa:bb:cc');
      if (version !== '1.1.0') assert.deepEqual(asset.device.owner, { name: 'Bob Jones' });
      const host = ocsfDeviceInventory(HOST, o) as Ev;
      assert.equal(host.device.network_interfaces.length, 3);
      assert.equal(host.device.uid_alt, HOST.hostUuid);
    });

    if (version === '1.3.0') {
      test('installed software is valid Software Inventory Info', () => {
        for (const rec of [SOFTWARE, SOFTWARE_NO_VERSION]) {
          const e = valid(version, ocsfSoftwareInventory(rec, HOST, o));
          assert.equal(e.class_uid, 5020);
          assert.equal(e.package.name, 'OpenSSL');
        }
      });
    }
  });
}

test('the validator rejects what the schema does not allow (so a passing test means something)', () => {
  const e = ocsfVulnerabilityFinding(FINDING, HOST, { version: '1.1.0', product: PRODUCT }) as Ev;
  const bad = structuredClone(e);
  delete bad.finding_info.uid;
  bad.device.colour = 'blue';
  bad.severity_id = 42;
  bad.device.ip = 'not-an-ip';
  bad.vulnerabilities[0].cve.cvss[0].base_score = '10';
  bad.type_uid = 200201;
  const errors = validateOcsf('1.1.0', bad).join('\n');
  for (const want of ['finding_info.uid: required', 'device.colour: not an attribute', 'severity_id: 42', 'device.ip', 'base_score', 'type_uid'])
    assert.match(errors, new RegExp(want.replace(/[.]/g, '\\.')));
  // 1.1.0 has no device.owner: an event of 1.3.0 with an owner fails against 1.1.0.
  const newer = ocsfVulnerabilityFinding(FINDING, HOST, { version: '1.3.0', product: PRODUCT }) as Ev;
  newer.metadata.version = '1.1.0';
  assert.match(validateOcsf('1.1.0', newer).join('\n'), /device\.owner: not an attribute/);
});
