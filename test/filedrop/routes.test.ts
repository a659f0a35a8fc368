// The file-drop routes behind the API's real auth hook: authenticated raw and multipart uploads,
// listing with import status, delete, the guide and token revocation, the size limit, and the
// upload-token endpoint that bypasses the session/API-token check and accepts only its own tokens.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import cookie from '@fastify/cookie';
import Fastify, { type FastifyInstance } from 'fastify';
import type { BucketObject } from '../../src/core/files.ts';
import type { FileDropGuide } from '../../src/filedrop/guide.ts';
import { type FileImportRecord, type FileView, openSourceBucket } from '../../src/filedrop/imports.ts';
import { fileDropRoutes } from '../../src/server/routes/files.ts';
import type { UploadTokenInfo } from '../../src/filedrop/tokens.ts';
import { createApiToken } from '../../src/app/api-tokens.ts';
import { authHook } from '../../src/server/auth.ts';
import { errorHandler, notFoundHandler } from '../../src/server/errors.ts';
import type { SourceRecord } from '../../src/store/index.ts';
import { createSqlite, type TestDatabase } from '../helpers/databases.ts';
import { type FileDropApp, openTestApp } from './helpers.ts';

const LIMIT = 64 * 1024;

interface Uploaded extends BucketObject {
  bucket: string;
  address: string;
}
interface ApiErrorBody {
  error: { code: string; message: string };
}
interface TokenList {
  items: (UploadTokenInfo & { active: boolean })[];
}
const json = async <T>(res: Response): Promise<T> => (await res.json()) as T;
const run = promisify(execFile);
const CURL_SKIP = await run('curl', ['--version']).then(
  () => false as const,
  () => 'curl is not installed',
);

let db: TestDatabase;
let app: FileDropApp;
let f: FastifyInstance;
let base: string;
let apiToken: string;
let sc: SourceRecord;
const drop = () => join(db.dataDir, 'drop');

const api = (path: string, init: RequestInit = {}, token: string | null = apiToken) =>
  fetch(`${base}${path}`, { ...init, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.headers as Record<string, string>) } });

before(async () => {
  db = await createSqlite();
  app = await openTestApp(db);
  sc = await app.store.sources.create('scanner', 'tenable-sc', { inputMode: 'file' }, null);
  await app.store.sources.create('desk', 'servicedesk-plus', { inputMode: 'file' }, null);
  const userId = await app.store.users.create('admin', 'x');
  // Uploads, deletions and upload tokens are all an operate token's to do.
  apiToken = (await createApiToken(app, userId, { name: 'tests', scope: 'operate' })).token;

  f = Fastify({ bodyLimit: 1024 * 1024 });
  f.decorateRequest('auth', null);
  f.setErrorHandler(errorHandler);
  f.setNotFoundHandler(notFoundHandler);
  await f.register(cookie);
  f.addHook('onRequest', authHook(app));
  await f.register(fileDropRoutes(app, { maxUploadBytes: LIMIT }));
  base = await f.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  await f?.close();
  await app?.close();
  await db?.drop();
});

