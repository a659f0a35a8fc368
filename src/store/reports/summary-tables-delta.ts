// A run's findings as they were before it (issue 30): each page writer keeps, the first time the run writes
// a finding, what the summaries counted of it; the epilogue compares that with the finding now. The pure
// counts (findings per plugin, severity, status…; open findings due per day) then take the difference of
// the findings that changed instead of a regroup of every finding of a touched plugin (a 1 % rescan
// touches nearly every plugin), and the per-plugin and per-host summaries are regrouped for the plugins
// and hosts of those findings only (a re-read finding that did not change touches nothing).
import type { Driver, Row } from '../db/driver.ts';

/** The finding's columns the summaries read, as the pending row keeps them (first_day: SUBSTR(first_seen, 1, 10)). */
const IMAGE = [
  'host_id',
  'plugin_id',
  'severity',
  'status',
  'known_exploited',
  'decision',
  'removed',
  'first_day',
  'kev_due_date',
  'priority',
  'plugin_name',
  'epss_score',
  'vpr_score',
  'cvss_v3_base_score',
] as const;

/** Migration 41: the findings' images before the run that is writing them (one row per run and finding). */
export const SUMMARY_MIGRATION_41 = `
CREATE TABLE sum_pending (
  source_id TEXT NOT NULL, run_id TEXT NOT NULL, id TEXT NOT NULL, existed INTEGER NOT NULL, host_id TEXT, plugin_id TEXT, severity TEXT,
  status TEXT, known_exploited INTEGER, decision TEXT, removed INTEGER, first_day TEXT, kev_due_date TEXT, priority DOUBLE PRECISION,
  plugin_name TEXT, epss_score DOUBLE PRECISION, vpr_score DOUBLE PRECISION, cvss_v3_base_score DOUBLE PRECISION, PRIMARY KEY (run_id, id)
);
CREATE INDEX sum_pending_source ON sum_pending (source_id);
`;

/** The stored finding `t`'s image, as SELECT columns in IMAGE's order (each named `prefix` + its column when given). */
const imageOf = (t: string, prefix?: string) =>
  IMAGE.map((c) => `${c === 'first_day' ? `SUBSTR(${t}."first_seen", 1, 10)` : `${t}."${c}"`}${prefix ? ` AS "${prefix}${c}"` : ''}`).join(', ');

/**
 * Before a page of findings is upserted (change-detection.ts): the image of each of its findings the run
 * has not written yet (a finding new to the store: `existed` 0). A finding written twice in a run keeps
 * its first image (what the summaries counted). Pages of a first import (recordNewChanges) keep none:
 * the refresh after them is a full one, or its check of the counts (touchedAgree) makes it one.
 */
export async function keepPreImages(db: Driver, ids: unknown[], sourceId: string, runId: string): Promise<void> {
  const page =
    db.dialect === 'postgres'
      ? `unnest(CAST(? AS TEXT[])) AS p("id") LEFT JOIN (SELECT * FROM "rec_vulnerabilities" WHERE "id" = ANY(CAST(? AS TEXT[]))) t ON t."id" = p."id"`
      : `(SELECT j.value AS "id" FROM json_each(?) j) p LEFT JOIN "rec_vulnerabilities" t ON t."id" = p."id"`;
  const pageParams = db.dialect === 'postgres' ? [ids, ids] : [JSON.stringify(ids)];
  await db.run(
    `INSERT INTO sum_pending (source_id, run_id, id, existed, ${IMAGE.join(', ')})
     SELECT CAST(? AS TEXT), CAST(? AS TEXT), p."id", CASE WHEN t."id" IS NULL THEN 0 ELSE 1 END, ${imageOf('t')} FROM ${page}
     WHERE t."id" IS NULL OR t."seen_run" IS NULL OR t."seen_run" <> ? ON CONFLICT DO NOTHING`,
    db.dialect === 'postgres' ? [sourceId, runId, ...pageParams, runId] : [sourceId, runId, ...pageParams, runId],
  );
}

/** Forgets a source's kept images (every refresh: a run's images serve its own epilogue only). */
export async function dropPreImages(tx: Driver, sourceId: string): Promise<void> {
  await tx.run(`DELETE FROM sum_pending WHERE source_id = ?`, [sourceId]);
}

