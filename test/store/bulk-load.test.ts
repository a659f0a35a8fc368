// A first import into an empty findings table builds its secondary indexes at its end (bulk-load.ts):
// the same indexes come back, the answers are the same, a crash leaves a note the next start rebuilds
// from, and a table that already holds rows keeps its indexes; PostgreSQL analyses the loaded table
// before the epilogue plans its scans. On both stores.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IncomingRecord } from '../../src/core/models.ts';
import { SecretBox } from '../../src/core/secrets.ts';
import { DEFER_MIN_ROWS } from '../../src/store/db/bulk-load.ts';
import { RecordIdSet } from '../../src/store/records/id-set.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { BACKENDS } from '../helpers/databases.ts';

const box = new SecretBox(Buffer.alloc(32, 5));
const N = DEFER_MIN_ROWS + 100;

function findings(prefix: string, n: number): IncomingRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    key: `${prefix}h${i % 40}|${i}`,
    hostKey: `${prefix}h${i % 40}`,
    externalId: `${prefix}-${i}`,
    fields: { pluginId: String(10_000 + (i % 97)), severity: 'high', status: 'open', cves: [], scannerEpssScore: i % 7 === 0 ? null : (i % 101) / 100 },
  }));
}

function hosts(prefix: string): IncomingRecord[] {
  return Array.from({ length: 40 }, (_, i) => ({ key: `${prefix}h${i}`, fields: { hostname: `${prefix}h${i}` } }));
}

/** The findings table's secondary indexes: name → definition. */
async function indexes(store: Store): Promise<Map<string, string>> {
  const rows =
    store.dialect === 'sqlite'
      ? await store.db.all<{ name: string; sql: string }>(
          `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rec_vulnerabilities' AND sql IS NOT NULL`,
        )
      : await store.db.all<{ name: string; sql: string }>(
          `SELECT indexname AS name, indexdef AS sql FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'rec_vulnerabilities' AND indexname NOT LIKE '%_pkey'`,
        );
  return new Map(rows.map((r) => [r.name, r.sql]));
}

async function deferredNotes(store: Store): Promise<number> {
  return Number((await store.db.all(`SELECT COUNT(*) AS n FROM deferred_indexes`))[0]!.n);
}

async function startRun(store: Store, sourceName: string, runId: string) {
  const s = await store.sources.create(sourceName, 'fixture', {}, null);
  await store.runs.create({
    id: runId,
    sourceId: s.id,
    mode: 'full',
    generation: `g-${runId}`,
    resumedFrom: null,
    trigger: 'test',
    owner: 'test',
    startedAt: '2026-11-22T10:00:00.000Z',
  });
  return { sourceId: s.id, sourceName, runId, generation: `g-${runId}`, now: '2026-11-22T10:00:00.000Z' };
}

for (const backend of BACKENDS) {
  test(`a first import defers the findings indexes and builds the same ones at its end (${backend.kind})`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    const store = await openStore(db.url, box, () => []);
    try {
      const before = await indexes(store);
      assert.ok(before.has('rec_vulnerabilities_host_id') && before.has('rec_vulnerabilities_sort_epss_score'), [...before.keys()].join(', '));
      const stamp = await startRun(store, 'first', 'run-1');
      const stored = new RecordIdSet();
      const all = findings('a', N * 2);
      const cp = { value: null, complete: false };
      await store.records.writePage(stamp, 'vulns', 'full', { hosts: hosts('a'), vulnerabilities: all.slice(0, N) }, cp, stored);
      assert.equal((await indexes(store)).size, 0, 'no secondary index while the first import loads');
      assert.equal(await deferredNotes(store), before.size);
      await store.records.writePage(stamp, 'vulns', 'full', { vulnerabilities: all.slice(N) }, cp, stored);
      const { built } = await store.records.finishBulkLoad('run-1');
      if (store.dialect === 'postgres') {
        // The epilogue's scans are planned from statistics of the loaded table, taken before its builds.
        const [stats] = await store.db.all<{ analysed: boolean; tuples: number }>(
          `SELECT s.last_analyze IS NOT NULL AS "analysed", c.reltuples AS "tuples" FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
           WHERE s.schemaname = current_schema() AND s.relname = 'rec_vulnerabilities'`,
        );
        assert.equal(stats?.analysed, true, 'the loaded table is analysed when the epilogue starts');
        assert.equal(Number(stats?.tuples), N * 2);
      }
      await built;
      assert.deepEqual(await indexes(store), before);
      assert.equal(await deferredNotes(store), 0);
      // The rows are all there and a sort walks the rebuilt index to the same answer.
      const page = await store.records.query('vulnerabilities', { sort: { field: 'epssScore', desc: true }, limit: 5 });
      const expected = all
        .map((f) => f.fields.scannerEpssScore as number | null)
        .filter((v) => v !== null)
        .sort((a, b) => b - a)
        .slice(0, 5);
      assert.deepEqual(
        page.records.map((r) => r.epssScore),
        expected,
      );
      assert.equal(await store.records.count('vulnerabilities'), N * 2);

      // A second source's first import finds the table holding rows: its indexes stay.
      const second = await startRun(store, 'second', 'run-2');
      await store.records.writePage(second, 'vulns', 'full', { hosts: hosts('b'), vulnerabilities: findings('b', N) }, cp, new RecordIdSet());
      assert.deepEqual(await indexes(store), before);
      assert.equal(await deferredNotes(store), 0);
    } finally {
      await store.close();
      await db.drop();
    }
  });

  test(`indexes a crashed first import left unbuilt are built at the next start, not while it runs (${backend.kind})`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    let store = await openStore(db.url, box, () => []);
    try {
      const before = await indexes(store);
      const stamp = await startRun(store, 'crashing', 'run-c');
      await store.records.writePage(
        stamp,
        'vulns',
        'full',
        { hosts: hosts('c'), vulnerabilities: findings('c', N) },
        { value: null, complete: false },
        new RecordIdSet(),
      );
      await store.close();
      // Another process starting while the run is still running leaves its load alone.
      store = await openStore(db.url, box, () => []);
      assert.equal((await indexes(store)).size, 0);
      await store.runs.finish('run-c', 'interrupted', {}, 'the process stopped');
      await store.close();
      store = await openStore(db.url, box, () => []);
      assert.deepEqual(await indexes(store), before);
      assert.equal(await deferredNotes(store), 0);
    } finally {
      await store.close();
      await db.drop();
    }
  });
}
