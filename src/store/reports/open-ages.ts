// Open findings by source, severity and first-seen day (issue 30): how many and their summed time of
// day, and how many findings of any status (the trends' first openings), kept in the transaction of every write that changes them (a page: its stored rows taken out
// before the upsert and put back after it; a sweep: taken out before it marks them; a source's removal),
// so the remediation report's open ages and the trends' counts of today read a few thousand rows instead
// of every live finding. Migration 38 fills it from the findings stored before it.
import type { Driver } from '../db/driver.ts';
import { placeholders } from '../db/sql.ts';

/** A finding counted here: live, open or reopened. */
const OPEN = `"removed" = 0 AND "status" IN ('open', 'reopened')`;
/** When a finding's age starts (the old report's, remediation.ts). */
const SEEN = `COALESCE("first_seen", "last_seen")`;

/** The milliseconds of a finding's first-seen time after the start of its (UTC) day, in each dialect. */
function msIntoDay(dialect: 'sqlite' | 'postgres'): string {
  return dialect === 'postgres'
    ? `CAST(ROUND((EXTRACT(EPOCH FROM CAST(${SEEN} AS TIMESTAMPTZ)) - EXTRACT(EPOCH FROM CAST(SUBSTR(${SEEN}, 1, 10) || 'T00:00:00Z' AS TIMESTAMPTZ))) * 1000) AS BIGINT)`
    : `CAST(ROUND((julianday(${SEEN}) - julianday(SUBSTR(${SEEN}, 1, 10))) * 86400000) AS INTEGER)`;
}

/** Per source, severity and first-seen day: the open findings, their milliseconds into the day summed, and every finding (`seen`). */
function grouped(dialect: 'sqlite' | 'postgres', sign: string, openOnly: boolean): string {
  const open = (v: string, otherwise: string) => (openOnly ? v : `CASE WHEN ${OPEN} THEN ${v} ELSE ${otherwise} END`);
  return `SELECT "source_id", COALESCE("severity", ''), COALESCE(SUBSTR(${SEEN}, 1, 10), ''), ${sign}SUM(${open('1', '0')}), ${sign}COALESCE(SUM(${open(msIntoDay(dialect), 'NULL')}), 0),
${openOnly ? '0' : `${sign}COUNT(*)`}`;
}
const GROUP = `GROUP BY "source_id", COALESCE("severity", ''), COALESCE(SUBSTR(${SEEN}, 1, 10), '')`;

/** The table's rows from the findings as stored (migration 38's fill; a test compares it with the rows kept). */
export function openAgesFill(dialect: 'sqlite' | 'postgres'): string {
  return `INSERT INTO sum_open_days (source_id, severity, first_day, n, ms, seen) ${grouped(dialect, '', false)} FROM rec_vulnerabilities ${GROUP}`;
}

/** Migration 38: the table and, from the findings already stored, its rows. A NULL severity or day is kept as '' (a key column). */
export function openAgesMigration(dialect: 'sqlite' | 'postgres'): string {
  return `
CREATE TABLE sum_open_days (
  source_id TEXT NOT NULL, severity TEXT NOT NULL, first_day TEXT NOT NULL, n BIGINT NOT NULL, ms BIGINT NOT NULL, seen BIGINT NOT NULL,
  PRIMARY KEY (source_id, severity, first_day)
);
${openAgesFill(dialect)};
`;
}

/** Adds (sign 1) or takes out (-1) the findings matching `where` (over rec_vulnerabilities, its params after); `openOnly`: only from the open counts. */
async function shift(db: Driver, sign: 1 | -1, where: string, params: unknown[], openOnly = false): Promise<void> {
  await db.run(
    `INSERT INTO sum_open_days (source_id, severity, first_day, n, ms, seen)
${grouped(db.dialect, sign < 0 ? '-' : '', openOnly)} FROM "rec_vulnerabilities" WHERE ${where}${openOnly ? ` AND ${OPEN}` : ''} ${GROUP}
ON CONFLICT (source_id, severity, first_day) DO UPDATE SET n = sum_open_days.n + excluded.n, ms = sum_open_days.ms + excluded.ms, seen = sum_open_days.seen + excluded.seen`,
    params,
  );
}

/** The findings of a page by id: one statement whatever their number. */
function byIds(db: Driver, ids: unknown[]): { where: string; params: unknown[] } {
  return db.dialect === 'postgres'
    ? { where: `"id" = ANY(CAST(? AS TEXT[]))`, params: [ids] }
    : { where: `"id" IN (SELECT value FROM json_each(?))`, params: [JSON.stringify(ids)] };
}

/** Before a page's findings are upserted: their stored rows taken out (in the page's transaction). */
export async function openAgesBeforePage(tx: Driver, ids: unknown[]): Promise<void> {
  if (ids.length === 0) return;
  const w = byIds(tx, ids);
  await shift(tx, -1, w.where, w.params);
}

/** After a page's findings are upserted: their rows as they are now put back. */
export async function openAgesAfterPage(tx: Driver, ids: unknown[]): Promise<void> {
  if (ids.length === 0) return;
  const w = byIds(tx, ids);
  await shift(tx, 1, w.where, w.params);
}

