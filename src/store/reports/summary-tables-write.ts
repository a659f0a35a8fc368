// Summary tables (issue 17 §1): counts a query cannot get from an index at a million findings, kept per
// source and rebuilt from the records in a run's epilogue (and after a source's removal or a feed
// import), so the overview, top plugins, per-host severities, software by name, model counts, overdue
// counts, the coverage report's urgent findings and compliance per host read a few thousand rows
// instead of every finding. A source without a refresh yet
// (a database from before migration 13) is refreshed on first read.
import type { ModelName } from '../../core/models.ts';
import type { Driver, InsertSql, Row } from '../db/driver.ts';
import { q, tableOf } from '../db/schema.ts';
import { placeholders } from '../db/sql.ts';
import { PLUGIN_OWNERS_SELECT } from './plugin-owners.ts';
import { type FindingDeltas, findingDeltas } from './summary-tables-delta.ts';
import { holdPlacement, readStamp, refreshSeam } from './summary-tables-guard.ts';
import { scanFindings } from './summary-tables-scan.ts';
import { MAX_KEYS, padTouched, type TouchedKeys, touchedAgree, touchedKeys, touchedList } from './summary-tables-touched.ts';

const RANK = `(CASE "severity" WHEN 'info' THEN 0 WHEN 'low' THEN 1 WHEN 'medium' THEN 2 WHEN 'high' THEN 3 WHEN 'critical' THEN 4 END)`;
const LIVE_OPEN = `"removed" = 0 AND "status" IN ('open', 'reopened')`;
const SUMMED_MODELS = ['hosts', 'software', 'ports', 'vulnerabilities', 'compliance', 'tickets', 'cmdb-assets', 'users', 'services', 'plugins'] as const;

/** A finding's severity rank as migration 13's index spells it (the findings' severity order). */
export const SEVERITY_RANK_INDEX = `COALESCE(${RANK.replace(/"severity"/g, 'severity')}, -1)`;

/** Migration 13: the summary tables and the indexes behind the findings' default order and the overdue counts. */
export const SUMMARY_MIGRATION = `
-- Findings in severity order (the UI's default): the rank expression the record query sorts by, then id.
CREATE INDEX rec_vulnerabilities_severity_rank ON rec_vulnerabilities ((COALESCE(${RANK.replace(/"severity"/g, 'severity')}, -1)), id);
-- Overdue counts: the findings first seen on one day, by severity (summary-reads.ts overdueCounts). Not
-- (severity, first_seen): SQLite would take that for a severity filter and sort every finding of it
-- instead of walking the severity-order index.
CREATE INDEX rec_vulnerabilities_first_seen ON rec_vulnerabilities (first_seen, severity);
CREATE TABLE sum_state (source_id TEXT PRIMARY KEY, refreshed_at TEXT NOT NULL);
CREATE TABLE sum_vuln_counts (
  source_id TEXT NOT NULL, plugin_id TEXT, severity TEXT, status TEXT, known_exploited INTEGER, removed INTEGER NOT NULL, n BIGINT NOT NULL
);
CREATE INDEX sum_vuln_counts_source ON sum_vuln_counts (source_id);
CREATE TABLE sum_vuln_due (source_id TEXT NOT NULL, severity TEXT, first_day TEXT, kev_due_date TEXT, n BIGINT NOT NULL);
CREATE INDEX sum_vuln_due_source ON sum_vuln_due (source_id);
CREATE TABLE sum_plugins (
  source_id TEXT NOT NULL, plugin_id TEXT NOT NULL, plugin_name TEXT, severity_rank INTEGER, findings BIGINT NOT NULL, hosts BIGINT NOT NULL,
  known_exploited INTEGER, epss_score DOUBLE PRECISION, vpr_score DOUBLE PRECISION, cvss_v3_base_score DOUBLE PRECISION,
  PRIMARY KEY (source_id, plugin_id)
);
CREATE TABLE sum_hosts (
  host_id TEXT PRIMARY KEY, source_id TEXT NOT NULL, critical BIGINT NOT NULL, high BIGINT NOT NULL, medium BIGINT NOT NULL,
  low BIGINT NOT NULL, info BIGINT NOT NULL, total BIGINT NOT NULL
);
CREATE INDEX sum_hosts_source ON sum_hosts (source_id);
CREATE TABLE sum_model_counts (source_id TEXT NOT NULL, model TEXT NOT NULL, removed INTEGER NOT NULL, n BIGINT NOT NULL, PRIMARY KEY (source_id, model, removed));
CREATE TABLE sum_software (source_id TEXT NOT NULL, name TEXT, removed INTEGER NOT NULL, n BIGINT NOT NULL);
CREATE INDEX sum_software_source ON sum_software (source_id);
`;

