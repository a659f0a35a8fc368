// Trends from the change feed: open findings by severity at the end of each day of a window, and the mean
// time to remediate per severity of the fixes in that window. Today's counts are the store's; each
// earlier day's is today's minus the openings and plus the closings the feed records after that day
// (an event opens when its `to` is open or reopened and its `from` is not, and closes the other way),
// so a store whose feed starts late is still exact for the days the feed covers.
import type { TrendsReport as ApiTrendsReport } from '../core/api-shapes-reports.ts';
import type { StoreDb } from './driver.ts';
import { remediationReport } from './remediation.ts';
import { sinceTime } from './since.ts';

export const TREND_SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
type Severity = (typeof TREND_SEVERITIES)[number];

/** The report as the store makes it: the API's trends report but for when it was generated. */
export type TrendsReport = Omit<ApiTrendsReport, 'generatedAt'>;
type TrendDay = TrendsReport['days'][number];

export interface TrendsOptions {
  sourceIds?: string[];
  /** Days in the window, its last day included. */
  days: number;
  /** The window's last day (YYYY-MM-DD, not after today); default today. */
  to?: string | null;
  now: string;
}

const DAY_MS = 86_400_000;
const OPEN = `('open', 'reopened')`;
const zero = (): Record<Severity, number> => ({ critical: 0, high: 0, medium: 0, low: 0, info: 0 });
const isSeverity = (s: unknown): s is Severity => TREND_SEVERITIES.includes(s as Severity);

/**
 * What the report depends on besides its options: the newest finding event, the newest finished run and
 * the sources (the newest event by its number in the feed). Every write that changes a count leaves an event (a status change, a sweep) or ends a run
 * (a changed severity); removing a source changes the list. Cheap (two index ends and a small table).
 */
export async function trendsFingerprint({ db }: StoreDb): Promise<string> {
  const [e] = await db.all(`SELECT MAX("seq") AS "at" FROM "changes" WHERE "model" = 'vulnerabilities'`);
  const [r] = await db.all(`SELECT MAX("finished_at") AS "at" FROM "sync_runs"`);
  const s = await db.all(`SELECT "id" FROM "sources" ORDER BY "id"`);
  return `${e?.at ?? ''}|${r?.at ?? ''}|${s.map((x) => x.id).join(',')}`;
}

export async function trendsReport({ db }: StoreDb, opts: TrendsOptions): Promise<TrendsReport> {
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
    return ` AND ${col} IN (${opts.sourceIds.map(() => '?').join(',')})`;
  };

  const nowParams: unknown[] = [];
  const current = empty
    ? []
    : await db.all(
        `SELECT v."severity" AS "severity", COUNT(*) AS "n" FROM "rec_vulnerabilities" v
WHERE v."removed" = 0 AND v."status" IN ${OPEN}${sources('v."source_id"', nowParams)} GROUP BY v."severity"`,
        nowParams,
      );
  // Net openings per day and severity since the window's first day (the feed's index covers model and time).
  const deltaParams: unknown[] = [first, opts.now];
  const opens = `(CASE WHEN e."to" IN ${OPEN} THEN 1 ELSE 0 END)`;
  const closes = `(CASE WHEN e."from" IN ${OPEN} THEN 1 ELSE 0 END)`;
  const net = `${opens} - ${closes}`;
  const deltas = empty
    ? []
    : await db.all(
        `SELECT SUBSTR(e."at", 1, 10) AS "day", v."severity" AS "severity", SUM(${net}) AS "n"
FROM "changes" e JOIN "rec_vulnerabilities" v ON v."id" = e."record_id"
WHERE e."model" = 'vulnerabilities' AND e."at" >= ? AND e."at" <= ? AND ${opens} <> ${closes}${sources('e."source_id"', deltaParams)}
GROUP BY SUBSTR(e."at", 1, 10), v."severity"`,
        deltaParams,
      );

  const open = zero();
  for (const r of current) if (isSeverity(r.severity)) open[r.severity] = Number(r.n);
  const byDay = new Map<string, Record<Severity, number>>();
  for (const r of deltas) {
    if (!isSeverity(r.severity)) continue;
    const d = byDay.get(String(r.day)) ?? zero();
    d[r.severity] += Number(r.n);
    byDay.set(String(r.day), d);
  }
  // Walk back from today: the end of day d is the end of day d+1 less day d+1's net openings.
  const days: TrendDay[] = [];
  const running = { ...open };
  for (let i = dates.length - 1; i >= 0; i--) {
    if (dates[i]! <= last) days.unshift({ date: dates[i]!, open: { ...running } });
    const d = byDay.get(dates[i]!);
    if (d) for (const s of TREND_SEVERITIES) running[s] -= d[s];
  }

  const firstParams: unknown[] = [];
  const [earliest] = empty
    ? []
    : // The feed is numbered in write order: its first finding event (read from the model's index) is the oldest.
      await db.all(
        `SELECT e."at" AS "at" FROM "changes" e WHERE e."model" = 'vulnerabilities'${sources('e."source_id"', firstParams)} ORDER BY e."seq" LIMIT 1`,
        firstParams,
      );
  const historyFrom = earliest?.at ? String(earliest.at).slice(0, 10) : null;

  const rows = empty ? [] : await remediationReport({ db }, { sourceIds: opts.sourceIds, since: sinceTime(first), until: end, now: opts.now, openAges: false });
  const remediation = TREND_SEVERITIES.map((severity) => {
    const of = rows.filter((r) => r.severity === severity && r.fixed > 0);
    const fixed = of.reduce((n, r) => n + r.fixed, 0);
    const total = of.reduce((n, r) => n + r.fixed * (r.meanDaysToRemediate ?? 0), 0);
    return { severity, fixed, meanDaysToRemediate: fixed ? Math.round((total / fixed) * 10) / 10 : null };
  });
  return { from: dates[0]!, to: last, historyFrom, days, remediation };
}
