// Trends from the change feed and the scanner's dates: open findings by severity at the end of each day
// of a window, and the mean time to remediate per severity of the fixes dated in that window. Today's
// counts are the store's; each earlier day's is today's minus the openings and plus the closings dated
// after that day, an opening dated by the scanner's first-seen date when it is the finding's first event
// and a fix by the scanner's mitigation date where it sent one (fix-dates.ts). So a first import already
// draws the scanner's history, and later runs add what they saw to the same count. The counts, openings
// and closings are read from rows kept as findings are written (open-ages.ts, fix-facts.ts), not from
// the feed joined to every finding (issue 30: 36 s at 1.9 million findings).
import type { SeverityCounts } from '../../core/models.ts';
import type { Driver } from '../db/driver.ts';
import { meanBlankReason } from '../records/fix-dates.ts';
import type { RemediationRow } from './remediation.ts';
import { placeholders } from '../db/sql.ts';
import { openAges } from './open-ages.ts';
import { movesByDay, windowFixes } from './fix-days.ts';

export const TREND_SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
type Severity = (typeof TREND_SEVERITIES)[number];

/** Open findings at the end of a day (YYYY-MM-DD, UTC; for today: now). */
interface TrendDay {
  date: string;
  open: SeverityCounts;
}

/** The report as the store makes it (the API adds when it was generated). */
export interface TrendsReport {
  from: string;
  to: string;
  /** The first day of the findings' history: no finding was open before it. */
  historyFrom: string | null;
  days: TrendDay[];
  /** Per severity, the fixes dated in the window and their time to remediate. */
  remediation: (Pick<RemediationRow, 'fixed' | 'meanDaysToRemediate' | 'medianDaysToRemediate' | 'undatedFixes' | 'meanBlankReason'> & { severity: string })[];
}

export interface TrendsOptions {
  sourceIds?: string[];
  /** Days in the window, its last day included. */
  days: number;
  /** The window's last day (YYYY-MM-DD, not after today); default today. */
  to?: string | null;
  now: string;
}

const DAY_MS = 86_400_000;
const zero = (): Record<Severity, number> => ({ critical: 0, high: 0, medium: 0, low: 0, info: 0 });
const isSeverity = (s: unknown): s is Severity => TREND_SEVERITIES.includes(s as Severity);

/**
 * What the report depends on besides its options: the newest finding event, the newest finished run and
 * the sources (the newest event by its number in the feed). Every write that changes a count leaves an event (a status change, a sweep) or ends a run
 * (a changed severity); removing a source changes the list. Cheap (two index ends and a small table).
 */
export async function trendsFingerprint(db: Driver): Promise<string> {
  const [e] = await db.all(`SELECT MAX("seq") AS "at" FROM "changes" WHERE "model" = 'vulnerabilities'`);
  const [r] = await db.all(`SELECT MAX("finished_at") AS "at" FROM "sync_runs"`);
  const s = await db.all(`SELECT "id" FROM "sources" ORDER BY "id"`);
  return `${e?.at ?? ''}|${r?.at ?? ''}|${s.map((x) => x.id).join(',')}`;
}

