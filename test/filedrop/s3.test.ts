// The S3 backend against a real S3-compatible server (s3rver on 127.0.0.1, SigV4 checked), with
// plain fetch for presigned URLs and the AWS CLI as an independent client.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { NotFoundError } from '../../src/core/errors.ts';
import { StorageError, TooLargeError } from '../../src/filedrop/backend.ts';
import { s3OptionsFrom } from '../../src/filedrop/resolve.ts';
import { S3Backend } from '../../src/filedrop/s3.ts';
import { tempDir } from '../helpers/databases.ts';
import { listAll, md5, readAll } from './helpers.ts';
import { startS3, type TestS3 } from './s3-server.ts';

const run = promisify(execFile);
export const AWS_CLI_SKIP = await run('aws', ['--version'], { timeout: 20_000 }).then(
  () => false as const,
  () => 'the AWS CLI (aws) is not installed: run scripts/ensure-awscli.sh',
);

let s3: TestS3;
let strict: TestS3;
let b: S3Backend;
let dir: string;
const list = (bucket: string) => listAll(b, bucket);

before(async () => {
  s3 = await startS3();
  strict = await startS3({ strict: true, buckets: ['vuln-scanner', 'service-desk'] });
  b = new S3Backend({ ...s3OptionsFrom('s3:', s3.env), partSize: 64 * 1024 });
  dir = tempDir('tributary-s3cli-');
});
after(async () => {
  await b?.close();
  await s3?.stop();
  await strict?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a missing bucket lists as empty; ensureBucket creates it once', async () => {
  assert.deepEqual(await list('vuln-scanner'), []);
  await b.ensureBucket('vuln-scanner');
  await b.ensureBucket('vuln-scanner');
  assert.deepEqual(await list('vuln-scanner'), []);
});

test('put, list, stat, open and delete', async () => {
  const obj = await b.put('vuln-scanner', 'export.csv', Readable.from([Buffer.from('ip,plugin\n'), Buffer.from('10.0.0.1,19506\n')]));
  assert.deepEqual({ key: obj.key, size: obj.size, etag: obj.etag }, { key: 'export.csv', size: 25, etag: md5('ip,plugin\n10.0.0.1,19506\n') });
  assert.match(obj.lastModified, /^\d{4}-\d\d-\d\dT/);
  assert.deepEqual(await list('vuln-scanner'), [obj]);
  assert.deepEqual(await b.stat('vuln-scanner', 'export.csv'), obj);
  assert.equal(await readAll(await b.open('vuln-scanner', 'export.csv')), 'ip,plugin\n10.0.0.1,19506\n');
  await assert.rejects(b.open('vuln-scanner', 'missing.csv'), NotFoundError);
  assert.equal(await b.stat('vuln-scanner', 'missing.csv'), null);
  await b.put('vuln-scanner', 'gone.csv', Readable.from(['x']));
  assert.equal(await b.delete('vuln-scanner', 'gone.csv'), true);
  assert.equal(await b.delete('vuln-scanner', 'gone.csv'), false);
  assert.deepEqual(
    (await list('vuln-scanner')).map((o) => o.key),
    ['export.csv'],
  );
});

test('bodies larger than one part go up as a multipart upload; the limit aborts it and leaves nothing', async () => {
  const big = Buffer.alloc(200 * 1024);
  for (let i = 0; i < big.length; i++) big[i] = (i * 31) % 251;
  const chunks = [big.subarray(0, 70_000), big.subarray(70_000, 150_000), big.subarray(150_000)];
  const obj = await b.put('vuln-scanner', 'big.bin', Readable.from(chunks));
  assert.equal(obj.size, big.length);
  const raw: Buffer[] = [];
  for await (const c of await b.open('vuln-scanner', 'big.bin')) raw.push(c as Buffer);
  assert.ok(Buffer.concat(raw).equals(big), 'content round-trips through the parts');

  await assert.rejects(b.put('vuln-scanner', 'toolarge.bin', Readable.from(chunks), { maxBytes: 100_000 }), TooLargeError);
  await assert.rejects(b.put('vuln-scanner', 'toolarge.bin', Readable.from(['x']), { maxBytes: 10, size: 11 }), TooLargeError);
  assert.equal(await b.stat('vuln-scanner', 'toolarge.bin'), null);
});

