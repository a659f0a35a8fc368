// File names, keys, bucket names, durations and the file-drop URL.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { InputError } from '../../src/core/errors.ts';
import { LocalBackend } from '../../src/filedrop/local.ts';
import { defaultRegistry } from '../../src/connectors/registry.ts';
import { sourceBucketOf } from '../../src/filedrop/resolve.ts';
import { bucketOf, parseExpires, sanitizeFileName, validateBucketName, validateKey } from '../../src/filedrop/names.ts';
import { resolveFileDrop, s3OptionsFrom } from '../../src/filedrop/resolve.ts';
import { S3Backend } from '../../src/filedrop/s3.ts';

test('sanitizeFileName keeps a safe base name', () => {
  assert.equal(sanitizeFileName('export.csv'), 'export.csv');
  assert.equal(sanitizeFileName('reports/2024/Vulns (Q1).csv'), 'Vulns (Q1).csv');
  assert.equal(sanitizeFileName('C-drive\\exports\\hosts.csv'), 'hosts.csv');
  assert.equal(sanitizeFileName('weird;name|with$chars?.csv'), 'weird_name_with_chars_.csv');
  assert.equal(sanitizeFileName('Überblick-Ölfeld.csv'), 'Überblick-Ölfeld.csv');
});

test('sanitizeFileName refuses traversal, absolute paths, control characters and hidden names', () => {
  for (const bad of [
    '../etc/passwd',
    'a/../../b.csv',
    '..',
    '/etc/passwd',
    '\\\\server\\share\\x.csv',
    'C:\\x.csv',
    'a\u0000b.csv',
    'line\nbreak.csv',
    'tab\t.csv',
    '.hidden',
    'dir/',
    '',
    '   ',
  ]) {
    assert.throws(() => sanitizeFileName(bad), InputError, JSON.stringify(bad));
  }
  assert.throws(() => sanitizeFileName(`${'x'.repeat(300)}.csv`), /longer than 255 bytes/);
});

test('validateKey accepts listed keys and refuses escaping ones', () => {
  assert.equal(validateKey('export.csv'), 'export.csv');
  assert.equal(validateKey('2024/q1/export.csv'), '2024/q1/export.csv');
  for (const bad of ['', '/abs', '../x', 'a/../b', 'a//b', './a', 'a\\b', 'a\u0001b']) assert.throws(() => validateKey(bad), InputError, JSON.stringify(bad));
});

test('bucket names follow the S3 rules; sources get their bucket or the default their connector declares', async () => {
  assert.equal(validateBucketName('vuln-scanner'), 'vuln-scanner');
  for (const bad of ['ab', 'Upper', '-lead', 'trail-', 'a..b', '192.168.1.1', 'under_score', 'x'.repeat(64)])
    assert.throws(() => validateBucketName(bad), InputError, bad);
  const registry = await defaultRegistry();
  const sourceBucket = (source: { name: string; type: string; config: Record<string, unknown> }) => sourceBucketOf({ registry }, source);
  assert.equal(sourceBucket({ name: 'sc', type: 'tenable-sc', config: {} }), 'vuln-scanner');
  assert.equal(sourceBucket({ name: 'sd', type: 'servicedesk-plus', config: {} }), 'service-desk');
  assert.equal(sourceBucket({ name: 'sc2', type: 'tenable-sc', config: { bucket: 'site-b-scans' } }), 'site-b-scans');
  assert.equal(sourceBucket({ name: 'My_Source', type: 'other', config: {} }), 'my-source');
  assert.equal(bucketOf({ name: 'sd', config: {} }, 'declared-default'), 'declared-default');
  assert.throws(() => sourceBucket({ name: 'x', type: 'tenable-sc', config: { bucket: '../../etc' } }), InputError);
});

test('parseExpires reads durations between a minute and seven days', () => {
  assert.equal(parseExpires(undefined), 3600);
  assert.equal(parseExpires('1h'), 3600);
  assert.equal(parseExpires('30m'), 1800);
  assert.equal(parseExpires('7d'), 604800);
  assert.equal(parseExpires('120'), 120);
  assert.equal(parseExpires(90), 90);
  for (const bad of ['8d', '10s', 'soon', '1.5h', '-1h']) assert.throws(() => parseExpires(bad), InputError, bad);
});

test('resolveFileDrop: file: default under the data dir, file:DIR, s3: from the environment', () => {
  const local = resolveFileDrop({ dataDir: '/srv/data', env: {} });
  assert.ok(local instanceof LocalBackend);
  assert.equal(local.root, join('/srv/data', 'drop'));
  assert.equal(resolveFileDrop({ dataDir: '/srv/data', env: { TRIBUTARY_FILE_DROP: 'file:/mnt/drop' } }).description, 'file:/mnt/drop');
  assert.equal(
    resolveFileDrop({ fileDrop: 'file:///mnt/other', dataDir: '/srv/data', env: { TRIBUTARY_FILE_DROP: 'file:/mnt/drop' } }).description,
    'file:/mnt/other',
  );

  const env = { TRIBUTARY_S3_ENDPOINT: 'http://127.0.0.1:9000/', AWS_DEFAULT_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AK', AWS_SECRET_ACCESS_KEY: 'SK' };
  const s3 = resolveFileDrop({ fileDrop: 's3:', dataDir: '/srv/data', env });
  assert.ok(s3 instanceof S3Backend);
  assert.deepEqual(s3.s3, { endpoint: 'http://127.0.0.1:9000', region: 'eu-west-1', forcePathStyle: true });
  assert.deepEqual(s3OptionsFrom('s3:', env).credentials, { accessKeyId: 'AK', secretAccessKey: 'SK' });
  // AWS itself: virtual-hosted addressing unless told otherwise; URL parameters override the environment.
  assert.equal(s3OptionsFrom('s3:', { AWS_REGION: 'us-west-2' }).forcePathStyle, false);
  assert.equal(s3OptionsFrom('s3:', { TRIBUTARY_S3_ENDPOINT: 'https://minio.local', TRIBUTARY_S3_FORCE_PATH_STYLE: 'false' }).forcePathStyle, false);
  assert.equal(s3OptionsFrom('s3:?region=ap-south-1&endpoint=https://ceph.local', env).region, 'ap-south-1');
  assert.equal(s3OptionsFrom('s3:?region=ap-south-1&endpoint=https://ceph.local', env).endpoint, 'https://ceph.local');
  void s3.close();

  assert.throws(() => resolveFileDrop({ fileDrop: 'ftp://x', dataDir: '/d', env: {} }), /unknown file drop URL/);
  assert.throws(() => resolveFileDrop({ fileDrop: 's3://bucket', dataDir: '/d', env: {} }), /not an s3:\/\/ address/);
  assert.throws(() => resolveFileDrop({ fileDrop: 's3:', dataDir: '/d', env: { TRIBUTARY_S3_ENDPOINT: 'minio:9000' } }), /http/);
  assert.throws(() => resolveFileDrop({ fileDrop: 's3:', dataDir: '/d', env: { TRIBUTARY_S3_FORCE_PATH_STYLE: 'maybe' } }), /boolean/);
});
