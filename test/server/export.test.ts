// GET /api/v1/export/{model}: streamed downloads with the list's filters, on both stores; errors
// before the first byte are 400/404 JSON.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fieldsOf } from '../../src/core/models.ts';
import { validateOcsf } from '../export/ocsf-schema.ts';
import { readOcsfParquet } from '../export/parquet-read.ts';
import { seedSource } from '../export/seed.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { apiToken, bearer, call, type Harness, makeHarness } from './helpers.ts';

/** NDJSON is no JSON document: these responses are read as text. */
const download = (h: Harness, url: string, headers: Record<string, string>) => h.server.inject({ method: 'GET', url, headers });

for (const backend of BACKENDS) {
  describe(`export API on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let h: Harness;
    let auth: Record<string, string>;

    before(async () => {
      db = await backend.create();
      h = await makeHarness({ db: db.url });
      auth = bearer(await apiToken(h.server));
      await seedSource(h.app, 'lab', { hosts: 3, findings: 14 });
    });
    after(async () => {
      await h?.close();
      await db?.drop();
    });

    test('OCSF download of the filtered findings, every event valid', async () => {
      const res = await download(h, '/api/v1/export/vulnerabilities?format=ocsf&ocsfVersion=1.3.0&severity=critical&source=lab', auth);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /application\/x-ndjson/);
      assert.match(String(res.headers['content-disposition']), /attachment; filename="vulnerabilities-\d{8}T\d{6}Z\.ocsf\.jsonl"/);
      const events = res.body
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const want = (await h.app.store.query('vulnerabilities', { filters: [{ field: 'severity', op: '=', value: 'critical' }], limit: 100 })).records.length;
      assert.equal(events.length, want);
      for (const e of events) {
        assert.equal(e.severity_id, 5);
        assert.deepEqual(validateOcsf('1.3.0', e), []);
      }
    });

    test('CSV and ECS bulk with where filters', async () => {
      const csv = await download(h, `/api/v1/export/hosts?format=csv&where=${encodeURIComponent('hostname~host')}`, auth);
      assert.equal(csv.statusCode, 200);
      const rows = csv.body.trim().split('\n');
      assert.equal(
        rows[0],
        fieldsOf('hosts')
          .map((f) => f.name)
          .join(','),
      );
      assert.equal(rows.length, 4);
      const ecs = await download(h, '/api/v1/export/vulnerabilities?format=ecs&ecsBulk=true', auth);
      const lines = ecs.body.trim().split('\n');
      assert.equal(lines.length, 28);
      assert.ok(JSON.parse(lines[0]).index._id);
    });

    test('OCSF as Parquet download: the same events as the JSON download, as a binary file', async () => {
      const res = await download(h, '/api/v1/export/vulnerabilities?format=ocsf-parquet&severity=high', auth);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'application/vnd.apache.parquet');
      assert.match(String(res.headers['content-disposition']), /filename="vulnerabilities-\d{8}T\d{6}Z\.ocsf\.parquet"/);
      const json = await download(h, '/api/v1/export/vulnerabilities?format=ocsf&severity=high', auth);
      const want = json.body
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.ok(want.length > 0);
      assert.deepEqual(await readOcsfParquet(res.rawPayload), want);
      const bad = await call(h.server, { method: 'GET', url: '/api/v1/export/tickets?format=ocsf-parquet', headers: auth });
      assert.equal(bad.statusCode, 400, 'an unmappable model answers 400 before the first byte');
    });

    test('scheduled export destinations: add, run now, status on the source, remove', async () => {
      const target = join(h.dataDir, 'exports');
      const add = await call(h.server, {
        method: 'POST',
        url: '/api/v1/exports',
        headers: auth,
        payload: { name: 'lake', target, format: 'ocsf', ocsfVersion: '1.3.0', models: ['vulnerabilities', 'software'] },
      });
      assert.equal(add.statusCode, 201, add.body);
      assert.equal((add.data as { source: string | null }).source, null);
      const dup = await call(h.server, { method: 'POST', url: '/api/v1/exports', headers: auth, payload: { name: 'lake', target, format: 'csv' } });
      assert.equal(dup.statusCode, 409);
      const bad = await call(h.server, {
        method: 'POST',
        url: '/api/v1/exports',
        headers: auth,
        payload: { name: 'x', target, format: 'ocsf', models: ['software'] },
      });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.body, /1\.3\.0/);
      const run = await call(h.server, { method: 'POST', url: '/api/v1/exports/lake/run', headers: auth });
      assert.equal(run.statusCode, 200, run.body);
      const [st] = (run.data as { items: { status: string; records: number; files: string[] }[] }).items;
      assert.equal(st.status, 'succeeded');
      assert.equal(st.records, 15);
      assert.equal(readdirSync(join(target, 'lab')).length, 2);
      const source = await call(h.server, { method: 'GET', url: '/api/v1/sources/lab', headers: auth });
      assert.equal(source.statusCode, 200);
      const exports = (source.data as { exports: { destination: string; status: string }[] }).exports;
      assert.deepEqual(
        exports.map((e) => [e.destination, e.status]),
        [['lake', 'succeeded']],
      );
      const list = await call(h.server, { method: 'GET', url: '/api/v1/exports', headers: auth });
      assert.equal((list.data as { items: unknown[] }).items.length, 1);
      const del = await call(h.server, { method: 'DELETE', url: '/api/v1/exports/lake', headers: auth });
      assert.equal(del.statusCode, 200);
      assert.equal((await call(h.server, { method: 'DELETE', url: '/api/v1/exports/lake', headers: auth })).statusCode, 404);
    });

    test('bad requests answer before streaming; no session, no export', async () => {
      const cases: [string, number, RegExp][] = [
        ['/api/v1/export/vulnerabilities?format=xml', 400, /format/],
        ['/api/v1/export/vulnerabilities', 400, /format/],
        ['/api/v1/export/tickets?format=ocsf', 400, /no mapping for tickets/],
        ['/api/v1/export/vulnerabilities?format=jsonl&colour=red', 400, /unknown field 'colour'/],
        ['/api/v1/export/vulnerabilities?format=jsonl&since=whenever', 400, /since/],
        ['/api/v1/export/vulnerabilities?format=jsonl&source=nope', 400, /no source named 'nope'/],
        ['/api/v1/export/nothing?format=jsonl', 400, /model/],
      ];
      for (const [url, status, re] of cases) {
        const res = await call(h.server, { method: 'GET', url, headers: auth });
        assert.equal(res.statusCode, status, `${url}: ${res.body}`);
        assert.match(res.body, re);
      }
      const anon = await call(h.server, { method: 'GET', url: '/api/v1/export/vulnerabilities?format=jsonl' });
      assert.equal(anon.statusCode, 401);
    });
  });
}
