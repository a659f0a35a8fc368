// A first import writes its events without comparing each row with the table (store.ts #markAllNew,
// changes.ts recordNewChanges): the events must be exactly those the comparison writes; a later page
// compares only the rows the run stored already (its new rows are still written as new), and a later
// run of the same source goes back to comparing. On both stores.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IncomingRecord } from '../../src/core/models.ts';
import { SecretBox } from '../../src/core/secrets.ts';
import { RecordIdSet } from '../../src/store/records/id-set.ts';
import { openStore } from '../../src/store/index.ts';
import { BACKENDS } from '../helpers/databases.ts';

const finding = (key: string, status: string): IncomingRecord => ({
  key,
  hostKey: key.split('|')[0]!,
  externalId: `ext-${key}`,
  fields: { pluginId: key.split('|')[1]!, severity: 'high', status, cves: [] },
});
// a|1 twice, with different fields: two upsert groups of one page.
const page1 = [
  finding('a|1', 'open'),
  finding('a|2', 'fixed'),
  finding('b|1', 'reopened'),
  { ...finding('a|1', 'open'), fields: { ...finding('a|1', 'open').fields, proof: 'seen' } },
];
const page2 = [finding('a|1', 'fixed'), finding('c|1', 'open')];

for (const backend of BACKENDS) {
  test(`a first import's events equal the compared ones (${backend.kind})`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    const store = await openStore(db.url, new SecretBox(Buffer.alloc(32, 3)), () => []);
    try {
      const events = async (name: string, withRunSet: boolean) => {
        const s = await store.sources.create(name, 'fixture', {}, null);
        const stamp = { sourceId: s.id, sourceName: name, runId: `run-${name}`, generation: 'g1', now: '2026-11-22T10:00:00.000Z' };
        const stored = withRunSet ? new RecordIdSet() : undefined;
        const cp = { value: null, complete: false };
        await store.records.writePage(stamp, 'vulns', 'full', { hosts: [{ key: 'a', fields: { hostname: 'a' } }], vulnerabilities: page1 }, cp, stored);
        // The same run again (a|1 it stored: compared) and a new finding.
        await store.records.writePage({ ...stamp, now: '2026-11-22T10:00:01.000Z' }, 'vulns', 'full', { vulnerabilities: page2 }, cp, stored);
        // A later run: the source holds findings now, so its events are compared.
        const later = { ...stamp, runId: `run2-${name}`, generation: 'g2', now: '2026-11-22T11:00:00.000Z' };
        await store.records.writePage(
          later,
          'vulns',
          'full',
          { vulnerabilities: [finding('a|1', 'open'), finding('d|1', 'open')] },
          cp,
          withRunSet ? new RecordIdSet() : undefined,
        );
        const out = [];
        let cursor: string | null = null;
        do {
          const p = await store.records.changes({ sourceIds: [s.id], cursor, limit: 2 });
          out.push(...p.records.map((c) => `${c.at.slice(11, 19)} ${c.model} ${c.externalId ?? '-'} ${c.change} ${c.from ?? '-'}→${c.to ?? '-'}`));
          cursor = p.nextCursor;
        } while (cursor);
        return out.sort();
      };
      const fast = await events('fast', true);
      const compared = await events('compared', false);
      assert.deepEqual(fast, compared);
      assert.equal(fast.filter((e) => e.includes('ext-a|1 new')).length, 1, 'a record twice in a page is new once');
      assert.ok(fast.includes('10:00:00 vulnerabilities ext-a|2 new -→fixed'), fast.join('\n'));
      assert.ok(fast.includes('10:00:01 vulnerabilities ext-a|1 fixed open→fixed'), fast.join('\n'));
      // Page 2 mixes a finding the run stored (compared) with a new one (written as new).
      assert.ok(fast.includes('10:00:01 vulnerabilities ext-c|1 new -→open'), fast.join('\n'));
      assert.ok(fast.includes('11:00:00 vulnerabilities ext-a|1 reopened fixed→reopened'), fast.join('\n'));
      const fixedAt = (await store.records.query('vulnerabilities', { filters: [{ field: 'externalId', op: '=', value: 'ext-a|2' }] })).records.map(
        (r) => r.fixedAt,
      );
      assert.deepEqual(fixedAt, ['2026-11-22T10:00:00.000Z', '2026-11-22T10:00:00.000Z']);
    } finally {
      await store.close();
      await db.drop();
    }
  });
}
