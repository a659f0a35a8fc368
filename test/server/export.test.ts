// GET /api/v1/export/{model}: streamed downloads with the list's filters, on both stores; errors
// before the first byte are 400/404 JSON.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fieldsOf } from '../../src/core/models.ts';
import { validateOcsf } from '../export/ocsf-schema.ts';
import { readOcsfParquet } from '../export/parquet-read.ts';
import { expectedNames, hostileCells, seedHostile } from '../export/hostile-cells.ts';
import { findingRecords, seedSource, storeRun } from '../export/seed.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { call, type Harness, serverOn } from './helpers.ts';

/** NDJSON is no JSON document: these responses are read as text. */
const download = (h: Harness, url: string, headers: Record<string, string>) => h.server.inject({ method: 'GET', url, headers });

for (const backend of BACKENDS) {
  describe(`export API on ${backend.kind}`, { skip: backend.skip }, () => {
    const server = serverOn(backend, (h) => seedSource(h.app, 'lab', { hosts: 3, findings: 14 }).then(() => undefined));

    test('OCSF download of the filtered findings, every event valid', async () => {
      const res = await download(server.h, '/api/v1/export/vulnerabilities?format=ocsf&ocsfVersion=1.3.0&severity=critical&source=lab', server.auth);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /application\/x-ndjson/);
      assert.match(String(res.headers['content-disposition']), /attachment; filename="vulnerabilities-\d{8}T\d{6}Z\.ocsf\.jsonl"/);
      const events = res.body
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const want = (await server.h.app.store.records.query('vulnerabilities', { filters: [{ field: 'severity', op: '=', value: 'critical' }], limit: 100 }))
        .records.length;
      assert.equal(events.length, want);
      for (const e of events) {
        assert.equal(e.severity_id, 5);
        assert.deepEqual(validateOcsf('1.3.0', e), []);
      }
    });

    test('CSV and ECS bulk with where filters', async () => {
      const csv = await download(server.h, `/api/v1/export/hosts?format=csv&where=${encodeURIComponent('hostname~host')}`, server.auth);
      assert.equal(csv.statusCode, 200);
      const rows = csv.body.trim().split('\n');
      assert.equal(
        rows[0],
        fieldsOf('hosts')
          .map((f) => f.name)
          .join(','),
      );
      assert.equal(rows.length, 4);
      const ecs = await download(server.h, '/api/v1/export/vulnerabilities?format=ecs&ecsBulk=true', server.auth);
      const lines = ecs.body.trim().split('\n');
      assert.equal(lines.length, 28);
      assert.ok(JSON.parse(lines[0]).index._id);
    });

    test('OCSF as Parquet download: the same events as the JSON download, as a binary file', async () => {
      const res = await download(server.h, '/api/v1/export/vulnerabilities?format=ocsf-parquet&severity=high', server.auth);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'application/vnd.apache.parquet');
      assert.match(String(res.headers['content-disposition']), /filename="vulnerabilities-\d{8}T\d{6}Z\.ocsf\.parquet"/);
      const json = await download(server.h, '/api/v1/export/vulnerabilities?format=ocsf&severity=high', server.auth);
      const want = json.body
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.ok(want.length > 0);
      assert.deepEqual(await readOcsfParquet(res.rawPayload), want);
      const bad = await call(server.h.server, { method: 'GET', url: '/api/v1/export/tickets?format=ocsf-parquet', headers: server.auth });
      assert.equal(bad.statusCode, 400, 'an unmappable model answers 400 before the first byte');
    });

    test('scheduled export destinations: add, run now, status on the source, remove', async () => {
      const target = join(server.h.dataDir, 'exports');
      const add = await call(server.h.server, {
        method: 'POST',
        url: '/api/v1/exports',
        headers: server.auth,
        payload: { name: 'lake', target, format: 'ocsf', ocsfVersion: '1.3.0', models: ['vulnerabilities', 'software'] },
      });
      assert.equal(add.statusCode, 201, add.body);
      assert.equal((add.data as { source: string | null }).source, null);
      const dup = await call(server.h.server, {
        method: 'POST',
        url: '/api/v1/exports',
        headers: server.auth,
        payload: { name: 'lake', target, format: 'csv' },
      });
      assert.equal(dup.statusCode, 409);
      const bad = await call(server.h.server, {
        method: 'POST',
        url: '/api/v1/exports',
        headers: server.auth,
        payload: { name: 'x', target, format: 'ocsf', models: ['software'] },
      });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.body, /1\.3\.0/);
      const run = await call(server.h.server, { method: 'POST', url: '/api/v1/exports/lake/run', headers: server.auth });
      assert.equal(run.statusCode, 200, run.body);
      const [st] = (run.data as { items: { status: string; records: number; files: string[] }[] }).items;
      assert.equal(st.status, 'succeeded');
      assert.equal(st.records, 15);
      assert.equal(readdirSync(join(target, 'lab')).length, 2);
      const source = await call(server.h.server, { method: 'GET', url: '/api/v1/sources/lab', headers: server.auth });
      assert.equal(source.statusCode, 200);
      const exports = (source.data as { exports: { destination: string; status: string }[] }).exports;
      assert.deepEqual(
        exports.map((e) => [e.destination, e.status]),
        [['lake', 'succeeded']],
      );
      const list = await call(server.h.server, { method: 'GET', url: '/api/v1/exports', headers: server.auth });
      assert.equal((list.data as { items: unknown[] }).items.length, 1);
      const del = await call(server.h.server, { method: 'DELETE', url: '/api/v1/exports/lake', headers: server.auth });
      assert.equal(del.statusCode, 200);
      assert.equal((await call(server.h.server, { method: 'DELETE', url: '/api/v1/exports/lake', headers: server.auth })).statusCode, 404);
    });

    test('the export menu comes from the format registry: each entry downloads, and OCSF 1.3 adds software', async () => {
      const res = await call(server.h.server, { method: 'GET', url: '/api/v1/export/formats', headers: server.auth });
      assert.equal(res.statusCode, 200, res.body);
      const items = (res.data as { items: unknown[] }).items as {
        id: string;
        format: string;
        label: string;
        params: Record<string, string>;
        models: string[];
      }[];
      assert.deepEqual(new Set(items.map((i) => i.format)), new Set(['ocsf', 'ocsf-parquet', 'ecs', 'jsonl', 'csv']));
      assert.equal(new Set(items.map((i) => i.id)).size, items.length);
      const byId = new Map(items.map((i) => [i.id, i]));
      assert.ok(!byId.get('ocsf')!.models.includes('software'));
      assert.deepEqual(byId.get('ocsf-1.3.0')!.params, { ocsfVersion: '1.3.0' });
      assert.ok(byId.get('ocsf-1.3.0')!.models.includes('software'));
      assert.ok(byId.get('csv')!.models.includes('tickets') && !byId.get('ecs')!.models.includes('tickets'));
      // What the menu offers for a model, the export of that model writes.
      for (const i of items.filter((x) => x.models.includes('vulnerabilities'))) {
        const q = new URLSearchParams({ format: i.format, ...i.params, source: 'lab' });
        const got = await download(server.h, `/api/v1/export/vulnerabilities?${q}`, server.auth);
        assert.equal(got.statusCode, 200, `${i.id}: ${got.body.slice(0, 200)}`);
      }
      // The OpenAPI document names the registry's formats.
      const doc = (await call(server.h.server, { method: 'GET', url: '/api/v1/openapi.json', headers: server.auth })).data as {
        paths: Record<string, { get: { parameters: { name: string; schema: { enum: string[] } }[] } }>;
      };
      const param = doc.paths['/api/v1/export/{model}'].get.parameters.find((p) => p.name === 'format')!;
      assert.deepEqual(new Set(param.schema.enum), new Set(items.map((i) => i.format)));
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
        const res = await call(server.h.server, { method: 'GET', url, headers: server.auth });
        assert.equal(res.statusCode, status, `${url}: ${res.body}`);
        assert.match(res.body, re);
      }
      const anon = await call(server.h.server, { method: 'GET', url: '/api/v1/export/vulnerabilities?format=jsonl' });
      assert.equal(anon.statusCode, 401);
    });

    // Last: it adds sources the counts above do not expect.
    test('CSV download: formula-like upstream text prefixed, numbers untouched; csvEscape=false raw (issue 27)', async () => {
      await seedHostile(server.h.app);
      for (const raw of [false, true]) {
        const res = await download(server.h, `/api/v1/export/vulnerabilities?format=csv&source=hostile${raw ? '&csvEscape=false' : ''}`, server.auth);
        assert.equal(res.statusCode, 200, res.body);
        const { names, ports } = await hostileCells(res.body);
        assert.deepEqual(names, expectedNames(raw), raw ? 'raw' : 'neutralised');
        assert.deepEqual(new Set(ports), new Set(['-1']));
      }
      const bad = await call(server.h.server, { method: 'GET', url: '/api/v1/export/hosts?format=jsonl&csvEscape=false', headers: server.auth });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.body, /csvEscape goes with format=csv/);
    });

    test("?since= a run is after it: its own records are left out, a later run's are in", async () => {
      const lab = await server.h.app.store.sources.get('lab');
      const first = (await server.h.app.store.runs.last(lab.id))!.id;
      const plugins = async (since: string) => {
        const res = await download(server.h, `/api/v1/export/vulnerabilities?format=jsonl&source=lab&since=${since}`, server.auth);
        assert.equal(res.statusCode, 200, res.body);
        return res.body
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l).pluginId as string)
          .sort();
      };
      assert.deepEqual(await plugins(first), []);
      const later = await storeRun(server.h.app, 'lab', { vulnerabilities: findingRecords(2, 3, 100) });
      assert.deepEqual(await plugins(first), ['10100', '10101']);
      assert.deepEqual(await plugins(later), []);
    });
  });
}
