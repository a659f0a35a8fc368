// Serving the built web UI: public static files with the right caching and security headers, the SPA
// fallback for client-side routes, real 404s for missing assets and unknown API paths, no escape from
// the build directory, and a clear page when the UI has not been built.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, type Harness, makeHarness } from './helpers.ts';

describe('web UI serving', () => {
  let h: Harness;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tributary-webdir-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Tributary</title><div id="root"></div>');
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("ui")');
    writeFileSync(join(dir, 'robots.txt'), 'User-agent: *\n');
    h = await makeHarness({ server: { webUi: dir } });
  });
  after(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves index.html at / and for client-side routes, without authentication', async () => {
    for (const url of ['/', '/login', '/sources/lab', '/inventory/hosts/0123?tab=software']) {
      const res = await call(h.server, { method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.match(String(res.headers['content-type']), /text\/html/);
      assert.match(res.body, /<div id="root">/);
      assert.equal(res.headers['cache-control'], 'no-cache');
      assert.match(String(res.headers['content-security-policy']), /default-src 'self'/);
      assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/);
      assert.equal(res.headers['x-frame-options'], 'DENY');
    }
  });

  it('serves hashed assets with a long cache, and other files as they are', async () => {
    const js = await call(h.server, { method: 'GET', url: '/assets/index-abc123.js' });
    assert.equal(js.statusCode, 200);
    assert.match(String(js.headers['content-type']), /javascript/);
    assert.match(String(js.headers['cache-control']), /immutable/);
    const robots = await call(h.server, { method: 'GET', url: '/robots.txt' });
    assert.equal(robots.statusCode, 200);
    assert.equal(robots.headers['cache-control'], 'no-cache');
  });

  it('answers JSON 404s for missing files and non-GET methods, and 401 for unknown API paths', async () => {
    const missing = await call(h.server, { method: 'GET', url: '/assets/gone.js' });
    assert.equal(missing.statusCode, 404);
    assert.equal((missing.data as { error: { code: string } }).error.code, 'not_found');
    const post = await call(h.server, { method: 'POST', url: '/sources/lab', payload: {} });
    assert.equal(post.statusCode, 404);
    assert.equal((await call(h.server, { method: 'GET', url: '/api/v1/nothing/here' })).statusCode, 401);
  });

  it('never serves a file outside the build directory', async () => {
    for (const url of ['/../package.json', '/..%2fpackage.json', '/%2e%2e/%2e%2e/package.json', '/assets/..%2f..%2fpackage.json', '/%00']) {
      const res = await call(h.server, { method: 'GET', url });
      assert.doesNotMatch(res.body, /"name": "tributary"/, url);
      assert.ok([200, 400, 404].includes(res.statusCode), `${url}: ${res.statusCode}`);
    }
  });

  it('explains how to build the UI when it is missing', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'tributary-webdir-empty-'));
    const other = await makeHarness({ server: { webUi: empty } });
    try {
      const res = await call(other.server, { method: 'GET', url: '/' });
      assert.equal(res.statusCode, 503);
      assert.match(res.body, /scripts\/build-web\.sh/);
      assert.equal((await call(other.server, { method: 'GET', url: '/healthz' })).statusCode, 200);
    } finally {
      await other.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