/** What the run changed of the findings' summaries. */
export interface FindingDeltas {
  /** Plugins and hosts of the findings that changed (before or after). */
  plugins: string[];
  hosts: string[];
  /** sum_vuln_counts' rows (source_id first, n last) after the changed findings' differences. */
  counts: unknown[][];
  /** sum_vuln_due's rows likewise. */
  due: unknown[][];
}

const norm = (v: unknown): unknown => (v === undefined ? null : typeof v === 'bigint' ? Number(v) : v);
const int = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const liveOpen = (r: Row) => int(r.removed) === 0 && (r.status === 'open' || r.status === 'reopened');
const countsKey = (r: Row) => [r.plugin_id, r.severity, r.status, int(r.known_exploited), r.decision, int(r.removed)].map(norm);
const dueKey = (r: Row) => [r.severity, r.first_day, r.kev_due_date].map(norm);

/** Adds `sign` for each image to the rows of a summary keyed by `key` (a row: its key's values, then n). */
function addTo(rows: Map<string, { key: unknown[]; n: number }>, key: unknown[], sign: number): void {
  const k = JSON.stringify(key);
  const row = rows.get(k) ?? { key, n: 0 };
  row.n += sign;
  rows.set(k, row);
}

/**
 * The findings' summaries after the run `runId`, from the images kept before it and the findings now;
 * null when they cannot be told (an image of a finding no longer stored: everything is rebuilt).
 */
export async function findingDeltas(db: Driver, sourceId: string, runId: string): Promise<FindingDeltas | null> {
  const pending = await db.all(
    `SELECT p."existed", ${IMAGE.map((c) => `p."${c}" AS "b_${c}"`).join(', ')}, t."id" AS "now_id", ${imageOf('t', 'a_')}
     FROM sum_pending p LEFT JOIN "rec_vulnerabilities" t ON t."id" = p."id" WHERE p."source_id" = ? AND p."run_id" = ?`,
    [sourceId, runId],
  );
  const plugins = new Set<string>();
  const hosts = new Set<string>();
  const counts = new Map<string, { key: unknown[]; n: number }>();
  const due = new Map<string, { key: unknown[]; n: number }>();
  const image = (r: Row, p: 'b_' | 'a_'): Row => Object.fromEntries(IMAGE.map((c) => [c, norm(r[`${p}${c}`])]));
  for (const r of pending) {
    if (r.now_id === null || r.now_id === undefined) return null;
    const after = image(r, 'a_');
    const before = int(r.existed) === 1 ? image(r, 'b_') : null;
    if (before && IMAGE.every((c) => sameValue(before[c], after[c]))) continue;
    for (const [img, sign] of [
      [before, -1],
      [after, 1],
    ] as [Row | null, number][]) {
      if (!img) continue;
      if (img.plugin_id !== null) plugins.add(String(img.plugin_id));
      if (img.host_id !== null) hosts.add(String(img.host_id));
      addTo(counts, countsKey(img), sign);
      if (liveOpen(img)) addTo(due, dueKey(img), sign);
    }
  }
  // A key on NULL (a finding without plugin or host) is not reached by the per-key regroup.
  if (pending.some((r) => r.a_plugin_id === null || r.a_host_id === null || (int(r.existed) === 1 && (r.b_plugin_id === null || r.b_host_id === null))))
    return null;
  const merged = async (table: string, cols: string[], delta: Map<string, { key: unknown[]; n: number }>, keyOf: (r: Row) => unknown[]) => {
    const rows = new Map<string, { key: unknown[]; n: number }>();
    for (const r of await db.all(`SELECT ${cols.join(', ')}, n FROM ${table} WHERE source_id = ?`, [sourceId])) addTo(rows, keyOf(r), Number(r.n));
    for (const d of delta.values()) if (d.n !== 0) addTo(rows, d.key, d.n);
    return [...rows.values()].filter((r) => r.n !== 0).map((r) => [sourceId, ...r.key, r.n]);
  };
  return {
    plugins: [...plugins],
    hosts: [...hosts],
    counts: await merged('sum_vuln_counts', ['plugin_id', 'severity', 'status', 'known_exploited', 'decision', 'removed'], counts, countsKey),
    due: await merged('sum_vuln_due', ['severity', 'first_day', 'kev_due_date'], due, dueKey),
  };
}

/** Equal as stored values (a number may come back as a string or a bigint on PostgreSQL). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  return String(a) === String(b);
}
