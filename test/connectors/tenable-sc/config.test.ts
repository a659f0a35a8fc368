import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configError } from '../../../src/core/config.ts';
import { secretKeys } from '../../../src/core/connector.ts';
import { tenableScConnector } from '../../../src/connectors/tenable-sc/index.ts';

const schema = tenableScConnector.configSchema;
const base = { apiUrl: 'https://sc.example.com:8443', accessKey: 'a'.repeat(32), secretKey: 'b'.repeat(32) };

test('defaults and string forms', () => {
  const c = schema.parse({ ...base, apiUrl: 'https://sc.example.com:8443/', verifySsl: 'false', pageSize: '500', schedule: '6h' });
  assert.equal(c.inputMode, 'api');
  assert.equal(c.apiUrl, 'https://sc.example.com:8443');
  assert.equal(c.verifySsl, false);
  assert.equal(c.includeInformational, false);
  assert.equal(c.pageSize, 500);
  assert.equal(c.bucket, 'vuln-scanner');
  assert.equal(schema.parse(base).pageSize, 1000);
  assert.equal(schema.parse(base).verifySsl, true);
});

test('a URL ending in /rest is refused with a message to remove it', () => {
  for (const apiUrl of ['https://sc.example.com/rest', 'https://sc.example.com/rest/', 'https://sc.example.com/REST//']) {
    const r = schema.safeParse({ ...base, apiUrl });
    assert.equal(r.success, false, apiUrl);
    if (!r.success) assert.match(configError(r.error).message, /remove \/rest/);
  }
  const bad = schema.safeParse({ ...base, apiUrl: 'sc.example.com' });
  assert.equal(bad.success, false);
});

test('api mode requires apiUrl/accessKey/secretKey; file mode does not', () => {
  const r = schema.safeParse({ apiUrl: base.apiUrl, accessKey: 'x' });
  assert.equal(r.success, false);
  if (!r.success) assert.equal(configError(r.error).field, 'secretKey');
  assert.equal(schema.safeParse({ inputMode: 'file' }).success, true);
  assert.equal(schema.safeParse({ inputMode: 'csv' }).success, false);
});

test('a bucket name that object storage would refuse is refused', () => {
  assert.equal(schema.parse({ inputMode: 'file', bucket: 'scans-2024.q3' }).bucket, 'scans-2024.q3');
  for (const bucket of ['Scans', 'ab', 'scans_2024', '-scans']) {
    const r = schema.safeParse({ inputMode: 'file', bucket });
    assert.equal(r.success, false, bucket);
    if (!r.success) assert.match(configError(r.error).message, /^bucket: bucket must be 3-63 lowercase letters/, bucket);
  }
});

test('unknown keys are rejected', () => {
  const r = schema.safeParse({ ...base, apiKey: 'x' });
  assert.equal(r.success, false);
  if (!r.success) assert.match(configError(r.error).message, /unknown configuration key 'apiKey'/);
});

test('field metadata: seed labels, secrets, help texts', () => {
  const f = tenableScConnector.fields;
  assert.equal(f.apiUrl?.label, 'API URL');
  assert.equal(f.accessKey?.label, 'Access Key');
  assert.equal(f.secretKey?.label, 'Secret Key');
  assert.equal(f.verifySsl?.label, 'Verify SSL Certificate');
  assert.equal(f.includeInformational?.label, 'Include Informational Findings');
  assert.deepEqual(
    f.inputMode?.options?.map((o) => o.label),
    ['API', 'File Import (CSV files)'],
  );
  assert.match(f.apiUrl?.help ?? '', /Do not add \/rest\//);
  assert.match(f.secretKey?.help ?? '', /once only/);
  assert.match(f.secretKey?.help ?? '', /revokes the previous one/);
  assert.deepEqual(secretKeys(tenableScConnector as never).sort(), ['accessKey', 'secretKey']);
  const shape = Object.keys(schema.parse(base));
  for (const k of shape) assert.ok(f[k], `field metadata for ${k}`);
});

test('streams: one per model group, each model in exactly one stream', () => {
  const streams = tenableScConnector.streams(schema.parse(base), {} as never);
  assert.deepEqual(
    streams.map((s) => s.name),
    ['hosts', 'software', 'ports', 'vulnerabilities', 'compliance'],
  );
  const models = streams.flatMap((s) => s.models);
  assert.deepEqual(models.sort(), ['compliance', 'hosts', 'plugins', 'ports', 'software', 'vulnerabilities']);
  // File mode: one stream reading the CSV exports, writing every model (docs/csv-import.md).
  const file = tenableScConnector.streams(schema.parse({ inputMode: 'file' }), {} as never);
  assert.deepEqual(
    file.map((s) => [s.name, [...s.models].sort()]),
    [['csv-exports', ['compliance', 'hosts', 'plugins', 'ports', 'software', 'vulnerabilities']]],
  );
});
