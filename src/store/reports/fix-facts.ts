// The fixes of findings, one row per fix event of the change feed with what the remediation report and
// the trends read of it joined to its finding (issue 30): the finding's severity, the fix's date and its
// days to remediate (fix-dates.ts); and a row per reopening (any move into open but a finding's first
// event, for the trends). Kept in the transaction of every write that changes them: a page adds the rows
// of the events it wrote and brings those of its findings up to date (a reopening, a new mitigation date
// or severity changes an earlier fix's figures as the old join would); a sweep adds the rows of the
// findings it fixed; a source's removal drops its rows. So the reports read these rows instead of every
// finding event of the feed joined to its finding. Migration 38 fills it from the feed.
import type { Driver } from '../db/driver.ts';
import { FINDING_EVENTS_IN_WINDOW, FIX_DATE, FIX_EVENT } from '../records/fix-dates.ts';
import { dropFixDays, FIX_ROW, type FixRow, shiftFixDays } from './fix-days.ts';

/** An ISO-8601 text column or parameter as fractional days, in each dialect (the old report's). */
function days(dialect: 'sqlite' | 'postgres', expr: string): string {
  return dialect === 'postgres' ? `(EXTRACT(EPOCH FROM CAST(${expr} AS TIMESTAMPTZ)) / 86400.0)` : `julianday(${expr})`;
}

/**
 * The columns computed from fix `e` (an event, or a row of this table: same column names) and its
 * finding `v`: severity, fix date (NULL: unknown), days to remediate (NULL without a fix date). The days
 * run from the finding's last reopening when that came before this fix, else from when it was first
 * seen (exact for every fix but the middle ones of a finding reopened twice or more).
 */
function computed(dialect: 'sqlite' | 'postgres', isFix: string): { severity: string; fixDate: string; d: string; datedAt: string } {
  const start = `COALESCE(CASE WHEN v."reopened_at" < e."at" THEN v."reopened_at" END, v."first_seen", ${FIX_DATE})`;
  const diff = `${days(dialect, FIX_DATE)} - ${days(dialect, start)}`;
  const d = `CASE WHEN ${isFix} AND ${FIX_DATE} IS NOT NULL THEN ${dialect === 'postgres' ? `GREATEST(0.0, ${diff})` : `MAX(0.0, ${diff})`} END`;
  // The day a row counts on: a fix's date (else its event's), a reopening's event.
  const datedAt = `CASE WHEN ${isFix} THEN COALESCE(${FIX_DATE}, e."at") ELSE e."at" END`;
  return { severity: `v."severity"`, fixDate: `CASE WHEN ${isFix} THEN ${FIX_DATE} END`, d, datedAt };
}

const COLUMNS = `seq, source_id, record_id, at, run_id, change, kind, moves, severity, fix_date, d, dated_at`;
const OPEN = `('open', 'reopened')`;
/** An event that moves a finding into open, but its first (the trends count those by the finding's first-seen day: open-ages.ts). */
const REOPENING = `(e."change" <> 'new' AND COALESCE(e."to", '') IN ${OPEN} AND COALESCE(e."from", '') NOT IN ${OPEN})`;
// moves: what a row does to the trends' count of open findings on its day: a reopening opens (1); a fix
// closes (-1) what was open (a finding first stored fixed was open until then: its opening is counted by
// its first-seen day, open-ages.ts); a fix of what was not open (a sweep of a finding without a status) neither.

/** The rows of the fix events and reopenings matching `where` (over the feed `e`), from the events joined to their findings. */
function fromEvents(dialect: 'sqlite' | 'postgres', where: string): string {
  const c = computed(dialect, FIX_EVENT);
  return `SELECT e."seq", e."source_id", e."record_id", e."at", e."run_id", e."change", CASE WHEN ${FIX_EVENT} THEN 'fix' ELSE 'open' END AS "kind",
CASE WHEN ${REOPENING} THEN 1 WHEN e."change" = 'new' OR COALESCE(e."from", '') IN ${OPEN} THEN -1 ELSE 0 END AS "moves",
${c.severity} AS "severity", ${c.fixDate} AS "fix_date", ${c.d} AS "d", ${c.datedAt} AS "dated_at"
FROM "changes" e JOIN "rec_vulnerabilities" v ON v."id" = e."record_id" WHERE ${where} AND (${FIX_EVENT} OR ${REOPENING})`;
}

/** The table's rows from the feed as it stands (migration 38's fill; a test compares it with the rows kept). */
export function fixFactsFill(dialect: 'sqlite' | 'postgres'): string {
  return `INSERT INTO sum_fixes (${COLUMNS}) ${fromEvents(dialect, `e."model" = 'vulnerabilities'`)}`;
}

/** The totals from the rows (migration 38's fill, after the rows'). */
export const FIX_TOTALS_FILL = `INSERT INTO sum_fix_totals (source_id, severity, n, dated, total)
SELECT source_id, COALESCE(severity, ''), COUNT(*), COUNT(d), COALESCE(SUM(d), 0) FROM sum_fixes WHERE kind = 'fix' GROUP BY source_id, COALESCE(severity, '')`;

/**
 * Migration 38: the rows with their indexes, and their totals per source and severity (a NULL
 * severity kept as '', a key column), filled from the feed as it stands.
 */
