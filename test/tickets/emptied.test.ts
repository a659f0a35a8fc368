// Remediation requests whose findings all left them unfixed (issue 32 §4), on both stores against the
// ServiceDesk Plus simulator: an owner (department) change moves a group's findings to another group's
// request, and approved risk exceptions take them out; the emptied request is noted with where they went
// (the new request's id, the exception's id and reason) and set to `movedStatus`; when an exception
// expires the findings come back and the reopen rules apply (`reopen` sets it open again, `new` follows
// them with a new request).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { IncomingRecord } from '../../src/core/models.ts';
import { type RemediationTicketsConfig, remediationTicketsSchema } from '../../src/core/tickets.ts';
import type { SourceRecord, Store } from '../../src/store/index.ts';
import { ticketPlan } from '../../src/tickets/index.ts';
import { type RunningSdpSim, startSdpSim } from '../../sim/servicedesk-plus/index.ts';
import { applyOnSim } from './apply-on-sim.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { openTestStore, writeRecords } from '../helpers/store.ts';

const SETTINGS = remediationTicketsSchema.parse({ enabled: true });

const host = (key: string, department: string | null): IncomingRecord => ({
  key,
  externalId: key,
  fields: { hostname: key, ipAddresses: [`10.1.0.${key.replace(/\D/g, '')}`], department },
});
const vuln = (hostKey: string, pluginId: string, status = 'open'): IncomingRecord => ({
  key: `${hostKey}|${pluginId}`,
  hostKey,
  fields: { pluginId, pluginName: `Fix ${pluginId}`, severity: 'critical', status, cves: [`CVE-2026-${pluginId}`] },
});
const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

