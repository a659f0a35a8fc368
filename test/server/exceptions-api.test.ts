// /api/v1/exceptions on both stores (issue 31 §3): proposed as the request's user, approved only by
// another user (a token acts as its owner), refused in the past, read back with its history; approving
// needs admin when so configured; an approved exception shows on the finding, filters as excepted=true,
// and takes the finding out of the overdue summary and out of the `overdue=true` list.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createApiToken } from '../../src/app/api-tokens.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { writeRecords } from '../helpers/store.ts';
import { bearer, call, serverOn } from './helpers.ts';

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);

for (const backend of BACKENDS) {
  describe(`risk exceptions API on ${backend.kind}`, { skip: backend.skip }, () => {
    const users = {} as { alice: Record<string, string>; bob: Record<string, string>; bobRead: Record<string, string> };
    const ctx = serverOn(backend, async (h) => {
      const lab = await h.app.store.sources.create('lab', 'fixture', {}, null);
      await writeRecords(h.app.store, lab, {
        hosts: [{ key: 'a', fields: { hostname: 'a' } }],
        vulnerabilities: [
          {
            key: 'a|0|tcp|1001',
            hostKey: 'a',
            firstSeen: ago(100),
            fields: { pluginId: '1001', severity: 'critical', status: 'open', cves: [], acceptedRisk: true },
          },
          { key: 'a|0|tcp|2002', hostKey: 'a', firstSeen: ago(100), fields: { pluginId: '2002', severity: 'critical', status: 'open', cves: [] } },
        ],
      });
      await h.app.store.reports.refreshSummaries();
      for (const name of ['alice', 'bob'] as const) {
        const id = await h.app.store.users.create(name, 'scrypt:unusable');
        users[name] = bearer((await createApiToken(h.app, id, { name, scope: 'operate' })).token);
        if (name === 'bob') users.bobRead = bearer((await createApiToken(h.app, id, { name: 'bob-read', scope: 'read' })).token);
      }
    });

    it('proposes, refuses self-approval, approves by another user, and takes the finding out of overdue', async () => {
      const { server } = ctx.h;
      const list = await call(server, { method: 'GET', url: '/api/v1/vulnerabilities?pluginId=1001', headers: ctx.auth });
      const finding = (list.data as { items: { id: string; overdue: boolean; acceptedRisk: boolean }[] }).items[0]!;
      assert.equal(finding.overdue, true);
      assert.equal(finding.acceptedRisk, true, "the console's own accepted risk is kept beside ours");

      const past = await call(server, {
        method: 'POST',
        url: '/api/v1/exceptions',
        headers: users.alice,
        payload: { findingId: finding.id, reason: 'r', expiresAt: ago(2).slice(0, 10) },
      });
      assert.equal(past.statusCode, 400, past.body);
      assert.match(past.body, /in the past/);
      const readOnly = await call(server, {
        method: 'POST',
        url: '/api/v1/exceptions',
        headers: users.bobRead,
        payload: { findingId: finding.id, reason: 'r', expiresAt: inDays(9) },
      });
      assert.equal(readOnly.statusCode, 403);

      const made = await call(server, {
        method: 'POST',
        url: '/api/v1/exceptions',
        headers: users.alice,
        payload: { findingId: finding.id, reason: 'isolated VLAN', expiresAt: inDays(30) },
      });
      assert.equal(made.statusCode, 201, made.body);
      const ex = made.data as { id: string; state: string; requestedBy: string; scope: string };
      assert.deepEqual([ex.state, ex.requestedBy, ex.scope], ['proposed', 'alice', 'finding']);

      const self = await call(server, { method: 'POST', url: `/api/v1/exceptions/${ex.id}/approve`, headers: users.alice, payload: {} });
      assert.equal(self.statusCode, 403, self.body);
      assert.match(self.body, /another user/);

      // With approval limited to admin, an operate token may not approve.
      ctx.h.app.env.TRIBUTARY_EXCEPTION_APPROVER_SCOPE = 'admin';
      try {
        const op = await call(server, { method: 'POST', url: `/api/v1/exceptions/${ex.id}/approve`, headers: users.bob, payload: {} });
        assert.equal(op.statusCode, 403, op.body);
        assert.match(op.body, /admin scope/);
      } finally {
        delete ctx.h.app.env.TRIBUTARY_EXCEPTION_APPROVER_SCOPE;
      }

      const ok = await call(server, { method: 'POST', url: `/api/v1/exceptions/${ex.id}/approve`, headers: users.bob, payload: { note: 'fine' } });
      assert.equal(ok.statusCode, 200, ok.body);
      const approved = ok.data as { state: string; approvedBy: string; active: boolean; history: { action: string; by: string }[] };
      assert.deepEqual([approved.state, approved.approvedBy, approved.active], ['approved', 'bob', true]);
      assert.deepEqual(
        approved.history.map((c) => [c.action, c.by]),
        [
          ['propose', 'alice'],
          ['approve', 'bob'],
        ],
      );
      const again = await call(server, { method: 'POST', url: `/api/v1/exceptions/${ex.id}/approve`, headers: users.bob });
      assert.equal(again.statusCode, 409, again.body);

      const rec = await call(server, { method: 'GET', url: `/api/v1/vulnerabilities/${finding.id}`, headers: users.bobRead });
      const r = rec.data as Record<string, unknown>;
      assert.deepEqual([r.excepted, r.exceptionId, r.exceptionState, r.exceptionReason, r.overdue], [true, ex.id, 'approved', 'isolated VLAN', false]);
      const excepted = await call(server, { method: 'GET', url: '/api/v1/vulnerabilities?excepted=true', headers: ctx.auth });
      assert.deepEqual(
        (excepted.data as { items: { id: string }[] }).items.map((i) => i.id),
        [finding.id],
      );
      const overdue = await call(server, { method: 'GET', url: '/api/v1/vulnerabilities?overdue=true', headers: ctx.auth });
      assert.deepEqual(
        (overdue.data as { items: { pluginId: string }[] }).items.map((i) => i.pluginId),
        ['2002'],
      );
      const listed = await call(server, { method: 'GET', url: `/api/v1/exceptions?findingId=${finding.id}`, headers: users.bobRead });
      assert.deepEqual(
        (listed.data as { items: { id: string }[] }).items.map((i) => i.id),
        [ex.id],
      );
      const one = await call(server, { method: 'GET', url: `/api/v1/exceptions/${ex.id}`, headers: users.bobRead });
      assert.equal(one.statusCode, 200);
      const bad = await call(server, { method: 'GET', url: '/api/v1/vulnerabilities?excepted=maybe', headers: ctx.auth });
      assert.equal(bad.statusCode, 400);

      const revoked = await call(server, { method: 'POST', url: `/api/v1/exceptions/${ex.id}/revoke`, headers: users.alice, payload: {} });
      assert.equal(revoked.statusCode, 200, revoked.body);
      assert.equal((revoked.data as { state: string }).state, 'revoked');
      const back = await call(server, { method: 'GET', url: '/api/v1/vulnerabilities?overdue=true', headers: ctx.auth });
      assert.equal((back.data as { items: unknown[] }).items.length, 2);
      const policy = await call(server, { method: 'GET', url: '/api/v1/exceptions/policy', headers: users.bobRead });
      assert.deepEqual(policy.data, { requireOtherApprover: true, approverScope: 'operate' });
    });

    it("speaks §7.3's names: scope plugin for a plugin alone, plugin-assets with assetIds, and the model's fields in answers and the list", async () => {
      const { server } = ctx.h;
      const FIELDS = ['scope', 'findingId', 'pluginId', 'assetIds', 'reason', 'expiresAt', 'requestedBy', 'approvedBy', 'state', 'createdAt'];
      const hosts = await call(server, { method: 'GET', url: '/api/v1/hosts', headers: ctx.auth });
      const hostId = (hosts.data as { items: { id: string }[] }).items[0]!.id;
      const post = (payload: Record<string, unknown>) => call(server, { method: 'POST', url: '/api/v1/exceptions', headers: users.alice, payload });
      const everywhere = await post({ pluginId: '2002', reason: 'vendor fix pending', expiresAt: inDays(10) });
      assert.equal(everywhere.statusCode, 201, everywhere.body);
      const some = await post({ pluginId: '2002', assetIds: [hostId], reason: 'lab only', expiresAt: inDays(10) });
      assert.equal(some.statusCode, 201, some.body);
      const a = everywhere.data as Record<string, unknown>;
      const b = some.data as Record<string, unknown>;
      for (const e of [a, b]) for (const k of FIELDS) assert.ok(k in e, `answer names ${k}`);
      assert.deepEqual([a.scope, a.pluginId, a.assetIds, a.findingId, a.requestedBy, a.approvedBy], ['plugin', '2002', [], null, 'alice', null]);
      assert.deepEqual([b.scope, b.pluginId, b.assetIds], ['plugin-assets', '2002', [hostId]]);
      const rejected = await call(server, { method: 'POST', url: `/api/v1/exceptions/${b.id}/reject`, headers: users.bob, payload: {} });
      assert.deepEqual(
        [rejected.statusCode, (rejected.data as { state: string }).state, (rejected.data as { approvedBy: string }).approvedBy],
        [200, 'rejected', 'bob'],
      );

      const listed = await call(server, { method: 'GET', url: '/api/v1/exceptions?pluginId=2002', headers: users.bobRead });
      assert.equal(listed.statusCode, 200, listed.body);
      const items = (listed.data as { items: Record<string, unknown>[] }).items;
      for (const e of items) for (const k of FIELDS) assert.ok(k in e, `list names ${k}`);
      assert.deepEqual(
        items.map((e) => [e.id, e.scope, e.state]).sort(),
        [
          [a.id, 'plugin', 'proposed'],
          [b.id, 'plugin-assets', 'rejected'],
        ].sort(),
      );
      const revoked = await call(server, { method: 'POST', url: `/api/v1/exceptions/${a.id}/revoke`, headers: users.alice, payload: {} });
      assert.equal(revoked.statusCode, 200, revoked.body);
    });
  });
}