/**
 * Migration 16: per host, its urgent findings (the coverage report's: open, critical or known
 * exploited); compliance results per host and benchmark. The summaries of every source are rebuilt at
 * the next read (a source without a sum_state row is refreshed then), which fills both.
 */
export const SUMMARY_MIGRATION_16 = `
ALTER TABLE sum_hosts ADD COLUMN urgent BIGINT;
CREATE TABLE sum_compliance (
  source_id TEXT NOT NULL, host_id TEXT, benchmark TEXT NOT NULL, passed BIGINT NOT NULL, failed BIGINT NOT NULL, warning BIGINT NOT NULL,
  error BIGINT NOT NULL, total BIGINT NOT NULL
);
CREATE INDEX sum_compliance_source ON sum_compliance (source_id);
CREATE INDEX sum_compliance_host ON sum_compliance (host_id);
DELETE FROM sum_state;
`;

/** A finding the coverage report wants a ticket for (among live open ones): critical or known exploited. */
export const URGENT_SQL = `("severity" = 'critical' OR "known_exploited" = 1)`;
/** The benchmark of a compliance result without one. */
export const NO_BENCHMARK = '(no benchmark)';

/**
 * Migration 27 (issue 31): the open findings by decision and their summed priority per plugin and per host,
 * decision among the grouped counts, and per plugin the hosts of each owner; every summary rebuilt.
 */
export const SUMMARY_MIGRATION_27 = `
ALTER TABLE sum_vuln_counts ADD COLUMN decision TEXT;
${['sum_plugins', 'sum_hosts'].map((t) => ['act', 'attend', 'track_star', 'track'].map((c) => `ALTER TABLE ${t} ADD COLUMN ${c} BIGINT;`).join('\n') + `\nALTER TABLE ${t} ADD COLUMN priority DOUBLE PRECISION;`).join('\n')}
CREATE TABLE sum_plugin_owners (source_id TEXT NOT NULL, plugin_id TEXT NOT NULL, owner TEXT NOT NULL, hosts BIGINT NOT NULL);
CREATE INDEX sum_plugin_owners_source ON sum_plugin_owners (source_id);
DELETE FROM sum_state;
`;

/** The placement a host's summary carries (correlation's: rec_hosts' columns of the same names). */
export const HOST_PLACEMENT = ['asset_id', 'owner', 'department'] as const;

/**
 * Migration 40 (issue 31, speed): the host summaries carry their host's placement, so the decisions per
 * asset, owner or department group the summaries alone; copied from the hosts (a row per host).
 */
export const SUMMARY_MIGRATION_40 = `
${HOST_PLACEMENT.map((c) => `ALTER TABLE sum_hosts ADD COLUMN ${c} TEXT;`).join('\n')}
${syncPlacementSql()}
`;

/** Copies the hosts' placement onto their summaries where it differs (after a correlation pass placed hosts). */
export function syncPlacementSql(): string {
  const cols = HOST_PLACEMENT.map((c) => `"${c}"`).join(', ');
  const from = `FROM "rec_hosts" h WHERE h."id" = "sum_hosts"."host_id"`;
  return `UPDATE "sum_hosts" SET (${cols}) = (SELECT ${HOST_PLACEMENT.map((c) => `h."${c}"`).join(', ')} ${from})
  WHERE EXISTS (SELECT 1 ${from} AND (${HOST_PLACEMENT.map((c) => `h."${c}" IS DISTINCT FROM "sum_hosts"."${c}"`).join(' OR ')}));`;
}

