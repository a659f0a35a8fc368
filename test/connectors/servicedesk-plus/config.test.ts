// Configuration schema: keys of interfaces.md §2, cross-field rules, labels and secrets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiBaseOf, deploymentOf, sdpConfigSchema } from '../../../src/connectors/servicedesk-plus/config.ts';
import { servicedeskPlusConnector as sdp } from '../../../src/connectors/servicedesk-plus/index.ts';
import { secretKeys } from '../../../src/core/connector.ts';
import { configError } from '../../../src/core/config.ts';

const parse = (v: Record<string, unknown>) => {
  const r = sdpConfigSchema.safeParse(v);
  return r.success ? { ok: true as const, data: r.data } : { ok: false as const, error: configError(r.error) };
};

test('cloud: region picks the hosts; defaults; portal in the path', () => {
  const r = parse({ clientId: '1000.A', clientSecret: 's', region: 'EU', portal: 'itdesk' });
  assert.ok(r.ok);
  assert.equal(r.data.region, 'eu');
  assert.equal(r.data.bucket, 'service-desk');
  assert.equal(r.data.verifySsl, true);
  assert.equal(r.data.revokeTokenOnDeletion, false);
  assert.equal(deploymentOf(r.data), 'cloud');
  assert.equal(apiBaseOf(r.data), 'https://sdpondemand.manageengine.eu/app/itdesk/api/v3');
  const ca = parse({ clientId: '1000.A', clientSecret: 's', region: 'ca', serverUrl: 'https://helpdesk.example.com/app/itdesk/' });
  assert.ok(ca.ok);
  assert.equal(apiBaseOf(ca.data), 'https://helpdesk.example.com/app/itdesk/api/v3', 'a custom domain override keeps its portal');
});

test('on-prem: apiKey and no client fields; serverUrl required; /api/v3 pasted is tolerated', () => {
  const r = parse({ apiKey: 'K', serverUrl: 'https://sdp.example.com:8080/api/v3/', verifySsl: 'false' });
  assert.ok(r.ok);
  assert.equal(deploymentOf(r.data), 'onprem');
  assert.equal(apiBaseOf(r.data), 'https://sdp.example.com:8080/api/v3');
  assert.equal(r.data.verifySsl, false);
  const missing = parse({ apiKey: 'K' });
  assert.ok(!missing.ok);
  assert.equal(missing.error.field, 'serverUrl');
  assert.match(missing.error.message, /serverUrl is required on-premises/);
});

test('cross-field rules and unknown keys', () => {
  const both = parse({ apiKey: 'K', serverUrl: 'https://sdp.example.com', clientId: 'x' });
  assert.ok(!both.ok);
  assert.match(both.error.message, /either apiKey .* or clientId and clientSecret/);
  const noSecret = parse({ clientId: 'x' });
  assert.ok(!noSecret.ok);
  assert.equal(noSecret.error.field, 'clientSecret');
  const none = parse({});
  assert.ok(!none.ok);
  assert.match(none.error.message, /clientId is required .*or give serverUrl and apiKey/);
  const region = parse({ clientId: 'x', clientSecret: 'y', region: 'mars' });
  assert.ok(!region.ok);
  assert.equal(region.error.field, 'region');
  const unknown = parse({ clientId: 'x', clientSecret: 'y', refreshToken: 'z' });
  assert.ok(!unknown.ok);
  assert.match(unknown.error.message, /unknown configuration key 'refreshToken'/);
  assert.ok(parse({ inputMode: 'file' }).ok, 'file mode needs no API fields');
});

test('fields carry the seed labels and mark the secrets', () => {
  const labels = Object.fromEntries(Object.entries(sdp.fields).map(([k, f]) => [k, f.label]));
  assert.equal(labels.region, 'Region');
  assert.equal(labels.authorizationCode, 'Authorization Code');
  assert.equal(labels.clientId, 'Client ID');
  assert.equal(labels.clientSecret, 'Client Secret');
  assert.equal(labels.revokeTokenOnDeletion, 'Revoke Token on Deletion');
  assert.deepEqual(secretKeys(sdp as never).sort(), ['apiKey', 'authorizationCode', 'clientSecret']);
  assert.match(sdp.fields.authorizationCode!.help ?? '', /few minutes/);
  assert.match(sdp.fields.authorizationCode!.help ?? '', /SDPOnDemand\.requests\.READ,SDPOnDemand\.assets\.READ/);
  for (const key of Object.keys(sdpConfigSchema.parse({ inputMode: 'file' }))) assert.ok(key in sdp.fields, key);
});
