// The shared API shapes: route schemas come out in the hand-written dialect, the OpenAPI document is
// made of them, and real answers of the server parse with the shapes the web client's types come from
// (the summaries, reports and change feed ones in api-shapes-reports.ts, the others in api-shapes.ts).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import * as S from '../../src/core/api-shapes.ts';
import * as R from '../../src/core/api-shapes-reports.ts';
import { recordId } from '../../src/store/index.ts';
import { routeSchema } from '../../src/server/schema.ts';
import { writeRecords } from '../helpers/store.ts';
import { GOOD_TOKEN } from './fixture-connector.ts';
import { adminTokenAndSyncedLab, bearer, call, type Harness, makeHarness, waitForRun } from './helpers.ts';

describe('routeSchema', () => {
  it('writes nullables, integers, dates and open objects as the hand-written schemas did', () => {
    const schema = routeSchema(
      z.object({
        a: z.string().nullable(),
        n: z.int(),
        at: z.iso.datetime(),
        open: z.object({ ok: z.boolean() }).loose().nullable(),
        map: z.record(z.string(), z.int()),
        opt: z.boolean().optional(),
      }),
    );
    assert.deepEqual(schema, {
      type: 'object',
      properties: {
        a: { type: ['string', 'null'] },
        n: { type: 'integer' },
        at: { type: 'string', format: 'date-time' },
        open: { type: ['object', 'null'], properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: true },
        map: { type: 'object', additionalProperties: { type: 'integer' } },
        opt: { type: 'boolean' },
      },
      required: ['a', 'n', 'at', 'open', 'map'],
    });
  });

  it('keeps request bounds and defaults, and closes strict objects', () => {
    assert.deepEqual(routeSchema(S.limitQuery(1000, 50)), {
      type: 'object',
      properties: { limit: { default: 50, type: 'integer', minimum: 1, maximum: 1000 } },
      additionalProperties: false,
    });
  });
});

