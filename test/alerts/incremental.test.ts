// Issue 31, speed: an alert rule's later evaluations read what changed since its last one (store/alerts/
// incremental.ts), on both stores. Over a sequence of writes (new findings, a severity raised, a fix and
// a reopening, a decision recomputed), feed imports, risk exceptions (revoked, expired) and time moves,
// the incremental evaluation of one rule marks exactly what the full scan (the reference, marks.ts) marks
// for another, step by step, for kev, sla and act; and the steps mark what they should (not nothing).
// A removed rule's marks go in batches after it; the queue of updated findings is cut once read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IncomingRecord } from '../../src/core/models.ts';
import { importFeedFiles } from '../../src/feeds/index.ts';
import { FINDING_ALERT_KINDS, type FindingAlertKind, type Store } from '../../src/store/index.ts';
import { day, kevCatalog } from '../feeds/fixtures.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { openTestStore } from '../helpers/store.ts';

const DAY = 86_400_000;
const BASE = Date.now();
const ago = (days: number) => new Date(BASE - days * DAY).toISOString();

const finding = (host: string, plugin: string, severity: string, firstSeen: string, more: Record<string, unknown> = {}): IncomingRecord => ({
  key: `${host}|0|tcp|${plugin}`,
  hostKey: host,
  firstSeen,
  fields: { pluginId: plugin, pluginName: `plugin ${plugin}`, severity, status: 'open', cves: [], ...more },
});

const rule = (store: Store, name: string) =>
  store.alerts.create({
    name,
    kinds: [...FINDING_ALERT_KINDS],
    format: 'json',
    url: 'http://127.0.0.1:9/x',
    secret: 'a-secret-of-16+chars',
    maxItems: 5,
    createdBy: null,
  });

