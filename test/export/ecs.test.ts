// ECS mapping: every field name outside the upstream's namespace is an ECS field (list generated from
// elastic/ecs at a release tag, schemas/README.md) or one Kibana's vulnerability page reads, with a value
// of its type; the documents carry what Elastic's vulnerability views read (Kibana's own field list);
// the bulk variant indexes under the record's stable id.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { test } from 'node:test';
import { ECS_VERSION, ecsCompliance, ecsHost, ecsPackage } from '../../src/export/ecs.ts';
import { ecsVulnerability } from '../../src/export/json-fast.ts';
import { lineWriter } from '../../src/export/formats/index.ts';
import { BARE_FINDING, BARE_HOST, CMDB_ASSET, COMPLIANCE, FINDING, HOST, PRODUCT, SOFTWARE } from './fixtures.ts';

// biome-ignore lint/suspicious/noExplicitAny: documents are arbitrary JSON read loosely in assertions
type Doc = Record<string, any>;

const ecs = JSON.parse(readFileSync(new URL(`./schemas/ecs-${ECS_VERSION}.json`, import.meta.url), 'utf8')) as {
  version: string;
  fields: Record<string, string>;
};

/** Leaf paths of a document with their values (arrays of scalars are one leaf). */
function leaves(doc: Record<string, unknown>, prefix = ''): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const [k, v] of Object.entries(doc)) {
    const p = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v)) out.push(...leaves(v as Record<string, unknown>, p));
    else out.push([p, v]);
  }
  return out;
}

function typeOk(type: string, v: unknown): boolean {
  const values = Array.isArray(v) ? v : [v];
  return values.every((x) => {
    if (['keyword', 'constant_keyword', 'wildcard', 'match_only_text', 'text'].includes(type)) return typeof x === 'string';
    if (['long', 'float', 'scaled_float', 'double', 'integer'].includes(type)) return typeof x === 'number';
    if (type === 'date') return typeof x === 'string' && Number.isFinite(Date.parse(x));
    if (type === 'ip') return typeof x === 'string' && isIP(x) !== 0;
    if (type === 'boolean') return typeof x === 'boolean';
    return true;
  });
}

/**
 * The fields Elastic Security's vulnerability findings page reads: Kibana's VULNERABILITY_FIELDS and
 * EVENT_ID, in x-pack/solutions/security/plugins/cloud_security_posture/public/common/constants.ts
 * (elastic/kibana, read at 0ad9415fae5162a08aff663a0fab0039d0b9cf81), each with what a finding gives it.
 */
const KIBANA_VULNERABILITY_FIELDS: Record<string, 'written' | 'no such data'> = {
  'vulnerability.title': 'written',
  'vulnerability.id': 'written',
  'vulnerability.score.base': 'written',
  'resource.name': 'written',
  'resource.id': 'written',
  'vulnerability.severity': 'written',
  // A finding names no affected package (a plugin's text may, in the upstream's own words only).
  'package.name': 'no such data',
  'package.version': 'no such data',
  'package.fixed_version': 'no such data',
  // A scanned host is not a cloud account.
  'cloud.account.name': 'no such data',
  'cloud.account.id': 'no such data',
  'cloud.provider': 'no such data',
  'vulnerability.description': 'written',
  'observer.vendor': 'written',
  'event.id': 'written',
};

/** Of those, the ones ECS does not define (Kibana reads them as its own integrations write them), with their type. */
const KIBANA_FIELDS_BEYOND_ECS: Record<string, string> = {
  'vulnerability.title': 'keyword',
  'resource.id': 'keyword',
  'resource.name': 'keyword',
  'package.fixed_version': 'keyword',
};

function checkEcs(doc: Record<string, unknown>): void {
  assert.equal(ecs.version, ECS_VERSION);
  for (const [path, value] of leaves(doc)) {
    if (path.startsWith(`${PRODUCT.namespace}.`)) continue;
    const type = ecs.fields[path] ?? KIBANA_FIELDS_BEYOND_ECS[path];
    assert.ok(type, `${path} is not an ECS ${ECS_VERSION} field`);
    assert.ok(typeOk(type, value), `${path}: ${JSON.stringify(value)} is not of ECS type ${type}`);
  }
}

test('a finding is an ECS vulnerability state document with ECS names everywhere but the Tenable namespace', () => {
  const doc = ecsVulnerability(FINDING, HOST, PRODUCT) as Doc;
  checkEcs(doc);
  assert.equal(doc.event.kind, 'state');
  assert.deepEqual(doc.event.category, ['vulnerability']);
  assert.deepEqual(doc.vulnerability.id, ['CVE-2021-44228', 'CVE-2021-45046']);
  assert.equal(doc.vulnerability.enumeration, 'CVE');
  assert.equal(doc.vulnerability.classification, 'CVSS');
  assert.deepEqual(doc.vulnerability.score, { base: 10, version: '3.1' });
  assert.equal(doc.vulnerability.severity, 'CRITICAL');
  assert.equal(doc.vulnerability.description, FINDING.synopsis);
  assert.deepEqual(doc.vulnerability.category, ['Web Servers']);
  assert.equal(doc.vulnerability.scanner.vendor, 'Tenable');
  assert.deepEqual(doc.host.ip, ['10.0.4.17', 'fe80::1']);
  assert.deepEqual(doc.host.mac, ['00-50-56-A1-B2-C3']);
  assert.equal(doc.host.hostname, 'web-01');
  assert.equal(doc.host.domain, 'corp.example.com');
  assert.equal(doc.host.os.full, HOST.os);
  assert.equal(doc.tenable.vpr_score, 9.9);
  assert.equal(doc.tenable.vpr_key_drivers.exploitCodeMaturity, 'HIGH');
  assert.equal(doc.tenable.kev_due_date, '2021-12-24');
  assert.equal(doc.tenable.plugin_id, '156032');
  assert.equal(doc.tenable.host, undefined, 'host values beyond host.* are in the host documents');
  assert.equal((ecsHost(HOST, PRODUCT, 'hosts') as Doc).tenable.acr_score, 7);
  assert.equal(doc.event.id, FINDING.id);
  assert.equal(doc.observer.name, 'lab');
});

