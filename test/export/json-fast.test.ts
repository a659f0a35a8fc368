// The text builders of the finding exports (json-fast.ts) give the same JSON text as the object mappers
// (ocsf.ts, ecs.ts) for every kind of finding: every field, the least, fixed, without host, with and
// without CVEs (and then no `cve` object), owner in 1.3.0, free-form VPR drivers with empty parts; and no null, [] or {} in them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredRecord } from '../../src/core/models.ts';
import { ecsVulnerability } from '../../src/export/ecs.ts';
import { ecsVulnerabilityJson, ocsfVulnerabilityJson } from '../../src/export/json-fast.ts';
import { OCSF_VERSIONS, ocsfVulnerabilityFinding } from '../../src/export/ocsf.ts';
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

for (const version of OCSF_VERSIONS) {
  test(`OCSF ${version}: the text builder's JSON equals the object mapper's, for every kind of finding`, () => {
    for (const [what, rec, host] of findings) {
      const o = { version, product: PRODUCT };
      const text = ocsfVulnerabilityJson(rec, host, o);
      // The same text, byte for byte (key order, escapes, number forms), not only the same values.
      assert.equal(text, JSON.stringify(ocsfVulnerabilityFinding(rec, host, o)), what);
      noPlaceholders(text);
      assert.deepEqual(validateOcsf(version, JSON.parse(text)), [], what);
      // A finding without a CVE carries no `cve` object in the text either.
      if (!rec.cves) assert.doesNotMatch(text, /"cve"/, what);
    }
  });
}

test("ECS: the text builder's JSON equals the object mapper's, for every kind of finding", () => {
  for (const [what, rec, host] of findings) {
    const text = ecsVulnerabilityJson(rec, host, PRODUCT);
    assert.equal(text, JSON.stringify(ecsVulnerability(rec, host, PRODUCT)), what);
    noPlaceholders(text);
  }
});