for (const backend of BACKENDS) {
  test(`incremental alert evaluation equals the full scan over syncs, feeds, exceptions and time (${backend.kind})`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    const store = await openTestStore(db);
    const sla = process.env.TRIBUTARY_SLA_DAYS;
    delete process.env.TRIBUTARY_SLA_DAYS;
    try {
      const lab = await store.sources.create('lab', 'fixture', {}, null);
      let page = 0;
      // Each write a page of its own run, as a sync's (the change feed's events and the upsert's updates).
      const write = async (records: { hosts?: IncomingRecord[]; vulnerabilities?: IncomingRecord[] }) => {
        const stamp = { sourceId: lab.id, sourceName: 'lab', runId: `run-${++page}`, generation: `g${page}`, now: new Date().toISOString() };
        await store.records.writePage(stamp, 's', 'full', records, { value: null, complete: false });
      };
      const hosts = ['a', 'b', 'c'].map((h) => ({ key: h, fields: { hostname: h } }));
      await write({
        hosts,
        vulnerabilities: [
          finding('a', '1001', 'critical', ago(10)), // due in 5 days
          finding('b', '1001', 'critical', ago(10)),
          finding('a', '2002', 'high', ago(10)), // due in 20 days
          finding('b', '3003', 'medium', ago(100)), // past due already
          finding('c', '4004', 'low', ago(1), { cves: ['CVE-2025-0404'] }), // due in 179 days
          finding('a', '5005', 'high', ago(40), { scannerKnownExploited: true }), // past due and known exploited already
        ],
      });
      const idOf = async (host: string, plugin: string) =>
        String(
          (
            await store.db.all(
              `SELECT v."id" FROM "rec_vulnerabilities" v JOIN "rec_hosts" h ON h."id" = v."host_id" WHERE h."hostname" = ? AND v."plugin_id" = ?`,
              [host, plugin],
            )
          )[0]!.id,
        );
      const inc = await rule(store, 'incremental');
      const ref = await rule(store, 'reference');
      const kinds = [...FINDING_ALERT_KINDS];
      const c0 = await store.alerts.readCursor();
      await store.alerts.recordBaseline(inc.id, kinds, 'base-i', BASE, c0);
      await store.alerts.recordBaseline(ref.id, kinds, 'base-r', BASE, c0);
      // The reference is only ever the full scan: it keeps no position (nor holds the queue back).
      await store.db.run(`DELETE FROM "alert_state" WHERE "rule_id" = ?`, [ref.id]);
      const marked = async (ruleId: string, evalId: string, kind: FindingAlertKind) =>
        (await store.db.all(`SELECT "item_id" FROM "alert_marks" WHERE "rule_id" = ? AND "eval_id" = ? AND "kind" = ?`, [ruleId, evalId, kind]))
          .map((r) => String(r.item_id))
          .sort();
      let step = 0;
      let queued = 0;
      /** One evaluation of both rules at BASE + `days`: what each marked, per kind, required equal. */
      const evaluate = async (days: number): Promise<Record<FindingAlertKind, string[]>> => {
        const now = BASE + days * DAY;
        const evalId = `e${++step}`;
        const cursor = await store.alerts.readCursor();
        const out = {} as Record<FindingAlertKind, string[]>;
        for (const kind of kinds) {
          const n = await store.alerts.markNewFindings(inc.id, kind, evalId, cursor, now);
          await store.alerts.markFindings(ref.id, kind, evalId, now);
          const got = await marked(inc.id, evalId, kind);
          assert.deepEqual(got, await marked(ref.id, evalId, kind), `step ${step} (${kind}): incremental = full scan`);
          assert.equal(n, got.length);
          out[kind] = got;
        }
        queued += Number((await store.db.all(`SELECT COUNT(*) AS "n" FROM "alert_touched"`))[0]!.n);
        await store.alerts.pruneTouched();
        return out;
      };
      const none = { kev: [], sla: [], act: [] };
      const [a1001, b1001, a2002, c4004] = [await idOf('a', '1001'), await idOf('b', '1001'), await idOf('a', '2002'), await idOf('c', '4004')];

      assert.deepEqual(await evaluate(1), none, 'nothing changed, nothing due');
      assert.deepEqual(await evaluate(6), { ...none, sla: [a1001, b1001].sort() }, 'due dates passed with no write between');

      // An approved exception keeps a2002 out of the overdue findings past its due date; revoked, it is reported.
      const x = await store.exceptions.propose({ findingId: a2002, reason: 'compensating control', expiresAt: day(60, BASE) }, 'alice');
      await store.exceptions.decide(x.id, 'approve', 'bob');
      assert.deepEqual(await evaluate(21), none, 'excepted');
      await store.exceptions.decide(x.id, 'revoke', 'bob');
      assert.deepEqual(await evaluate(22), { ...none, sla: [a2002] }, 'the exception ended');

      // A sync: c4004's severity raised (its due date moves into the past), a new finding first seen long
      // ago, a new one the scanner calls known exploited, b1001 fixed.
      await write({
        vulnerabilities: [
          finding('c', '4004', 'critical', ago(1), { cves: ['CVE-2025-0404'] }),
          finding('c', '6006', 'high', ago(60)),
          finding('b', '7007', 'info', ago(1), { scannerKnownExploited: true }),
          finding('b', '1001', 'critical', ago(10), { status: 'fixed' }),
        ],
      });
      const [c6006, b7007] = [await idOf('c', '6006'), await idOf('b', '7007')];
      assert.deepEqual(await evaluate(23), { ...none, kev: [b7007], sla: [c4004, c6006].sort() });

      // A plugin-wide exception on 8008 before its findings fall due; it expires (no write) and they are reported.
      await write({ vulnerabilities: [finding('a', '8008', 'medium', ago(80)), finding('c', '8008', 'medium', ago(80))] });
      const [a8008, c8008] = [await idOf('a', '8008'), await idOf('c', '8008')];
      const px = await store.exceptions.propose({ pluginId: '8008', reason: 'vendor fix pending', expiresAt: day(25, BASE) }, 'alice');
      await store.exceptions.decide(px.id, 'approve', 'bob');
      assert.deepEqual(await evaluate(24), none, 'due meanwhile, excepted');
      assert.deepEqual(await evaluate(27), { ...none, sla: [a8008, c8008].sort() }, 'the exception expired');

      // A decision recomputed (as writePriorities updates it): newly in Act.
      await store.db.run(`UPDATE "rec_vulnerabilities" SET "decision" = 'act' WHERE "id" IN (?, ?)`, [a2002, b1001]);
      assert.deepEqual(await evaluate(28), { ...none, act: [a2002] }, 'open and Act; not the fixed one');

      // b1001 reopened (already reported past due: not again). A KEV feed lists c4004's CVE: known exploited.
      await write({ vulnerabilities: [finding('b', '1001', 'critical', ago(10))] });
      await importFeedFiles({ store }, [
        { name: 'kev.json', data: kevCatalog('2026.11.28', new Date().toISOString(), [{ cve: 'CVE-2025-0404', added: day(-1), due: day(40, BASE) }]) },
      ]);
      assert.deepEqual(await evaluate(29), { ...none, kev: [c4004] });

      // A low finding with a KEV-listed CVE falls due at the KEV date, long before its severity's.
      await write({ vulnerabilities: [finding('a', '9009', 'low', ago(1), { cves: ['CVE-2025-0404'] })] });
      const a9009 = await idOf('a', '9009');
      assert.deepEqual(await evaluate(30), { ...none, kev: [a9009] });
      assert.deepEqual(await evaluate(41), { ...none, sla: [a9009] }, 'past its KEV due date');

      // Another SLA policy moves every due date: that evaluation is a full scan, and agrees all the same.
      process.env.TRIBUTARY_SLA_DAYS = 'info:20';
      const info = await evaluate(42);
      assert.deepEqual(info.sla, [b7007], 'info findings now have a due date: b7007 (first seen 1 day before BASE) is past it');
      assert.deepEqual(await evaluate(43), none);

      // The queue of updated findings is cut once every rule has read it (and it held some: the sync's updates).
      assert.ok(queued > 0);
      assert.equal(Number((await store.db.all(`SELECT COUNT(*) AS "n" FROM "alert_touched"`))[0]!.n), 0);
    } finally {
      if (sla === undefined) delete process.env.TRIBUTARY_SLA_DAYS;
      else process.env.TRIBUTARY_SLA_DAYS = sla;
      await store.close();
      await db.drop();
    }
  });

  test(`a removed rule is gone at once; its marks are deleted in batches afterwards (${backend.kind})`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    const store = await openTestStore(db);
    try {
      const lab = await store.sources.create('lab', 'fixture', {}, null);
      const stamp = { sourceId: lab.id, sourceName: 'lab', runId: 'r', generation: 'g', now: new Date().toISOString() };
      const vulnerabilities = Array.from({ length: 7 }, (_, i) => finding(`h${i}`, '1001', 'critical', ago(100)));
      await store.records.writePage(
        stamp,
        's',
        'full',
        { hosts: vulnerabilities.map((v) => ({ key: v.hostKey!, fields: {} })), vulnerabilities },
        { value: null, complete: false },
      );
      const gone = await rule(store, 'gone');
      const kept = await rule(store, 'kept');
      for (const r of [gone, kept]) await store.alerts.recordBaseline(r.id, ['sla'], `b-${r.name}`, Date.now(), await store.alerts.readCursor());
      const count = async (id: string) => Number((await store.db.all(`SELECT COUNT(*) AS "n" FROM "alert_marks" WHERE "rule_id" = ?`, [id]))[0]!.n);
      assert.deepEqual([await count(gone.id), await count(kept.id)], [7, 7]);
      await store.alerts.remove('gone');
      await assert.rejects(store.alerts.get('gone'), /no alert named 'gone'/);
      assert.equal(await count(gone.id), 7, 'removal itself deletes no mark');
      assert.equal(await store.alerts.purgeRemovedMarks(3), 7, 'three batches of at most 3');
      assert.deepEqual([await count(gone.id), await count(kept.id)], [0, 7]);
      assert.equal((await store.db.all(`SELECT * FROM "alert_removed"`)).length, 0);
      assert.equal(await store.alerts.purgeRemovedMarks(3), 0);
    } finally {
      await store.close();
      await db.drop();
    }
  });
}