test("a finding has every field of Kibana's vulnerability findings page that it has data for, and only those", () => {
  // The bare finding has no CVSS score, so no score.base; everything else is there.
  for (const [what, rec, host, without] of [
    ['every field', FINDING, HOST, []],
    ['bare', BARE_FINDING, BARE_HOST, ['vulnerability.score.base']],
  ] as const) {
    const present = new Set(leaves(ecsVulnerability(rec, host, PRODUCT)).map(([path]) => path));
    for (const [field, has] of Object.entries(KIBANA_VULNERABILITY_FIELDS))
      assert.equal(present.has(field), has === 'written' && !(without as readonly string[]).includes(field), `${field} (${what})`);
  }
  const doc = ecsVulnerability(FINDING, HOST, PRODUCT) as Doc;
  assert.equal(doc.vulnerability.title, FINDING.pluginName);
  assert.deepEqual(doc.resource, { id: HOST.id, name: 'web-01' });
  assert.equal(doc.observer.vendor, PRODUCT.vendor, "the connector's declared vendor");
  const bare = ecsVulnerability(BARE_FINDING, BARE_HOST, PRODUCT) as Doc;
  assert.equal(bare.vulnerability.id, BARE_FINDING.pluginId, 'without a CVE, the plugin');
  assert.equal(bare.vulnerability.title, BARE_FINDING.pluginName);
  assert.deepEqual(bare.resource, { id: BARE_HOST.id, name: 'LAB_PC_7' });
  // Without its host record, the host id is still the resource.
  assert.deepEqual((ecsVulnerability(BARE_FINDING, null, PRODUCT) as Doc).resource, { id: BARE_FINDING.hostId });
  // Severity as Kibana's VULNERABILITIES_SEVERITY spells it; informational has no level there and stays INFO.
  const severities = ['critical', 'high', 'medium', 'low', 'info'].map(
    (severity) => (ecsVulnerability({ ...FINDING, severity }, HOST, PRODUCT) as Doc).vulnerability.severity,
  );
  assert.deepEqual(severities, ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO']);
  assert.equal((ecsVulnerability({ ...FINDING, cvssV3BaseScore: null }, HOST, PRODUCT) as Doc).vulnerability.score.base, 9.3, 'CVSS v2 without v3');
});

test('a bare finding, hosts, assets, software and compliance results use ECS names only', () => {
  const bare = ecsVulnerability(BARE_FINDING, BARE_HOST, PRODUCT) as Doc;
  checkEcs(bare);
  assert.equal(bare.vulnerability.id, '19506');
  assert.equal(bare.vulnerability.enumeration, 'tenable');
  checkEcs(ecsVulnerability(BARE_FINDING, null, PRODUCT));
  for (const r of [HOST, BARE_HOST]) checkEcs(ecsHost(r, PRODUCT, 'hosts'));
  checkEcs(ecsHost(CMDB_ASSET, PRODUCT, 'cmdb-assets'));
  const pkg = ecsPackage(SOFTWARE, HOST, PRODUCT) as Doc;
  checkEcs(pkg);
  assert.deepEqual(pkg.package, { name: 'OpenSSL', version: '3.0.2' });
  for (const result of ['passed', 'failed', 'warning', 'error']) {
    const doc = ecsCompliance(COMPLIANCE(result), HOST, PRODUCT) as Doc;
    checkEcs(doc);
    assert.equal(doc.rule.ruleset, 'CIS Microsoft Windows Server 2019 L1');
  }
  assert.equal((ecsCompliance(COMPLIANCE('failed'), HOST, PRODUCT) as Doc).event.outcome, 'failure');
});

test('the field check fails on a name ECS does not have', () => {
  assert.throws(() => checkEcs({ vulnerability: { cvss: 9 } }), /vulnerability\.cvss is not an ECS/);
  assert.throws(() => checkEcs({ host: { ip: ['not-an-ip'] } }), /not of ECS type ip/);
});

test('--ecs-bulk puts an index action with the record id before each document', () => {
  const w = lineWriter('vulnerabilities', { format: 'ecs', ecsBulk: true });
  const [action, doc] = w.line(FINDING, HOST, PRODUCT).split('\n');
  assert.deepEqual(JSON.parse(action), { index: { _id: FINDING.id } });
  assert.equal(JSON.parse(doc).event.id, FINDING.id);
  assert.equal(w.line(FINDING, HOST, PRODUCT), w.line(FINDING, HOST, PRODUCT), 'the same record gives the same lines');
});