test('a presigned PUT URL works with plain fetch, for that key only, until it expires', async () => {
  // On the strict server every signature is verified.
  const sb = new S3Backend(s3OptionsFrom('s3:', strict.env));
  try {
    const url = await sb.presignPut('vuln-scanner', 'presigned.csv', 600);
    assert.match(url, /X-Amz-Signature=/);
    const res = await fetch(url, { method: 'PUT', body: 'via,presigned\n' });
    assert.equal(res.status, 200, await res.text());
    assert.equal(await readAll(await sb.open('vuln-scanner', 'presigned.csv')), 'via,presigned\n');

    const refused = async (u: string) => {
      const r = await fetch(u, { method: 'PUT', body: 'x' });
      assert.equal(r.status, 403, u);
      assert.match(await r.text(), /SignatureDoesNotMatch|AccessDenied/);
    };
    await refused(url.replace('/presigned.csv?', '/other.csv?'));
    await refused(url.replace('/vuln-scanner/', '/service-desk/'));
    await refused(url.replace(/X-Amz-Expires=\d+/, 'X-Amz-Expires=604800'));
    assert.equal(await sb.stat('vuln-scanner', 'other.csv'), null);
    assert.equal(await sb.stat('service-desk', 'presigned.csv'), null);

    const shortLived = await sb.presignPut('vuln-scanner', 'late.csv', 1);
    await new Promise((r) => setTimeout(r, 2100));
    assert.equal((await fetch(shortLived, { method: 'PUT', body: 'x' })).status, 403);
    assert.equal(await sb.stat('vuln-scanner', 'late.csv'), null);
  } finally {
    await sb.close();
  }
});

test('wrong credentials and an unreachable endpoint fail with a hint', async () => {
  const wrong = new S3Backend({ ...s3OptionsFrom('s3:', strict.env), credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'not-the-secret' } });
  await assert.rejects(
    wrong.put('vuln-scanner', 'x.csv', Readable.from(['x'])),
    (err: Error) => err instanceof StorageError && /credentials may read and write bucket 'vuln-scanner'/.test(err.message),
  );
  await wrong.close();
  const down = new S3Backend({ ...s3OptionsFrom('s3:', { ...s3.env, TRIBUTARY_S3_ENDPOINT: 'http://127.0.0.1:1' }) });
  await assert.rejects(
    (async () => {
      for await (const _ of down.list('vuln-scanner')) void _;
    })(),
    (err: Error) => err instanceof StorageError && /TRIBUTARY_S3_ENDPOINT/.test(err.message),
  );
  await down.close();
});

describe('with the AWS CLI', { skip: AWS_CLI_SKIP }, () => {
  // Object-level calls on the strict server: the CLI's signatures are verified too.
  const cliEnv = () => ({ ...process.env, ...strict.env, AWS_CONFIG_FILE: '/dev/null', AWS_SHARED_CREDENTIALS_FILE: '/dev/null', AWS_PAGER: '' });

  test("aws s3 cp into the bucket is read by the backend, and the backend's objects download with aws s3 cp", async () => {
    const sb = new S3Backend(s3OptionsFrom('s3:', strict.env));
    try {
      const local = join(dir, 'hosts.csv');
      writeFileSync(local, 'ip,name\n10.0.0.2,web\n');
      await run('aws', ['s3', 'cp', local, 's3://vuln-scanner/hosts.csv', '--endpoint-url', strict.endpoint], { env: cliEnv(), timeout: 30_000 });
      const obj = await sb.stat('vuln-scanner', 'hosts.csv');
      assert.equal(obj?.size, 21);
      assert.equal(obj?.etag, md5('ip,name\n10.0.0.2,web\n'));
      assert.equal(await readAll(await sb.open('vuln-scanner', 'hosts.csv')), 'ip,name\n10.0.0.2,web\n');

      await sb.put('service-desk', 'requests.csv', Readable.from(['id,subject\n7,printer\n']));
      await run('aws', ['s3', 'cp', 's3://service-desk/requests.csv', join(dir, 'down.csv'), '--endpoint-url', strict.endpoint], {
        env: cliEnv(),
        timeout: 30_000,
      });
      assert.equal(readFileSync(join(dir, 'down.csv'), 'utf8'), 'id,subject\n7,printer\n');

      // The CLI with a wrong secret is refused by the server.
      await assert.rejects(
        run('aws', ['s3', 'cp', local, 's3://vuln-scanner/nope.csv', '--endpoint-url', strict.endpoint], {
          env: { ...cliEnv(), AWS_SECRET_ACCESS_KEY: 'wrong' },
          timeout: 30_000,
        }),
        /SignatureDoesNotMatch|AccessDenied|403/,
      );
      assert.equal(await sb.stat('vuln-scanner', 'nope.csv'), null);
    } finally {
      await sb.close();
    }
  });
});
