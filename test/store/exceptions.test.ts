// Risk exceptions (store/exceptions/, issue 31 §3) on both stores: proposed, approved only by another
// user (or by anyone when the policy says so), rejected, revoked, expired when read past their date;
// every change kept. An approved, unexpired exception takes its findings out of the overdue counts and
// filter and coverage's urgent list, and shows on the finding and in the `excepted` filter.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ForbiddenError, InputError } from '../../src/core/errors.ts';
import type { StoredRecord } from '../../src/core/models.ts';
import type { Store } from '../../src/store/index.ts';
import { recordPages } from '../../src/store/records/export-read.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { openTestStore, writeRecords } from '../helpers/store.ts';

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);

const finding = (host: string, plugin: string, severity: string, firstSeen: string) => ({
  key: `${host}|0|tcp|${plugin}`,
  hostKey: host,
  firstSeen,
  fields: { pluginId: plugin, pluginName: `plugin ${plugin}`, severity, status: 'open', cves: [] },
});

async function ids(store: Store, where: { field: string; op: '='; value: string }[]): Promise<string[]> {
  const page = await store.records.query('vulnerabilities', { filters: [{ field: 'status', op: '!=', value: 'fixed' }, ...where], limit: 100 });
  return page.records.map((r) => r.id).sort();
}