/** Open findings by decision and their summed priority, as SELECT columns (act, attend, track_star, track, priority). */
const DECISION_SUMS: [string, string][] = [
  ['act', `SUM(CASE WHEN "decision" = 'act' THEN 1 ELSE 0 END)`],
  ['attend', `SUM(CASE WHEN "decision" = 'attend' THEN 1 ELSE 0 END)`],
  ['track_star', `SUM(CASE WHEN "decision" = 'track-star' THEN 1 ELSE 0 END)`],
  ['track', `SUM(CASE WHEN "decision" = 'track' THEN 1 ELSE 0 END)`],
  ['priority', `SUM(COALESCE("priority", 0))`],
];
const BY_DECISION = DECISION_SUMS.map(([, e]) => e).join(', ');
/** BY_DECISION with each column named (in a subquery read by name). */
const BY_DECISION_NAMED = DECISION_SUMS.map(([n, e]) => `${e} AS "${n}"`).join(', ');

const SUMMARY_TABLES = [
  'sum_plugin_owners',
  'sum_vuln_counts',
  'sum_vuln_due',
  'sum_plugins',
  'sum_hosts',
  'sum_model_counts',
  'sum_software',
  'sum_compliance',
  'sum_pending',
  'sum_state',
];

/** Removes a source's summaries (inside the transaction that deletes its records). */
export async function dropSummaries(tx: Driver, sourceId: string): Promise<void> {
  for (const t of SUMMARY_TABLES) await tx.run(`DELETE FROM ${t} WHERE source_id = ?`, [sourceId]);
}

/** Sources this process knows to have summaries; sources it wrote to since their last refresh. */
const fresh = new Set<string>();
const dirty = new Set<string>();

/**
 * A page or sweep of a source was written by this process. Outside a run (a direct write: tests,
 * maintenance) the next read refreshes the source's summaries; during a run they stay as of the last
 * refresh until the run's epilogue.
 */
export function markWritten(sourceId: string): void {
  dirty.add(sourceId);
}

/** One summary table filled from a source's records: its columns, in the order the SELECT gives them. */
interface SummaryFill {
  table: string;
  columns: string;
  select: string;
}

/**
 * The fills, each grouped on the source's records or, where `only` gives a fill an IN list (a run's
 * touched hosts, plugins or names: summary-tables-touched.ts), on those of its groups alone.
 */
function summaryFills(only: (fill: string) => string = () => ''): SummaryFill[] {
  const v = `FROM "rec_vulnerabilities" WHERE "source_id" = ?`;
  const bySev = (sev: string) => `SUM(CASE WHEN "severity" = '${sev}' THEN 1 ELSE 0 END)`;
  const byResult = (r: string) => `SUM(CASE WHEN "result" = '${r}' THEN 1 ELSE 0 END)`;
  return [
    {
      table: 'sum_vuln_counts',
      columns: 'source_id, plugin_id, severity, status, known_exploited, decision, removed, n',
      select: `SELECT "source_id", "plugin_id", "severity", "status", "known_exploited", "decision", "removed", COUNT(*) ${v}${only('sum_vuln_counts')}
       GROUP BY "source_id", "plugin_id", "severity", "status", "known_exploited", "decision", "removed"`,
    },
    {
      table: 'sum_vuln_due',
      columns: 'source_id, severity, first_day, kev_due_date, n',
      select: `SELECT "source_id", "severity", SUBSTR("first_seen", 1, 10), "kev_due_date", COUNT(*) ${v} AND ${LIVE_OPEN}
       GROUP BY "source_id", "severity", SUBSTR("first_seen", 1, 10), "kev_due_date"`,
    },
    {
      table: 'sum_plugins',
      columns:
        'source_id, plugin_id, plugin_name, severity_rank, findings, hosts, known_exploited, epss_score, vpr_score, cvss_v3_base_score, act, attend, track_star, track, priority',
      select: `SELECT "source_id", "plugin_id", MAX("plugin_name"), MAX(${RANK}), COUNT(*), COUNT(DISTINCT "host_id"), MAX("known_exploited"),
         MAX("epss_score"), MAX("vpr_score"), MAX("cvss_v3_base_score"), ${BY_DECISION} ${v}${only('sum_plugins')} AND ${LIVE_OPEN} AND "plugin_id" IS NOT NULL
       GROUP BY "source_id", "plugin_id"`,
    },
    {
      // With the host's placement (each correlation pass that places hosts copies it here too), for the decisions per owner.
      table: 'sum_hosts',
      columns: `host_id, source_id, critical, high, medium, low, info, total, urgent, act, attend, track_star, track, priority, ${HOST_PLACEMENT.join(', ')}`,
      select: `SELECT g.*, ${HOST_PLACEMENT.map((c) => `h."${c}"`).join(', ')} FROM (SELECT "host_id" AS "host_id", MAX("source_id") AS "s",
         ${['critical', 'high', 'medium', 'low', 'info'].map((sev) => `${bySev(sev)} AS "${sev}"`).join(', ')}, COUNT(*) AS "total",
         SUM(CASE WHEN ${URGENT_SQL} THEN 1 ELSE 0 END) AS "urgent", ${BY_DECISION_NAMED} ${v}${only('sum_hosts')} AND ${LIVE_OPEN} AND "host_id" IS NOT NULL
       GROUP BY "host_id") g LEFT JOIN "rec_hosts" h ON h."id" = g."host_id"`,
    },
    {
      // The owners of a plugin's hosts (the top remediations' owners): only hosts an owner is placed on;
      // correlation moves a host's plugins to its new owner (plugin-owners.ts).
      table: 'sum_plugin_owners',
      columns: 'source_id, plugin_id, owner, hosts',
      select: PLUGIN_OWNERS_SELECT,
    },
    {
      table: 'sum_compliance',
      columns: 'source_id, host_id, benchmark, passed, failed, warning, error, total',
      select: `SELECT "source_id", "host_id", COALESCE("benchmark", '${NO_BENCHMARK}'), ${['passed', 'failed', 'warning', 'error'].map(byResult).join(', ')}, COUNT(*)
       FROM "rec_compliance" WHERE "source_id" = ?${only('sum_compliance')} AND "removed" = 0 GROUP BY "source_id", "host_id", COALESCE("benchmark", '${NO_BENCHMARK}')`,
    },
    {
      table: 'sum_software',
      columns: 'source_id, name, removed, n',
      select: `SELECT "source_id", "name", "removed", COUNT(*) FROM "rec_software" WHERE "source_id" = ?${only('sum_software')} GROUP BY "source_id", "name", "removed"`,
    },
  ];
}

