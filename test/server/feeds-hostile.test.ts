// Hostile feed files over the API on both stores (issue 27): a feed dated far ahead is refused (400) even
// with replace; an older one only with ?replace=true; a gzip bomb, an oversized body and a file past the
// entry cap answer 400 naming the limit and its setting, never 500, without inflating the bomb; and
// /healthz answers while a large file is being read (the parsing is off the event loop).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { day, epssBomb, epssCsv, kevCatalog } from '../feeds/fixtures.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { apiToken, bearer, call, type Harness, makeHarness, type Res } from './helpers.ts';

type Json = Record<string, unknown>;
const message = (r: Res) => (r.data as { error: { message: string } }).error.message;

for (const backend of BACKENDS) {
  describe(`hostile feed files over the API (${backend.kind})`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let h: Harness;
    let token = '';
    const auth = (opts: InjectOptions): Promise<Res> => call(h.server, { ...opts, headers: { ...bearer(token), ...(opts.headers ?? {}) } });
    const post = (url: string, payload: Buffer) => auth({ method: 'POST', url, headers: { 'content-type': 'application/octet-stream' }, payload });
    const current = async (kind: string) =>
      ((await auth({ method: 'GET', url: '/api/v1/feeds' })).data as { items: Json[] }).items.find((f) => f.kind === kind);
    const withEnv = async (vars: Record<string, string>, fn: () => Promise<void>) => {
      Object.assign(h.app.env, vars);
      try {
        await fn();
      } finally {
        for (const k of Object.keys(vars)) delete h.app.env[k];
      }
    };

    before(async () => {
      db = await backend.create();
      h = await makeHarness({ db: db.url });
      token = await apiToken(h.server);
      const res = await post('/api/v1/feeds?name=kev.json', kevCatalog('2026.11.20', `${day(-1)}T00:00:00Z`, [{ cve: 'CVE-2024-1000', added: day(-10) }]));
      assert.equal(res.statusCode, 200, res.body);
    });
    after(async () => {
      await h?.close();
      await db?.drop();
    });

    it('refuses a feed dated in the future (400), with or without replace; installs an older one only with replace=true', async () => {
      const future = kevCatalog('2099.12.31', '2099-12-31T00:00:00Z', [{ cve: 'CVE-2024-1000', added: '2099-12-31' }]);
      for (const url of ['/api/v1/feeds?name=kev-2099.json', '/api/v1/feeds?name=kev-2099.json&replace=true']) {
        const res = await post(url, future);
        assert.equal(res.statusCode, 400, res.body);
        assert.match(message(res), /kev-2099\.json: .* is dated in the future/);
      }
      const older = kevCatalog('2026.10.01', `${day(-50)}T00:00:00Z`, [{ cve: 'CVE-2024-2000', added: day(-50) }]);
      const refused = await post('/api/v1/feeds?name=old.json', older);
      assert.equal(refused.statusCode, 400, refused.body);
      assert.match(message(refused), /older than the one imported .*replace=true/);
      assert.equal((await current('kev'))!.version, '2026.11.20');
      const replaced = await post('/api/v1/feeds?name=old.json&replace=true', older);
      assert.equal(replaced.statusCode, 200, replaced.body);
      assert.equal((await current('kev'))!.version, '2026.10.01');
    });

    it('a gzip bomb answers 400 naming TRIBUTARY_FEED_MAX_BYTES, without inflating it whole', async () => {
      const bomb = epssBomb(2 * 1024 ** 3);
      assert.ok(bomb.length < 8 << 20, 'a few MB that inflate to 2 GiB');
      const before = process.memoryUsage().rss;
      const res = await post('/api/v1/feeds?name=epss.csv.gz', bomb);
      assert.equal(res.statusCode, 400, res.body);
      assert.match(message(res), /epss\.csv\.gz: the feed holds more than 128 MiB once decompressed, the limit TRIBUTARY_FEED_MAX_BYTES sets/);
      assert.ok(process.memoryUsage().rss - before < 512 << 20, 'memory stayed far below the inflated size');
      assert.equal(await current('epss'), undefined, 'nothing was imported');
    });

    it('a body over the byte cap, and a file past the entry cap, answer 400 naming the setting', async () => {
      const epss = epssCsv(
        'v2025.03.14',
        `${day(-1)}T00:00:00+0000`,
        Array.from({ length: 50 }, (_, i): [string, number, number] => [`CVE-2024-${10000 + i}`, 0.1, 0.2]),
      );
      await withEnv({ TRIBUTARY_FEED_MAX_BYTES: '1024' }, async () => {
        const res = await post('/api/v1/feeds?name=epss.csv', epss);
        assert.equal(res.statusCode, 400, res.body);
        assert.match(message(res), /larger than 1 KiB, the limit TRIBUTARY_FEED_MAX_BYTES sets/);
      });
      await withEnv({ TRIBUTARY_FEED_MAX_ENTRIES: '10' }, async () => {
        const res = await post('/api/v1/feeds?name=epss.csv', epss);
        assert.equal(res.statusCode, 400, res.body);
        assert.match(message(res), /epss\.csv: the feed holds more than 10 rows, the limit TRIBUTARY_FEED_MAX_ENTRIES sets/);
      });
      assert.equal(await current('epss'), undefined);
    });

    it('/healthz answers while a large feed is being read', async () => {
      // 300k rows (today's EPSS file) and a bad last one: the whole import is reading the file, then a 400.
      const rows = Array.from({ length: 300_000 }, (_, i) => `CVE-2024-${100000 + i},0.00042,0.12345`);
      const big = Buffer.from(`#model_version:v2025.03.14,score_date:${day(-1)}T00:00:00+0000\ncve,epss,percentile\n${rows.join('\n')}\nnot-a-cve,0.1,0.2\n`);
      let finished = false;
      const importing = post('/api/v1/feeds?name=big.csv', big).then((r) => {
        finished = true;
        return r;
      });
      // Let the upload get under way, then ask.
      await new Promise((r) => setTimeout(r, 20));
      const health = await call(h.server, { method: 'GET', url: '/healthz' });
      assert.equal(health.statusCode, 200);
      assert.equal(finished, false, '/healthz answered before the import finished');
      const res = await importing;
      assert.equal(res.statusCode, 400, res.body);
      assert.match(message(res), /big\.csv: EPSS CSV line 300003: 'not-a-cve' is not a CVE id/);
    });
  });
}