export async function trendsReport(db: Driver, opts: TrendsOptions): Promise<TrendsReport> {
  const today = opts.now.slice(0, 10);
  const last = opts.to && opts.to < today ? opts.to : today;
  const first = new Date(Date.parse(`${last}T00:00:00.000Z`) - (opts.days - 1) * DAY_MS).toISOString();
  const end = new Date(Date.parse(`${last}T00:00:00.000Z`) + DAY_MS).toISOString();
  // Every day from the window's first to today: the walk back starts from today's counts.
  const dates: string[] = [];
  for (let t = Date.parse(first); t <= Date.parse(`${today}T00:00:00.000Z`); t += DAY_MS) dates.push(new Date(t).toISOString().slice(0, 10));
  const empty = opts.sourceIds && opts.sourceIds.length === 0;
  const sources = (col: string, params: unknown[]) => {
    if (!opts.sourceIds) return '';
    params.push(...opts.sourceIds);
    return ` AND ${col} IN ${placeholders(opts.sourceIds)}`;
  };

  // Today's open findings from the counts kept as findings are written (open-ages.ts).
  const current = empty ? [] : await openAges(db, opts.now, opts.sourceIds, false);
  // Openings and closings per day and severity from the rows kept as findings are written: a finding's
  // first opening on its first-seen day (open-ages.ts: every finding, whatever its status now, first
  // stored fixed ones too), later reopenings when a run saw them, closings at their fix date
  // (fix-facts.ts). Only rows dated from the window's first day on are read (a row's date is never after
  // its event): earlier ones change no day it shows.
  const deltaParams: unknown[] = [first.slice(0, 10)];
  const firsts = empty
    ? []
    : await db.all(
        `SELECT first_day AS "opened", NULL AS "closed", severity AS "severity", SUM(seen) AS "n" FROM sum_open_days
WHERE first_day >= ?${sources('source_id', deltaParams)} GROUP BY first_day, severity`,
        deltaParams,
      );
  // The rows dated from the window's first day on: their net openings per day (those whose event is not
  // after now), from their sums per day (fix-days.ts).
  const moves = empty
    ? []
    : (await movesByDay(db, first.slice(0, 10), opts.now, opts.sourceIds)).map((r) => ({ opened: r.day, closed: null, severity: r.severity, n: r.n }));
  const deltas = [...firsts, ...moves];

  const open = zero();
  for (const r of current) if (isSeverity(r.severity)) open[r.severity] += r.open;
  const byDay = new Map<string, Record<Severity, number>>();
  const add = (day: unknown, severity: Severity, n: number) => {
    if (day === null || day === undefined) return;
    const d = byDay.get(String(day)) ?? zero();
    d[severity] += n;
    byDay.set(String(day), d);
  };
  for (const r of deltas) {
    if (!isSeverity(r.severity)) continue;
    add(r.opened, r.severity, Number(r.n));
    add(r.closed, r.severity, -Number(r.n));
  }
  // Walk back from today: the end of day d is the end of day d+1 less day d+1's net openings.
  const days: TrendDay[] = [];
  const running = { ...open };
  for (let i = dates.length - 1; i >= 0; i--) {
    if (dates[i]! <= last) days.unshift({ date: dates[i]!, open: { ...running } });
    const d = byDay.get(dates[i]!);
    if (d) for (const s of TREND_SEVERITIES) running[s] -= d[s];
  }

  // The history starts on the earliest first-seen date (the scanner's where it sent one), or with the
  // feed's first finding event (its order is the feed's index) where that is earlier.
  const firstParams: unknown[] = [];
  const [earliest] = empty
    ? []
    : await db.all(
        `SELECT (SELECT MIN(v."first_seen") FROM "rec_vulnerabilities" v WHERE 1 = 1${sources('v."source_id"', firstParams)}) AS "seen",
(SELECT e."at" FROM "changes" e WHERE e."model" = 'vulnerabilities'${sources('e."source_id"', firstParams)} ORDER BY e."seq" LIMIT 1) AS "at"`,
        firstParams,
      );
  const starts = [earliest?.seen, earliest?.at].filter((d) => d !== null && d !== undefined).map((d) => String(d).slice(0, 10));
  const historyFrom = starts.length ? starts.sort()[0]! : null;

  // All sources together, so the median is over every fix of a severity.
  const stats = empty ? [] : await windowFixes(db, first, end, opts.sourceIds, false);
  const round1 = (v: number | null | undefined) => (v === null || v === undefined ? null : Math.round(v * 10) / 10);
  const remediation = TREND_SEVERITIES.map((severity) => {
    const of = stats.find((r) => r.severity === severity);
    const fixed = of?.fixed ?? 0;
    const dated = of?.dated ?? 0;
    return {
      severity,
      fixed,
      meanDaysToRemediate: dated && of ? round1(of.totalDays / dated) : null,
      medianDaysToRemediate: round1(of?.medianDays),
      undatedFixes: fixed - dated,
      meanBlankReason: meanBlankReason(fixed, fixed - dated),
    };
  });
  return { from: dates[0]!, to: last, historyFrom, days, remediation };
}