describe('authenticated file routes', () => {
  test('need the API authentication', async () => {
    assert.equal((await api('/api/v1/sources/scanner/files', {}, null)).status, 401);
    assert.equal((await api('/api/v1/sources/scanner/files/x.csv', { method: 'PUT', body: 'a' }, null)).status, 401);
    assert.equal(
      (await api('/api/v1/sources/scanner/file-drop', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }, null)).status,
      401,
    );
    assert.equal(existsSync(join(drop(), 'vuln-scanner', 'x.csv')), false);
  });

  test('raw PUT stores the body under the sanitized name; listing shows import status', async () => {
    const res = await api('/api/v1/sources/scanner/files/Vulns%20Q1.csv', {
      method: 'PUT',
      body: 'ip,plugin\n10.0.0.1,1\n',
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal(res.status, 201);
    const body = await json<Uploaded>(res);
    assert.deepEqual(
      { key: body.key, size: body.size, bucket: body.bucket, address: body.address },
      { key: 'Vulns Q1.csv', size: 21, bucket: 'vuln-scanner', address: 's3://vuln-scanner/Vulns Q1.csv' },
    );
    assert.equal(readFileSync(join(drop(), 'vuln-scanner', 'Vulns Q1.csv'), 'utf8'), 'ip,plugin\n10.0.0.1,1\n');

    // No content type at all (curl -T) and JSON content are stored verbatim, not parsed.
    assert.equal(
      (await api('/api/v1/sources/scanner/files/data.json', { method: 'PUT', body: '{"not": "parsed"}', headers: { 'content-type': 'application/json' } }))
        .status,
      201,
    );
    assert.equal(readFileSync(join(drop(), 'vuln-scanner', 'data.json'), 'utf8'), '{"not": "parsed"}');

    const bucket = openSourceBucket(app, sc);
    for await (const obj of bucket.list()) {
      if (obj.key === 'data.json')
        await bucket.recordImport({
          key: obj.key,
          etag: obj.etag,
          size: obj.size,
          kind: null,
          rowsRead: 3,
          rowsImported: 2,
          rowsRejected: 1,
          rejections: [{ line: 3, reason: 'no IP address' }],
          status: 'partial',
          error: null,
        });
    }
    const list = await json<{ address: string; items: FileView[] }>(await api('/api/v1/sources/scanner/files'));
    assert.equal(list.address, 's3://vuln-scanner/');
    assert.deepEqual(
      list.items.map((i) => [i.key, i.status]),
      [
        ['Vulns Q1.csv', 'pending'],
        ['data.json', 'partial'],
      ],
    );
    const imp = list.items[1].import;
    assert.ok(imp);
    assert.deepEqual(
      { rowsRead: imp.rowsRead, rowsImported: imp.rowsImported, rowsRejected: imp.rowsRejected, rejections: imp.rejections },
      { rowsRead: 3, rowsImported: 2, rowsRejected: 1, rejections: [{ line: 3, reason: 'no IP address' }] },
    );
    const history = await json<{ items: FileImportRecord[] }>(await api('/api/v1/sources/scanner/imports'));
    assert.equal(history.items.length, 1);
    assert.equal(history.items[0].key, 'data.json');
  });

  test('path traversal and hidden names are refused', async () => {
    for (const name of ['..%2F..%2Foutside.csv', '%2Fetc%2Fpasswd', '.hidden', 'a%00b.csv', '..']) {
      const res = await api(`/api/v1/sources/scanner/files/${name}`, { method: 'PUT', body: 'x' });
      assert.ok([400, 404].includes(res.status), `${name}: ${res.status}`);
    }
    assert.equal(existsSync(join(db.dataDir, 'outside.csv')), false);
    assert.equal(existsSync(join(drop(), 'outside.csv')), false);
  });

  test('multipart POST stores every file part', async () => {
    const form = new FormData();
    form.append('note', 'ignored field');
    form.append('file', new Blob(['id,subject\n1,a\n']), 'requests.csv');
    form.append('file', new Blob(['id\n9\n']), '../../assets.csv');
    const res = await api('/api/v1/sources/desk/files', { method: 'POST', body: form });
    assert.equal(res.status, 201, await res.clone().text());
    const body = await json<{ items: Uploaded[] }>(res);
    // A path in the part's file name is cut to its base name; nothing lands outside the bucket.
    assert.deepEqual(
      body.items.map((i) => [i.key, i.bucket, i.size]),
      [
        ['requests.csv', 'service-desk', 15],
        ['assets.csv', 'service-desk', 5],
      ],
    );
    assert.equal(readFileSync(join(drop(), 'service-desk', 'assets.csv'), 'utf8'), 'id\n9\n');
    assert.equal(existsSync(join(db.dataDir, 'assets.csv')), false);

    const hidden = new FormData();
    hidden.append('file', new Blob(['x']), '.profile');
    assert.equal((await api('/api/v1/sources/desk/files', { method: 'POST', body: hidden })).status, 400);
    assert.equal((await api('/api/v1/sources/desk/files', { method: 'POST', body: new FormData() })).status, 400);
    assert.equal((await api('/api/v1/sources/desk/files', { method: 'POST', body: 'plain', headers: { 'content-type': 'text/plain' } })).status, 400);
  });

  test('the size limit answers 413 and stores nothing', async () => {
    const declared = await api('/api/v1/sources/scanner/files/big.csv', { method: 'PUT', body: 'x'.repeat(LIMIT + 1) });
    assert.equal(declared.status, 413);
    assert.equal((await json<ApiErrorBody>(declared)).error.code, 'body_too_large');
    // Streamed without a length: refused once it passes the limit.
    const chunks = Array.from({ length: 20 }, () => new Uint8Array(8 * 1024).fill(65));
    const stream = new ReadableStream({
      pull(c) {
        const next = chunks.shift();
        if (next) c.enqueue(next);
        else c.close();
      },
    });
    try {
      const streamed = await api('/api/v1/sources/scanner/files/big.csv', { method: 'PUT', body: stream, duplex: 'half' } as RequestInit);
      assert.equal(streamed.status, 413);
    } catch (err) {
      // The server may close the connection before the client finished sending.
      assert.match(String((err as Error).cause ?? err), /socket|reset|closed|EPIPE|other side/i);
    }
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(LIMIT + 10)]), 'big.csv');
    assert.equal((await api('/api/v1/sources/scanner/files', { method: 'POST', body: form })).status, 413);
    assert.equal(existsSync(join(drop(), 'vuln-scanner', 'big.csv')), false);
    const exact = await api('/api/v1/sources/scanner/files/exact.csv', { method: 'PUT', body: 'y'.repeat(LIMIT) });
    assert.equal(exact.status, 201);
  });

  test('DELETE removes a file, then 404', async () => {
    assert.equal((await api('/api/v1/sources/scanner/files/exact.csv', { method: 'DELETE' })).status, 204);
    assert.equal(existsSync(join(drop(), 'vuln-scanner', 'exact.csv')), false);
    assert.equal((await api('/api/v1/sources/scanner/files/exact.csv', { method: 'DELETE' })).status, 404);
    assert.equal((await api('/api/v1/sources/nobody/files')).status, 404);
  });
});