/** The SELECT of each summary table's full fill, with its one parameter the source (for tests that compare a rebuild with it). */
export function fullFillSelects(): SummaryFill[] {
  return summaryFills();
}

/** The INSERT a fill's rows go through. */
function insertOf(f: SummaryFill): InsertSql {
  return { head: `INSERT INTO ${f.table} (${f.columns})`, columns: f.columns.split(',').length, tail: '' };
}

/** A fill's SELECT rows as arrays in its columns' order (SQLite names each column by its expression, all distinct). */
function rowsOf(f: SummaryFill, rows: Row[]): unknown[][] {
  const width = insertOf(f).columns;
  return rows.map((r) => {
    const values = Object.values(r);
    if (values.length !== width) throw new Error(`${f.table}: the summary's SELECT gave ${values.length} columns for ${width}`);
    return values;
  });
}

/** What a rebuild read: the touched keys (null: everything), the findings' deltas, the fills and (SQLite) their rows. */
interface RefreshPlan {
  touched: TouchedKeys | null;
  deltas: FindingDeltas | null;
  fills: SummaryFill[];
  scanned: unknown[][][] | null;
  /** summary-tables-guard.ts readStamp when it read (SQLite). */
  stamp: string | null;
}

/** Every read of a rebuild (on `db`, or in its write transaction). */
async function planRefresh(db: Driver, sourceId: string, after?: RefreshAfterRun): Promise<RefreshPlan> {
  const stamp = db.dialect === 'sqlite' ? await readStamp(db, sourceId) : null;
  // After a run that only upserted (an incremental run that swept nothing), when the summaries are those
  // the source's previous run left: the groups of what the run stamped are rebuilt, the rest kept.
  let keys = after?.touchedOnly ? await touchedKeys(db, sourceId, after.runId) : null;
  // The findings' counts take the differences of the findings that changed; their plugins and hosts are regrouped.
  const deltas: FindingDeltas | null = keys && after ? await findingDeltas(db, sourceId, after.runId) : null;
  if (!deltas) keys = null;
  for (const [table, list] of deltas
    ? ([
        ['sum_plugins', deltas.plugins],
        ['sum_hosts', deltas.hosts],
      ] as const)
    : [])
    if (list.length <= MAX_KEYS) keys!.set(table, list);
  const touched = padTouched(db, keys);
  const params = (table: string): unknown[] => [sourceId, ...(touched?.get(table) ?? [])];
  // The owners of a plugin's hosts come from hosts an owner is placed on: where no host has one (no CMDB
  // correlated yet), that grouped scan of every finding would find nothing, so it is not made.
  const owned = (await db.all(`SELECT 1 AS "x" FROM "rec_hosts" WHERE "owner" IS NOT NULL LIMIT 1`)).length > 0;
  // A full rebuild on SQLite groups the findings in one scan (summary-tables-scan.ts); the rest as before.
  const onePass = touched === null ? await scanFindings(db, sourceId) : null;
  const fills = summaryFills((table) => touchedList(touched, table)).filter(
    (f) => (owned || f.table !== 'sum_plugin_owners') && !(deltas && (f.table === 'sum_vuln_counts' || f.table === 'sum_vuln_due')),
  );
  const scanned =
    db.dialect === 'sqlite' ? await Promise.all(fills.map(async (f) => onePass?.get(f.table) ?? rowsOf(f, await db.all(f.select, params(f.table))))) : null;
  return { touched, deltas, fills, scanned, stamp };
}