for (const backend of BACKENDS) {
  describe(`remediation requests emptied without a fix on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let store: Store;
    let sim: RunningSdpSim;
    let lab: SourceRecord;
    let desk: SourceRecord;
    const apply = async (settings: RemediationTicketsConfig = SETTINGS) => {
      return applyOnSim(store, desk, settings, sim);
    };
    const rowOf = async (key: string) => (await store.tickets.get(desk.id, key))!;
    const statusOf = (id: string) => (sim.written.get(id)!.status as { name: string }).name;
    const findingId = async (hostKey: string, pluginId: string) => {
      const all = await store.tickets.openFindings({ severities: ['critical'], knownExploited: false });
      const hostIds = new Map<string, string>();
      for (const f of all) if (f.pluginId === pluginId) hostIds.set(f.id, f.hostId);
      const hosts = await store.records.hostLabels([...new Set(hostIds.values())]);
      const h = hosts.find((x) => x.hostname === hostKey)!;
      return [...hostIds].find(([, hid]) => hid === h.id)![0];
    };

    before(async () => {
      db = await backend.create();
      store = await openTestStore(db);
      sim = await startSdpSim({ seed: 12, requests: 5 });
      lab = await store.sources.create('lab', 'fixture', {}, null);
      desk = await store.sources.create('desk', 'fixture', {}, null);
    });
    after(async () => {
      await store?.close();
      await sim?.close();
      await db?.drop();
    });

    test('an owner change moves the findings: the old request is noted with the new one and set to movedStatus', async () => {
      // Scanned before the CMDB brings departments: the findings have no owner.
      await writeRecords(store, lab, { hosts: [host('h1', null), host('h2', null)], vulnerabilities: [vuln('h1', '100'), vuln('h2', '100')] });
      assert.equal((await apply()).created, 1);
      const old = await rowOf('fix=100;owner=');
      assert.equal(statusOf(old.requestId!), 'Open');
      // The departments arrive: both findings belong to Finance now.
      await writeRecords(store, lab, { hosts: [host('h1', 'Finance'), host('h2', 'Finance')] });
      const plan = await ticketPlan(store, desk, SETTINGS);
      assert.deepEqual(
        plan.actions.map((a) => [a.kind, a.key, a.reason ?? null]),
        [
          ['create', 'fix=100;owner=finance', null],
          ['resolve', 'fix=100;owner=', 'moved'],
        ],
      );
      const close = plan.actions[1]!;
      assert.deepEqual(close.movedTo, [{ key: 'fix=100;owner=finance', findingIds: old.findingIds }]);
      assert.deepEqual([close.fixed, close.left.length], [[], 2]);
      const r = await apply();
      assert.deepEqual([r.created, r.closed, r.resolved, r.noted], [1, 1, 0, 0]);
      const moved = await rowOf('fix=100;owner=finance');
      assert.deepEqual(moved.findingIds, old.findingIds);
      assert.equal(statusOf(old.requestId!), 'Canceled', 'set to the default movedStatus, a status the service desk has');
      assert.equal(statusOf(moved.requestId!), 'Open');
      const note = String(sim.written.notes(old.requestId!).at(-1)!.description);
      assert.match(note, new RegExp(`Moved to other requests \\(2\\):</b> request ${moved.requestId}`));
      assert.match(
        String((sim.written.get(old.requestId!)!.resolution as { content: string }).content),
        new RegExp(`moved to request\\(s\\) ${moved.requestId}`),
      );
      const closed = await rowOf('fix=100;owner=');
      assert.deepEqual([closed.state, closed.findingIds], ['resolved', []]);
      const log = (await store.tickets.logEntries(desk.id)).find((e) => e.action === 'close')!;
      assert.equal(log.requestId, old.requestId);
      assert.equal((await apply()).writes, 0, 'closed once: the next run writes nothing');
      assert.equal((await store.reports.coverage(30)).ticketsClosedFindingsOpen, 0, 'not flagged as closed with findings open');
    });

    test('a configured movedStatus is the one set', async () => {
      await writeRecords(store, lab, { hosts: [host('h3', null)], vulnerabilities: [vuln('h3', '150')] });
      await apply();
      const old = await rowOf('fix=150;owner=');
      await writeRecords(store, lab, { hosts: [host('h3', 'HR')] });
      const r = await apply(remediationTicketsSchema.parse({ enabled: true, movedStatus: 'Closed' }));
      assert.deepEqual([r.created, r.closed], [1, 1]);
      assert.equal(statusOf(old.requestId!), 'Closed');
    });

    test('a request whose findings are all excepted is closed with the exception named; the exception expiring reopens it', async () => {
      await writeRecords(store, lab, { hosts: [host('h4', 'Finance')], vulnerabilities: [vuln('h4', '200'), vuln('h1', '200')] });
      await apply();
      const row = await rowOf('fix=200;owner=finance');
      assert.equal(row.findingIds.length, 2);
      const x = await store.exceptions.propose({ pluginId: '200', reason: 'compensating control: WAF rule 7', expiresAt: inDays(30) }, 'alice');
      await store.exceptions.decide(x.id, 'approve', 'bob');
      const plan = await ticketPlan(store, desk, SETTINGS);
      assert.deepEqual(
        plan.actions.map((a) => [a.kind, a.key, a.reason ?? null]),
        [['resolve', 'fix=200;owner=finance', 'excepted']],
      );
      assert.deepEqual(plan.actions[0]!.exceptions, [{ id: x.id, reason: 'compensating control: WAF rule 7', findingIds: row.findingIds }]);
      const r = await apply();
      assert.deepEqual([r.closed, r.noted, r.created], [1, 0, 0]);
      assert.equal(statusOf(row.requestId!), 'Canceled');
      const note = String(sim.written.notes(row.requestId!).at(-1)!.description);
      assert.match(note, new RegExp(`exception ${x.id} "compensating control: WAF rule 7" \\(2:`));
      assert.equal((await apply()).writes, 0);
      // The exception expires: the findings are back in their group, and the request we closed is reopened.
      await store.db.run(`UPDATE "exceptions" SET "expires_at" = ? WHERE "id" = ?`, [new Date(Date.now() - 1000).toISOString(), x.id]);
      const back = await ticketPlan(store, desk, SETTINGS);
      assert.deepEqual(
        back.actions.map((a) => [a.kind, a.key, a.added.length]),
        [['reopen', 'fix=200;owner=finance', 2]],
      );
      const before = sim.written.size;
      const again = await apply();
      assert.deepEqual([again.reopened, again.created], [1, 0]);
      assert.equal(sim.written.size, before, 'the same request');
      assert.equal(statusOf(row.requestId!), 'Open');
      assert.equal((await rowOf(row.key)).state, 'open');
    });

    test('reopen: new follows findings back from an expired exception with a new request (the cancelled one is final)', async () => {
      const settings = remediationTicketsSchema.parse({ enabled: true, reopen: 'new' });
      await writeRecords(store, lab, { vulnerabilities: [vuln('h4', '300')] });
      await apply(settings);
      const row = await rowOf('fix=300;owner=finance');
      const x = await store.exceptions.propose({ findingId: await findingId('h4', '300'), reason: 'decommissioning', expiresAt: inDays(10) }, 'alice');
      await store.exceptions.decide(x.id, 'approve', 'bob');
      assert.equal((await apply(settings)).closed, 1);
      assert.equal(statusOf(row.requestId!), 'Canceled');
      await store.db.run(`UPDATE "exceptions" SET "expires_at" = ? WHERE "id" = ?`, [new Date(Date.now() - 1000).toISOString(), x.id]);
      const r = await apply(settings);
      assert.deepEqual([r.replaced, r.created, r.reopened], [1, 1, 0]);
      const now = await rowOf(row.key);
      assert.notEqual(now.requestId, row.requestId);
      assert.equal(statusOf(row.requestId!), 'Canceled', 'the old one stays cancelled');
      assert.equal(statusOf(now.requestId!), 'Open');
    });

    test('findings that merely leave the selection leave the request open, noted; a close waits for a deferred new request', async () => {
      await writeRecords(store, lab, { hosts: [host('h5', null)], vulnerabilities: [vuln('h5', '400'), vuln('h5', '401')] });
      await apply();
      const a = await rowOf('fix=400;owner=');
      const b = await rowOf('fix=401;owner=');
      // 400 drops below the severity floor: not moved, not excepted.
      await writeRecords(store, lab, { vulnerabilities: [{ ...vuln('h5', '400'), fields: { ...vuln('h5', '400').fields, severity: 'low' } }] });
      const plan = await ticketPlan(store, desk, SETTINGS);
      assert.deepEqual(
        plan.actions.map((x) => [x.kind, x.key, x.reason ?? null]),
        [['note', 'fix=400;owner=', null]],
      );
      await apply();
      assert.equal(statusOf(a.requestId!), 'Open');
      // 401 moves to HR, but no request may be created this run: the old one stays open until it is.
      await writeRecords(store, lab, { hosts: [host('h5', 'HR')] });
      const capped = remediationTicketsSchema.parse({ enabled: true, maxCreatesPerRun: 0 });
      const held = await ticketPlan(store, desk, capped);
      assert.deepEqual(
        held.actions.map((x) => [x.kind, x.key, x.deferred]),
        [['create', 'fix=401;owner=hr', true]],
      );
      assert.equal((await apply(capped)).writes, 0);
      assert.equal(statusOf(b.requestId!), 'Open');
      const r = await apply();
      assert.deepEqual([r.created, r.closed], [1, 1]);
      assert.equal(statusOf(b.requestId!), 'Canceled');
    });
  });
}
