// The finding mapping (json-fast.ts), OCSF and ECS, for every kind of finding: every field, the least, fixed,
// without host, with and without CVEs (and then no `cve` object), owner in 1.3.0, free-form VPR drivers with
// empty parts, hostile strings: valid JSON in JSON.stringify's own form, no null, [] or {} in it, valid OCSF.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredRecord } from '../../src/core/models.ts';
import { ecsVulnerability, ecsVulnerabilityJson, ocsfVulnerabilityFinding, ocsfVulnerabilityJson } from '../../src/export/json-fast.ts';
import { OCSF_VERSIONS } from '../../src/export/ocsf.ts';
import { BARE_FINDING, BARE_HOST, FINDING, FIXED_FINDING, HOST, PRODUCT } from './fixtures.ts';
import { validateOcsf } from './ocsf-schema.ts';

const findings: [string, StoredRecord, StoredRecord | null][] = [
  ['every field', FINDING, HOST],
  ['the least', BARE_FINDING, BARE_HOST],
  ['fixed', FIXED_FINDING as StoredRecord, HOST],
  ['no host', FINDING, null],
  ['no host, no host id', { ...BARE_FINDING, hostId: null }, null],
  ['one CVE, v2 only, owner', { ...FINDING, cves: ['CVE-2020-1'], cvssV3BaseScore: null, epssPercentile: null, owner: 'bob' }, BARE_HOST],
  ['VPR drivers with empty parts', { ...FINDING, vprKeyDrivers: { a: null, b: [], c: { d: null }, e: 'x' } }, HOST],
  ['VPR drivers all empty, no tickets', { ...FINDING, vprKeyDrivers: { a: null }, ticketIds: [] }, HOST],
  ['accepted risk, reopened', { ...FINDING, acceptedRisk: true, status: 'reopened', reopenedAt: '2026-11-01T00:00:00.000Z' }, HOST],
  [
    'risk exception approved',
    {
      ...FINDING,
      excepted: true,
      exceptionId: 'e1',
      exceptionState: 'approved',
      exceptionReason: 'isolated "VLAN"',
      exceptionExpiresAt: '2027-03-31T23:59:59.999Z',
    },
    HOST,
  ],
  [
    'risk exception proposed',
    { ...FINDING, excepted: false, exceptionId: 'e2', exceptionState: 'proposed', exceptionReason: 'r', exceptionExpiresAt: '2027-03-31T23:59:59.999Z' },
    HOST,
  ],
  ['no severity, no plugin', { ...BARE_FINDING, severity: null, pluginId: null, pluginName: null }, BARE_HOST],
  ['no CVE but scores and EPSS', { ...FINDING, cves: null }, HOST],
  ['plugin name without id', { ...BARE_FINDING, pluginId: null }, BARE_HOST],
  ['plugin id without name, v3 only', { ...BARE_FINDING, pluginName: null, cvssV3BaseScore: 5.3 }, BARE_HOST],
  ['quotes and unicode', { ...FINDING, pluginName: 'a "quoted" \\ name\n— ünï', solution: '<script>"x"</script>' }, HOST],
  [
    'a lone surrogate, an emoji, control characters',
    { ...FINDING, pluginName: 'half \ud800 of a pair, 😀 whole', synopsis: 'tab\there\u0001', proof: 'back\\slash', cves: ['CVE-2021-1\u007f'] },
    HOST,
  ],
];

const noPlaceholders = (json: string) => assert.doesNotMatch(json, /:null|:\[\]|:\{\}/);

/** The text is what JSON.stringify gives for its own value: its escapes and number forms are JSON.stringify's. */
const stringifyForm = (json: string, what: string) => assert.equal(JSON.stringify(JSON.parse(json)), json, what);

for (const version of OCSF_VERSIONS) {
  test(`OCSF ${version}: the text of every kind of finding is compact, valid OCSF, in JSON.stringify's form, and its object is its parse`, () => {
    for (const [what, rec, host] of findings) {
      const o = { version, product: PRODUCT };
      const text = ocsfVulnerabilityJson(rec, host, o);
      stringifyForm(text, what);
      noPlaceholders(text);
      assert.deepEqual(validateOcsf(version, JSON.parse(text)), [], what);
      // A finding without a CVE carries no `cve` object.
      if (!rec.cves) assert.doesNotMatch(text, /"cve"/, what);
      // The Parquet encoder's event is the same mapping, not a second one.
      assert.deepEqual(ocsfVulnerabilityFinding(rec, host, o), JSON.parse(text), what);
    }
  });
}

test("ECS: the text of every kind of finding is compact, in JSON.stringify's form, and its object is its parse", () => {
  for (const [what, rec, host] of findings) {
    const text = ecsVulnerabilityJson(rec, host, PRODUCT);
    stringifyForm(text, what);
    noPlaceholders(text);
    assert.deepEqual(ecsVulnerability(rec, host, PRODUCT), JSON.parse(text), what);
  }
});

test('an approved risk exception suppresses the finding in OCSF (status_detail has its reason) and says so in ECS; a proposed one does not', () => {
  const excepted = {
    ...FINDING,
    excepted: true,
    exceptionId: 'e1',
    exceptionState: 'approved',
    exceptionReason: 'isolated VLAN',
    exceptionExpiresAt: '2027-03-31T23:59:59.999Z',
  };
  for (const version of OCSF_VERSIONS) {
    const e = ocsfVulnerabilityFinding(excepted, HOST, { version, product: PRODUCT }) as {
      status_id: number;
      status: string;
      status_detail?: string;
      unmapped: Record<string, unknown>;
    };
    assert.deepEqual(validateOcsf(version, e), []);
    assert.deepEqual([e.status_id, e.status, e.status_detail], [3, 'Suppressed', 'Risk exception until 2027-03-31: isolated VLAN']);
    assert.deepEqual([e.unmapped.excepted, e.unmapped.exceptionId, e.unmapped.exceptionState], [true, 'e1', 'approved']);
    const proposed = ocsfVulnerabilityFinding({ ...excepted, excepted: false, exceptionState: 'proposed' }, HOST, { version, product: PRODUCT });
    assert.notEqual(proposed.status_id, 3);
    assert.equal(proposed.status_detail, undefined);
    const scanner = ocsfVulnerabilityFinding({ ...FINDING, acceptedRisk: true }, HOST, { version, product: PRODUCT });
    assert.deepEqual([scanner.status_id, scanner.status_detail], [3, 'Risk accepted in the scanner']);
  }
  const ecs = ecsVulnerability(excepted, HOST, PRODUCT) as { tenable: Record<string, unknown> };
  assert.equal(ecs.tenable.suppression_reason, 'Risk exception until 2027-03-31: isolated VLAN');
  assert.equal(ecs.tenable.exception_state, 'approved');
  assert.equal(ecs.tenable.excepted, true);
});
