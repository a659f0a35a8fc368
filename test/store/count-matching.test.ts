// Counting what a query matches (`tributary query --count`), on both stores: the same source and
// field filters as the query itself, computed (joined) fields included, and nothing for no source.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InputError } from '../../src/core/errors.ts';
import { parseFilter } from '../../src/store/records/filter-syntax.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { labStoreSuite, writeRecords } from '../helpers/store.ts';

const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'];

for (const backend of BACKENDS) {
  describe(`countMatching on ${backend.kind}`, { skip: backend.skip }, () => {
    const t = labStoreSuite(backend, async (store, lab) => {
      await store.sources.create('other', 'fixture', {}, null);
      // 15 findings: three of each severity, one in three fixed.
      const vulns = Array.from({ length: 15 }, (_, i) => ({
        key: `h|${i}`,
        hostKey: 'h',
        fields: { pluginId: String(i), pluginName: `plugin ${i}`, severity: SEVERITIES[i % 5], status: i % 3 === 0 ? 'fixed' : 'open' },
      }));
      await writeRecords(store, lab, { hosts: [{ key: 'h', fields: {} }], vulnerabilities: vulns });
    });

    const count = (where: string[], sourceIds?: string[]) =>
      t.store.records.countMatching('vulnerabilities', { sourceIds, filters: where.map((w) => parseFilter(w)) });

    test('counts what the query would return, across its pages', async () => {
      assert.equal(await count([]), 15);
      assert.equal(await count(['severity>=high']), 6);
      assert.equal(
        await count(['severity>=high', 'status=fixed']),
        (await t.store.records.query('vulnerabilities', { filters: [parseFilter('severity>=high'), parseFilter('status=fixed')] })).records.length,
      );
      assert.equal(await count(['pluginName~plugin 1']), 6, 'plugin 1, 10…14');
      assert.equal(await count(['synopsis=null']), 15, 'a joined field filters as in the query');
      assert.equal(await count([], [t.lab.id]), 15);
      assert.equal(await count([], [(await t.store.sources.get('other')).id]), 0);
      assert.equal(await count([], []), 0);
    });

    test('a bad filter is refused as in the query', async () => {
      await assert.rejects(count(['colour=red']), (err: unknown) => err instanceof InputError && /unknown field 'colour'/.test(err.message));
    });
  });
}