/**
 * Rebuilds a source's summaries from its records; readers see the old or the new ones. On SQLite the
 * grouped scans run before the write transaction and their rows (a few thousand) are written in it: a
 * first import's index builds, on the page writer's connection, go on meanwhile (the scans take the
 * write lock for none of their time); when a correlation pass or another rebuild of the source committed
 * since, they are made again inside it (summary-tables-guard.ts). PostgreSQL makes every read in the
 * transaction, under the source's lock and the correlation's, and fills each table with INSERT … SELECT.
 */
export async function refreshSummaries(db: Driver, sourceId: string, after?: RefreshAfterRun): Promise<'full' | 'touched'> {
  const s = [sourceId];
  dirty.delete(sourceId);
  let plan = db.dialect === 'sqlite' ? await planRefresh(db, sourceId, after) : null;
  if (refreshSeam.beforeWrite) await refreshSeam.beforeWrite(sourceId);
  const touched = await db.transaction(async (tx) => {
    // Two processes refreshing one source (a worker's epilogue, a server's first read) take turns.
    if (tx.dialect === 'postgres') await tx.all(`SELECT pg_advisory_xact_lock(hashtext(?))`, [`tributary-summaries-${sourceId}`]);
    await holdPlacement(tx);
    if (!plan || plan.stamp !== (await readStamp(tx, sourceId))) plan = await planRefresh(tx, sourceId, after);
    const { touched, deltas, fills, scanned } = plan;
    const params = (table: string): unknown[] => [sourceId, ...(touched?.get(table) ?? [])];
    for (const t of SUMMARY_TABLES) await tx.run(`DELETE FROM ${t} WHERE source_id = ?${touchedList(touched, t)}`, params(t));
    for (const [i, f] of fills.entries()) {
      if (scanned) await tx.insertMany(insertOf(f), scanned[i]!);
      else await tx.run(`INSERT INTO ${f.table} (${f.columns}) ${f.select}`, params(f.table));
    }
    if (deltas) {
      await tx.insertMany(
        { head: 'INSERT INTO "sum_vuln_counts" (source_id, plugin_id, severity, status, known_exploited, decision, removed, n)', columns: 8, tail: '' },
        deltas.counts,
      );
      await tx.insertMany({ head: 'INSERT INTO "sum_vuln_due" (source_id, severity, first_day, kev_due_date, n)', columns: 5, tail: '' }, deltas.due);
    }
    // The findings' counts are in sum_vuln_counts already: summed there instead of a scan of every finding.
    await tx.run(
      `INSERT INTO sum_model_counts (source_id, model, removed, n) SELECT source_id, 'vulnerabilities', removed, SUM(n) FROM sum_vuln_counts WHERE source_id = ? GROUP BY source_id, removed`,
      s,
    );
    for (const m of SUMMED_MODELS.filter((name) => name !== 'vulnerabilities'))
      await tx.run(
        `INSERT INTO sum_model_counts (source_id, model, removed, n) SELECT "source_id", '${m}', "removed", COUNT(*) FROM ${q(tableOf(m))} WHERE "source_id" = ? GROUP BY "source_id", "removed"`,
        s,
      );
    // The run whose epilogue this is: the next run's may rebuild only what it touches (summary-tables-touched.ts).
    await tx.run(`INSERT INTO sum_state (source_id, refreshed_at, run_id) VALUES (?, ?, ?)`, [sourceId, new Date().toISOString(), after?.runId ?? null]);
    return touched;
  });
  fresh.add(sourceId);
  // PostgreSQL plans by its statistics, which autovacuum refreshes only a while after a large load:
  // right after a first sync of a large console a sort joined the plugins table by a nested loop
  // (estimated at one row), slow beyond use. So the record tables a fifth of whose rows changed since
  // their last analysis are analysed now (after a first import; rarely after the runs that follow).
  if (db.dialect === 'postgres') {
    const stale = await db.all(
      `SELECT relname FROM pg_stat_user_tables WHERE schemaname = current_schema() AND (relname LIKE 'rec_%' OR relname LIKE 'sum_%')
       AND n_mod_since_analyze > 0.2 * GREATEST(n_live_tup, 1000)`,
    );
    const tables = stale.map((r) => String(r.relname));
    // Hosts are rewritten by each stream that names them (several times each in a first import):
    // vacuumed, a search through them reads their live rows, not every dead version.
    if (tables.includes('rec_hosts')) await db.exec(`VACUUM (ANALYZE) "rec_hosts"`);
    const rest = tables.filter((t) => t !== 'rec_hosts');
    if (rest.length > 0) await db.exec(`ANALYZE ${rest.map(q).join(', ')}`);
  }
  if (touched && after && !(await touchedAgree(db, sourceId))) return refreshSummaries(db, sourceId, { ...after, touchedOnly: false });
  return touched ? 'touched' : 'full';
}

