// Requests an earlier version left open without a finding (it noted findings that left a request and
// never closed it) are closed by the next apply once migration 49 marks them, on both stores against the
// ServiceDesk Plus simulator; a request the current version leaves open without findings (they left the
// selection) is not, and a marked request whose findings come back is noted, not closed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { IncomingRecord } from '../../src/core/models.ts';
import { remediationTicketsSchema } from '../../src/core/tickets.ts';
import { MIGRATIONS } from '../../src/store/db/migrations.ts';
import type { SourceRecord, Store } from '../../src/store/index.ts';
import { ticketPlan } from '../../src/tickets/index.ts';
import { type RunningSdpSim, startSdpSim } from '../../sim/servicedesk-plus/index.ts';
import { applyOnSim } from '../tickets/apply-on-sim.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { openTestStore, writeRecords } from '../helpers/store.ts';

const SETTINGS = remediationTicketsSchema.parse({ enabled: true });

const host = (key: string, department: string | null): IncomingRecord => ({
  key,
  externalId: key,
  fields: { hostname: key, ipAddresses: [`10.2.0.${key.replace(/\D/g, '')}`], department },
});
const vuln = (hostKey: string, pluginId: string, severity = 'critical'): IncomingRecord => ({
  key: `${hostKey}|${pluginId}`,
  hostKey,
  fields: { pluginId, pluginName: `Fix ${pluginId}`, severity, status: 'open', cves: [`CVE-2026-${pluginId}`] },
});

/** What migration 49 does to the rows an upgrade finds (its statements after the new column's). */
const MARK = MIGRATIONS.find((m) => m.version === 49)!
  .sql.split(';')
  .map((s) => s.trim())
  .filter((s) => s.startsWith('UPDATE'));

for (const backend of BACKENDS) {
  describe(`requests emptied by an earlier version on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let store: Store;
    let sim: RunningSdpSim;
    let lab: SourceRecord;
    let desk: SourceRecord;
    const apply = async () => {
      return applyOnSim(store, desk, SETTINGS, sim);
    };
    const rowOf = async (key: string) => (await store.tickets.get(desk.id, key))!;
    const statusOf = (id: string) => (sim.written.get(id)!.status as { name: string }).name;
    /** The earlier version's answer to findings leaving a request: noted, kept open with no finding. */
    const emptyAsBefore = async (key: string) => store.tickets.update(desk.id, key, { findingIds: [] });
    const upgrade = async () => {
      assert.ok(MARK.length > 0, 'migration 49 marks rows');
      for (const sql of MARK) await store.db.run(sql);
    };

    before(async () => {
      db = await backend.create();
      store = await openTestStore(db);
      sim = await startSdpSim({ seed: 13, requests: 5 });
      lab = await store.sources.create('lab', 'fixture', {}, null);
      desk = await store.sources.create('desk', 'fixture', {}, null);
    });
    after(async () => {
      await store?.close();
      await sim?.close();
      await db?.drop();
    });

    test('a request the earlier version emptied is closed by the next apply, once; one emptied now is left open', async () => {
      await writeRecords(store, lab, {
        hosts: [host('h1', 'Finance'), host('h2', 'Finance')],
        vulnerabilities: [vuln('h1', '600'), vuln('h2', '601')],
      });
      assert.equal((await apply()).created, 2);
      const moved = await rowOf('fix=600;owner=finance');
      const dropped = await rowOf('fix=601;owner=finance');
      // The earlier version: h1 moved to HR (its finding to a new HR request), the Finance request noted and kept open, empty.
      await writeRecords(store, lab, { hosts: [host('h1', 'HR')] });
      await emptyAsBefore(moved.key);
      // The current version: 601 falls below the severity floor; the request is noted and stays open, empty.
      await writeRecords(store, lab, { vulnerabilities: [vuln('h2', '601', 'low')] });
      const before = await apply();
      assert.deepEqual([before.created, before.noted, before.closed], [1, 1, 0], 'without the mark the emptied request is not closed');
      assert.equal(statusOf(moved.requestId!), 'Open');
      assert.deepEqual((await rowOf(dropped.key)).findingIds, []);
      assert.equal((await apply()).writes, 0);

      // The upgrade marks the open requests without findings (both of them: an earlier version cannot tell them apart).
      await upgrade();
      assert.equal((await rowOf(moved.key)).emptiedEarlier, true);
      assert.equal((await rowOf(dropped.key)).emptiedEarlier, true);
      const plan = await ticketPlan(store, desk, SETTINGS);
      assert.deepEqual(
        plan.actions.map((a) => [a.kind, a.key, a.reason ?? null]),
        [
          ['resolve', 'fix=600;owner=finance', 'emptied'],
          ['resolve', 'fix=601;owner=finance', 'emptied'],
        ],
      );
      const r = await apply();
      assert.deepEqual([r.closed, r.created, r.noted, r.resolved], [2, 0, 0, 0]);
      assert.equal(statusOf(moved.requestId!), 'Canceled', 'set to movedStatus');
      assert.equal(statusOf(dropped.requestId!), 'Canceled');
      assert.match(String(sim.written.notes(moved.requestId!).at(-1)!.description), /left this request before Tributary closed requests left without findings/);
      const after = await rowOf(moved.key);
      assert.deepEqual([after.state, after.emptiedEarlier], ['resolved', false]);
      const log = (await store.tickets.logEntries(desk.id)).filter((e) => e.action === 'close');
      assert.deepEqual(log.map((e) => e.requestId).sort(), [moved.requestId, dropped.requestId].sort());
      assert.equal((await apply()).writes, 0, 'closed once');
    });

    test('a marked request whose findings come back before the next apply is noted with them, not closed', async () => {
      await writeRecords(store, lab, { hosts: [host('h3', 'Sales')], vulnerabilities: [vuln('h3', '700')] });
      await apply();
      const row = await rowOf('fix=700;owner=sales');
      await writeRecords(store, lab, { hosts: [host('h3', 'Legal')] });
      await emptyAsBefore(row.key);
      await upgrade();
      await writeRecords(store, lab, { hosts: [host('h3', 'Sales')] });
      const r = await apply();
      assert.deepEqual([r.closed, r.noted], [0, 1]);
      assert.equal(statusOf(row.requestId!), 'Open');
      const now = await rowOf(row.key);
      assert.deepEqual([now.findingIds.length, now.emptiedEarlier], [1, false]);
    });
  });
}
