// The remediation report from the change feed: per source and severity, how many findings were fixed
// and the mean time to remediate (each fix, from the finding's first-seen date or from its last
// reopening when that came before the fix, to the scanner's mitigation date or else the run that saw
// it fixed: fix-dates.ts), and how many are open with their mean and oldest age. Both read rows kept as
// findings are written (fix-facts.ts, open-ages.ts), not the feed joined to every finding.
import type { Driver } from '../db/driver.ts';
import { meanBlankReason } from '../records/fix-dates.ts';
import { type Since, sinceClause } from '../records/since.ts';
import { placeholders } from '../db/sql.ts';
import { openAges } from './open-ages.ts';
import { windowFixes } from './fix-days.ts';

/** One source and severity of the report. */
export interface RemediationRow {
  source: string;
  severity: string | null;
  /** Fixes in the window, dated by the scanner's mitigation date where it sent one (fix-dates.ts). */
  fixed: number;
  meanDaysToRemediate: number | null;
  medianDaysToRemediate: number | null;
  /** Fixes without a known date: left out of the mean. */
  undatedFixes: number;
  /** Why the mean is null; null when it is a number. */
  meanBlankReason: string | null;
  /** Findings open or reopened now. */
  open: number;
  meanOpenAgeDays: number | null;
  oldestOpenAgeDays: number | null;
}

export interface RemediationOptions {
  sourceIds?: string[];
  /** Only the fixes of this window (since.ts); given as a time, the fixes dated at or after it. */
  since?: Since | null;
  /** Only fixes dated before then (ISO-8601). */
  until?: string | null;
  /** false: only the fixes (open counts and ages left at 0 and null), which spares a scan of every finding. */
  openAges?: boolean;
  now: string;
}

const SEVERITY_ORDER = ['critical', 'high', 'medium', 'low', 'info'];

const round1 = (v: unknown): number | null => (v === null || v === undefined ? null : Math.round(Number(v) * 10) / 10);

/** The fixes of one source (or of all: '') and severity: how many, how many with a known fix date, their days to remediate summed and the median. */
export interface FixStats {
  source: string;
  severity: string | null;
  fixed: number;
  dated: number;
  totalDays: number;
  medianDays: number | null;
}

/**
 * The fixes of the window per source (bySource, else all sources together) and severity, from the
 * fixes' rows kept as findings are written (fix-facts.ts: each fix event of the feed with its finding's
 * severity, its date and days).
 */
export async function fixStats(db: Driver, opts: Pick<RemediationOptions, 'sourceIds' | 'since' | 'until'>, bySource = true): Promise<FixStats[]> {
  if (opts.sourceIds && opts.sourceIds.length === 0) return [];
  if (bySource && !opts.since && !opts.until) return allFixStats(db, opts.sourceIds);
  // A window given as a time (or none): from the fixes' sums per day (fix-days.ts), whatever the fixes in it.
  if (!opts.since || opts.since.afterRun === null) return windowFixStats(db, opts, bySource);
  const params: unknown[] = [];
  let where = `e."kind" = 'fix'`;
  if (opts.sourceIds) {
    where += ` AND e."source_id" IN ${placeholders(opts.sourceIds)}`;
    params.push(...opts.sourceIds);
  }
  // A fix's date is never after its event, so `e.at >= since` (the rows' time index) keeps every fix dated since.
  if (opts.since) where += ` AND ${sinceClause('e', opts.since, params)}`;
  // dated_at is the fix's date, else its event's (fix-facts.ts): the window read from its index.
  if (opts.since && opts.since.afterRun === null) {
    where += ` AND e."dated_at" >= ?`;
    params.push(opts.since.at);
  }
  if (opts.until) {
    where += ` AND e."dated_at" < ?`;
    params.push(opts.until);
  }
  // The window's rows (read from the covering index on their date), summed per group here: the median
  // is the middle one of a group's known days, or the mean of the middle two.
  const rows = await db.all(`SELECT e."source_id" AS "source_id", e."severity" AS "severity", e."d" AS "d" FROM sum_fixes e WHERE ${where}`, params);
  const names = new Map((await db.all(`SELECT "id", "name" FROM "sources"`)).map((r) => [String(r.id), String(r.name)]));
  const groups = new Map<string, { source: string; severity: string | null; fixed: number; days: number[] }>();
  for (const r of rows) {
    const name = names.get(String(r.source_id));
    if (name === undefined) continue;
    const source = bySource ? name : '';
    const severity = r.severity === null ? null : String(r.severity);
    const key = `${source}\u0000${severity}`;
    let g = groups.get(key);
    if (!g) {
      g = { source, severity, fixed: 0, days: [] };
      groups.set(key, g);
    }
    g.fixed++;
    if (r.d !== null && r.d !== undefined) g.days.push(Number(r.d));
  }
  return [...groups.values()].map((g) =>
    withDays({ source: g.source, severity: g.severity, fixed: g.fixed, dated: 0, totalDays: 0, medianDays: null }, g.days),
  );
}

/** The fixes dated since a time (or from the first) and before `until`, per source (bySource) and severity, from their sums per day. */
async function windowFixStats(db: Driver, opts: Pick<RemediationOptions, 'sourceIds' | 'since' | 'until'>, bySource: boolean): Promise<FixStats[]> {
  const rows = await windowFixes(db, opts.since?.at ?? null, opts.until ?? null, opts.sourceIds, bySource);
  const names = new Map((await db.all(`SELECT "id", "name" FROM "sources"`)).map((r) => [String(r.id), String(r.name)]));
  return rows.flatMap((r) => {
    const name = bySource ? names.get(r.sourceId) : '';
    if (name === undefined) return [];
    return [
      { source: name, severity: r.severity === '' ? null : r.severity, fixed: r.fixed, dated: r.dated, totalDays: r.totalDays, medianDays: r.medianDays },
    ];
  });
}

