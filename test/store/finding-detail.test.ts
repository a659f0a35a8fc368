// A finding's synopsis and solution are its plugin's, read through a join (the text is stored once per
// plugin and source): as listed, as one record, as filtered and counted, per source; on both stores.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SecretBox } from '../../src/core/secrets.ts';
import { openStore } from '../../src/store/index.ts';
import { BACKENDS } from '../helpers/databases.ts';

for (const backend of BACKENDS) {
  test(`findings read their plugin's synopsis and solution (${backend.kind})`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    const store = await openStore(db.url, new SecretBox(Buffer.alloc(32, 5)), () => []);
    try {
      const write = async (name: string, solution: string) => {
        const s = (await store.sources.find(name)) ?? (await store.sources.create(name, 'fixture', {}, null));
        const stamp = { sourceId: s.id, sourceName: name, runId: `r-${name}`, generation: 'g', now: new Date().toISOString() };
        await store.records.writePage(
          stamp,
          'vulnerabilities',
          'full',
          {
            vulnerabilities: [
              {
                key: 'a|443|tcp|1001',
                hostKey: 'a',
                fields: { pluginId: '1001', severity: 'high', status: 'open', cves: [], proof: 'seen on a', synopsis: 'ignored: not stored on findings' },
              },
              { key: 'a|22|tcp|1002', hostKey: 'a', fields: { pluginId: '1002', severity: 'low', status: 'open', cves: [] } },
            ],
            plugins: [{ key: '1001', fields: { pluginId: '1001', name: 'Weak TLS', synopsis: 'Weak TLS is offered.', solution } }],
          },
          { value: null, complete: false },
        );
        return s;
      };
      const lab = await write('lab', 'Upgrade OpenSSL.');
      const dmz = await write('dmz', 'Disable TLS 1.0.');
      const labRows = (await store.records.query('vulnerabilities', { sourceIds: [lab.id] })).records;
      const withText = labRows.find((r) => r.pluginId === '1001')!;
      assert.equal(withText.synopsis, 'Weak TLS is offered.');
      assert.equal(withText.solution, 'Upgrade OpenSSL.');
      assert.equal(withText.proof, 'seen on a');
      const noPlugin = labRows.find((r) => r.pluginId === '1002')!;
      assert.equal(noPlugin.synopsis, null, 'a finding whose plugin has no record reads null');
      assert.equal((await store.records.get('vulnerabilities', withText.id)).solution, 'Upgrade OpenSSL.');
      const dmzRow = (await store.records.query('vulnerabilities', { sourceIds: [dmz.id], filters: [{ field: 'pluginId', op: '=', value: '1001' }] }))
        .records[0]!;
      assert.equal(dmzRow.solution, 'Disable TLS 1.0.', 'each source reads its own plugin record');
      const upgrade = await store.records.query('vulnerabilities', { filters: [{ field: 'solution', op: '~', value: 'openssl' }] });
      assert.deepEqual(
        upgrade.records.map((r) => r.id),
        [withText.id],
      );
      assert.equal((await store.records.query('vulnerabilities', { filters: [{ field: 'synopsis', op: '=', value: 'null' }] })).records.length, 2);
      const counts = await store.records.groupCount('vulnerabilities', ['severity'], { filters: [{ field: 'solution', op: '~', value: 'tls' }] });
      assert.deepEqual(
        counts.map((c) => [c.values.severity, c.count]),
        [['high', 1]],
      );
      // Twice over the same page and across pages: one plugin row per source.
      assert.equal(await store.records.count('plugins'), 2);
      // Joined text sorts (a finding without a plugin record last); the SLA's computed fields do not.
      assert.deepEqual(
        (await store.records.query('vulnerabilities', { sourceIds: [lab.id], sort: { field: 'solution', desc: false } })).records.map((r) => r.pluginId),
        ['1001', '1002'],
      );
      await assert.rejects(store.records.query('vulnerabilities', { sort: { field: 'overdue' } }), /cannot sort/);
    } finally {
      await store.close();
      await db.drop();
    }
  });
}
