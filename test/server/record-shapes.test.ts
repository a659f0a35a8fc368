// Every model's records as the API answers them, on each store (PostgreSQL where reachable): they parse
// exactly with the model's record shape (core/api-shapes.ts, derived from core/models.ts), which names
// the fields the record routes document, and the json fields with a known content hold it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { z } from 'zod';
import * as S from '../../src/core/api-shapes.ts';
import { MODEL_NAMES } from '../../src/core/models.ts';
import { routeSchema } from '../../src/server/schema.ts';
import { recordId } from '../../src/store/index.ts';
import { writeRecords } from '../helpers/store.ts';
import { adminTokenAndSyncedLab, bearer, call, freshPgDatabase, type Harness, makeHarness } from './helpers.ts';

const pg = await freshPgDatabase();
const stores = pg ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

for (const store of stores)
  describe(`record shapes (${store})`, () => {
    let h: Harness;
    let token = '';
    const get = async (url: string): Promise<unknown> => {
      const res = await call(h.server, { method: 'GET', url, headers: bearer(token) });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      return res.data;
    };
    /** The answer parsed by the shape, which must keep all of it (zod drops the keys a shape does not name). */
    const exactly = <T extends z.ZodType>(shape: T, data: unknown): z.output<T> => {
      const parsed = shape.parse(data);
      assert.deepEqual(parsed, data, 'the answer has fields its shape does not declare');
      return parsed;
    };

    before(async () => {
      h = await makeHarness(store === 'postgres' && pg ? { db: pg.url } : {});
      ({ token } = await adminTokenAndSyncedLab(h.server));
    });
    after(async () => {
      await h?.close();
      if (store === 'postgres') await pg?.drop();
    });

    it("parses every model's records exactly with its record shape, which names the fields the routes document", async () => {
      const desk = await h.app.store.sources.create('records', 'fixture', {}, null);
      await writeRecords(h.app.store, desk, {
        'cmdb-assets': [{ key: 'c1', fields: { name: 'web-0', ipAddresses: ['10.0.0.1'], attributes: { rack: 'R1', slots: 2 }, state: 'In Use' } }],
        tickets: [
          {
            key: 't1',
            fields: {
              displayId: 'REQ-1',
              subject: 'Patch web-0.example.test',
              kind: 'request',
              status: 'Open',
              createdAt: '2026-01-02T03:04:05.000Z',
              associatedAssets: [{ id: 'a1', name: 'web-1.example.test' }],
            },
          },
        ],
        users: [{ key: 'u1', fields: { name: 'Bo Chen', email: 'bo@example.test', isTechnician: true } }],
        services: [{ key: 's1', fields: { name: 'Payroll', category: 'Finance' } }],
        software: [{ key: 'host-0|openssl', hostKey: 'host-0', fields: { name: 'openssl', version: '3.0.2' } }],
        ports: [{ key: 'host-0|443|tcp', hostKey: 'host-0', fields: { port: 443, protocol: 'tcp', service: 'https' } }],
        compliance: [{ key: 'host-0|cis|1.1', hostKey: 'host-0', fields: { benchmark: 'CIS', ruleId: '1.1', ruleName: 'Rule', result: 'failed' } }],
        plugins: [{ key: '19506', fields: { pluginId: '19506', name: 'Scan information', seeAlso: ['https://example.test'], cvssV3BaseScore: 5.5 } }],
      });
      await h.app.store.correlation.correlateAll();
      const doc = (await get('/api/v1/openapi.json')) as { paths: Record<string, { get: { responses: Record<string, unknown> } }> };
      for (const model of MODEL_NAMES) {
        const shape = S.recordShapes[model];
        const items = exactly(S.page(shape), await get(`/api/v1/${model}?limit=1000`)).items;
        assert.ok(items.length > 0, `${model}: no records to parse`);
        for (const r of items) assert.deepEqual(exactly(shape, await get(`/api/v1/${model}/${encodeURIComponent(r.id)}`)), r);
        const documented = (doc.paths[`/api/v1/${model}/{id}`].get.responses['200'] as { content: { 'application/json': { schema: { properties: object } } } })
          .content['application/json'].schema.properties;
        const any: z.ZodType = shape;
        assert.deepEqual(
          Object.keys((routeSchema(any) as { properties?: object }).properties ?? {}),
          Object.keys(documented),
          `${model}: fields and their order`,
        );
      }
      // The json fields with a known content hold it.
      const ticket = exactly(S.recordShapes.tickets, await get(`/api/v1/tickets/${recordId('records', 'tickets', 't1')}`));
      assert.ok(
        ticket.assetLinks?.some((l) => l.reason === 'fqdn' && l.value === 'web-0.example.test'),
        JSON.stringify(ticket.assetLinks),
      );
      assert.deepEqual(ticket.associatedAssets, [{ id: 'a1', name: 'web-1.example.test' }]);
      const cmdb = exactly(S.recordShapes['cmdb-assets'], await get(`/api/v1/cmdb-assets/${recordId('records', 'cmdb-assets', 'c1')}`));
      assert.deepEqual(cmdb.attributes, { rack: 'R1', slots: 2 });
      const asset = exactly(S.page(S.recordShapes.assets), await get('/api/v1/assets?hostIds=' + recordId('lab', 'hosts', 'host-0'))).items[0];
      assert.ok(asset && Object.values(asset.openFindings ?? {}).reduce((a, b) => a + b, 0) > 0 && asset.matchDetails, JSON.stringify(asset));
    });
  });
