// The file drop of an app configured with `s3:` (TRIBUTARY_S3_ENDPOINT etc.) against a real
// S3-compatible server: uploads, a sync's bookkeeping, the guide's presigned URL and commands as
// printed, and the upload-token endpoint writing through to S3.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import cookie from '@fastify/cookie';
import Fastify, { type FastifyInstance } from 'fastify';
import { fileDropGuide } from '../../src/filedrop/guide.ts';
import { listFiles, openSourceBucket } from '../../src/filedrop/imports.ts';
import { fileDropOf } from '../../src/filedrop/resolve.ts';
import { fileDropRoutes } from '../../src/server/routes/files.ts';
import { S3Backend } from '../../src/filedrop/s3.ts';
import { uploadFiles } from '../../src/filedrop/upload.ts';
import { authHook } from '../../src/server/auth.ts';
import { errorHandler } from '../../src/server/errors.ts';
import type { SourceRecord } from '../../src/store/index.ts';
import { createSqlite, type TestDatabase } from '../helpers/databases.ts';
import { type FileDropApp, openTestApp, readAll } from './helpers.ts';
import { startS3, type TestS3 } from './s3-server.ts';

const run = promisify(execFile);
const CURL_SKIP = await run('curl', ['--version']).then(
  () => false as const,
  () => 'curl is not installed',
);
const AWS_CLI_SKIP = await run('aws', ['--version'], { timeout: 20_000 }).then(
  () => false as const,
  () => 'the AWS CLI (aws) is not installed: run scripts/ensure-awscli.sh',
);

let s3: TestS3;
let db: TestDatabase;
let app: FileDropApp;
let sc: SourceRecord;
let dir: string;

before(async () => {
  s3 = await startS3();
  db = await createSqlite();
  // The backend comes from the environment, as `TRIBUTARY_FILE_DROP=s3:` would configure it.
  app = await openTestApp(db, { env: s3.env });
  sc = await app.store.sources.create('scanner', 'tenable-sc', { inputMode: 'file', bucket: 'acme-scans' }, null);
  dir = join(db.dataDir, 'work');
  mkdirSync(dir, { recursive: true });
});
after(async () => {
  await app?.close();
  await db?.drop();
  await s3?.stop();
});

test('the app resolves s3: from its environment; uploads and a sync go through the bucket', async () => {
  const backend = fileDropOf(app);
  assert.ok(backend instanceof S3Backend);
  assert.equal(backend.s3.endpoint, s3.endpoint);
  writeFileSync(join(dir, 'vulns.csv'), 'ip,plugin\n10.0.0.1,1\n');
  const [up] = await uploadFiles(app, 'scanner', [join(dir, 'vulns.csv')]);
  assert.equal(up.address, 's3://acme-scans/vulns.csv');

  const bucket = openSourceBucket(app, sc, { runId: 'r1' });
  assert.equal(bucket.address, 's3://acme-scans/');
  const seen = [];
  for await (const obj of bucket.list()) {
    assert.equal(await bucket.isImported(obj), false);
    assert.equal(await readAll(await bucket.open(obj.key)), 'ip,plugin\n10.0.0.1,1\n');
    await bucket.recordImport({
      key: obj.key,
      etag: obj.etag,
      size: obj.size,
      kind: 'vulns',
      rowsRead: 1,
      rowsImported: 1,
      rowsRejected: 0,
      rejections: [],
      status: 'imported',
      error: null,
    });
    assert.equal(await bucket.isImported(obj), true);
    seen.push(obj.key);
  }
  assert.deepEqual(seen, ['vulns.csv']);
  writeFileSync(join(dir, 'vulns.csv'), 'ip,plugin\n10.0.0.9,9\n');
  await uploadFiles(app, 'scanner', [join(dir, 'vulns.csv')]);
  assert.deepEqual(
    (await listFiles(app, sc)).items.map((i) => i.status),
    ['changed'],
  );
});

test('the guide with --file gives a presigned URL; its curl line uploads as printed', { skip: CURL_SKIP }, async () => {
  const g = await fileDropGuide(app, 'scanner', { file: 'hosts.csv', expires: '15m' });
  assert.equal(g.backend, 's3');
  assert.equal(g.address, 's3://acme-scans/');
  assert.equal(g.token, null, 'no token needed with a presigned URL');
  assert.ok(g.presignedUrl?.startsWith(`${s3.endpoint}/acme-scans/hosts.csv?`));
  assert.match(g.presignedUrl ?? '', /X-Amz-Expires=900/);
  writeFileSync(join(dir, 'hosts.csv'), 'ip,name\n10.0.0.1,db\n');
  const curl = g.commands.find((c) => c.command.startsWith('curl '));
  assert.ok(curl);
  // The command works without any credentials in the environment.
  await run('sh', ['-c', curl.command], { cwd: dir, timeout: 20_000, env: { PATH: process.env.PATH } });
  assert.equal(await readAll(await fileDropOf(app).open('acme-scans', 'hosts.csv')), 'ip,name\n10.0.0.1,db\n');
});

test("the guide's aws s3 cp line works with the storage credentials", { skip: AWS_CLI_SKIP }, async () => {
  const g = await fileDropGuide(app, 'scanner', { file: 'assets.csv' });
  const aws = g.commands.find((c) => c.command.startsWith('aws s3 cp '));
  assert.ok(aws);
  assert.equal(aws.command, `aws s3 cp ./assets.csv s3://acme-scans/assets.csv --endpoint-url ${s3.endpoint} --region us-east-1`);
  writeFileSync(join(dir, 'assets.csv'), 'name\nlaptop-7\n');
  const env = { PATH: process.env.PATH, HOME: dir, AWS_ACCESS_KEY_ID: s3.env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: s3.env.AWS_SECRET_ACCESS_KEY };
  await run('sh', ['-c', aws.command], { cwd: dir, timeout: 30_000, env });
  assert.equal(await readAll(await fileDropOf(app).open('acme-scans', 'assets.csv')), 'name\nlaptop-7\n');
});

test('without --file the guide gives an upload token; the service endpoint writes through to S3', async () => {
  let f: FastifyInstance | null = null;
  try {
    f = Fastify();
    f.decorateRequest('auth', null);
    f.setErrorHandler(errorHandler);
    await f.register(cookie);
    f.addHook('onRequest', authHook(app));
    await f.register(fileDropRoutes(app));
    const base = await f.listen({ port: 0, host: '127.0.0.1' });
    const g = await fileDropGuide(app, 'scanner', { baseUrl: base });
    assert.equal(g.presignedUrl, null);
    assert.ok(g.token);
    assert.equal(g.uploadUrl, `${base}/api/v1/upload/acme-scans/`);
    const res = await fetch(`${g.uploadUrl}via-token.csv`, { method: 'PUT', body: 'a\n1\n', headers: { authorization: `Bearer ${g.token.token}` } });
    assert.equal(res.status, 201, await res.clone().text());
    assert.equal(await readAll(await fileDropOf(app).open('acme-scans', 'via-token.csv')), 'a\n1\n');
  } finally {
    await f?.close();
  }
});
