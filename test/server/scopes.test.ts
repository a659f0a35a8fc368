// Issue 27.5: API token scopes. Every route declares the scope it needs, the declarations are the policy
// (read: lists, exports, reports; operate: also syncs, uploads, links; admin: sources, secrets, schedules,
// feeds, tokens), and a walk of every registered route with a read, an operate and an admin token finds
// 403 exactly where the token's scope is below the route's. OpenAPI names each operation's scope.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scopeAllows, TOKEN_SCOPES, type TokenScope } from '../../src/core/token-scopes.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { bearer, call, login, serverOn } from './helpers.ts';

/** The routes a read token may not call, by the scope they need; every other non-public route is read. */
const OPERATE = [
  'POST /api/v1/sources/:name/sync',
  'POST /api/v1/exports/:name/run',
  'POST /api/v1/sources/:name/files',
  'PUT /api/v1/sources/:name/files/*',
  'DELETE /api/v1/sources/:name/files/*',
  'POST /api/v1/sources/:name/file-drop',
  'DELETE /api/v1/sources/:name/file-drop/tokens/:id',
  'POST /api/v1/assets/:id/link',
  'DELETE /api/v1/assets/:id/link',
  'POST /api/v1/assets/:id/unlink',
  'POST /api/v1/assets/recompute',
  'POST /api/v1/exceptions',
  'POST /api/v1/exceptions/:id/approve',
  'POST /api/v1/exceptions/:id/reject',
  'POST /api/v1/exceptions/:id/revoke',
  'POST /api/v1/sources/:name/tickets/apply',
  'POST /api/v1/views',
  'DELETE /api/v1/views/:id',
];
const ADMIN = [
  'POST /api/v1/sources',
  'PATCH /api/v1/sources/:name',
  'DELETE /api/v1/sources/:name',
  'POST /api/v1/sources/check',
  'POST /api/v1/sources/:name/check',
  'POST /api/v1/exports',
  'DELETE /api/v1/exports/:name',
  'POST /api/v1/feeds',
  'GET /api/v1/tokens',
  'HEAD /api/v1/tokens',
  'POST /api/v1/tokens',
  'DELETE /api/v1/tokens/:id',
  'POST /api/v1/alerts',
  'DELETE /api/v1/alerts/:name',
  'POST /api/v1/alerts/:name/test',
];
/** Answered without an API token or session (the upload route checks its own upload token). */
const PUBLIC = [
  'GET /healthz',
  'HEAD /healthz',
  'GET /api/v1/openapi.json',
  'HEAD /api/v1/openapi.json',
  'POST /api/v1/auth/login',
  'PUT /api/v1/upload/:bucket/*',
];

const expectedScope = (route: string): TokenScope => (ADMIN.includes(route) ? 'admin' : OPERATE.includes(route) ? 'operate' : 'read');

/** A concrete URL for a route: dummy path parameters (a 404 or 400 there still means the scope let it through). */
const concrete = (url: string): string => url.replace(/:[A-Za-z]+/g, 'nope').replace(/\*$/, 'x.csv');

