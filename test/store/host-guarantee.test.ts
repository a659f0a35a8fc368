// The store's own guarantee that no record points to a host that does not exist (a bare host row for
// a host a page names but does not write, never overwriting one), and the distinct counts a run's
// progress shows. On both stores.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SecretBox } from '../../src/core/secrets.ts';
import { RecordIdSet } from '../../src/store/records/id-set.ts';
import { preparePage } from '../../src/store/records/pages.ts';
import { recordId } from '../../src/store/records/upsert.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';

const box = new SecretBox(Buffer.alloc(32, 7));

test('RecordIdSet: distinct ids, across growth', () => {
  const set = new RecordIdSet();
  const ids = Array.from({ length: 5000 }, (_, i) => recordId('lab', 'vulnerabilities', `k${i}`, recordId('lab', 'hosts', `h${i % 40}`)));
  assert.equal(ids.filter((id) => set.add(id)).length, 5000);
  assert.equal(ids.filter((id) => set.add(id)).length, 0, 'each id once');
  assert.equal(set.size, 5000);
  assert.ok(set.has(ids[1234]!));
  assert.ok(!set.has(recordId('lab', 'vulnerabilities', 'other')));
});

test('a page writes no bare row for a host the run already stored, and one for any other', () => {
  const stamp = { sourceId: 's', sourceName: 'lab', runId: 'r', generation: 'g', now: '2026-01-01T00:00:00.000Z' };
  const stored = new RecordIdSet();
  stored.add(recordId('lab', 'hosts', 'uuid:seen'));
  const finding = (host: string) => ({ key: `${host}|1`, hostKey: host, fields: { pluginId: '1' } });
  const page = preparePage(stamp, 'v', 'full', { vulnerabilities: [finding('uuid:seen'), finding('uuid:new')] }, { value: null, complete: false }, stored);
  assert.deepEqual(
    page.upserts.filter((u) => u.stub).flatMap((u) => u.rows.map((r) => r[2])),
    ['uuid:new'],
  );
  const alone = preparePage(stamp, 'v', 'full', { vulnerabilities: [finding('uuid:seen')] }, { value: null, complete: false }, stored);
  assert.equal(alone.upserts.filter((u) => u.stub).length, 0, 'no host statement at all');
});

