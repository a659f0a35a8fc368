// Import bookkeeping, upload tokens, uploads and the guide on both stores (SQLite in a temp dir,
// PostgreSQL in a fresh database), with the local-folder backend.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { InputError } from '../../src/core/errors.ts';
import type { BucketObject, FileImportResult, SourceBucket } from '../../src/core/files.ts';
import { fileDropGuide } from '../../src/filedrop/guide.ts';
import { listFiles, listImports, MAX_STORED_REJECTIONS, openSourceBucket } from '../../src/filedrop/imports.ts';
import { createUploadToken, listUploadTokens, revokeUploadToken, UploadAuthError, verifyUploadToken } from '../../src/filedrop/tokens.ts';
import { type UploadProgress, uploadFiles } from '../../src/filedrop/upload.ts';
import type { SourceRecord } from '../../src/store/index.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { type FileDropApp, openTestApp, readAll } from './helpers.ts';

/** What a file-mode stream does with its bucket: import every object version not imported yet. */
async function syncOnce(bucket: SourceBucket): Promise<string[]> {
  const done: string[] = [];
  for await (const obj of bucket.list()) {
    if (await bucket.isImported(obj)) continue;
    const text = await readAll(await bucket.open(obj.key));
    const lines = text.split('\n').filter(Boolean);
    const rejections = lines.flatMap((l, i) => (l.includes('bad') ? [{ line: i + 1, reason: `row ${i + 1} is bad` }] : []));
    await bucket.recordImport(
      result(obj, {
        rowsRead: lines.length - 1,
        rowsImported: lines.length - 1 - rejections.length,
        rowsRejected: rejections.length,
        rejections,
        status: rejections.length ? 'partial' : 'imported',
      }),
    );
    done.push(obj.key);
  }
  return done;
}

function result(obj: BucketObject, over: Partial<FileImportResult> = {}): FileImportResult {
  return {
    key: obj.key,
    etag: obj.etag,
    size: obj.size,
    kind: 'test-export',
    rowsRead: 0,
    rowsImported: 0,
    rowsRejected: 0,
    rejections: [],
    status: 'imported',
    error: null,
    ...over,
  };
}

const expect401 = (err: unknown) => err instanceof UploadAuthError && err.statusCode === 401;
const expect403 = (err: unknown) => err instanceof UploadAuthError && err.statusCode === 403;