for (const backend of BACKENDS) {
  describe(`API token scopes on ${backend.kind}`, { skip: backend.skip }, () => {
    const tokens = {} as Record<TokenScope, string>;
    const server = serverOn(backend, async (h) => {
      const { cookie, csrf } = await login(h.server);
      for (const scope of TOKEN_SCOPES) {
        const res = await call(h.server, { method: 'POST', url: '/api/v1/tokens', headers: { cookie, 'x-csrf-token': csrf }, payload: { name: scope, scope } });
        assert.equal(res.statusCode, 201, res.body);
        assert.equal((res.data as { scope: string }).scope, scope);
        tokens[scope] = (res.data as { token: string }).token;
      }
    });

    it('every route declares its scope, and the declarations are the policy', () => {
      const routes = server.h.server.routeScopes;
      assert.ok(routes.length > 60, `only ${routes.length} routes seen`);
      const undeclared = routes.filter((r) => !r.public && r.scope === null).map((r) => `${r.method} ${r.url}`);
      assert.deepEqual(undeclared, [], 'a route without config.scope (read, operate or admin) is only reachable with admin');
      assert.deepEqual(
        routes
          .filter((r) => r.public)
          .map((r) => `${r.method} ${r.url}`)
          .sort(),
        [...PUBLIC].sort(),
      );
      const declared = routes.filter((r) => !r.public).map((r) => `${r.method} ${r.url} ${r.scope}`);
      assert.deepEqual(
        declared,
        routes.filter((r) => !r.public).map((r) => `${r.method} ${r.url} ${expectedScope(`${r.method} ${r.url}`)}`),
      );
      // Each route the policy names exists (a renamed route would otherwise leave its scope untested).
      const seen = new Set(routes.map((r) => `${r.method} ${r.url}`));
      assert.deepEqual(
        [...OPERATE, ...ADMIN].filter((r) => !seen.has(r)),
        [],
      );
    });

    it('answers 403 exactly where the token scope is below the route scope, on every route', async () => {
      const routes = server.h.server.routeScopes.filter((r) => !r.public);
      const wrong: string[] = [];
      for (const route of routes) {
        const needed = route.scope ?? 'admin';
        const url = concrete(route.url);
        for (const scope of TOKEN_SCOPES) {
          const payload = route.method === 'GET' || route.method === 'HEAD' ? undefined : {};
          const res = await call(server.h.server, { method: route.method as 'GET', url, headers: bearer(tokens[scope]), payload });
          // Allowed means neither 401 nor 403 (nor a crash); a 404 or 400 from the dummy parameters is fine.
          const refused = res.statusCode === 403;
          if (refused !== !scopeAllows(scope, needed) || res.statusCode === 401 || res.statusCode >= 500)
            wrong.push(`${route.method} ${route.url} (needs ${needed}) with a ${scope} token: ${res.statusCode} ${res.body.slice(0, 120)}`);
          else if (refused && route.method !== 'HEAD') {
            const error = (res.data as { error: { code: string; message: string } }).error;
            assert.equal(error.code, 'forbidden');
            assert.match(error.message, new RegExp(`scope '${scope}'.*needs '${needed}'`));
          }
        }
      }
      assert.deepEqual(wrong, []);
    });

    it('a token made without a scope can read and nothing more; an unknown scope is refused', async () => {
      const admin = bearer(tokens.admin);
      const made = await call(server.h.server, { method: 'POST', url: '/api/v1/tokens', headers: admin, payload: { name: 'no-scope' } });
      assert.equal(made.statusCode, 201);
      const { id, token, scope } = made.data as { id: string; token: string; scope: string };
      assert.equal(scope, 'read');
      const listed = (await call(server.h.server, { method: 'GET', url: '/api/v1/tokens', headers: admin })).data as { items: { id: string; scope: string }[] };
      assert.equal(listed.items.find((t) => t.id === id)?.scope, 'read');
      assert.equal((await call(server.h.server, { method: 'GET', url: '/api/v1/vulnerabilities', headers: bearer(token) })).statusCode, 200);
      assert.equal((await call(server.h.server, { method: 'POST', url: '/api/v1/sources/x/sync', headers: bearer(token), payload: {} })).statusCode, 403);
      const session = (await call(server.h.server, { method: 'GET', url: '/api/v1/auth/session', headers: bearer(token) })).data as {
        via: string;
        scope: string;
      };
      assert.deepEqual([session.via, session.scope], ['token', 'read']);

      const bad = await call(server.h.server, { method: 'POST', url: '/api/v1/tokens', headers: admin, payload: { name: 'x', scope: 'root' } });
      assert.equal(bad.statusCode, 400);
      assert.equal((bad.data as { error: { field: string } }).error.field, 'scope');
      // An operate token cannot make itself an admin one.
      const climb = await call(server.h.server, {
        method: 'POST',
        url: '/api/v1/tokens',
        headers: bearer(tokens.operate),
        payload: { name: 'x', scope: 'admin' },
      });
      assert.equal(climb.statusCode, 403);
    });

    it('a logged-in session keeps every right', async () => {
      const { cookie, csrf } = await login(server.h.server);
      const session = (await call(server.h.server, { method: 'GET', url: '/api/v1/auth/session', headers: { cookie } })).data as { scope: string };
      assert.equal(session.scope, 'admin');
      const headers = { cookie, 'x-csrf-token': csrf };
      assert.equal((await call(server.h.server, { method: 'GET', url: '/api/v1/tokens', headers })).statusCode, 200);
      assert.equal((await call(server.h.server, { method: 'POST', url: '/api/v1/sources/check', headers, payload: {} })).statusCode, 400);
    });

    it('the OpenAPI document names the scope of each operation', async () => {
      const doc = (await call(server.h.server, { method: 'GET', url: '/api/v1/openapi.json' })).data as {
        info: { description: string };
        paths: Record<string, Record<string, { security?: unknown[]; description?: string; 'x-tributary-scope'?: string }>>;
      };
      assert.match(doc.info.description, /`read` lists, records, exports, reports/);
      const declared = new Map(server.h.server.routeScopes.map((r) => [`${r.method} ${r.url.replace(/:([A-Za-z]+)/g, '{$1}')}`, r]));
      let operations = 0;
      for (const [path, ops] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(ops)) {
          const route = declared.get(`${method.toUpperCase()} ${path}`);
          if (route?.public || (op.security && op.security.length === 0)) {
            assert.equal(op['x-tributary-scope'], undefined, `${method} ${path} is public`);
            continue;
          }
          operations++;
          const scope = op['x-tributary-scope'];
          assert.ok(scope && TOKEN_SCOPES.includes(scope as TokenScope), `${method} ${path} names no scope`);
          if (route) assert.equal(scope, route.scope, `${method} ${path}`);
          assert.match(op.description ?? '', new RegExp(`Needs an API token of scope \`${scope}\``), `${method} ${path}`);
        }
      }
      assert.ok(operations > 40, `only ${operations} operations`);
      assert.equal(doc.paths['/api/v1/tokens']!.post!['x-tributary-scope'], 'admin');
      assert.equal(doc.paths['/api/v1/sources/{name}/sync']!.post!['x-tributary-scope'], 'operate');
      assert.equal(doc.paths['/api/v1/export/{model}']!.get!['x-tributary-scope'], 'read');
    });
  });
}
