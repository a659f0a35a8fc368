// Saved views over HTTP on both stores: save (201), list (all, or one list's path), saving under a
// taken name replaces, another user neither sees nor deletes them, a path off the UI is refused, a
// read token may list but not save.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { createApiToken } from '../../src/app/api-tokens.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { apiToken, bearer, call, type Harness, makeHarness, type Res } from './helpers.ts';

type View = { id: string; name: string; path: string; query: string };

for (const backend of BACKENDS) {
  describe(`saved views over the API (${backend.kind})`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let h: Harness;
    let admin = '';
    let other = '';
    let reader = '';
    const as = (token: string, opts: InjectOptions): Promise<Res> => call(h.server, { ...opts, headers: { ...bearer(token), ...(opts.headers ?? {}) } });
    const list = async (token: string, q = '') => ((await as(token, { method: 'GET', url: `/api/v1/views${q}` })).data as { items: View[] }).items;

    before(async () => {
      db = await backend.create();
      h = await makeHarness({ db: db.url });
      admin = await apiToken(h.server);
      const bob = await h.app.store.users.create('bob', 'not-a-real-hash');
      other = (await createApiToken(h.app, bob, { name: 'bob', scope: 'operate', expiresAt: null })).token;
      reader = (await createApiToken(h.app, bob, { name: 'bob-read', scope: 'read', expiresAt: null })).token;
    });
    after(async () => {
      await h?.close();
      await db?.drop();
    });

    it('saves, lists, replaces by name and deletes the caller’s own views', async () => {
      const made = await as(admin, {
        method: 'POST',
        url: '/api/v1/views',
        payload: { name: 'KEV', path: '/inventory/vulnerabilities', query: '?knownExploited=true' },
      });
      assert.equal(made.statusCode, 201, made.body);
      const kev = made.data as View;
      assert.equal(kev.query, 'knownExploited=true', 'a leading ? is dropped');
      await as(admin, { method: 'POST', url: '/api/v1/views', payload: { name: 'Linux hosts', path: '/inventory/hosts', query: 'in=os&q=linux' } });
      assert.deepEqual(
        (await list(admin)).map((v) => v.name),
        ['Linux hosts', 'KEV'],
      );
      assert.deepEqual(
        (await list(admin, '?path=/inventory/vulnerabilities')).map((v) => v.name),
        ['KEV'],
      );
      const replaced = (
        await as(admin, {
          method: 'POST',
          url: '/api/v1/views',
          payload: { name: 'KEV', path: '/inventory/vulnerabilities', query: 'knownExploited=true&severity=critical' },
        })
      ).data as View;
      assert.equal(replaced.id, kev.id);
      assert.equal((await list(admin, '?path=/inventory/vulnerabilities'))[0]?.query, 'knownExploited=true&severity=critical');

      // Another user sees none of them and cannot delete them; a read token lists but cannot save.
      assert.deepEqual(await list(other), []);
      assert.equal((await as(other, { method: 'DELETE', url: `/api/v1/views/${kev.id}` })).statusCode, 404);
      assert.deepEqual(await list(reader), []);
      assert.equal((await as(reader, { method: 'POST', url: '/api/v1/views', payload: { name: 'x', path: '/inventory/hosts', query: '' } })).statusCode, 403);

      assert.equal((await as(admin, { method: 'DELETE', url: `/api/v1/views/${kev.id}` })).statusCode, 204);
      assert.deepEqual(
        (await list(admin)).map((v) => v.name),
        ['Linux hosts'],
      );
    });

    it('refuses a view whose path leaves the UI or whose name is empty', async () => {
      for (const payload of [
        { name: 'x', path: '//evil.example/a', query: '' },
        { name: 'x', path: 'https://evil.example/', query: '' },
        { name: ' ', path: '/inventory/hosts', query: '' },
      ]) {
        const res = await as(admin, { method: 'POST', url: '/api/v1/views', payload });
        assert.equal(res.statusCode, 400, JSON.stringify(payload));
      }
    });
  });
}
