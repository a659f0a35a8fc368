// The web client's route table (core/api-routes.ts) against the server: every entry is a route the
// server documents, with the same path parameters, query parameters, body fields and answer fields,
// and the request shapes (core/api-requests.ts) keep the bounds and defaults the routes validate with.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiRoutes, type RouteShapes } from '../../src/core/api-routes.ts';
import * as Q from '../../src/core/api-requests.ts';
import { MODEL_NAMES } from '../../src/core/models.ts';
import { routeSchema } from '../../src/server/schema.ts';
import { call, type Harness, login, makeHarness } from './helpers.ts';

type Schema = { properties?: Record<string, unknown> };
type Operation = {
  parameters?: { in: string; name: string }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
};

const keys = (s: Schema | undefined): string[] => Object.keys(s?.properties ?? {}).sort();

describe('the request shapes', () => {
  it('declare every integer parameter with its bounds, and their defaults', () => {
    assert.deepEqual((routeSchema(Q.recordQuery) as Schema).properties?.offset, {
      description: 'records to skip (a page number: (page - 1) × limit); ignored with a cursor, which is faster',
      type: 'integer',
      minimum: 0,
      maximum: Q.MAX_OFFSET,
    });
    assert.deepEqual((routeSchema(Q.trendsQuery) as Schema).properties?.days, {
      default: 30,
      description: 'days in the window, its last day included',
      type: 'integer',
      minimum: 1,
      maximum: 366,
    });
  });

  it('write a nullable enum with null among its values, as the validator needs', () => {
    const ocsf = (routeSchema(Q.destinationBody) as Schema).properties?.ocsfVersion;
    assert.deepEqual(ocsf, { type: ['string', 'null'], enum: ['1.1.0', '1.3.0', null] });
  });
});

describe("the web client's route table", () => {
  let h: Harness;
  let doc: { paths: Record<string, Record<string, Operation>> };
  before(async () => {
    h = await makeHarness();
    const { cookie } = await login(h.server);
    doc = (await call(h.server, { method: 'GET', url: '/api/v1/openapi.json', headers: { cookie } })).data as typeof doc;
  });
  after(async () => {
    await h?.close();
  });

  it('names only routes the server documents, with the same parameters, body and answer', () => {
    for (const [key, shapes] of Object.entries(apiRoutes) as [string, RouteShapes][]) {
      const [method, path] = key.split(' ') as [string, string];
      // The model routes are documented per model; hosts stands for all of them.
      const documented = path.replace(':model', 'hosts').replace(/:([A-Za-z]+)/g, '{$1}');
      const op = doc.paths[documented]?.[method.toLowerCase()];
      assert.ok(op, `${key}: not documented as ${method} ${documented}`);
      const params = (where: string) =>
        (op.parameters ?? [])
          .filter((p) => p.in === where)
          .map((p) => p.name)
          .sort();
      assert.deepEqual(params('query'), shapes.query ? keys(routeSchema(shapes.query) as Schema) : [], `${key}: query parameters`);
      const pathParams = shapes.params ? keys(routeSchema(shapes.params) as Schema).filter((n) => n !== 'model') : [];
      assert.deepEqual(params('path'), pathParams, `${key}: path parameters`);
      const body = op.requestBody?.content['application/json']?.schema;
      assert.deepEqual(keys(body), shapes.body ? keys(routeSchema(shapes.body) as Schema) : [], `${key}: body fields`);
      const ok = op.responses['200'] ?? op.responses['201'] ?? op.responses['202'];
      const answer = ok?.content?.['application/json']?.schema;
      const declared = keys(routeSchema(shapes.response) as Schema);
      // A record's documented fields are its model's; the table declares the ones every record has.
      if (path.startsWith('/api/v1/:model/:id'))
        assert.ok(
          declared.every((k) => keys(answer).includes(k)),
          `${key}: answer fields`,
        );
      else assert.deepEqual(keys(answer), declared, `${key}: answer fields`);
      if (shapes.typed) assert.deepEqual(keys(routeSchema(shapes.typed) as Schema), declared, `${key}: typed answer fields`);
      // A route of every model answers for each with that model's shape: its fields as documented.
      for (const [model, shape] of Object.entries(shapes.byModel ?? {})) {
        const answer =
          doc.paths[path.replace(':model', model).replace(/:([A-Za-z]+)/g, '{$1}')]?.[method.toLowerCase()]?.responses['200']?.content?.['application/json']
            ?.schema;
        const declared = routeSchema(shape) as Schema & { properties?: { items?: { items?: Schema } } };
        const fields = path.endsWith(':id') ? keys(declared) : keys(declared.properties?.items?.items);
        assert.ok(fields.includes('id') && fields.includes('lastSeen'), `${key} for ${model}: ${fields.join()}`);
        if (path.endsWith(':id')) assert.deepEqual(keys(answer), keys(declared), `${key} for ${model}: answer fields`);
        else
          assert.deepEqual(
            keys((answer?.properties as { items?: { items?: Schema } } | undefined)?.items?.items),
            keys(declared.properties?.items?.items),
            `${key} for ${model}: item fields`,
          );
      }
    }
    assert.deepEqual(Object.keys(apiRoutes['GET /api/v1/:model'].byModel).sort(), [...MODEL_NAMES].sort());
  });
});
