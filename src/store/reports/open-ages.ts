// Open findings by source, severity and first-seen day (issue 30): how many and their summed time of
// day, and how many findings of any status (the trends' first openings), kept in the transaction of every write that changes them (a page: its stored rows taken out
// before the upsert and put back after it; a sweep: taken out before it marks them; a source's removal),
// so the remediation report's open ages and the trends' counts of today read a few thousand rows instead
// of every live finding. The trends count a finding's first opening on its first-seen day (`seen`); the
// feed dated it by the finding's first event where that came before (a first-seen time after the run
// that stored it: a scanner's clock ahead, or a first-seen time the scanner moved later), which only that
// case tells apart. Migration 38 fills it from the findings stored before it.
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
  // Summed in SQL per source and severity (a few rows, not one per day): the days since 1970 of each
  // first-seen day times its findings (exact in a double up to billions), and the milliseconds into it.
  const epochDays =
    db.dialect === 'postgres' ? `(EXTRACT(EPOCH FROM CAST(first_day || 'T00:00:00Z' AS TIMESTAMPTZ)) / 86400)` : `(julianday(first_day) - 2440587.5)`;
  const rows = await db.all(
    `SELECT source_id, severity, SUM(n) AS "n", SUM(n * ${epochDays}) AS "days", SUM(ms) AS "ms", MIN(first_day) AS "first", MAX(first_day) AS "last"
FROM sum_open_days WHERE ${where} GROUP BY source_id, severity`,
    params,
  );
  const nowMs = Date.parse(now);
  const groups = rows.map((r) => {
    const n = Number(r.n);
    return {
      sourceId: String(r.source_id),
      severity: String(r.severity),
      n,
      ageMs: n * nowMs - Number(r.days) * DAY_MS - Number(r.ms),
      firstDay: String(r.first),
      // A day reaching past now may hold a finding first seen after now, whose age is 0, not negative.
      future: Date.parse(`${r.last}T00:00:00.000Z`) + DAY_MS > nowMs,
    };
  });
  const live = groups.filter((g) => g.n > 0);
  const sev = (g: { severity: string }) => (g.severity === '' ? null : g.severity);
  if (!ages) return live.map((g) => ({ sourceId: g.sourceId, severity: sev(g), open: g.n, meanAgeDays: null, oldestAgeDays: null }));
  const later = live.some((g) => g.future) ? await firstSeenAfter(db, now) : new Map<string, number>();
  const oldest = await oldestSeen(db, live);
  return live.map((g, i) => {
    const t = oldest[i];
    return {
      sourceId: g.sourceId,
      severity: sev(g),
      open: g.n,
      // A finding first seen after now counts 0, not its (negative) distance to now.
      meanAgeDays: Math.max(0, (g.ageMs - (later.get(`${g.sourceId}\u0000${g.severity}`) ?? 0)) / g.n / DAY_MS),
      oldestAgeDays: t === undefined ? null : Math.max(0, (nowMs - Date.parse(t)) / DAY_MS),
    };
  });
}

/** Per source and severity ('' for none), the open findings first seen after now: their distances to now summed (negative). */
async function firstSeenAfter(db: Driver, now: string): Promise<Map<string, number>> {
  const p = db.dialect === 'sqlite' ? '+' : '';
  const rows = await db.all(
    `SELECT "source_id", COALESCE("severity", '') AS "severity", ${SEEN} AS "t" FROM "rec_vulnerabilities"
WHERE "first_seen" > ? AND ${p}"removed" = 0 AND ${p}"status" IN ('open', 'reopened')`,
    [now],
  );
  const nowMs = Date.parse(now);
  const out = new Map<string, number>();
  for (const r of rows) {
    const k = `${r.source_id}\u0000${r.severity}`;
    out.set(k, (out.get(k) ?? 0) + nowMs - Date.parse(String(r.t)));
  }
  return out;
}

/**
 * Each group's oldest open finding's first-seen time: the earliest on or after the earliest day holding
 * one, by a short walk of the first-seen index each, all in one statement. SQLite, without statistics,
 * would take the source's index and sort all its findings: its other terms are made no index's (a unary +).
 */
async function oldestSeen(db: Driver, groups: { sourceId: string; severity: string; firstDay: string }[]): Promise<(string | undefined)[]> {
  if (groups.length === 0) return [];
  const p = db.dialect === 'sqlite' ? '+' : '';
  const params: unknown[] = [];
  const arms = groups.map((g, i) => {
    params.push(g.firstDay, g.sourceId);
    if (g.severity !== '') params.push(g.severity);
    return `SELECT ${i} AS "i", "t" FROM (SELECT ${SEEN} AS "t" FROM "rec_vulnerabilities" WHERE "first_seen" >= ? AND ${p}"source_id" = ?
AND "severity" ${g.severity === '' ? 'IS NULL' : '= ?'} AND ${p}"removed" = 0 AND ${p}"status" IN ('open', 'reopened') ORDER BY "first_seen" LIMIT 1) x${i}`;
  });
  const out: (string | undefined)[] = groups.map(() => undefined);
  for (const r of await db.all(arms.join('\nUNION ALL\n'), params)) out[Number(r.i)] = String(r.t);
  return out;
}
