// The change feed beside the store's host guarantee and scoped sweeps, on both stores: a bare host row
// (a host records name but no page sent) is no event, neither when added nor when swept, and the host
// is `new` when first sent; a scoped (file snapshot) sweep writes events for exactly what it marks.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { IncomingRecord } from '../../src/core/models.ts';
import { SecretBox } from '../../src/core/secrets.ts';
import type { ChangeEvent } from '../../src/core/api-shapes-reports.ts';
import { recordId } from '../../src/store/records/upsert.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';

const box = new SecretBox(Buffer.alloc(32, 9));

/** Events as `model natural-key change from→to`, sorted. */
async function events(store: Store, sourceId: string, keys: Map<string, string>): Promise<string[]> {
  const out: ChangeEvent[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.records.changes({ sourceIds: [sourceId], cursor, limit: 1000 });
    out.push(...page.records);
    cursor = page.nextCursor;
  } while (cursor);
  return out.map((c) => `${c.model} ${keys.get(c.recordId) ?? c.recordId} ${c.change} ${c.from ?? '-'}→${c.to ?? '-'}`).sort();
}

for (const backend of BACKENDS) {
  describe(`change feed with bare hosts and scoped sweeps on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let store: Store;
    const stamp = (sourceId: string, sourceName: string, runId: string, generation: string) => ({
      sourceId,
      sourceName,
      runId,
      generation,
      now: new Date().toISOString(),
    });
    const finding = (host: string, plugin: string, origin?: string): IncomingRecord => ({
      key: `${host}|443|tcp|${plugin}`,
      hostKey: host,
      fields: { pluginId: plugin, severity: 'high', status: 'open' },
      ...(origin ? { origin } : {}),
    });
    const page = { value: null, complete: false };

    before(async () => {
      db = await backend.create();
      store = await openStore(db.url, box, () => []);
    });
    after(async () => {
      await store?.close();
      await db?.drop();
    });

    test('a bare host row is no event; the host is new when first sent; its sweep is no event either', async () => {
      const sourceId = (await store.sources.create('lab', 'fixture', {}, null)).id;
      const h9 = 'addr:1|10.0.0.9|';
      const h8 = 'addr:1|10.0.0.8|';
      const keys = new Map([h9, h8].map((k) => [recordId('lab', 'hosts', k), k]));
      for (const [h, p] of [
        [h9, '1'],
        [h9, '2'],
        [h8, '3'],
      ])
        keys.set(recordId('lab', 'vulnerabilities', `${h}|443|tcp|${p}`, recordId('lab', 'hosts', h)), `${h}#${p}`);

      await store.records.writePage(stamp(sourceId, 'lab', 'r1', 'g1'), 'vulns', 'full', { vulnerabilities: [finding(h9, '1'), finding(h9, '2')] }, page);
      assert.equal((await store.records.get('hosts', recordId('lab', 'hosts', h9))).removed, false, 'the bare row exists');
      assert.deepEqual(await events(store, sourceId, keys), [`vulnerabilities ${h9}#1 new -→open`, `vulnerabilities ${h9}#2 new -→open`]);

      // The host sent at last: new. Another finding names a host no page sends (a second bare row).
      await store.records.writePage(
        stamp(sourceId, 'lab', 'r2', 'g2'),
        'all',
        'full',
        { hosts: [{ key: h9, fields: { hostname: 'web09' } }], vulnerabilities: [finding(h9, '1'), finding(h9, '2'), finding(h8, '3')] },
        page,
      );
      assert.deepEqual(await events(store, sourceId, keys), [
        `hosts ${h9} new -→-`,
        `vulnerabilities ${h8}#3 new -→open`,
        `vulnerabilities ${h9}#1 new -→open`,
        `vulnerabilities ${h9}#2 new -→open`,
      ]);

      // A run that saw nothing of them sweeps all: the sent host is removed, the bare one silently.
      const swept = await store.records.sweep(sourceId, ['hosts', 'vulnerabilities'], 'g3', undefined, { runId: 'r3' });
      assert.deepEqual(swept, { hosts: 2, vulnerabilities: 3 });
      const after3 = await events(store, sourceId, keys);
      assert.deepEqual(
        after3.filter((e) => !e.includes(' new ')),
        [
          `hosts ${h9} removed -→-`,
          `vulnerabilities ${h8}#3 fixed open→fixed`,
          `vulnerabilities ${h9}#1 fixed open→fixed`,
          `vulnerabilities ${h9}#2 fixed open→fixed`,
        ],
      );
      assert.equal((await store.records.get('hosts', recordId('lab', 'hosts', h8))).removed, true, 'the bare row was swept all the same');
    });

    test('a scoped sweep writes events for exactly the records it marks, and fixedAt for those findings', async () => {
      const sourceId = (await store.sources.create('files', 'fixture', {}, null)).id;
      const h = 'uuid:h1';
      const keys = new Map([[recordId('files', 'hosts', h), h]]);
      for (const p of ['1', '2']) keys.set(recordId('files', 'vulnerabilities', `${h}|443|tcp|${p}`, recordId('files', 'hosts', h)), `#${p}`);
      await store.records.writePage(
        stamp(sourceId, 'files', 'r1', 'g1'),
        'all',
        'full',
        { hosts: [{ key: h, fields: { hostname: 'h1' } }], vulnerabilities: [finding(h, '1', 'o1'), finding(h, '2', 'o2')] },
        page,
      );
      const at = '2030-01-01T00:00:00.000Z';
      const swept = await store.records.sweep(sourceId, ['hosts', 'vulnerabilities'], 'g2', { origins: ['o1'] }, { runId: 'r2', at });
      assert.deepEqual(swept, { hosts: 0, vulnerabilities: 1 });
      const fixedOnes = (await store.records.changes({ sourceIds: [sourceId], changes: ['fixed', 'removed'] })).records;
      assert.deepEqual(
        fixedOnes.map((c) => [keys.get(c.recordId), c.change, c.runId, c.at]),
        [['#1', 'fixed', 'r2', at]],
      );
      const f1 = await store.records.get('vulnerabilities', fixedOnes[0]!.recordId);
      assert.equal(f1.status, 'fixed');
      assert.equal(f1.fixedAt, at);
      const f2 = await store.records.get('vulnerabilities', recordId('files', 'vulnerabilities', `${h}|443|tcp|2`, recordId('files', 'hosts', h)));
      assert.equal(f2.status, 'open');
      assert.equal(f2.fixedAt, null);
      // A scope that covers nothing marks nothing and writes nothing.
      assert.deepEqual(await store.records.sweep(sourceId, ['vulnerabilities'], 'g3', { origins: [] }, { runId: 'r3' }), { vulnerabilities: 0 });
      assert.equal((await store.records.changes({ sourceIds: [sourceId], changes: ['fixed', 'removed'] })).records.length, 1);
    });
  });
}
