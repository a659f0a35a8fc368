// The shared API shapes: route schemas come out in the hand-written dialect, the OpenAPI document is
// made of them, and real answers of the server parse with the shapes the web client's types come from.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import * as S from '../../src/core/api-shapes.ts';
import { routeSchema } from '../../src/server/schema.ts';
import { GOOD_TOKEN } from './fixture-connector.ts';
import { bearer, call, type Harness, login, makeHarness, waitForRun } from './helpers.ts';

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
  const get = async (url: string): Promise<unknown> => {
    const res = await call(h.server, { method: 'GET', url, headers: bearer(token) });
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return res.data;
  };

  before(async () => {
    h = await makeHarness();
    const { cookie, csrf } = await login(h.server);
    const res = await call(h.server, { method: 'POST', url: '/api/v1/tokens', headers: { cookie, 'x-csrf-token': csrf }, payload: { name: 'shapes' } });
    token = (res.data as { token: string }).token;
    const created = await call(h.server, {
      method: 'POST',
      url: '/api/v1/sources',
      headers: bearer(token),
      payload: { name: 'lab', type: 'fixture', config: { url: 'https://fixture.example.test', token: GOOD_TOKEN } },
    });
    assert.equal(created.statusCode, 201, created.body);
    const sync = await call(h.server, { method: 'POST', url: '/api/v1/sources/lab/sync', headers: bearer(token), payload: { full: true } });
    S.syncStarted.parse(sync.data);
    await waitForRun(h.server, token, String((sync.data as { runId: string }).runId));
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
    S.recordStats.parse(await get('/api/v1/stats'));
    S.apiTokenList.parse(await get('/api/v1/tokens'));
    S.exportDestinationList.parse(await get('/api/v1/exports'));
    S.groupCounts.parse(await get('/api/v1/hosts/counts?by=source'));
    S.trendsReport.parse(await get('/api/v1/reports/trends'));
    S.remediationReport.parse(await get('/api/v1/reports/remediation'));
    S.feedList.parse(await get('/api/v1/feeds'));
    S.bucketListing.parse(await get('/api/v1/sources/lab/files'));
    S.coverageCounts.parse(await get('/api/v1/reports/coverage'));
    S.coverageRecords.parse(await get('/api/v1/reports/coverage?list=scannedNotInCmdb'));
    const host = S.page(S.recordItem).parse(await get('/api/v1/hosts?limit=1')).items[0];
    const assets = S.assetRecords.parse(await get(`/api/v1/assets/${String(host.assetId)}/records`));
    assert.equal(assets.asset.source, null, "a correlated asset is no source's record");
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
  });
});