for (const backend of BACKENDS) {
  test(`risk exceptions: approval, expiry, and what they take out of counts (${backend.kind})`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    const store = await openTestStore(db);
    try {
      const lab = await store.sources.create('lab', 'fixture', {}, null);
      await writeRecords(store, lab, {
        hosts: [
          { key: 'a', fields: { hostname: 'a' } },
          { key: 'b', fields: { hostname: 'b' } },
        ],
        vulnerabilities: [
          finding('a', '1001', 'critical', ago(100)),
          finding('b', '1001', 'critical', ago(100)),
          finding('a', '2002', 'high', ago(100)),
          finding('b', '3003', 'low', ago(1)),
        ],
      });
      await store.reports.refreshSummaries();
      const all = (await store.records.query('vulnerabilities', {})).records;
      const hosts = (await store.records.query('hosts', {})).records;
      const hostId = (name: string) => hosts.find((h) => h.hostname === name)!.id;
      const of = (host: string, plugin: string) => all.find((r) => r.pluginId === plugin && r.hostId === hostId(host))!;
      const fa1 = of('a', '1001');
      const fb1 = of('b', '1001');
      const fa2 = of('a', '2002');
      assert.ok(fa1 && fb1 && fa2);
      assert.deepEqual(await store.reports.overdueCounts(), { critical: 2, high: 1 });
      const coverage0 = (await store.reports.coverage(30)).findingsWithoutTicket;
      assert.equal(coverage0, 2, 'the two critical findings are urgent without a ticket');

      // An expiry in the past, or no reason, is refused.
      await assert.rejects(
        store.exceptions.propose({ findingId: fa1.id, reason: 'x', expiresAt: ago(1).slice(0, 10) }, 'alice'),
        (e) => e instanceof InputError && /in the past/.test(e.message),
      );
      await assert.rejects(store.exceptions.propose({ findingId: fa1.id, reason: '  ', expiresAt: inDays(30) }, 'alice'), InputError);
      await assert.rejects(store.exceptions.propose({ pluginId: '1001', assetIds: ['nope'], reason: 'x', expiresAt: inDays(30) }, 'alice'), /no asset or host/);

      // Proposed: shown on the finding, takes nothing out yet.
      const one = await store.exceptions.propose({ findingId: fa1.id, reason: 'compensating control: WAF rule 12', expiresAt: inDays(30) }, 'alice');
      assert.equal(one.scope, 'finding');
      assert.equal(one.state, 'proposed');
      assert.equal(one.pluginId, '1001');
      assert.equal(one.expiresAt, `${inDays(30)}T23:59:59.999Z`, 'a date is valid through its end');
      let rec = await store.records.get('vulnerabilities', fa1.id);
      assert.equal(rec.exceptionState, 'proposed');
      assert.equal(rec.excepted, false);
      assert.equal(rec.overdue, true);
      assert.deepEqual(await store.reports.overdueCounts(), { critical: 2, high: 1 });

      // The requester cannot approve it; another user can.
      await assert.rejects(store.exceptions.decide(one.id, 'approve', 'alice'), ForbiddenError);
      const approved = await store.exceptions.decide(one.id, 'approve', 'bob', { note: 'ok until the patch window' });
      assert.equal(approved.state, 'approved');
      assert.equal(approved.active, true);
      assert.equal(approved.approvedBy, 'bob');
      assert.deepEqual(
        approved.history.map((h) => [h.n, h.action, h.from, h.to, h.by, h.note]),
        [
          [1, 'propose', null, 'proposed', 'alice', null],
          [2, 'approve', 'proposed', 'approved', 'bob', 'ok until the patch window'],
        ],
      );
      assert.ok(approved.history.every((h) => !Number.isNaN(Date.parse(h.at))));
      await assert.rejects(store.exceptions.decide(one.id, 'approve', 'carol'), /is approved/);

      // Approved: out of the overdue counts and filter, and coverage's urgent list; shown and filterable.
      rec = await store.records.get('vulnerabilities', fa1.id);
      assert.equal(rec.excepted, true);
      assert.equal(rec.exceptionId, one.id);
      assert.equal(rec.exceptionState, 'approved');
      assert.equal(rec.exceptionReason, 'compensating control: WAF rule 12');
      assert.equal(rec.overdue, false, 'an excepted finding is not overdue');
      assert.deepEqual(await store.reports.overdueCounts(), { critical: 1, high: 1 });
      assert.deepEqual(await ids(store, [{ field: 'overdue', op: '=', value: 'true' }]), [fb1.id, fa2.id].sort());
      assert.deepEqual(await ids(store, [{ field: 'excepted', op: '=', value: 'true' }]), [fa1.id]);
      assert.equal((await ids(store, [{ field: 'excepted', op: '=', value: 'false' }])).length, 3);
      assert.equal((await store.reports.coverage(30)).findingsWithoutTicket, 1);
      assert.deepEqual(
        (await store.reports.coverageList('findingsWithoutTicket', 30)).map((r) => r.id),
        [fb1.id],
      );
      const exported: StoredRecord[] = [];
      for await (const page of recordPages(store.db, 'vulnerabilities', {})) exported.push(...page);
      const ex = exported.find((r) => r.id === fa1.id)!;
      assert.equal(ex.excepted, true);
      assert.equal(ex.exceptionReason, 'compensating control: WAF rule 12');
      assert.equal(ex.overdue, false);

      // A plugin on chosen hosts, and a plugin everywhere (approval by anyone when the policy allows it).
      const onB = await store.exceptions.propose({ pluginId: '1001', assetIds: [hostId('b')], reason: 'legacy appliance', expiresAt: inDays(10) }, 'alice');
      assert.equal(onB.scope, 'plugin-assets');
      await store.exceptions.decide(onB.id, 'approve', 'alice', { requireOtherApprover: false });
      const everywhere = await store.exceptions.propose({ pluginId: '2002', reason: 'false positive', expiresAt: inDays(10) }, 'alice');
      assert.equal(everywhere.scope, 'plugin');
      await store.exceptions.decide(everywhere.id, 'approve', 'bob');
      assert.deepEqual(await store.reports.overdueCounts(), {});
      assert.deepEqual(await ids(store, [{ field: 'excepted', op: '=', value: 'true' }]), [fa1.id, fb1.id, fa2.id].sort());
      // An export matches exceptions in memory: the same findings, the same exception on each, as the query reads.
      const listed = new Map((await store.records.query('vulnerabilities', {})).records.map((r) => [r.id, r]));
      for await (const page of recordPages(store.db, 'vulnerabilities', {}))
        for (const r of page)
          for (const k of ['excepted', 'exceptionId', 'exceptionState', 'exceptionReason', 'exceptionExpiresAt', 'overdue'])
            assert.equal(r[k], listed.get(r.id)![k], `${k} of ${r.pluginId}`);
      assert.deepEqual(
        [fa1.id, fb1.id, fa2.id].map((id) => listed.get(id)!.exceptionId),
        [one.id, onB.id, everywhere.id],
      );
      assert.deepEqual(
        (await store.exceptions.list({ findingId: fb1.id })).map((e) => e.id),
        [onB.id],
      );

      // Revoked: its finding is back.
      const revoked = await store.exceptions.decide(everywhere.id, 'revoke', 'carol');
      assert.equal(revoked.state, 'revoked');
      assert.equal(revoked.active, false);
      assert.deepEqual(await store.reports.overdueCounts(), { high: 1 });

      // Rejected: never takes anything out.
      const rejected = await store.exceptions.propose({ pluginId: '2002', reason: 'please', expiresAt: inDays(5) }, 'alice');
      await store.exceptions.decide(rejected.id, 'reject', 'bob');
      assert.equal((await store.exceptions.get(rejected.id)).state, 'rejected');
      assert.deepEqual(await store.reports.overdueCounts(), { high: 1 });

      // Expiry passes (the stored date put in the past, as time would): expired when read, the finding overdue again.
      await store.db.run(`UPDATE "exceptions" SET "expires_at" = ? WHERE "id" = ?`, [ago(1), one.id]);
      assert.equal((await store.exceptions.get(one.id)).state, 'expired');
      assert.equal((await store.exceptions.get(one.id)).active, false);
      rec = await store.records.get('vulnerabilities', fa1.id);
      assert.equal(rec.excepted, false);
      assert.equal(rec.exceptionState, 'expired');
      assert.equal(rec.overdue, true);
      assert.deepEqual(await store.reports.overdueCounts(), { critical: 1, high: 1 });
      assert.deepEqual(
        (await store.exceptions.list({ state: 'expired' })).map((e) => e.id),
        [one.id],
      );
      assert.equal((await store.reports.coverage(30)).findingsWithoutTicket, 1, 'fb1 still excepted on its host, fa1 back');
      // A proposal past its date cannot be approved; one read with a later clock is expired.
      const late = await store.exceptions.propose({ findingId: fa2.id, reason: 'x', expiresAt: inDays(2) }, 'alice');
      await assert.rejects(store.exceptions.decide(late.id, 'approve', 'bob', { now: new Date(Date.now() + 3 * DAY).toISOString() }), /is expired/);
      assert.equal((await store.exceptions.get(late.id, { now: new Date(Date.now() + 3 * DAY).toISOString() })).state, 'expired');
      assert.equal((await store.exceptions.get(late.id)).state, 'proposed');
      assert.deepEqual(
        (await store.exceptions.list({ state: 'approved' })).map((e) => e.id),
        [onB.id],
      );
    } finally {
      await store.close();
      await db.drop();
    }
  });
}
