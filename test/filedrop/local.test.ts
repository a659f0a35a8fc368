// The local-folder backend: upload, list, open, atomic writes, the size limit, content etags,
// and that nothing reads or writes outside the bucket folder.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { InputError, NotFoundError } from '../../src/core/errors.ts';
import { TooLargeError } from '../../src/filedrop/backend.ts';
import { LocalBackend } from '../../src/filedrop/local.ts';
import { tempDir } from '../helpers/databases.ts';
import { listAll, md5, readAll } from './helpers.ts';

let root: string;
let b: LocalBackend;
const list = (bucket: string) => listAll(b, bucket);

before(() => {
  root = tempDir('tributary-drop-');
  b = new LocalBackend(join(root, 'drop'));
});
after(() => rmSync(root, { recursive: true, force: true }));

test('a missing bucket lists as empty; put creates it and the file lands in <root>/<bucket>/<key>', async () => {
  assert.deepEqual(await list('vuln-scanner'), []);
  const obj = await b.put('vuln-scanner', 'export.csv', Readable.from([Buffer.from('a,b\n'), Buffer.from('1,2\n')]));
  assert.equal(obj.key, 'export.csv');
  assert.equal(obj.size, 8);
  assert.equal(obj.etag, md5('a,b\n1,2\n'));
  assert.equal(readFileSync(join(root, 'drop', 'vuln-scanner', 'export.csv'), 'utf8'), 'a,b\n1,2\n');
  assert.deepEqual(await list('vuln-scanner'), [obj]);
  assert.equal(await readAll(await b.open('vuln-scanner', 'export.csv')), 'a,b\n1,2\n');
  assert.deepEqual(await b.stat('vuln-scanner', 'export.csv'), obj);
  assert.equal(await b.stat('vuln-scanner', 'nope.csv'), null);
  await assert.rejects(b.open('vuln-scanner', 'nope.csv'), NotFoundError);
});

test('an upload in progress is never listed, and replacing a file is atomic', async () => {
  const body = new PassThrough();
  const putting = b.put('vuln-scanner', 'slow.csv', body);
  body.write('first half,');
  await new Promise((r) => setTimeout(r, 30));
  // Half-written: not in the bucket, not listed; the partial data sits in .incoming only.
  assert.deepEqual(
    (await list('vuln-scanner')).map((o) => o.key),
    ['export.csv'],
  );
  assert.equal(existsSync(join(root, 'drop', 'vuln-scanner', 'slow.csv')), false);
  assert.equal(readdirSync(join(root, 'drop', '.incoming')).length, 1);
  body.end('second half\n');
  const done = await putting;
  assert.equal(done.etag, md5('first half,second half\n'));
  assert.deepEqual(
    (await list('vuln-scanner')).map((o) => o.key),
    ['export.csv', 'slow.csv'],
  );
  assert.deepEqual(readdirSync(join(root, 'drop', '.incoming')), []);

  // A replacement that fails half way leaves the old version in place.
  const failing = new Readable({ read() {} });
  const replacing = b.put('vuln-scanner', 'slow.csv', failing);
  failing.push('partial new content');
  setTimeout(() => failing.destroy(new Error('client went away')), 20);
  await assert.rejects(replacing, /client went away/);
  assert.equal(readFileSync(join(root, 'drop', 'vuln-scanner', 'slow.csv'), 'utf8'), 'first half,second half\n');
  assert.deepEqual(readdirSync(join(root, 'drop', '.incoming')), []);
});

test('the size limit refuses larger bodies and leaves nothing behind', async () => {
  await assert.rejects(b.put('vuln-scanner', 'big.csv', Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), { maxBytes: 1000 }), TooLargeError);
  await assert.rejects(b.put('vuln-scanner', 'big.csv', Readable.from([Buffer.alloc(10)]), { maxBytes: 1000, size: 5000 }), TooLargeError);
  assert.equal(await b.stat('vuln-scanner', 'big.csv'), null);
  assert.deepEqual(readdirSync(join(root, 'drop', '.incoming')), []);
  const exact = await b.put('vuln-scanner', 'exact.csv', Readable.from([Buffer.alloc(1000, 65)]), { maxBytes: 1000 });
  assert.equal(exact.size, 1000);
  assert.equal(await b.delete('vuln-scanner', 'exact.csv'), true);
  assert.equal(await b.delete('vuln-scanner', 'exact.csv'), false);
});

