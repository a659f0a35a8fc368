// Findings sorted by status with a filter on status (issue 30: the live findings by status walked every
// fixed finding, 1.3 s at 1.9 M findings): the page is read from the ranges of the sort's index the
// filter leaves, and gives the same rows in the same order as the plain order, page by page through
// the cursor, on both stores; on SQLite the plan searches the index range instead of scanning it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { IncomingRecord } from '../../src/core/models.ts';
import type { Driver } from '../../src/store/db/driver.ts';
import type { QueryOptions } from '../../src/store/records/query.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { labStoreSuite } from '../helpers/store.ts';

const STATUSES = ['fixed', 'open', 'reopened'] as const;
const finding = (i: number): IncomingRecord => ({
  key: `h${i % 7}|${i}`,
  hostKey: `h${i % 7}`,
  externalId: String(i),
  lastSeen: '2026-11-20T00:00:00.000Z',
  fields: {
    pluginId: String(i % 11),
    pluginName: `P${i % 11}`,
    severity: 'high',
    // Most findings fixed, as in a console's patched set: the filtered-out value is the bulk.
    status: i % 5 === 0 ? 'open' : i % 7 === 0 ? 'reopened' : 'fixed',
    cves: [],
  },
});
const N = 240;

for (const backend of BACKENDS) {
  describe(`findings by status with a status filter (${backend.kind})`, { skip: backend.skip }, () => {
    const lab = labStoreSuite(backend, async (store, source) => {
      const stamp = { sourceId: source.id, sourceName: source.name, runId: 'r', generation: 'g', now: '2026-11-22T00:00:00.000Z' };
      await store.records.writePage(stamp, 'v', 'full', { vulnerabilities: Array.from({ length: N }, (_, i) => finding(i)) }, { value: null, complete: true });
    });

    /** Every page of a query through its cursor: the ids and statuses in order. */
    async function pages(opts: QueryOptions, limit: number): Promise<string[]> {
      const out: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await lab.store.records.query('vulnerabilities', { ...opts, limit, cursor });
        out.push(...page.records.map((r) => `${(r as unknown as { status: string }).status}|${r.id}`));
        cursor = page.nextCursor;
      } while (cursor);
      return out;
    }

    test('status != X and status = X, ascending and descending: the plain order of the matching findings, page by page', async () => {
      const all = await pages({}, 1000);
      assert.equal(all.length, N);
      const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      for (const desc of [false, true]) {
        for (const op of ['!=', '='] as const) {
          for (const value of [...STATUSES, 'OPEN']) {
            const keep = (s: string) => (op === '=' ? s === value.toLowerCase() : s !== value.toLowerCase());
            const want = all.filter((x) => keep(x.split('|')[0]!)).sort((a, b) => (desc ? cmp(b, a) : cmp(a, b)));
            for (const limit of [7, 50, 1000]) {
              const got = await pages({ sort: { field: 'status', desc }, filters: [{ field: 'status', op, value }] }, limit);
              assert.deepEqual(got, want, `${desc ? '-' : ''}status, status${op}${value}, pages of ${limit}`);
            }
          }
        }
      }
      // A status filter together with another filter, and a filter that keeps nothing of a range.
      const open = all.filter((x) => x.startsWith('open|') || x.startsWith('reopened|'));
      assert.deepEqual(
        await pages(
          {
            sort: { field: 'status' },
            filters: [
              { field: 'status', op: '!=', value: 'fixed' },
              { field: 'removed', op: '=', value: 'false' },
            ],
          },
          9,
        ),
        open.sort(cmp),
      );
      assert.deepEqual(await pages({ sort: { field: 'status' }, filters: [{ field: 'status', op: '=', value: 'null' }] }, 9), []);
    });

    test("one host's findings in a sort's order: the plain order, page by page; on SQLite read by the host's index, not the sort's", async () => {
      const first = (await lab.store.records.query('vulnerabilities', { limit: 1 })).records[0] as unknown as { hostId: string };
      const host = [{ field: 'hostId', op: '=' as const, value: first.hostId }];
      const mine = await pages({ filters: host }, 1000);
      assert.ok(mine.length > 10 && mine.length < N, 'one host of seven');
      const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      for (const desc of [false, true])
        for (const limit of [7, 1000]) {
          assert.deepEqual(
            await pages({ sort: { field: 'status', desc }, filters: host }, limit),
            [...mine].sort((a, b) => (desc ? cmp(b, a) : cmp(a, b))),
          );
          // By priority: the order of every finding by priority (read by the sort's index), kept to the host's.
          const ids = new Set(mine.map((x) => x.split('|')[1]!));
          const everyOne = (await pages({ sort: { field: 'priority', desc } }, 1000)).filter((x) => ids.has(x.split('|')[1]!));
          assert.deepEqual(await pages({ sort: { field: 'priority', desc }, filters: host }, limit), everyOne);
        }
      if (backend.kind !== 'sqlite') return;
      const seen: { sql: string; params: unknown[] }[] = [];
      const real = lab.store.db.all.bind(lab.store.db);
      (lab.store.db as { all: Driver['all'] }).all = async (sql: string, params: unknown[] = []) => {
        seen.push({ sql, params });
        return real(sql, params);
      };
      try {
        await lab.store.records.query('vulnerabilities', { limit: 10, sort: { field: 'priority', desc: true }, filters: host });
      } finally {
        (lab.store.db as { all: Driver['all'] }).all = real;
      }
      const q = seen.find((x) => x.sql.includes('ORDER BY'))!;
      const plan = (await lab.store.db.all(`EXPLAIN QUERY PLAN ${q.sql}`, q.params)).map((r) => String(r.detail)).join('\n');
      assert.match(plan, /SEARCH r USING INDEX rec_vulnerabilities_host_id \(host_id=\?\)/, plan);
      assert.doesNotMatch(plan, /rec_vulnerabilities_sort_priority/, plan);
    });

    // The statements asked are SQLite's (PostgreSQL plans its own way): asked of SQLite only.
    if (backend.kind === 'sqlite')
      test('the plan reads the index range the filter leaves (sqlite)', async () => {
        const store = lab.store;
        const seen: { sql: string; params: unknown[] }[] = [];
        const real = store.db.all.bind(store.db);
        (store.db as { all: Driver['all'] }).all = async (sql: string, params: unknown[] = []) => {
          seen.push({ sql, params });
          return real(sql, params);
        };
        try {
          await store.records.query('vulnerabilities', { limit: 10, sort: { field: 'status' }, filters: [{ field: 'status', op: '!=', value: 'fixed' }] });
        } finally {
          (store.db as { all: Driver['all'] }).all = real;
        }
        const first = seen.find((x) => x.sql.includes('ORDER BY'))!;
        const plan = (await store.db.all(`EXPLAIN QUERY PLAN ${first.sql}`, first.params)).map((r) => String(r.detail)).join('\n');
        assert.match(plan, /SEARCH r USING INDEX rec_vulnerabilities_sort_status \(<expr>[<>]\?\)/, plan);
        // One plugin's findings in severity order (migration 32): the plugin index range, read in order.
        seen.length = 0;
        (store.db as { all: Driver['all'] }).all = async (sql: string, params: unknown[] = []) => {
          seen.push({ sql, params });
          return real(sql, params);
        };
        try {
          await store.records.query('vulnerabilities', {
            limit: 10,
            sort: { field: 'severity', desc: true },
            filters: [{ field: 'pluginId', op: '=', value: '3' }],
          });
        } finally {
          (store.db as { all: Driver['all'] }).all = real;
        }
        const byPlugin = seen.find((x) => x.sql.includes('ORDER BY'))!;
        const plan2 = (await store.db.all(`EXPLAIN QUERY PLAN ${byPlugin.sql}`, byPlugin.params)).map((r) => String(r.detail)).join('\n');
        assert.match(plan2, /SEARCH r USING INDEX rec_vulnerabilities_plugin_id \(plugin_id=\?\)/, plan2);
        assert.ok((plan2.match(/TEMP B-TREE FOR ORDER BY/g) ?? []).length <= 1, `only the page is sorted:\n${plan2}`);
      });
  });
}