export function fixFactsMigration(dialect: 'sqlite' | 'postgres'): string {
  return `
CREATE TABLE sum_fixes (
  seq BIGINT PRIMARY KEY, source_id TEXT NOT NULL, record_id TEXT NOT NULL, at TEXT NOT NULL, run_id TEXT NOT NULL, change TEXT NOT NULL,
  kind TEXT NOT NULL, moves INTEGER NOT NULL, severity TEXT, fix_date TEXT, d DOUBLE PRECISION, dated_at TEXT NOT NULL
);
${fixFactsFill(dialect)};
CREATE INDEX sum_fixes_record ON sum_fixes (record_id);
CREATE INDEX sum_fixes_at ON sum_fixes (at);
CREATE INDEX sum_fixes_dated ON sum_fixes (dated_at, kind, at, source_id, severity, d, moves);
CREATE INDEX sum_fixes_source ON sum_fixes (source_id, severity, d);
CREATE TABLE sum_fix_totals (
  source_id TEXT NOT NULL, severity TEXT NOT NULL, n BIGINT NOT NULL, dated BIGINT NOT NULL, total DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (source_id, severity)
);
${FIX_TOTALS_FILL};
`;
}

/** Adds (sign 1) or takes out (-1) the rows of `from` (a relation with the table's columns) to their totals. */
async function shiftTotals(tx: Driver, sign: 1 | -1, from: string, params: unknown[]): Promise<void> {
  await tx.run(
    `INSERT INTO sum_fix_totals (source_id, severity, n, dated, total)
SELECT f."source_id", COALESCE(f."severity", ''), ${sign} * COUNT(*), ${sign} * COUNT(f."d"), ${sign} * COALESCE(SUM(f."d"), 0) FROM ${from} WHERE f."kind" = 'fix'
GROUP BY f."source_id", COALESCE(f."severity", '')
ON CONFLICT (source_id, severity) DO UPDATE SET n = sum_fix_totals.n + excluded.n, dated = sum_fix_totals.dated + excluded.dated, total = sum_fix_totals.total + excluded.total`,
    params,
  );
}

/**
 * Adds the rows of the fix events written at `at` by run `runId` (a page's or a sweep's) that it holds
 * not yet (a page of two shapes of findings asks twice), and their totals. The events are read by their
 * time (the feed's time index; the model compared as an expression, so SQLite takes that index).
 */
export async function addFixFacts(tx: Driver, at: string, runId: string): Promise<void> {
  const fresh = `${fromEvents(tx.dialect, `e."at" = ? AND e."run_id" = ? AND ${FINDING_EVENTS_IN_WINDOW}`)} AND NOT EXISTS (SELECT 1 FROM sum_fixes x WHERE x."seq" = e."seq")`;
  await shiftTotals(tx, 1, `(${fresh}) f`, [at, runId]);
  // The rows added, to their sums per day (fix-days.ts).
  await shiftFixDays(tx, await tx.all<FixRow & Record<string, unknown>>(`INSERT INTO sum_fixes (${COLUMNS}) ${fresh} RETURNING ${FIX_ROW}`, [at, runId]));
}

/** Brings the rows of these findings' earlier fixes (and their totals) up to date with the findings as now written. */
export async function refreshFixFacts(tx: Driver, ids: unknown[]): Promise<void> {
  if (ids.length === 0) return;
  const c = computed(tx.dialect, `e."kind" = 'fix'`);
  const byIds = tx.dialect === 'postgres' ? `"record_id" = ANY(CAST(? AS TEXT[]))` : `"record_id" IN (SELECT value FROM json_each(?))`;
  const param = [tx.dialect === 'postgres' ? ids : JSON.stringify(ids)];
  const theirs = `(SELECT * FROM sum_fixes WHERE ${byIds}) f`;
  await shiftTotals(tx, -1, theirs, param);
  // Their sums per day (fix-days.ts): the rows as they were out, as they are now in (only what changed is written).
  const was = await tx.all<FixRow & Record<string, unknown>>(`SELECT ${FIX_ROW} FROM sum_fixes WHERE ${byIds}`, param);
  const now = await tx.all<FixRow & Record<string, unknown>>(
    `UPDATE sum_fixes AS e SET severity = ${c.severity}, fix_date = ${c.fixDate}, d = ${c.d}, dated_at = ${c.datedAt} FROM "rec_vulnerabilities" v WHERE v."id" = e."record_id" AND e.${byIds}
RETURNING ${
      tx.dialect === 'postgres'
        ? FIX_ROW.split(', ')
            .map((x) => `e.${x}`)
            .join(', ')
        : FIX_ROW
    }`,
    param,
  );
  if (now.length > 0) {
    await shiftTotals(tx, 1, theirs, param);
    await shiftFixDays(tx, now, was);
  }
}

/** A source removed: its rows go with its events. */
export async function dropFixFacts(tx: Driver, sourceId: string): Promise<void> {
  await tx.run(`DELETE FROM sum_fixes WHERE source_id = ?`, [sourceId]);
  await tx.run(`DELETE FROM sum_fix_totals WHERE source_id = ?`, [sourceId]);
  await dropFixDays(tx, sourceId);
}