test('files dropped into the folder by other means are listed with a content etag that follows changes', async () => {
  const dir = join(root, 'drop', 'service-desk');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'requests.csv'), 'id\n1\n');
  const [first] = await list('service-desk');
  assert.equal(first.etag, md5('id\n1\n'));
  // Same content, new mtime: same etag. New content: new etag.
  utimesSync(join(dir, 'requests.csv'), new Date(Date.now() + 5000), new Date(Date.now() + 5000));
  assert.equal((await list('service-desk'))[0].etag, first.etag);
  writeFileSync(join(dir, 'requests.csv'), 'id\n1\n2\n');
  assert.equal((await list('service-desk'))[0].etag, md5('id\n1\n2\n'));
  // Hidden files, folders and symbolic links are not objects.
  writeFileSync(join(dir, '.partial.csv'), 'x');
  mkdirSync(join(dir, 'sub'));
  symlinkSync('/etc/passwd', join(dir, 'passwd.csv'));
  assert.deepEqual(
    (await list('service-desk')).map((o) => o.key),
    ['requests.csv'],
  );
  await assert.rejects(b.open('service-desk', 'passwd.csv'), (err: Error) => err instanceof InputError || err instanceof NotFoundError);
});

test('keys and bucket names cannot escape the drop folder', async () => {
  for (const key of ['../vuln-scanner/export.csv', '../../outside.csv', '/etc/passwd', 'a/../../x', '.meta']) {
    await assert.rejects(b.put('service-desk', key, Readable.from(['x'])), InputError, key);
    await assert.rejects(b.open('service-desk', key), InputError, key);
  }
  await assert.rejects(b.put('..', 'x.csv', Readable.from(['x'])), InputError);
  await assert.rejects(b.put('.incoming', 'x.csv', Readable.from(['x'])), InputError);
  assert.equal(existsSync(join(root, 'outside.csv')), false);
  assert.equal(existsSync(join(root, 'drop', 'x.csv')), false);
});

test('a file name of 251-255 bytes is stored, listed and deleted (its etag cache name does not grow with it)', async () => {
  for (const n of [251, 253, 255]) {
    const key = `${'n'.repeat(n - 4)}.csv`;
    assert.equal(Buffer.byteLength(key), n);
    await b.put('long-names', key, Readable.from([Buffer.from('x,y\n')]));
    assert.deepEqual(
      (await list('long-names')).map((o) => o.key),
      [key],
    );
    assert.equal(await b.delete('long-names', key), true, `delete a ${n}-byte name`);
    assert.deepEqual(await list('long-names'), []);
  }
});

test('an upload renamed over another one of the same size and time is listed with its own etag, not the cached one', async () => {
  const first = await b.put('racing', 'same.csv', Readable.from([Buffer.from('aaaa\n')]));
  const path = join(root, 'drop', 'racing', 'same.csv');
  const t = new Date('2026-01-01T00:00:00Z');
  utimesSync(path, t, t);
  assert.equal((await list('racing'))[0]!.etag, md5('aaaa\n'), 'cached for this file');
  // What a racing upload leaves: another file of the same size and mtime renamed into place after the
  // cache was written for the first.
  const other = join(root, 'other.tmp');
  writeFileSync(other, 'bbbb\n');
  utimesSync(other, t, t);
  renameSync(other, path);
  const [listed] = await list('racing');
  assert.equal(first.etag, md5('aaaa\n'));
  assert.equal(listed!.etag, md5('bbbb\n'), 'the etag of the stored file');
});