/** A refresh in a run's epilogue: the run, and whether it may rebuild only the groups of what it stamped. */
export interface RefreshAfterRun {
  runId: string;
  touchedOnly: boolean;
}

export type { TouchedKeys };

/** Refreshes every source's summaries (after a feed import changed KEV due dates). */
export async function refreshAllSummaries(db: Driver): Promise<void> {
  for (const r of await db.all(`SELECT "id" FROM "sources"`)) await refreshSummaries(db, String(r.id));
}

/** Makes sure the sources in scope (all when undefined) have summaries: a source never refreshed is refreshed now. */
export async function ensureSummariesFor(db: Driver, sourceIds?: string[]): Promise<void> {
  const wanted = sourceIds ?? (await db.all(`SELECT "id" FROM "sources"`)).map((r) => String(r.id));
  for (const id of wanted) {
    if (!dirty.has(id)) continue;
    const running = await db.all(`SELECT 1 FROM "sync_runs" WHERE "source_id" = ? AND "status" = 'running'`, [id]);
    if (running.length === 0) await refreshSummaries(db, id);
  }
  const missing = wanted.filter((id) => !fresh.has(id));
  if (missing.length === 0) return;
  const have = new Set((await db.all(`SELECT "source_id" FROM sum_state`)).map((r) => String(r.source_id)));
  for (const id of missing) {
    if (have.has(id)) fresh.add(id);
    else await refreshSummaries(db, id);
  }
}

/** Forgets which sources this process saw refreshed (another process may have removed and re-added one). */
export function forgetSummaries(sourceId: string): void {
  fresh.delete(sourceId);
  dirty.delete(sourceId);
}

/** Fields (beyond source and removed) each summary table can group and filter by, as columns of the record table. */
const SUMMARY_FIELDS: { model: ModelName; table: string; fields: Set<string>; extra?: string }[] = [
  { model: 'vulnerabilities', table: 'sum_vuln_counts', fields: new Set(['pluginId', 'severity', 'status', 'knownExploited', 'decision']) },
  { model: 'software', table: 'sum_software', fields: new Set(['name']) },
];

export interface SummarySource {
  /** FROM clause standing in for `<record table> r` (same column names). */
  from: string;
  /** What stands in for COUNT(*). */
  count: string;
  params: unknown[];
}

/**
 * Where a count of `model` grouped or filtered by `fields` (only = and ordered comparisons, no text
 * search; the caller checks the operators) can be read from a summary table instead of the records;
 * null when none holds those fields.
 */