/** A group's fixes with their known days: how many, summed, and the median (the middle one, or the mean of the middle two). */
export function withDays(f: FixStats, days: number[]): FixStats {
  const d = days.sort((x, y) => x - y);
  const mid = d.length === 0 ? null : d.length % 2 === 1 ? d[(d.length - 1) / 2]! : (d[d.length / 2 - 1]! + d[d.length / 2]!) / 2;
  return { ...f, dated: d.length, totalDays: d.reduce((x, y) => x + y, 0), medianDays: mid };
}

/**
 * Every fix per source and severity, without a window (the report's default): the counts and summed
 * days kept with the rows (sum_fix_totals), the median of each group the middle one or two of its
 * days, read at their offset in the (source, severity, days) index, instead of ranking every fix.
 */
async function allFixStats(db: Driver, sourceIds?: string[]): Promise<FixStats[]> {
  const scope = sourceIds ? ` AND source_id IN ${placeholders(sourceIds)}` : '';
  const groups = await db.all(`SELECT source_id, severity, n, dated, total FROM sum_fix_totals WHERE n > 0${scope}`, sourceIds ?? []);
  const names = new Map((await db.all(`SELECT "id", "name" FROM "sources"`)).map((r) => [String(r.id), String(r.name)]));
  const known = groups.filter((g) => names.has(String(g.source_id)));
  // The middle one of an odd count, the mean of the middle two of an even one (the days in ascending
  // order), each group's at its offset in the index; all in one statement.
  const params: unknown[] = [];
  const arms: string[] = [];
  known.forEach((g, i) => {
    const dated = Number(g.dated);
    if (dated === 0) return;
    params.push(g.source_id);
    if (g.severity !== '') params.push(g.severity);
    params.push(dated % 2 === 1 ? 1 : 2, Math.floor((dated - 1) / 2));
    arms.push(
      `SELECT ${i} AS "i", "d" FROM (SELECT d FROM sum_fixes WHERE source_id = ? AND severity ${g.severity === '' ? 'IS NULL' : '= ?'} AND d IS NOT NULL ORDER BY d LIMIT ? OFFSET ?) x${i}`,
    );
  });
  const middles = arms.length > 0 ? await db.all(arms.join('\nUNION ALL\n'), params) : [];
  return known.map((g, i) => {
    const mine = middles.filter((m) => Number(m.i) === i);
    return {
      source: names.get(String(g.source_id))!,
      severity: g.severity === '' ? null : String(g.severity),
      fixed: Number(g.n),
      dated: Number(g.dated),
      totalDays: Number(g.total ?? 0),
      medianDays: mine.length === 0 ? null : mine.reduce((a, m) => a + Number(m.d), 0) / mine.length,
    };
  });
}

export async function remediationReport(db: Driver, opts: RemediationOptions): Promise<RemediationRow[]> {
  if (opts.sourceIds && opts.sourceIds.length === 0) return [];
  const fixes = await fixStats(db, opts);

  // The open findings and their ages from the counts kept as findings are written (open-ages.ts).
  const names = new Map((await db.all(`SELECT "id", "name" FROM "sources"`)).map((r) => [String(r.id), String(r.name)]));
  const opened = opts.openAges === false ? [] : (await openAges(db, opts.now, opts.sourceIds)).filter((o) => names.has(o.sourceId));

  const rows = new Map<string, RemediationRow>();
  const rowOf = (source: unknown, severity: unknown): RemediationRow => {
    const key = `${source}\u0000${severity}`;
    let row = rows.get(key);
    if (!row) {
      row = {
        source: String(source),
        severity: severity === null ? null : String(severity),
        fixed: 0,
        meanDaysToRemediate: null,
        medianDaysToRemediate: null,
        undatedFixes: 0,
        meanBlankReason: meanBlankReason(0, 0),
        open: 0,
        meanOpenAgeDays: null,
        oldestOpenAgeDays: null,
      };
      rows.set(key, row);
    }
    return row;
  };
  for (const f of fixes)
    Object.assign(rowOf(f.source, f.severity), {
      fixed: f.fixed,
      meanDaysToRemediate: f.dated > 0 ? round1(f.totalDays / f.dated) : null,
      medianDaysToRemediate: round1(f.medianDays),
      undatedFixes: f.fixed - f.dated,
      meanBlankReason: meanBlankReason(f.fixed, f.fixed - f.dated),
    });
  for (const o of opened)
    Object.assign(rowOf(names.get(o.sourceId), o.severity), {
      open: o.open,
      meanOpenAgeDays: round1(o.meanAgeDays),
      oldestOpenAgeDays: round1(o.oldestAgeDays),
    });
  const rank = (s: string | null) => (s === null ? SEVERITY_ORDER.length : SEVERITY_ORDER.indexOf(s) < 0 ? SEVERITY_ORDER.length : SEVERITY_ORDER.indexOf(s));
  return [...rows.values()].sort((a, b) => a.source.localeCompare(b.source) || rank(a.severity) - rank(b.severity));
}
