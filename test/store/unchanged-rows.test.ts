// Rows a later run writes again unchanged but for when they were seen (store/records/unchanged.ts), on
// both stores: they get only their last-seen time and run stamps (every other column as it was, no change
// event, nothing queued for the alerts), while any change beside them still lands whole: a field, a
// status (with its event), a reopened finding seen open again (stays reopened), a removed record seen
// again, and a bare host row the store made, which is `new` when upstream first sends it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { IncomingRecord } from '../../src/core/models.ts';
import { SecretBox } from '../../src/core/secrets.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { recordId } from '../../src/store/records/upsert.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';

const box = new SecretBox(Buffer.alloc(32, 7));
const secretKeys = (type: string) => (type === 'fixture' ? ['token'] : []);

const finding = (plugin: string, over: Record<string, unknown> = {}, host = 'uuid:h1'): IncomingRecord => ({
  key: `${host}|443|tcp|${plugin}`,
  externalId: plugin,
  hostKey: host,
  firstSeen: '2026-01-02T03:04:05.000Z',
  lastSeen: '2026-10-01T00:00:00.000Z',
  fields: {
    pluginId: plugin,
    pluginName: `Plugin ${plugin}`,
    severity: 'high',
    status: 'open',
    cves: ['CVE-2024-1234'],
    vprScore: 7.4,
    port: 443,
    protocol: 'tcp',
    proof: `output of ${plugin}`,
    ...over,
  },
});
const host = (key = 'uuid:h1', over: Record<string, unknown> = {}): IncomingRecord => ({
  key,
  externalId: key.slice(5),
  lastSeen: '2026-10-01T00:00:00.000Z',
  fields: { hostname: 'web01', os: 'Linux', ipAddresses: ['10.0.0.1'], ...over },
});

