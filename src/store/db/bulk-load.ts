// A first import into an empty record table builds its secondary indexes once at the end instead of
// row by row: building an index from a full table (one sort) costs far less than taking a million rows
// into half a dozen B-trees at random places. What was dropped is written down in `deferred_indexes`
// in the same transaction, so a crash leaves a note from which the next run or process start rebuilds.
import type { ModelName } from '../../core/models.ts';
import type { Driver } from './driver.ts';
import { q, tableOf } from './names.ts';

/** Host-owned records, the bulk of a first import; hosts themselves stay indexed (rows are matched to them by identifier). */
const DEFERRABLE: ReadonlySet<ModelName> = new Set(['vulnerabilities', 'software', 'ports', 'compliance']);

/** A first page of fewer rows than this leaves the indexes in place: a small import is not worth the DDL. */
export const DEFER_MIN_ROWS = 500;

/**
 * Drops the secondary indexes of the model's table for the run when the table holds no row at all
 * (of any source) and no other run deferred them already; returns whether it did. The primary key
 * stays: upserts and resumed pages match on it.
 */
export async function deferIndexes(db: Driver, model: ModelName, runId: string): Promise<boolean> {
  if (!DEFERRABLE.has(model)) return false;
  const table = tableOf(model);
  return db.transaction(async (tx) => {
    if (tx.dialect === 'postgres') await tx.exec(`LOCK TABLE ${q(table)} IN SHARE ROW EXCLUSIVE MODE`);
    if ((await tx.all(`SELECT 1 AS "x" FROM ${q(table)} LIMIT 1`)).length > 0) return false;
    if ((await tx.all(`SELECT 1 AS "x" FROM "deferred_indexes" WHERE "table_name" = ? LIMIT 1`, [table])).length > 0) return false;
    const indexes = await secondaryIndexes(tx, table);
    for (const ix of indexes) {
      await tx.run(`INSERT INTO "deferred_indexes" ("name", "table_name", "sql", "run_id") VALUES (?, ?, ?, ?)`, [ix.name, table, ix.sql, runId]);
      await tx.exec(`DROP INDEX ${q(ix.name)}`);
    }
    return indexes.length > 0;
  });
}

/**
 * Rebuilds the indexes a run deferred (with `runId`), or every deferred index whose run is no longer
 * running (without): after a crash, at the next run or process start. Each index is rebuilt and its
 * note removed in one transaction.
 */
export async function rebuildDeferredIndexes(db: Driver, runId?: string, only?: { tables?: string[]; name?: string }): Promise<number> {
  const rows = runId
    ? (
        await db.all<{ name: string; sql: string; table_name: string }>(`SELECT "name", "sql", "table_name" FROM "deferred_indexes" WHERE "run_id" = ?`, [
          runId,
        ])
      ).filter((r) => (!only?.tables || only.tables.includes(r.table_name)) && (!only?.name || only.name === r.name))
    : await db.all<{ name: string; sql: string }>(
        `SELECT d."name", d."sql" FROM "deferred_indexes" d LEFT JOIN "sync_runs" r ON r."id" = d."run_id" WHERE r."id" IS NULL OR r."status" <> 'running'`,
      );
  const build = (row: { name: string; sql: string }) =>
    db.transaction(async (tx) => {
      // An index build sorts the table: PostgreSQL's default 64 MB of sort memory spills a million rows to disk.
      if (tx.dialect === 'postgres') await tx.exec(`SET LOCAL maintenance_work_mem = '256MB'`);
      // The note's row lock: two processes finishing the same notes take turns on each.
      const still = await tx.all(`SELECT 1 AS "x" FROM "deferred_indexes" WHERE "name" = ?${tx.dialect === 'postgres' ? ' FOR UPDATE' : ''}`, [row.name]);
      if (still.length === 0) return;
      await tx.exec(row.sql.replace(/^CREATE (UNIQUE )?INDEX /i, (m) => `${m}IF NOT EXISTS `));
      await tx.run(`DELETE FROM "deferred_indexes" WHERE "name" = ?`, [row.name]);
    });
  // PostgreSQL builds two at a time, each on a connection of its own (builds of one table share its lock
  // and both cores: 1M findings, 11 indexes); SQLite has one writer.
  const lanes = db.dialect === 'postgres' ? 2 : 1;
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < rows.length) await build(rows[next++]!);
    }),
  );
  return rows.length;
}

/**
 * PostgreSQL: statistics for the tables a run loaded without their indexes, taken before the builds
 * (an index build's lock would hold ANALYZE back until it ends). A fresh load has none until autovacuum
 * comes by, and the epilogue's grouped scans would be planned blind: a summary of a few thousand groups
 * sorted every row on disk where a hash of the groups takes a fraction of it. `except`: tables analysed
 * already (an ANALYZE waits for every index build on its table: their locks conflict).
 */
export async function analyzeLoaded(db: Driver, runId: string, only?: string[], except?: ReadonlySet<string>): Promise<void> {
  if (db.dialect !== 'postgres') return;
  const tables = (await db.all<{ table_name: string }>(`SELECT DISTINCT "table_name" FROM "deferred_indexes" WHERE "run_id" = ?`, [runId])).filter(
    (t) => (!only || only.includes(t.table_name)) && !except?.has(t.table_name),
  );
  if (tables.length > 0) await db.exec(`ANALYZE ${tables.map((t) => q(t.table_name)).join(', ')}`);
}

/** The indexes a run deferred on these tables, by name (to build them one by one). */
export async function deferredIndexesOf(db: Driver, runId: string, tables: string[]): Promise<string[]> {
  const rows = await db.all<{ name: string; table_name: string }>(`SELECT "name", "table_name" FROM "deferred_indexes" WHERE "run_id" = ?`, [runId]);
  return rows.filter((r) => tables.includes(r.table_name)).map((r) => r.name);
}

/** At a run's end: the indexes it deferred, then any a crashed run left (its notes outlive it). */
export async function finishDeferredIndexes(db: Driver, runId: string): Promise<void> {
  await rebuildDeferredIndexes(db, runId);
  await rebuildDeferredIndexes(db);
}

/** The table's indexes other than its primary key, with the statements that create them. */
async function secondaryIndexes(tx: Driver, table: string): Promise<{ name: string; sql: string }[]> {
  if (tx.dialect === 'sqlite') {
    return tx.all<{ name: string; sql: string }>(`SELECT "name", "sql" FROM "sqlite_master" WHERE "type" = 'index' AND "tbl_name" = ? AND "sql" IS NOT NULL`, [
      table,
    ]);
  }
  return tx.all<{ name: string; sql: string }>(
    `SELECT i.indexname AS "name", i.indexdef AS "sql" FROM pg_indexes i
     JOIN pg_class c ON c.relname = i.indexname JOIN pg_index x ON x.indexrelid = c.oid
     WHERE i.schemaname = current_schema() AND i.tablename = ? AND NOT x.indisprimary`,
    [table],
  );
}