describe('the server answers in the shared shapes', () => {
  let h: Harness;
  let token = '';
  const send = async (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, status = 200): Promise<unknown> => {
    const res = await call(h.server, { method, url, headers: bearer(token), payload });
    assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`);
    return res.data;
  };
  const get = (url: string) => send('GET', url);
  /** The answer parsed by the shape, which must keep all of it (zod drops the keys a shape does not name). */
  const exactly = <T extends z.ZodType>(shape: T, data: unknown): z.output<T> => {
    const parsed = shape.parse(data);
    assert.deepEqual(parsed, data, 'the answer has fields its shape does not declare');
    return parsed;
  };

  before(async () => {
    h = await makeHarness();
    let sync: unknown;
    ({ token, sync } = await adminTokenAndSyncedLab(h.server));
    S.syncStarted.parse(sync);
    await call(h.server, { method: 'POST', url: '/api/v1/sources/lab/check', headers: bearer(token) });
  });
  after(async () => {
    await h?.close();
  });

  it('parses sources, runs, the session, connectors, stats and tokens', async () => {
    const sources = z.object({ items: z.array(S.sourceView) }).parse(await get('/api/v1/sources'));
    assert.equal(sources.items[0].lastRun?.status, 'succeeded');
    assert.equal(sources.items[0].lastCheck?.ok, true);
    S.sourceView.parse(await get('/api/v1/sources/lab'));
    const runs = S.runList.parse(await get('/api/v1/runs'));
    assert.ok(runs.items.length >= 1);
    S.run.parse(await get(`/api/v1/runs/${runs.items[0].id}`));
    S.runList.parse(await get('/api/v1/sources/lab/runs'));
    S.sessionInfo.parse(await get('/api/v1/auth/session'));
    assert.ok(S.connectorList.parse(await get('/api/v1/connectors')).items.some((c) => c.type === 'fixture'));
    R.recordStats.parse(await get('/api/v1/stats'));
    S.apiTokenList.parse(await get('/api/v1/tokens'));
    S.exportDestinationList.parse(await get('/api/v1/exports'));
    R.groupCounts.parse(await get('/api/v1/hosts/counts?by=source'));
    R.trendsReport.parse(await get('/api/v1/reports/trends'));
    R.remediationReport.parse(await get('/api/v1/reports/remediation'));
    S.feedList.parse(await get('/api/v1/feeds'));
    S.bucketListing.parse(await get('/api/v1/sources/lab/files'));
    R.coverageCounts.parse(await get('/api/v1/reports/coverage'));
    R.coverageRecords.parse(await get('/api/v1/reports/coverage?list=scannedNotInCmdb'));
    const host = S.page(S.recordItem).parse(await get('/api/v1/hosts?limit=1')).items[0];
    const assets = exactly(R.assetRecordsTyped, await get(`/api/v1/assets/${String(host.assetId)}/records`));
    assert.ok(assets.hosts.length > 0 && assets.hosts.every((x) => x.assetId === assets.asset.id));
    assert.equal(assets.asset.source, null, "a correlated asset is no source's record");
  });

  it('parses the summaries, counts, host labels and per-host severity counts exactly', async () => {
    const plugins = exactly(R.pluginSummary, await get('/api/v1/vulnerabilities/plugins'));
    assert.ok(plugins.total >= 2 && plugins.items.some((p) => p.knownExploited && p.severity === 'critical'), JSON.stringify(plugins));
    const hosts = S.page(S.recordItem)
      .parse(await get('/api/v1/hosts?limit=2'))
      .items.map((x) => x.id);
    const counts = exactly(R.hostFindingCountsList, await get(`/api/v1/hosts/finding-counts?id=${hosts[0]}&id=${hosts[1]}`));
    assert.deepEqual(counts.items.map((c) => c.hostId).sort(), [...hosts].sort());
    assert.ok(counts.items.every((c) => c.total === c.critical + c.high + c.medium + c.low + c.info && c.total > 0));
    const labels = exactly(R.hostLabels, await get(`/api/v1/hosts/labels?id=${hosts[0]}`));
    assert.equal(labels.items[0]?.id, hosts[0]);
    assert.ok(exactly(R.recordCount, await get('/api/v1/vulnerabilities/count')).count > 0);
    exactly(R.recordStats, await get('/api/v1/stats'));
    exactly(R.complianceSummary, await get('/api/v1/compliance/summary'));
    exactly(R.coverageCounts, await get('/api/v1/reports/coverage'));
  });

  it('parses the change feed exactly, its events carrying the fields the feed declares', async () => {
    const feed = exactly(R.changePage, await get('/api/v1/changes?limit=1000'));
    assert.ok(feed.items.length > 0 && feed.items.every((e) => e.change === 'new' && e.source === 'lab'));
    const one = exactly(R.changePage, await get(`/api/v1/changes?recordId=${feed.items[0]!.recordId}`));
    assert.deepEqual(one.items, [feed.items[0]]);
  });

  it('parses the answers of actions: check, trial check, sync, link, upload tokens, removals', async () => {
    const check = exactly(S.sourceCheck, await send('POST', '/api/v1/sources/lab/check'));
    assert.equal(check.ok, true);
    const config = { url: 'https://fixture.example.test', token: GOOD_TOKEN };
    exactly(S.sourceCheck, await send('POST', '/api/v1/sources/check', { type: 'fixture', config }));
    const sync = exactly(S.syncStarted, await send('POST', '/api/v1/sources/lab/sync', {}, 202));
    await waitForRun(h.server, token, String(sync.runId));
    exactly(S.uploadTokenList, await get('/api/v1/sources/lab/file-drop/tokens'));

    const desk = await h.app.store.sources.create('desk', 'fixture', {}, null);
    await writeRecords(h.app.store, desk, { 'cmdb-assets': [{ key: 'c1', fields: { name: 'spare' } }] });
    const host = S.page(S.recordItem).parse(await get('/api/v1/hosts?limit=1')).items[0]!;
    const cmdbAssetId = recordId('desk', 'cmdb-assets', 'c1');
    const linked = exactly(R.assetLinkedTyped, await send('POST', `/api/v1/assets/${host.id}/link`, { cmdbAssetId }));
    assert.equal(linked.action, 'link');
    assert.deepEqual(linked.asset.cmdbAssetIds, [cmdbAssetId]);
    exactly(R.assetLinkedTyped, await send('DELETE', `/api/v1/assets/${host.id}/link`, { cmdbAssetId }));

    await send('POST', '/api/v1/exports', { name: 'spare', target: join(h.dataDir, 'exports', 'spare'), format: 'jsonl' }, 201);
    exactly(S.exportRemoved, await send('DELETE', '/api/v1/exports/spare'));
    assert.deepEqual(exactly(S.sourceRemoved, await send('DELETE', '/api/v1/sources/desk')).removed, 'desk');
  });

  it('documents the routes with the schemas made from the shapes', async () => {
    const doc = (await get('/api/v1/openapi.json')) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const schemaOf = (path: string) =>
      (doc.paths[path].get.responses['200'] as { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } }).content[
        'application/json'
      ].schema;
    assert.deepEqual(Object.keys(schemaOf('/api/v1/runs/{id}').properties).sort(), Object.keys(S.run.shape).sort());
    assert.deepEqual(Object.keys(schemaOf('/api/v1/sources/{name}').properties).sort(), Object.keys(S.sourceView.shape).sort());
    assert.deepEqual(Object.keys(schemaOf('/api/v1/auth/session').properties).sort(), Object.keys(S.sessionInfo.shape).sort());
    const itemOf = (path: string) => (schemaOf(path).properties.items as { items: { properties: Record<string, unknown> } }).items.properties;
    assert.deepEqual(Object.keys(itemOf('/api/v1/changes')), Object.keys(R.changeEvent.shape), 'the change feed documents its events in output order');
    assert.deepEqual(Object.keys(itemOf('/api/v1/vulnerabilities/plugins')).sort(), Object.keys(R.pluginRow.shape).sort());
    assert.deepEqual(Object.keys(itemOf('/api/v1/hosts/finding-counts')).sort(), Object.keys(R.hostFindingCounts.shape).sort());
  });
});
