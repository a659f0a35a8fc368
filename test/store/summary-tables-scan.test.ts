// A full rebuild of the findings' summaries (on SQLite one scan grouped in memory,
// store/reports/summary-tables-scan.ts; on PostgreSQL the grouped INSERT … SELECTs) holds exactly the
// rows each fill's grouped SELECT gives from the records, on both stores: findings of every status,
// removed ones, unknown and missing severities, decisions with fractional priorities, known exploited
// ones, hosts with and without an owner, plugin names that differ within a plugin, and another source.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SecretBox } from '../../src/core/secrets.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { fullFillSelects } from '../../src/store/reports/summary-tables-write.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';

process.env.TRIBUTARY_MASTER_KEY = Buffer.alloc(32, 8).toString('base64');

const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical', 'unrated', null];
const STATUSES = ['open', 'reopened', 'fixed', 'open'];

/** Rows as comparable text, in one order; fractional sums to 9 digits (their last bits follow the order rows were added in). */
function canon(rows: Record<string, unknown>[] | unknown[][]): string[] {
  return rows
    .map((r) =>
      JSON.stringify(
        (Array.isArray(r) ? r : Object.values(r)).map((v) =>
          typeof v === 'bigint' || (typeof v === 'string' && /^\d+$/.test(v)) ? Number(v) : typeof v === 'number' ? Number(v.toPrecision(9)) : v,
        ),
      ),
    )
    .sort();
}

async function fill(store: Store, sourceName: string, seed: number): Promise<string> {
  const source = { id: `src-${seed}` };
  await store.db.run(`INSERT INTO "sources" ("id", "name", "type", "config", "created_at", "updated_at") VALUES (?, ?, 'fixture', '{}', 't', 't')`, [
    source.id,
    sourceName,
  ]);
  const stamp = { sourceId: source.id, sourceName, runId: `run-${seed}`, generation: `gen-${seed}`, now: '2026-11-20T10:00:00.000Z' };
  const hosts = Array.from({ length: 9 }, (_, h) => ({ key: `host:${h}`, fields: { hostname: `h${h}` } }));
  await store.records.upsert('hosts', hosts, stamp);
  const findings = Array.from({ length: 260 }, (_, i) => {
    const severity = SEVERITIES[(i * 3 + seed) % SEVERITIES.length];
    return {
      key: `f${i}`,
      hostKey: `host:${i % 9}`,
      firstSeen: new Date(Date.parse('2026-10-01T00:00:00Z') + ((i * 13) % 40) * 86_400_000 + (i % 5) * 3_600_000).toISOString(),
      fields: {
        pluginId: String(100 + ((i * 7) % 23)),
        // Names differ within a plugin (MAX picks one), some none at all.
        pluginName: i % 11 === 0 ? null : `Plugin ${(i * 7) % 23}${i % 4 === 0 ? ' (ü)' : ''}`,
        ...(severity === null ? {} : { severity }),
        status: STATUSES[(i + seed) % STATUSES.length],
        scannerKnownExploited: i % 6 === 0,
        cvssV3BaseScore: i % 3 === 0 ? null : ((i * 17) % 100) / 10,
        vprScore: i % 4 === 0 ? null : ((i * 29) % 100) / 10,
        scannerEpssScore: i % 5 === 0 ? null : ((i * 31) % 1000) / 1000,
      },
    };
  });
  await store.records.upsert('vulnerabilities', findings, stamp);
  // Removed findings, owners on some hosts, decisions and fractional priorities of every kind.
  await store.db.run(`UPDATE "rec_vulnerabilities" SET "removed" = 1 WHERE "source_id" = ? AND "natural_key" IN ('f3', 'f4', 'f40', 'f41', 'f77')`, [
    source.id,
  ]);
  await store.db.run(
    `UPDATE "rec_hosts" SET "owner" = CASE WHEN "natural_key" IN ('host:1', 'host:2') THEN 'ops' WHEN "natural_key" = 'host:5' THEN 'web' END WHERE "source_id" = ?`,
    [source.id],
  );
  const decisions = ['act', 'attend', 'track-star', 'track', null];
  for (let i = 0; i < 260; i += 1) {
    const decision = decisions[i % decisions.length];
    await store.db.run(`UPDATE "rec_vulnerabilities" SET "decision" = ?, "priority" = ? WHERE "source_id" = ? AND "natural_key" = ?`, [
      decision,
      i % 7 === 0 ? null : (i * 0.37) % 9.3,
      source.id,
      `f${i}`,
    ]);
  }
  return source.id;
}

for (const backend of BACKENDS) {
  describe(`a full rebuild of the summaries equals the grouped SELECTs, on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let store: Store;
    before(async () => {
      db = await backend.create();
      store = await openStore(db.url, new SecretBox(Buffer.alloc(32, 3)), () => []);
    });
    after(async () => {
      await store?.close();
      await db?.drop();
    });

    test('every findings summary, row for row', async () => {
      const one = await fill(store, 'one', 1);
      const other = await fill(store, 'other', 2);
      await store.reports.refreshSummaries(one, { runId: 'run-1', touchedOnly: false });
      for (const { table, columns, select } of fullFillSelects()) {
        // The SELECT's rows through a copy of the table (PostgreSQL names several of its columns alike).
        await store.db.exec(`CREATE TABLE want_${table} AS SELECT * FROM ${table} WHERE 1 = 0`);
        await store.db.run(`INSERT INTO want_${table} (${columns}) ${select}`, [one]);
        const want = canon(await store.db.all(`SELECT ${columns} FROM want_${table}`));
        if (table !== 'sum_compliance' && table !== 'sum_software') assert.ok(want.length > 0, `${table} has rows`);
        assert.deepEqual(canon(await store.db.all(`SELECT ${columns} FROM ${table} WHERE source_id = ?`, [one])), want, table);
      }
      const owners = await store.db.all(`SELECT owner, SUM(hosts) AS n FROM sum_plugin_owners WHERE source_id = ? GROUP BY owner ORDER BY owner`, [one]);
      assert.deepEqual(
        owners.map((r) => r.owner),
        ['ops', 'web'],
        'owners counted',
      );
      // The other source's summaries are its own.
      await store.reports.refreshSummaries(other, { runId: 'run-2', touchedOnly: false });
      const counts = await store.db.all(`SELECT SUM(n) AS n FROM sum_vuln_counts WHERE source_id = ?`, [other]);
      assert.equal(Number(counts[0]!.n), 260);
    });
  });
}