describe('upload tokens on PUT /api/v1/upload/:bucket/<file>', () => {
  let token: string;
  let tokenId: string;

  test('the guide hands out a token for the source bucket', async () => {
    const res = await api('/api/v1/sources/scanner/file-drop', {
      method: 'POST',
      body: JSON.stringify({ expires: '2h' }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 201);
    const g = await json<FileDropGuide & { token: NonNullable<FileDropGuide['token']> }>(res);
    assert.equal(g.address, 's3://vuln-scanner/');
    assert.equal(g.uploadUrl, `${base}/api/v1/upload/vuln-scanner/`);
    assert.match(g.token.token, /^tfu_/);
    token = g.token.token;
    tokenId = g.token.id;
    assert.ok(g.commands.some((c) => c.command.includes(token) && c.command.startsWith('curl ')));
    assert.equal(
      (
        await api('/api/v1/sources/scanner/file-drop', {
          method: 'POST',
          body: JSON.stringify({ expires: 'forever' }),
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
  });

  test('accepted for its bucket without any session or API token', async () => {
    const res = await api('/api/v1/upload/vuln-scanner/scan-42.csv', { method: 'PUT', body: 'ip\n10.1.1.1\n' }, token);
    assert.equal(res.status, 201);
    assert.equal((await json<Uploaded>(res)).address, 's3://vuln-scanner/scan-42.csv');
    assert.equal(readFileSync(join(drop(), 'vuln-scanner', 'scan-42.csv'), 'utf8'), 'ip\n10.1.1.1\n');
    const list = await json<TokenList>(await api('/api/v1/sources/scanner/file-drop/tokens'));
    const info = list.items.find((t) => t.id === tokenId);
    assert.ok(info);
    assert.equal(info.uploads, 1);
    assert.equal(info.active, true);
    assert.equal(JSON.stringify(list).includes(token), false, 'the token is never shown again');
  });

  test('refused for another bucket, without a token, and with an API token instead', async () => {
    const other = await api('/api/v1/upload/service-desk/scan.csv', { method: 'PUT', body: 'x' }, token);
    assert.equal(other.status, 403);
    assert.match((await json<ApiErrorBody>(other)).error.message, /for bucket 'vuln-scanner'/);
    assert.equal((await api('/api/v1/upload/vuln-scanner/scan.csv', { method: 'PUT', body: 'x' }, null)).status, 401);
    assert.equal((await api('/api/v1/upload/vuln-scanner/scan.csv', { method: 'PUT', body: 'x' }, apiToken)).status, 401);
    assert.equal((await api('/api/v1/upload/vuln-scanner/..%2Fservice-desk%2Fx.csv', { method: 'PUT', body: 'x' }, token)).status, 400);
    assert.equal(existsSync(join(drop(), 'service-desk', 'scan.csv')), false);
    assert.equal(existsSync(join(drop(), 'vuln-scanner', 'scan.csv')), false);
    // The upload token opens nothing else.
    assert.equal((await api('/api/v1/sources/scanner/files', {}, token)).status, 401);
  });

  test('the guide curl line works as printed', { skip: CURL_SKIP }, async () => {
    const g = await json<FileDropGuide>(
      await api('/api/v1/sources/desk/file-drop', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }),
    );
    const dir = join(db.dataDir, 'cli');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'export.csv'), 'id,subject\n5,vpn\n');
    const line = g.commands.find((c) => c.command.startsWith('curl '));
    assert.ok(line);
    await run('sh', ['-c', line.command], { cwd: dir, timeout: 20_000 });
    assert.equal(readFileSync(join(drop(), 'service-desk', 'export.csv'), 'utf8'), 'id,subject\n5,vpn\n');
  });

  test('refused after revoke and after expiry', async () => {
    assert.equal((await api(`/api/v1/sources/scanner/file-drop/tokens/${tokenId}`, { method: 'DELETE' })).status, 204);
    const revoked = await api('/api/v1/upload/vuln-scanner/again.csv', { method: 'PUT', body: 'x' }, token);
    assert.equal(revoked.status, 401);
    assert.match((await json<ApiErrorBody>(revoked)).error.message, /revoked/);
    assert.equal((await api('/api/v1/sources/scanner/file-drop/tokens/no-such-id', { method: 'DELETE' })).status, 404);

    const g = await json<FileDropGuide & { token: NonNullable<FileDropGuide['token']> }>(
      await api('/api/v1/sources/scanner/file-drop', {
        method: 'POST',
        body: JSON.stringify({ file: 'one.csv', expires: 120 }),
        headers: { 'content-type': 'application/json' },
      }),
    );
    assert.equal(
      (await api('/api/v1/upload/vuln-scanner/two.csv', { method: 'PUT', body: 'x' }, g.token.token)).status,
      403,
      'a file-bound token uploads only that file',
    );
    assert.equal((await api('/api/v1/upload/vuln-scanner/one.csv', { method: 'PUT', body: 'x' }, g.token.token)).status, 201);
    await app.store.db.run(`UPDATE "upload_tokens" SET "expires_at" = ? WHERE "id" = ?`, [new Date(Date.now() - 1).toISOString(), g.token.id]);
    const expired = await api('/api/v1/upload/vuln-scanner/one.csv', { method: 'PUT', body: 'x' }, g.token.token);
    assert.equal(expired.status, 401);
    assert.match((await json<ApiErrorBody>(expired)).error.message, /expired/);
    assert.equal(existsSync(join(drop(), 'vuln-scanner', 'again.csv')), false);
  });
});