export async function summarySource(db: Driver, model: ModelName, fields: string[], sourceIds?: string[]): Promise<SummarySource | null> {
  const beyond = fields.filter((f) => f !== 'source' && f !== 'removed');
  let src: SummarySource | null = null;
  if (beyond.length === 0) {
    if ((SUMMED_MODELS as readonly string[]).includes(model)) src = { from: `sum_model_counts r`, count: `SUM(r."n")`, params: [model] };
  } else {
    const t = SUMMARY_FIELDS.find((s) => s.model === model && beyond.every((f) => s.fields.has(f)));
    if (t) src = { from: `${t.table} r`, count: `SUM(r."n")`, params: [] };
  }
  if (!src) return null;
  await ensureSummariesFor(db, sourceIds);
  return src;
}

/**
 * Live compliance results counted by result and benchmark from sum_compliance (its per host and
 * benchmark counts of each result, summed per source and benchmark and unpivoted): the counts the UI
 * and API ask for read a row per host and benchmark instead of every result (issue 30: 2.4 s at
 * 200,000 hosts). Only for a count of live results (a `removed=false` filter: the summary holds no
 * removed one), grouped by result, benchmark and source, filtered by result and benchmark (= or !=);
 * null otherwise, and null for a benchmark when a result names the summary's stand-in for none
 * literally (the summary could not tell the two apart). A result outside the four is counted as null
 * (the mapper writes only those four or none).
 */
export async function complianceResultSource(
  db: Driver,
  by: string[],
  filters: { field: string; op: string; value: string }[],
  sourceIds?: string[],
): Promise<SummarySource | null> {
  const live = filters.some((f) => f.field === 'removed' && f.op === '=' && f.value.trim().toLowerCase() === 'false');
  const fits = filters.every((f) => f.field === 'removed' || ((f.field === 'result' || f.field === 'benchmark') && (f.op === '=' || f.op === '!=')));
  if (!live || !fits || !by.every((b) => b === 'result' || b === 'benchmark' || b === 'source')) return null;
  const benchmark = by.includes('benchmark') || filters.some((f) => f.field === 'benchmark');
  if (benchmark && (await db.all(`SELECT 1 AS "x" FROM "rec_compliance" WHERE "benchmark" = ? LIMIT 1`, [NO_BENCHMARK])).length > 0) return null;
  await ensureSummariesFor(db, sourceIds);
  const results = ['passed', 'failed', 'warning', 'error'];
  // One pass over the summary sums each result per source (and benchmark); those few rows are unpivoted.
  const scope = sourceIds ? ` WHERE source_id IN ${placeholders(sourceIds)}` : '';
  const bench = benchmark ? `, CASE WHEN benchmark = '${NO_BENCHMARK}' THEN NULL ELSE benchmark END` : '';
  const sums = `SELECT source_id${bench ? `${bench} AS "benchmark"` : ''}, ${results.map((r) => `SUM(${r}) AS ${r}`).join(', ')}, SUM(total) AS total
    FROM sum_compliance${scope} GROUP BY source_id${bench}`;
  const cols = `source_id${benchmark ? ', "benchmark"' : ''}`;
  const each = results.map((r) => `SELECT ${cols}, '${r}' AS "result", 0 AS "removed", ${r} AS "n" FROM a WHERE ${r} > 0`);
  const rest = `total - ${results.join(' - ')}`;
  each.push(`SELECT ${cols}, NULL AS "result", 0 AS "removed", ${rest} AS "n" FROM a WHERE ${rest} > 0`);
  return { from: `(WITH a AS (${sums}) ${each.join(' UNION ALL ')}) r`, count: 'SUM(r."n")', params: sourceIds ?? [] };
}

/** Record counts per source and model (all records, removed ones included), from the summaries. */
export async function modelCounts(db: Driver): Promise<{ sourceId: string; model: string; removed: boolean; n: number }[]> {
  await ensureSummariesFor(db);
  const rows = await db.all(`SELECT source_id, model, removed, n FROM sum_model_counts`);
  return rows.map((r) => ({ sourceId: String(r.source_id), model: String(r.model), removed: Number(r.removed) === 1, n: Number(r.n) }));
}

export { RANK as SEVERITY_RANK_SQL, LIVE_OPEN as LIVE_OPEN_SQL };
export type { Row };