for (const backend of BACKENDS) {
  describe(`rows written again unchanged on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let store: Store;
    let sourceId: string;
    const stamp = (runId: string, generation: string, now: string) => ({ sourceId, sourceName: 'lab', runId, generation, now });
    const write = (
      runId: string,
      generation: string,
      now: string,
      records: Partial<Record<string, IncomingRecord[]>>,
      mode: 'full' | 'incremental' = 'incremental',
    ) => store.records.writePage(stamp(runId, generation, now), 'findings', mode, records, { value: null, complete: false });
    const findingId = (plugin: string, h = 'uuid:h1') => recordId('lab', 'vulnerabilities', `${h}|443|tcp|${plugin}`, recordId('lab', 'hosts', h));
    const raw = async (table: string, id: string) => (await store.db.all(`SELECT * FROM "${table}" WHERE "id" = ?`, [id]))[0]!;
    const events = async (runId: string) =>
      (await store.db.all(`SELECT "model", "external_id", "change", "from", "to" FROM "changes" WHERE "run_id" = ?`, [runId]))
        .map((e) => `${e.model} ${e.external_id ?? '-'} ${e.change} ${e.from ?? '-'}→${e.to ?? '-'}`)
        .sort();
    const touched = async () => (await store.db.all(`SELECT "finding_id" FROM alert_touched`)).map((r) => String(r.finding_id)).sort();
    /** Every column but the stamps a later run moves. */
    const content = (row: Record<string, unknown>) => {
      const { last_seen: _l, seen_gen: _g, seen_run: _r, ...rest } = row;
      return rest;
    };

    before(async () => {
      db = await backend.create();
      store = await openStore(db.url, box, secretKeys);
      sourceId = (await store.sources.create('lab', 'fixture', { url: 'https://x.example', token: 'very-secret-token-1' }, null)).id;
      await write('r1', 'g1', '2026-10-01T01:00:00.000Z', { hosts: [host()], vulnerabilities: ['1', '2', '3', '4'].map((p) => finding(p)) }, 'full');
    });
    after(async () => {
      await store?.close();
      await db?.drop();
    });

    test('an unchanged finding and host get only their stamps; a changed field and a changed status land, the status with its event', async () => {
      const before1 = await raw('rec_vulnerabilities', findingId('1'));
      const beforeHost = await raw('rec_hosts', recordId('lab', 'hosts', 'uuid:h1'));
      const queued = await touched();
      const later = { lastSeen: '2026-10-02T00:00:00.000Z' };
      await write('r2', 'g2', '2026-10-02T01:00:00.000Z', {
        hosts: [{ ...host(), ...later }],
        vulnerabilities: [
          { ...finding('1'), ...later },
          { ...finding('2', { pluginName: 'Renamed', proof: 'new output' }), ...later },
          { ...finding('3', { status: 'fixed' }), ...later },
          { ...finding('4', { severity: 'critical' }), ...later },
        ],
      });
      const after1 = await raw('rec_vulnerabilities', findingId('1'));
      assert.deepEqual(content(after1), content(before1));
      assert.equal(after1.last_seen, '2026-10-02T00:00:00.000Z');
      assert.equal(after1.seen_run, 'r2');
      assert.equal(after1.seen_gen, 'g2');
      const afterHost = await raw('rec_hosts', recordId('lab', 'hosts', 'uuid:h1'));
      assert.deepEqual(content(afterHost), content(beforeHost));
      assert.equal(afterHost.seen_run, 'r2');
      assert.equal(afterHost.last_seen, '2026-10-02T00:00:00.000Z');

      const f2 = await store.records.get('vulnerabilities', findingId('2'));
      assert.equal(f2.pluginName, 'Renamed');
      assert.equal(f2.proof, 'new output');
      assert.equal(f2.lastSeen, '2026-10-02T00:00:00.000Z');
      const f3 = await store.records.get('vulnerabilities', findingId('3'));
      assert.equal(f3.status, 'fixed');
      assert.equal(f3.fixedAt, '2026-10-02T01:00:00.000Z');
      assert.equal((await store.records.get('vulnerabilities', findingId('4'))).severity, 'critical');
      // Only the status moved an event; the alerts queue the findings whose watched columns changed.
      assert.deepEqual(await events('r2'), ['vulnerabilities 3 fixed open→fixed']);
      assert.deepEqual(
        (await touched()).filter((id) => !queued.includes(id)),
        [findingId('3'), findingId('4')].sort(),
      );
    });

    test('a reopened finding seen open again stays reopened; a removed one seen again comes back', async () => {
      // 3 was fixed: seen open, it is reopened (an event); seen open once more, it stays so (none).
      await write('r3', 'g3', '2026-10-03T01:00:00.000Z', { vulnerabilities: [finding('3')] });
      assert.equal((await store.records.get('vulnerabilities', findingId('3'))).status, 'reopened');
      assert.deepEqual(await events('r3'), ['vulnerabilities 3 reopened fixed→reopened']);
      await write('r4', 'g4', '2026-10-04T01:00:00.000Z', { vulnerabilities: [{ ...finding('3'), lastSeen: '2026-10-04T00:00:00.000Z' }] });
      const f3 = await store.records.get('vulnerabilities', findingId('3'));
      assert.equal(f3.status, 'reopened');
      assert.equal(f3.lastSeen, '2026-10-04T00:00:00.000Z');
      assert.deepEqual(await events('r4'), []);

      // A full run that does not see 1: swept (fixed, removed); seen again unchanged, it is open and live again.
      await write('r5', 'g5', '2026-10-05T01:00:00.000Z', { vulnerabilities: ['2', '3', '4'].map((p) => finding(p)) }, 'full');
      await store.records.sweep(sourceId, ['vulnerabilities'], 'g5', undefined, { runId: 'r5' });
      assert.equal((await store.records.get('vulnerabilities', findingId('1'))).removed, true);
      await write('r6', 'g6', '2026-10-06T01:00:00.000Z', { vulnerabilities: [finding('1')] });
      const f1 = await store.records.get('vulnerabilities', findingId('1'));
      assert.equal(f1.removed, false);
      assert.equal(f1.status, 'reopened');
      assert.deepEqual(await events('r6'), ['vulnerabilities 1 reopened fixed→reopened']);
    });

    test('a bare host row the store made is new when upstream first sends the host, even with no field', async () => {
      // A finding of a host no page wrote: the store makes its bare row (not an event).
      await write('r7', 'g7', '2026-10-07T01:00:00.000Z', { vulnerabilities: [finding('9', {}, 'uuid:bare')] });
      assert.deepEqual(await events('r7'), ['vulnerabilities 9 new -→open']);
      await write('r8', 'g8', '2026-10-08T01:00:00.000Z', { hosts: [{ key: 'uuid:bare', fields: {} }] });
      assert.deepEqual(await events('r8'), ['hosts - new -→-']);
      assert.equal((await raw('rec_hosts', recordId('lab', 'hosts', 'uuid:bare'))).seen_run, 'r8');
    });

    test('a record written twice in one generation is merged, not stamped over', async () => {
      // Two rows of finding 2 in one run (one per CVE): the second keeps both CVEs though the first stored its own.
      await write('r9', 'g9', '2026-10-09T01:00:00.000Z', { vulnerabilities: [finding('2', { cves: ['CVE-2024-0001'] })] });
      await write('r9', 'g9', '2026-10-09T01:00:00.000Z', { vulnerabilities: [finding('2', { cves: ['CVE-2024-1234'] })] });
      assert.deepEqual((await store.records.get('vulnerabilities', findingId('2'))).cves, ['CVE-2024-0001', 'CVE-2024-1234']);
    });
  });
}
