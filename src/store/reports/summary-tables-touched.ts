// What a run's epilogue may rebuild of a source's summaries (issue 30): the groups of the records the run
// stamped, instead of every record, when nothing else can have changed since the summaries were made.
//
// Every upsert stamps its row with the run (`seen_run`), and the keys these summaries group on are part
// of the record's identity (a finding's host and plugin, a rule result's host, a software's name), so
// a group whose records the run did not stamp is as the last refresh left it, provided that refresh saw
// everything written before this run:
// - it was the epilogue of the source's previous run (sum_state.run_id); a run killed before its
//   epilogue, a refresh that failed, one made outside a run (a first read, after a feed import) each
//   leave another run id or none there, and the next run rebuilds everything;
// - no feed import came after it (a feed import changes KEV due dates on findings it does not stamp;
//   it rebuilds every summary itself, this only covers a rebuild of it that failed);
// - the run swept nothing (a sweep marks records without stamping them: the runner asks for a full
//   rebuild after any sweep).
// The findings' summaries follow what changed of the findings (summary-tables-delta.ts); the model
// counts are always rebuilt.
import type { Driver } from '../db/driver.ts';
import { paddedInList, placeholders } from '../db/sql.ts';

/** Summary table → the values of its key column the run stamped (a table absent: rebuilt whole). */
export type TouchedKeys = Map<string, string[]>;

/** The summary tables rebuilt per key: the key column (same name in the summary and in its records) and the records it is read from. */
const KEYED: Record<string, { column: string; records: string }> = {
  sum_plugins: { column: 'plugin_id', records: 'rec_vulnerabilities' },
  sum_hosts: { column: 'host_id', records: 'rec_vulnerabilities' },
  sum_compliance: { column: 'host_id', records: 'rec_compliance' },
  sum_software: { column: 'name', records: 'rec_software' },
};

/**
 * What a run's pages changed of the records with keyed summaries, as this process wrote them: per model,
 * the keys of the rows a page inserted or changed (store/records/pages-write.ts); rows a page only stamped
 * as seen again (unchanged.ts) change no group. The epilogue reads these instead of scanning every record
 * the run stamped (issue 30: a 1 % rescan stamps a row of nearly every software name). A run this process
 * did not write (or whose write failed, which may have committed unanswered) is not known: scanned.
 */
class RunChanges {
  reliable = true;
  readonly keys = new Map<string, Set<unknown> | null>();
  unsure(): void {
    this.reliable = false;
  }
  add(changed: Record<string, unknown[] | null>): void {
    // Added in place: a run's pages are thousands, and copying the set for each was quadratic in its keys.
    for (const [model, keys] of Object.entries(changed)) {
      if (keys === null) {
        this.keys.set(model, null);
        continue;
      }
      let set = this.keys.get(model);
      if (set === null) continue;
      if (set === undefined) {
        set = new Set();
        this.keys.set(model, set);
      }
      for (const k of keys) set.add(k);
    }
  }
}

const changesByRun = new Map<string, RunChanges>();

/** The changes of run `runId` this process writes (made at its first page). */
export function runChanges(runId: string): RunChanges {
  let c = changesByRun.get(runId);
  if (!c) {
    // Only the latest runs are kept: an epilogue reads its run's right after its pages.
    if (changesByRun.size >= 16) changesByRun.delete(changesByRun.keys().next().value!);
    c = new RunChanges();
    changesByRun.set(runId, c);
  }
  return c;
}

/** The model whose records each keyed summary other than the findings' is read from. */
const MODEL_OF: Record<string, string> = { rec_software: 'software', rec_compliance: 'compliance' };

/** Past this many keys a table is rebuilt whole: one grouped scan costs less than that many lookups. */
export const MAX_KEYS = 2048;