for (const backend of BACKENDS) {
  describe(`file drop on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let app: FileDropApp;
    let sc: SourceRecord;
    let sd: SourceRecord;
    let files: string;

    before(async () => {
      db = await backend.create();
      app = await openTestApp(db, { maxUploadBytes: 10_000 });
      sc = await app.store.sources.create('scanner', 'tenable-sc', { inputMode: 'file', bucket: 'vuln-scanner' }, null);
      sd = await app.store.sources.create('desk', 'servicedesk-plus', { inputMode: 'file' }, null);
      files = join(db.dataDir, 'local-files');
      mkdirSync(files, { recursive: true });
      writeFileSync(join(files, 'vulns.csv'), 'ip,plugin\n10.0.0.1,1\n10.0.0.2,2\n');
      writeFileSync(join(files, 'hosts.csv'), 'ip,name\n10.0.0.1,a\nbad row\n');
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    test('migration 2 created the file-drop tables', async () => {
      assert.ok((await app.store.schemaVersion()) >= 2);
      for (const t of ['file_imports', 'upload_tokens'])
        assert.deepEqual(await app.store.db.all(`SELECT COUNT(*) AS "n" FROM "${t}"`).then((r) => Number(r[0].n)), 0);
    });

    test('uploadFiles puts files into the source bucket with progress, refusing bad input up front', async () => {
      const events: UploadProgress[] = [];
      const up = await uploadFiles(app, 'scanner', [join(files, 'vulns.csv'), join(files, 'hosts.csv')], (p) => events.push(p));
      assert.deepEqual(
        up.map((u) => [u.key, u.bucket, u.address, u.size]),
        [
          ['vulns.csv', 'vuln-scanner', 's3://vuln-scanner/vulns.csv', 32],
          ['hosts.csv', 'vuln-scanner', 's3://vuln-scanner/hosts.csv', 27],
        ],
      );
      assert.deepEqual(
        events.filter((e) => e.done).map((e) => [e.key, e.bytes, e.total, e.index, e.count]),
        [
          ['vulns.csv', 32, 32, 0, 2],
          ['hosts.csv', 27, 27, 1, 2],
        ],
      );
      await assert.rejects(uploadFiles(app, 'scanner', [join(files, 'missing.csv')]), (e: Error) => e instanceof InputError && /cannot read/.test(e.message));
      await assert.rejects(uploadFiles(app, 'scanner', [files]), /not a regular file/);
      writeFileSync(join(db.dataDir, 'vulns.csv'), 'other');
      await assert.rejects(uploadFiles(app, 'scanner', [join(files, 'vulns.csv'), join(db.dataDir, 'vulns.csv')]), /both be stored as 'vulns.csv'/);
      writeFileSync(join(files, 'huge.csv'), 'x'.repeat(10_001));
      await assert.rejects(uploadFiles(app, 'scanner', [join(files, 'huge.csv')]), /larger than the upload limit/);
      await assert.rejects(uploadFiles(app, 'nobody', [join(files, 'vulns.csv')]), /no source named 'nobody'/);
      await assert.rejects(uploadFiles(app, 'scanner', []), InputError);
    });

    test('a sync imports each object version once; a changed file is imported again', async () => {
      const bucket = openSourceBucket(app, sc, { runId: 'run-1' });
      // A local bucket is shown as its folder.
      assert.ok(isAbsolute(bucket.address) && bucket.address.endsWith(`${sep}vuln-scanner`), bucket.address);
      assert.deepEqual((await syncOnce(bucket)).sort(), ['hosts.csv', 'vulns.csv']);
      assert.deepEqual(await syncOnce(openSourceBucket(app, sc, { runId: 'run-2' })), [], 're-running imports nothing twice');

      const imports = await listImports(app, sc.id);
      const hosts = imports.find((i) => i.key === 'hosts.csv');
      assert.ok(hosts);
      assert.deepEqual(
        {
          status: hosts.status,
          rowsRead: hosts.rowsRead,
          rowsImported: hosts.rowsImported,
          rowsRejected: hosts.rowsRejected,
          rejections: hosts.rejections,
          runId: hosts.runId,
          bucket: hosts.bucket,
          kind: hosts.kind,
        },
        {
          status: 'partial',
          rowsRead: 2,
          rowsImported: 1,
          rowsRejected: 1,
          rejections: [{ line: 3, reason: 'row 3 is bad' }],
          runId: 'run-1',
          bucket: 'vuln-scanner',
          kind: 'test-export',
        },
      );

      writeFileSync(join(files, 'vulns.csv'), 'ip,plugin\n10.0.0.1,1\n10.0.0.3,3\n10.0.0.4,4\n');
      await uploadFiles(app, 'scanner', [join(files, 'vulns.csv')]);
      const view = await listFiles(app, sc);
      assert.equal(view.address, 's3://vuln-scanner/');
      assert.deepEqual(
        view.items.map((i) => [i.key, i.status]),
        [
          ['hosts.csv', 'partial'],
          ['vulns.csv', 'changed'],
        ],
      );
      assert.equal(view.items[0].import?.rowsRejected, 1);
      assert.equal(view.items[1].import, null);

      assert.deepEqual(await syncOnce(openSourceBucket(app, sc, { runId: 'run-3' })), ['vulns.csv']);
      assert.deepEqual(await syncOnce(openSourceBucket(app, sc, { runId: 'run-4' })), []);
      assert.equal((await listImports(app, sc.id, 'vulns.csv')).length, 2, 'both versions are on record');
      assert.deepEqual(
        (await listFiles(app, sc)).items.map((i) => i.status),
        ['partial', 'imported'],
      );
      // A forced re-import sees everything as new.
      assert.deepEqual((await syncOnce(openSourceBucket(app, sc, { reimport: true }))).sort(), ['hosts.csv', 'vulns.csv']);
      assert.equal((await listImports(app, sc.id)).length, 3, 'recording the same version again replaces its record');
    });

    test('bookkeeping is per source, bounded, and refuses malformed results', async () => {
      const deskBucket = openSourceBucket(app, sd);
      assert.ok(isAbsolute(deskBucket.address) && deskBucket.address.endsWith(`${sep}service-desk`), deskBucket.address);
      const [vulns] = (await listFiles(app, sc)).items.filter((i) => i.key === 'vulns.csv');
      assert.equal(await deskBucket.isImported(vulns), false, 'another source has its own record');

      const obj: BucketObject = { key: 'big.csv', etag: 'abc', size: 10, lastModified: new Date().toISOString() };
      const many = Array.from({ length: MAX_STORED_REJECTIONS + 50 }, (_, i) => ({ line: i + 2, reason: 'missing IP' }));
      await deskBucket.recordImport(
        result(obj, { rowsRead: many.length, rowsRejected: many.length, rejections: many, status: 'rejected', error: 'no usable rows', kind: null }),
      );
      const [rec] = await listImports(app, sd.id, 'big.csv');
      assert.equal(rec.rejections.length, MAX_STORED_REJECTIONS);
      assert.equal(rec.rowsRejected, MAX_STORED_REJECTIONS + 50);
      assert.equal(rec.error, 'no usable rows');
      assert.equal(rec.kind, null);
      assert.equal(await deskBucket.isImported(obj), true);
      assert.equal(await deskBucket.isImported({ ...obj, etag: 'def' }), false);
      await assert.rejects(deskBucket.recordImport(result(obj, { status: 'done' as never })), InputError);
      await assert.rejects(deskBucket.recordImport(result(obj, { rowsRead: -1 })), InputError);
    });

    test('upload tokens: scoped to one bucket (and file), stored hashed, refused after revoke or expiry', async () => {
      const t = await createUploadToken(app, sc, { expiresSeconds: 3600, createdBy: 'admin' });
      assert.match(t.token, /^tfu_[\w-]{40,}$/);
      const raw = await app.store.db.all(`SELECT * FROM "upload_tokens" WHERE "id" = ?`, [t.id]);
      assert.notEqual(raw[0].token_hash, t.token);
      assert.ok(!JSON.stringify(raw).includes(t.token), 'the token itself is not stored');

      const ok = await verifyUploadToken(app, `Bearer ${t.token}`, 'vuln-scanner', 'any.csv');
      assert.equal(ok.sourceName, 'scanner');
      await assert.rejects(verifyUploadToken(app, `Bearer ${t.token}`, 'service-desk', 'any.csv'), expect403);
      await assert.rejects(verifyUploadToken(app, undefined, 'vuln-scanner', 'any.csv'), expect401);
      await assert.rejects(verifyUploadToken(app, 'Bearer tfu_unknown', 'vuln-scanner', 'any.csv'), expect401);
      await assert.rejects(verifyUploadToken(app, `Basic ${t.token}`, 'vuln-scanner', 'any.csv'), expect401);

      const one = await createUploadToken(app, sc, { expiresSeconds: 3600, file: 'only.csv' });
      await verifyUploadToken(app, `Bearer ${one.token}`, 'vuln-scanner', 'only.csv');
      await assert.rejects(verifyUploadToken(app, `Bearer ${one.token}`, 'vuln-scanner', 'other.csv'), expect403);

      await assert.rejects(revokeUploadToken(app, sd.id, t.id), /no upload token/, 'another source cannot revoke it');
      const revoked = await revokeUploadToken(app, sc.id, t.id);
      assert.ok(revoked.revokedAt);
      await assert.rejects(verifyUploadToken(app, `Bearer ${t.token}`, 'vuln-scanner', 'any.csv'), (e: Error) => expect401(e) && /revoked/.test(e.message));

      await app.store.db.run(`UPDATE "upload_tokens" SET "expires_at" = ? WHERE "id" = ?`, [new Date(Date.now() - 1000).toISOString(), one.id]);
      await assert.rejects(verifyUploadToken(app, `Bearer ${one.token}`, 'vuln-scanner', 'only.csv'), (e: Error) => expect401(e) && /expired/.test(e.message));

      const tokens = await listUploadTokens(app, sc.id);
      assert.deepEqual(tokens.map((x) => x.id).sort(), [t.id, one.id].sort());
      assert.equal(tokens.find((x) => x.id === t.id)?.createdBy, 'admin');
    });

    test('the guide on the local backend: address, a bucket-scoped token and a curl line; shared buckets are named', async () => {
      const g = await fileDropGuide(app, 'desk', { expires: '30m', baseUrl: 'https://tributary.example:8443/' });
      assert.equal(g.address, 's3://service-desk/');
      assert.equal(g.backend, 'file');
      assert.equal(g.presignedUrl, null);
      assert.ok(g.token);
      assert.equal(g.uploadUrl, 'https://tributary.example:8443/api/v1/upload/service-desk/');
      const ms = Date.parse(g.expiresAt) - Date.now();
      assert.ok(ms > 29 * 60_000 && ms <= 30 * 60_000, 'expires in 30 minutes');
      assert.ok(
        g.commands.some(
          (c) =>
            c.command === `curl --fail -H 'Authorization: Bearer ${g.token?.token}' -T ./export.csv https://tributary.example:8443/api/v1/upload/service-desk/`,
        ),
      );
      assert.ok(g.commands.some((c) => c.command === 'tributary upload desk ./export.csv'));
      assert.deepEqual(g.sharedWith, []);
      await verifyUploadToken(app, `Bearer ${g.token.token}`, 'service-desk', 'export.csv');

      await app.store.sources.create('desk-2', 'servicedesk-plus', { inputMode: 'file' }, null);
      const shared = await fileDropGuide(app, 'desk', { file: 'tickets.csv' });
      assert.deepEqual(shared.sharedWith, ['desk-2']);
      assert.ok(shared.notes.some((n) => n.includes("'desk-2'")));
      assert.equal(shared.token?.file, 'tickets.csv');
      await assert.rejects(fileDropGuide(app, 'desk', { expires: '30d' }), InputError);
      await assert.rejects(fileDropGuide(app, 'desk', { file: '../x.csv' }), InputError);
    });
  });
}
