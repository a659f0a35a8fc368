// Numbers at the edge: a numeric query parameter written as 1e309, with 400 digits or past its bounds
// answers 400 naming the bounds (it once reached the SQL text as "Infinity" and answered 500); a route
// whose integer parameter has no bounds cannot be added; the store refuses a count that is not a whole
// number, and an int field filter its column cannot hold (both backends); the CLI's --limit and --days
// exit 2 naming theirs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import { InputError } from '../../src/core/errors.ts';
import { boundNumericParams } from '../../src/server/bounded-numbers.ts';
import { sqlCount } from '../../src/store/index.ts';
import { runCli } from '../helpers/cli.ts';
import { BACKENDS, tempDir } from '../helpers/databases.ts';
import { openTestStore } from '../helpers/store.ts';
import { call, type Harness, login, makeHarness } from './helpers.ts';

describe('numeric query parameters', () => {
  let h: Harness;
  let cookie: string;
  before(async () => {
    h = await makeHarness();
    ({ cookie } = await login(h.server));
  });
  after(() => h?.close());

  const get = (url: string) => call(h.server, { method: 'GET', url, headers: { cookie } });

  for (const [url, field, bounds] of [
    ['/api/v1/vulnerabilities?offset=1e309', 'offset', 'from 0 to 1000000'],
    [`/api/v1/vulnerabilities?offset=${'9'.repeat(400)}`, 'offset', 'from 0 to 1000000'],
    ['/api/v1/vulnerabilities?offset=1000001', 'offset', 'from 0 to 1000000'],
    ['/api/v1/vulnerabilities?limit=1e309', 'limit', 'from 1 to 1000'],
    ['/api/v1/vulnerabilities/plugins?offset=1e309', 'offset', 'from 0 to 1000000'],
    ['/api/v1/reports/coverage?days=99999999999', 'days', 'from 0 to 3650'],
    ['/api/v1/reports/trends?days=1e309', 'days', 'from 1 to 366'],
    ['/api/v1/changes?limit=-1', 'limit', 'from 1 to 1000'],
    ['/api/v1/runs?limit=NaN', 'limit', 'from'],
  ] as const) {
    test(`${url.slice(0, 60)} answers 400 naming the bounds`, async () => {
      const r = await get(url);
      assert.equal(r.statusCode, 400, r.body);
      const { error } = r.data as { error: { code: string; message: string; field: string } };
      assert.equal(error.field, field);
      assert.match(error.message, new RegExp(`query parameter '${field}' must be a whole number ${bounds}`));
      assert.ok(error.message.length < 200, 'a 400-digit value is not echoed whole');
    });
  }

  test('an int field filter past its column answers 400 naming the bounds', async () => {
    const r = await get('/api/v1/ports?port=99999999999999999999');
    assert.equal(r.statusCode, 400, r.body);
    assert.match((r.data as { error: { message: string } }).error.message, /port must be a whole number from -2147483648 to 2147483647/);
  });

  test('values within the bounds still work, and nothing reached the SQL', async () => {
    assert.equal((await get('/api/v1/vulnerabilities?offset=5&limit=10')).statusCode, 200);
    assert.equal((await get('/api/v1/reports/coverage?days=3650')).statusCode, 200);
    assert.equal((await get('/api/v1/vulnerabilities/plugins?offset=0')).statusCode, 200);
    assert.doesNotMatch(h.logs.join(''), /no such column|Invalid time value|request failed/);
  });
});

test('a route with an integer parameter that lacks a bound cannot be added', async () => {
  const f = Fastify();
  boundNumericParams(f);
  assert.throws(
    () => f.get('/x', { schema: { querystring: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } } } } }, async () => ({})),
    /route GET \/x: parameter 'n' must be an integer with a minimum and a maximum/,
  );
  await f.close();
});

test('sqlCount lets only whole numbers within its bounds into SQL text', () => {
  assert.equal(sqlCount(25, 'limit'), 25);
  for (const bad of [Number.POSITIVE_INFINITY, Number.NaN, 1e20, -1, 1.5])
    assert.throws(
      () => sqlCount(bad, 'offset'),
      (e: unknown) => e instanceof InputError && /offset must be a whole number from 0 to/.test(e.message),
    );
});

for (const backend of BACKENDS) {
  test(`the store refuses an offset or limit of Infinity on ${backend.kind}`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    const store = await openTestStore(db);
    try {
      await assert.rejects(store.records.query('vulnerabilities', { offset: Number.POSITIVE_INFINITY }), InputError);
      await assert.rejects(store.runs.list(null, Number.POSITIVE_INFINITY), InputError);
      await assert.rejects(store.records.changes({ limit: Number.NaN }), InputError);
      assert.deepEqual((await store.records.query('vulnerabilities', { offset: 3, limit: 5 })).records, []);
      // An int field's filter value is a whole number its column holds (PostgreSQL's INTEGER answered 500 past it).
      for (const value of ['99999999999999999999', '3000000000', '-99999999999', '1.5'])
        await assert.rejects(
          store.records.query('ports', { filters: [{ field: 'port', op: '>=', value }] }),
          (e: unknown) => e instanceof InputError && /^port must be a whole number from -2147483648 to 2147483647/.test(e.message),
          value,
        );
      assert.deepEqual((await store.records.query('ports', { filters: [{ field: 'port', op: '=', value: '443' }] })).records, []);
    } finally {
      await store.close();
      await db.drop();
    }
  });
}

test('the CLI refuses --limit and --days out of bounds with exit 2 naming them', () => {
  const dataDir = tempDir();
  for (const [args, message] of [
    [['query', 'hosts', '--limit', '1e309'], /--limit must be a whole number from 1 to 1000000000, got '1e309'/],
    [['changes', '--limit', '9'.repeat(400)], /--limit must be a whole number from 1 to 1000000000, got '9{20}… \(400 characters\)'/],
    [['report', 'coverage', '--days', '99999999999'], /--days must be a whole number from 0 to 3650/],
  ] as const) {
    const r = runCli(['--data-dir', dataDir, ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
});