/** The touched keys of each keyed summary after `runId`, or null when everything must be rebuilt. */
export async function touchedKeys(db: Driver, sourceId: string, runId: string): Promise<TouchedKeys | null> {
  const state = await db.all(`SELECT "refreshed_at", "run_id" FROM sum_state WHERE "source_id" = ?`, [sourceId]);
  const made = state[0];
  if (!made?.run_id) return null;
  const previous = await db.all(`SELECT "id" FROM "sync_runs" WHERE "source_id" = ? AND "id" <> ? ORDER BY "started_at" DESC LIMIT 1`, [sourceId, runId]);
  if (previous[0]?.id !== made.run_id) return null;
  const feeds = await db.all(`SELECT 1 AS "x" FROM "feed_imports" WHERE "imported_at" >= ? LIMIT 1`, [made.refreshed_at]);
  if (feeds.length > 0) return null;
  const out: TouchedKeys = new Map();
  // One scan of each record table for every key column its summaries need.
  const columns = new Map<string, Set<string>>();
  // The findings' keys are the plugins and hosts of the findings that changed (summary-tables-delta.ts).
  for (const { column, records } of Object.values(KEYED))
    if (records !== 'rec_vulnerabilities') columns.set(records, (columns.get(records) ?? new Set()).add(column));
  const values = new Map<string, (string | null)[]>();
  // The keys this process saw the run's pages change (a model none of its pages wrote: none).
  const known = changesByRun.get(runId);
  for (const [records, cols] of columns) {
    const changed = known?.reliable && cols.size === 1 ? known.keys.get(MODEL_OF[records]!) : null;
    if (known?.reliable && cols.size === 1 && changed !== null) {
      values.set(
        `${records}.${[...cols][0]}`,
        [...(changed ?? [])].map((k) => (k === null || k === undefined ? null : String(k))),
      );
      continue;
    }
    const list = [...cols];
    const rows = await db.all(`SELECT DISTINCT ${list.map((c) => `"${c}"`).join(', ')} FROM "${records}" WHERE "source_id" = ? AND "seen_run" = ?`, [
      sourceId,
      runId,
    ]);
    for (const c of list) values.set(`${records}.${c}`, [...new Set(rows.map((r) => (r[c] === null || r[c] === undefined ? null : String(r[c]))))]);
  }
  for (const [table, { column, records }] of Object.entries(KEYED)) {
    if (records === 'rec_vulnerabilities') continue;
    const keys = values.get(`${records}.${column}`)!;
    // A group on NULL is not reached by an IN list: rebuilt whole.
    if (keys.length <= MAX_KEYS && !keys.includes(null)) out.set(table, keys as string[]);
  }
  return out;
}

/** The condition (after the source's) that limits a summary table's rows or its records to the touched keys; '' for the whole table. */
export function touchedList(touched: TouchedKeys | null, table: string): string {
  const keys = touched?.get(table);
  const keyed = KEYED[table];
  if (!keys || !keyed) return '';
  return keys.length === 0 ? ' AND 1 = 0' : ` AND "${keyed.column}" IN ${placeholders(keys)}`;
}

/** The keys of `touchedKeys`, padded on SQLite to a few list lengths (db/sql.ts paddedInList). */
export function padTouched(db: Driver, touched: TouchedKeys | null): TouchedKeys | null {
  if (!touched) return null;
  return new Map([...touched].map(([t, keys]) => [t, paddedInList(db, keys, MAX_KEYS)]));
}

/**
 * After a touched-only rebuild: the per-plugin counts of findings and per-name counts of software (every
 * record, removed ones too) still add up to the source's records. A record whose key column changed
 * under the same id (no connector does that today) would be counted in its old group and its new one:
 * the caller then rebuilds everything.
 */
export async function touchedAgree(db: Driver, sourceId: string): Promise<boolean> {
  const rows = await db.all(
    `SELECT (SELECT COALESCE(SUM(n), 0) FROM sum_vuln_counts WHERE source_id = ?) AS "sv", (SELECT COUNT(*) FROM "rec_vulnerabilities" WHERE "source_id" = ?) AS "cv",
            (SELECT COALESCE(SUM(n), 0) FROM sum_software WHERE source_id = ?) AS "ss", (SELECT COUNT(*) FROM "rec_software" WHERE "source_id" = ?) AS "cs"`,
    [sourceId, sourceId, sourceId, sourceId],
  );
  const r = rows[0];
  return !!r && Number(r.sv) === Number(r.cv) && Number(r.ss) === Number(r.cs);
}