for (const backend of BACKENDS) {
  describe(`host guarantee on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let store: Store;
    let sourceId: string;
    const stamp = (runId: string, generation: string) => ({ sourceId, sourceName: 'lab', runId, generation, now: new Date().toISOString() });
    const finding = (host: string, plugin: string) => ({
      key: `${host}|443|tcp|${plugin}`,
      hostKey: host,
      fields: { pluginId: plugin, severity: 'high', status: 'open' },
    });

    before(async () => {
      db = await backend.create();
      store = await openStore(db.url, box, () => []);
      sourceId = (await store.sources.create('lab', 'fixture', {}, null)).id;
    });
    after(async () => {
      await store?.close();
      await db?.drop();
    });

    test('a finding whose host the page does not write gets a bare host row; the run does not count it', async () => {
      await store.records.writePage(
        stamp('r1', 'g1'),
        'vulnerabilities',
        'full',
        { vulnerabilities: [finding('addr:1|10.0.0.9|', '1'), finding('addr:1|10.0.0.9|', '2')] },
        { value: null, complete: false },
      );
      assert.equal(await store.records.orphans('vulnerabilities', sourceId), 0);
      const host = await store.records.get('hosts', recordId('lab', 'hosts', 'addr:1|10.0.0.9|'));
      assert.equal(host.removed, false);
      assert.equal(await store.records.countStamped(sourceId, 'hosts', 'r1'), 0, 'a bare row is not a host the run stored');
      // The run's sweep leaves it (it carries the run's generation).
      await store.records.sweep(sourceId, ['hosts', 'vulnerabilities'], 'g1');
      assert.equal((await store.records.get('hosts', host.id)).removed, false);
      assert.deepEqual(
        (await store.records.knownHosts(sourceId)).map((h) => h.key),
        ['addr:1|10.0.0.9|'],
      );
    });

    test('the stored hosts of some keys: as the whole read gives them, those stored only', async () => {
      const all = await store.records.knownHosts(sourceId);
      assert.ok(all.length > 0);
      const some = await store.records.knownHostsByKey(sourceId, 'lab', [all[0]!.key, 'addr:1|10.200.0.1|']);
      assert.deepEqual(some, [all[0]], 'the stored one, as knownHosts gives it; the unknown key is left out');
      assert.deepEqual(await store.records.knownHostsByKey(sourceId, 'other-source', [all[0]!.key]), [], "another source's ids");
    });

    test('many hosts at once (the bulk path): every one gets its row', async () => {
      const vulns = Array.from({ length: 150 }, (_, i) => finding(`addr:1|10.1.${i >> 8}.${i & 255}|`, '7'));
      await store.records.writePage(stamp('r5', 'g5'), 'vulnerabilities', 'full', { vulnerabilities: vulns }, { value: null, complete: false });
      await store.records.writePage(
        stamp('r5', 'g5'),
        'vulnerabilities',
        'full',
        { vulnerabilities: vulns.map((v) => ({ ...v, key: `${v.key}|again` })) },
        { value: null, complete: false },
      );
      assert.equal(await store.records.orphans('vulnerabilities', sourceId), 0);
      assert.ok((await store.records.count('hosts', sourceId)) >= 150);
    });

    test('a host that exists is never touched by the guarantee', async () => {
      await store.records.writePage(
        stamp('r2', 'g2'),
        'hosts',
        'full',
        { hosts: [{ key: 'uuid:h2', fields: { hostname: 'web02', tenableUuid: 'h2', acrScore: 7 } }] },
        { value: null, complete: false },
      );
      await store.records.writePage(
        stamp('r3', 'g3'),
        'vulnerabilities',
        'full',
        { vulnerabilities: [finding('uuid:h2', '3')] },
        { value: null, complete: false },
      );
      const h = await store.records.get('hosts', recordId('lab', 'hosts', 'uuid:h2'));
      assert.equal(h.hostname, 'web02');
      assert.equal(h.tenableUuid, 'h2');
      assert.equal(h.acrScore, 7);
      assert.equal(await store.records.countStamped(sourceId, 'hosts', 'r2'), 1);
      assert.equal(await store.records.orphans('vulnerabilities', sourceId), 0);
    });

    test('with the run id set, counts are of records new to the run (what countStamped says at the end)', async () => {
      const stored = new RecordIdSet();
      const host = (f: Record<string, unknown>) => ({ key: 'uuid:h3', fields: f });
      const a = await store.records.writePage(
        stamp('r4', 'g4'),
        'hosts',
        'full',
        { hosts: [host({ hostname: 'a' })] },
        { value: null, complete: false },
        stored,
      );
      const b = await store.records.writePage(
        stamp('r4', 'g4'),
        'hosts',
        'full',
        { hosts: [host({ os: 'Linux' })], vulnerabilities: [finding('uuid:h3', '4')] },
        { value: null, complete: false },
        stored,
      );
      const c = await store.records.writePage(
        stamp('r4', 'g4'),
        'vulns',
        'full',
        { vulnerabilities: [finding('uuid:h3', '4'), finding('uuid:h3', '5'), finding('uuid:h4', '6')] },
        { value: null, complete: false },
        stored,
      );
      assert.deepEqual([a, b, c], [{ hosts: 1 }, { hosts: 0, vulnerabilities: 1 }, { vulnerabilities: 2 }]);
      assert.equal(await store.records.countStamped(sourceId, 'hosts', 'r4'), 1);
      assert.equal(await store.records.countStamped(sourceId, 'vulnerabilities', 'r4'), 3);
      // uuid:h4 was not stored by the run: the third page gave it its bare row.
      assert.equal(await store.records.orphans('vulnerabilities', sourceId), 0);
    });
  });
}
