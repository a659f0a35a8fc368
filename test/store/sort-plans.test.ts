// The findings sorts the list offers walk an index (migration 14, schema.ts SORT_ONLY) instead of
// sorting every finding, and a filter on one of those columns does not take the sort's index over the
// severity order: checked in SQLite's query plans (PostgreSQL plans by its statistics instead).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IncomingRecord } from '../../src/core/models.ts';
import { SecretBox } from '../../src/core/secrets.ts';
import type { Driver } from '../../src/store/db/driver.ts';
import type { QueryOptions } from '../../src/store/records/query.ts';
import { openStore } from '../../src/store/index.ts';
import { createSqlite } from '../helpers/databases.ts';

const finding = (i: number): IncomingRecord => ({
  key: `h${i % 5}|${i}`,
  hostKey: `h${i % 5}`,
  externalId: String(i),
  lastSeen: `2026-11-${String(1 + (i % 20)).padStart(2, '0')}T00:00:00.000Z`,
  fields: {
    pluginId: String(i),
    pluginName: `P${i}`,
    severity: 'high',
    status: i % 3 ? 'open' : 'fixed',
    cves: [],
    scannerEpssScore: i / 100,
    vprScore: 5,
    cvssV3BaseScore: 7,
  },
});

test('findings sorts walk their index; filters keep the severity order (sqlite)', async () => {
  const db = await createSqlite();
  const store = await openStore(db.url, new SecretBox(Buffer.alloc(32, 6)), () => []);
  try {
    const s = await store.sources.create('plans', 'fixture', {}, null);
    const stamp = { sourceId: s.id, sourceName: 'plans', runId: 'r', generation: 'g', now: '2026-11-22T00:00:00.000Z' };
    await store.records.writePage(stamp, 'v', 'full', { vulnerabilities: Array.from({ length: 50 }, (_, i) => finding(i)) }, { value: null, complete: true });
    // The statement a query runs, asked of the planner.
    const plan = async (opts: QueryOptions): Promise<string> => {
      const seen: { sql: string; params: unknown[] }[] = [];
      const real = store.db.all.bind(store.db);
      (store.db as { all: Driver['all'] }).all = async (sql: string, params: unknown[] = []) => {
        seen.push({ sql, params });
        return real(sql, params);
      };
      try {
        await store.records.query('vulnerabilities', { limit: 10, ...opts });
      } finally {
        (store.db as { all: Driver['all'] }).all = real;
      }
      const first = seen.find((x) => x.sql.includes('ORDER BY'))!;
      const rows = await store.db.all(`EXPLAIN QUERY PLAN ${first.sql}`, first.params);
      return rows.map((r) => String(r.detail)).join('\n');
    };
    // A page's ids are chosen in the sort's order by a subquery, then its records read and put in that
    // order (at most `limit` rows sorted): one sort step at most, and the subquery walks the index.
    const sorts = (p: string) => (p.match(/TEMP B-TREE FOR ORDER BY/g) ?? []).length;
    for (const field of ['lastSeen', 'pluginName', 'epssScore', 'cvssV3BaseScore', 'vprScore', 'status']) {
      for (const desc of [false, true]) {
        const p = await plan({ sort: { field, desc } });
        assert.match(p, /SCAN r USING INDEX rec_vulnerabilities_sort_/, `${desc ? '-' : ''}${field} walks its index:\n${p}`);
        assert.ok(sorts(p) <= 1, `${field}: only the page is sorted:\n${p}`);
      }
    }
    for (const filters of [[{ field: 'status', op: '=' as const, value: 'open' }], [{ field: 'overdue', op: '=' as const, value: 'true' }]]) {
      const p = await plan({ sort: { field: 'severity', desc: true }, filters });
      assert.doesNotMatch(p, /rec_vulnerabilities_sort_/, `${filters[0]!.field} keeps the severity order:\n${p}`);
      assert.match(p, /SCAN r USING INDEX rec_vulnerabilities_severity_rank/, `${filters[0]!.field}:\n${p}`);
      assert.ok(sorts(p) <= 1, `${filters[0]!.field}: only the page is sorted:\n${p}`);
    }
  } finally {
    await store.close();
    await db.drop();
  }
});
