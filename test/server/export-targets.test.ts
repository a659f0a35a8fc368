// Issue 27: scheduled export targets added through the API are confined to the export root
// (TRIBUTARY_EXPORT_DIR, default <data-dir>/exports) or an s3:// prefix checked at creation: the web
// root, the data dir and every way out of the root (`..`, absolute paths, links) answer 400; files are
// mode 0600; a folder swapped for a link after creation is refused when the export runs.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { DEFAULT_WEB_DIR } from '../../src/core/web-dir.ts';
import { exportRootOf } from '../../src/export/confine.ts';
import { seedSource } from '../export/seed.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { call, serverOn } from './helpers.ts';

const outside = mkdtempSync(join(tmpdir(), 'tributary-outside-'));
after(() => rmSync(outside, { recursive: true, force: true }));

for (const backend of BACKENDS) {
  describe(`scheduled export targets on ${backend.kind}`, { skip: backend.skip }, () => {
    const server = serverOn(backend, (h) => seedSource(h.app, 'lab', { hosts: 2, findings: 3 }).then(() => undefined));
    let n = 0;
    const add = (target: string, format = 'csv') =>
      call(server.h.server, { method: 'POST', url: '/api/v1/exports', headers: server.auth, payload: { name: `t${++n}`, target, format, models: ['hosts'] } });
    const run = async (name: string) => {
      const res = await call(server.h.server, { method: 'POST', url: `/api/v1/exports/${name}/run`, headers: server.auth });
      assert.equal(res.statusCode, 200, res.body);
      return (res.data as { items: { status: string; attempts: number; files: string[]; error: string | null }[] }).items[0]!;
    };

    test('the web root, the data dir and every way out of the export root answer 400 at creation', async () => {
      const data = server.h.dataDir;
      const root = exportRootOf(server.h.app);
      mkdirSync(root, { recursive: true });
      symlinkSync(outside, join(root, 'link-out'));
      symlinkSync(data, join(root, 'link-data'));
      symlinkSync(join(outside, 'not-there'), join(root, 'dangling'));
      const refused = [
        DEFAULT_WEB_DIR,
        join(DEFAULT_WEB_DIR, 'assets'),
        data,
        join(data, 'drop'),
        join(data, 'EXPORTS'),
        join(root, '..'),
        '..',
        '../../..',
        'lake/../../drop',
        outside,
        '/tmp',
        'link-out',
        'link-out/sub',
        'link-data',
        'dangling/sub',
        '-',
        'https://example.com/x',
        's3://',
        's3:///prefix',
        's3://Bad_Bucket/x',
        's3://ab/x',
        's3://10.0.0.1/x',
        's3://lake/a/../b',
      ];
      for (const target of refused) {
        const res = await add(target);
        assert.equal(res.statusCode, 400, `${target}: ${res.body}`);
        assert.equal((res.data as { error: { field: string } }).error.field, 'target', target);
      }
      const list = await call(server.h.server, { method: 'GET', url: '/api/v1/exports', headers: server.auth });
      assert.deepEqual((list.data as { items: unknown[] }).items, [], 'nothing refused was stored');
    });

    test('the web root is refused inside an export root that holds it; an s3:// prefix is taken as given', async () => {
      const env = server.h.app.env;
      const root = mkdtempSync(join(tmpdir(), 'tributary-export-root-'));
      Object.assign(env, { TRIBUTARY_EXPORT_DIR: root, TRIBUTARY_WEB_DIR: join(root, 'site', 'web') });
      try {
        mkdirSync(join(root, 'site', 'web'), { recursive: true });
        for (const target of ['site/web', 'site/web/assets', join(root, 'site', 'WEB', '..', 'web'), 'site', '.']) {
          const res = await add(target);
          assert.equal(res.statusCode, 400, `${target}: ${res.body}`);
          assert.match(res.body, /web UI/);
        }
        assert.equal((await add('reports')).statusCode, 201, 'beside the web root is fine');
        const s3 = await add('s3://lake-01/tributary/daily');
        assert.equal(s3.statusCode, 201, s3.body);
        assert.equal((s3.data as { target: string }).target, 's3://lake-01/tributary/daily');
      } finally {
        delete env.TRIBUTARY_EXPORT_DIR;
        delete env.TRIBUTARY_WEB_DIR;
        rmSync(root, { recursive: true, force: true });
        for (const name of [`t${n - 1}`, `t${n}`]) await call(server.h.server, { method: 'DELETE', url: `/api/v1/exports/${name}`, headers: server.auth });
      }
    });

    test('a relative target is written under the export root, files mode 0600', async () => {
      const res = await add('nightly/csv');
      assert.equal(res.statusCode, 201, res.body);
      const dir = join(exportRootOf(server.h.app), 'nightly', 'csv');
      assert.equal((res.data as { target: string }).target, dir);
      const st = await run(`t${n}`);
      assert.equal(st.status, 'succeeded', st.error ?? '');
      const files = readdirSync(join(dir, 'lab'));
      assert.equal(files.length, 1);
      assert.match(files[0]!, /^hosts-.*\.csv$/);
      assert.equal(statSync(join(dir, 'lab', files[0]!)).mode & 0o777, 0o600);
      assert.equal(statSync(join(dir, 'lab')).mode & 0o077, 0, 'the folders are the service’s alone');
    });

    test('a folder swapped for a link out of the root after creation is refused when the export runs, without retries', async () => {
      const res = await add('swapped');
      assert.equal(res.statusCode, 201, res.body);
      const dir = join(exportRootOf(server.h.app), 'swapped');
      rmSync(dir, { recursive: true, force: true });
      symlinkSync(outside, dir);
      const st = await run(`t${n}`);
      assert.equal(st.status, 'failed');
      assert.equal(st.attempts, 1);
      assert.match(st.error ?? '', /export root/);
      assert.deepEqual(readdirSync(outside), [], 'nothing was written outside the root');
    });
  });
}