/** Before a sweep marks the findings of `where` removed and fixed: they are taken out. */
export async function openAgesBeforeSweep(tx: Driver, where: string, params: unknown[]): Promise<void> {
  await shift(tx, -1, where, params, true);
}

/** A source removed: its rows go with its findings. */
export async function dropOpenAges(tx: Driver, sourceId: string): Promise<void> {
  await tx.run(`DELETE FROM sum_open_days WHERE source_id = ?`, [sourceId]);
}

/** Open findings of one source and severity (null: the findings without one) now. */
export interface OpenAges {
  sourceId: string;
  severity: string | null;
  open: number;
  meanAgeDays: number | null;
  oldestAgeDays: number | null;
}

const DAY_MS = 86_400_000;

/**
 * Per source and severity, the open findings and their mean and oldest age at `now`. The mean is the
 * summed first-seen times' distance to now; the oldest is the earliest first-seen time, found from the
 * earliest day holding one by the first-seen index (one short walk per group). An age is never below 0
 * (a first-seen time after now counts as now).
 */
export async function openAges(db: Driver, now: string, sourceIds?: string[], ages = true): Promise<OpenAges[]> {
  const params: unknown[] = [];
  let where = `n <> 0`;
  if (sourceIds) {
    where += ` AND source_id IN ${placeholders(sourceIds)}`;
    params.push(...sourceIds);
  }
  const rows = await db.all(`SELECT source_id, severity, first_day, n, ms FROM sum_open_days WHERE ${where} ORDER BY source_id, severity, first_day`, params);
  const nowMs = Date.parse(now);
  const groups = new Map<string, { sourceId: string; severity: string; n: number; ageMs: number; firstDay: string; future: boolean }>();
  for (const r of rows) {
    const key = `${r.source_id}\u0000${r.severity}`;
    let g = groups.get(key);
    if (!g) {
      g = { sourceId: String(r.source_id), severity: String(r.severity), n: 0, ageMs: 0, firstDay: String(r.first_day), future: false };
      groups.set(key, g);
    }
    const n = Number(r.n);
    const dayMs = Date.parse(`${r.first_day}T00:00:00.000Z`);
    g.n += n;
    g.ageMs += n * (nowMs - dayMs) - Number(r.ms);
    // A day reaching past now may hold a finding first seen after now, whose age is 0, not negative.
    if (dayMs + DAY_MS > nowMs) g.future = true;
  }
  const out: OpenAges[] = [];
  for (const g of groups.values()) {
    if (g.n <= 0) continue;
    const severity = g.severity === '' ? null : g.severity;
    const mean = g.future && ages ? await clampedMean(db, g.sourceId, severity, now, g.n, g.ageMs) : g.ageMs / g.n / DAY_MS;
    out.push({
      sourceId: g.sourceId,
      severity,
      open: g.n,
      meanAgeDays: ages ? Math.max(0, mean) : null,
      oldestAgeDays: ages ? await oldestAge(db, g.sourceId, severity, g.firstDay, nowMs) : null,
    });
  }
  return out;
}

/** The mean age when some first-seen times are after now: those count 0, not their (negative) distance to now. */
async function clampedMean(db: Driver, sourceId: string, severity: string | null, now: string, n: number, ageMs: number): Promise<number> {
  const p = db.dialect === 'sqlite' ? '+' : '';
  const later = await db.all(
    `SELECT ${SEEN} AS "t" FROM "rec_vulnerabilities" WHERE "first_seen" > ? AND ${p}"source_id" = ? AND "severity" ${severity === null ? 'IS NULL' : '= ?'}
AND ${p}"removed" = 0 AND ${p}"status" IN ('open', 'reopened')`,
    severity === null ? [now, sourceId] : [now, sourceId, severity],
  );
  const nowMs = Date.parse(now);
  let negative = 0;
  for (const x of later) negative += nowMs - Date.parse(String(x.t));
  return (ageMs - negative) / n / DAY_MS;
}

/** The oldest open finding's age: the earliest first-seen time on or after the earliest day holding one. */
async function oldestAge(db: Driver, sourceId: string, severity: string | null, firstDay: string, nowMs: number): Promise<number | null> {
  // SQLite, without statistics, would take the source's index and sort all its findings: its other
  // terms are made no index's (a unary +), so it walks the first-seen index from that day.
  const p = db.dialect === 'sqlite' ? '+' : '';
  const [r] = await db.all(
    `SELECT ${SEEN} AS "t" FROM "rec_vulnerabilities" WHERE "first_seen" >= ? AND ${p}"source_id" = ? AND "severity" ${severity === null ? 'IS NULL' : '= ?'}
AND ${p}"removed" = 0 AND ${p}"status" IN ('open', 'reopened') ORDER BY "first_seen" LIMIT 1`,
    severity === null ? [firstDay, sourceId] : [firstDay, sourceId, severity],
  );
  if (!r) return null;
  return Math.max(0, (nowMs - Date.parse(String(r.t))) / DAY_MS);
}
