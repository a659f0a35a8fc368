// The remediation report and the trends read from rows kept as findings are written
// (store/reports/open-ages.ts, fix-facts.ts) against the report's old computation (the feed's fix events
// joined to their findings, every live finding scanned; kept here as the reference), on both stores:
// after a first import, an incremental run (fixes with and without the scanner's mitigation date,
// reopenings, a changed severity, new findings), a sweeping full run (a host gone), a refix with a new
// mitigation date, a direct write, and a source's removal; and migration 38's fill against the rows kept.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppContext } from '../../src/app/context.ts';
import { addSource, removeSource } from '../../src/app/sources.ts';
import type { Page } from '../../src/core/connector.ts';
import type { Driver } from '../../src/store/db/driver.ts';
import { placeholders } from '../../src/store/db/sql.ts';
import { FINDING_EVENTS_IN_WINDOW, FIX_DATE, FIX_EVENT, OPEN_DATE } from '../../src/store/records/fix-dates.ts';
import { type Since, sinceClause, sinceRun, sinceTime } from '../../src/store/records/since.ts';
import { FIX_TOTALS_FILL, fixFactsFill } from '../../src/store/reports/fix-facts.ts';
import { openAgesFill } from '../../src/store/reports/open-ages.ts';
import { fixDaysFill } from '../../src/store/reports/fix-days.ts';
import { runSync } from '../../src/sync/runner.ts';
import { openTestApp } from '../helpers/app.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { streamsConnector } from '../helpers/streams-connector.ts';

process.env.TRIBUTARY_MASTER_KEY = Buffer.alloc(32, 5).toString('base64');
process.env.TRIBUTARY_RETRY_BASE_MS = '1';

const DAY = 86_400_000;
const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'];

interface Finding {
  host: string;
  plugin: string;
  severity: string;
  status: 'open' | 'fixed';
  firstSeen: string;
  mitigatedAt?: string;
}

const data = { findings: [] as Finding[] };

/** Findings on hosts h0…h5 over every severity, first seen 1 to 200 days ago (hours apart); every 5th fixed, two of three of those with a mitigation date. */
function estate(n: number, seed: number): Finding[] {
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => {
    const fixed = (i + seed) % 5 === 0;
    return {
      host: `h${i % 6}`,
      plugin: String(1000 + i),
      severity: SEVERITIES[(i * 3 + seed) % 5]!,
      status: fixed ? 'fixed' : 'open',
      firstSeen: new Date(now - (1 + ((i * 37) % 200)) * DAY - ((i * 7) % 23) * 3_600_000).toISOString(),
      mitigatedAt: fixed && i % 3 !== 0 ? new Date(now - ((i * 11) % 30) * DAY - 3_600_000).toISOString() : undefined,
    };
  });
}

function connector() {
  return streamsConnector('remfix', () => [
    {
      name: 'findings',
      models: ['hosts', 'vulnerabilities'],
      primaryKey: ['host', 'plugin'],
      async *read(): AsyncIterable<Page> {
        for (let offset = 0; offset < data.findings.length; offset += 7) {
          const rows = data.findings.slice(offset, offset + 7);
          yield {
            records: {
              hosts: [...new Set(rows.map((f) => f.host))].map((h) => ({ key: `host:${h}`, fields: { hostname: h } })),
              vulnerabilities: rows.map((f) => ({
                key: `${f.host}|${f.plugin}`,
                hostKey: `host:${f.host}`,
                firstSeen: f.firstSeen,
                fields: {
                  pluginId: f.plugin,
                  pluginName: `Plugin ${f.plugin}`,
                  severity: f.severity,
                  status: f.status,
                  ...(f.mitigatedAt ? { mitigatedAt: f.mitigatedAt } : {}),
                },
              })),
            },
            checkpoint: { offset: offset + rows.length },
          };
        }
      },
    },
  ]);
}

// ---- The reference: the report's computation before issue 30 (the feed joined to its findings, every live finding scanned). ----

function days(db: Driver, expr: string): string {
  return db.dialect === 'postgres' ? `(EXTRACT(EPOCH FROM CAST(${expr} AS TIMESTAMPTZ)) / 86400.0)` : `julianday(${expr})`;
}
function atLeastZero(db: Driver, expr: string): string {
  return db.dialect === 'postgres' ? `GREATEST(0.0, ${expr})` : `MAX(0.0, ${expr})`;
}
const round1 = (v: unknown): number | null => (v === null || v === undefined ? null : Math.round(Number(v) * 10) / 10);

async function oldFixStats(db: Driver, opts: { sourceIds?: string[]; since?: Since | null; until?: string | null }, bySource = true) {
  const params: unknown[] = [];
  const start = `COALESCE(CASE WHEN v."reopened_at" < e."at" THEN v."reopened_at" END, v."first_seen", ${FIX_DATE})`;
  const spent = `CASE WHEN ${FIX_DATE} IS NOT NULL THEN ${atLeastZero(db, `${days(db, FIX_DATE)} - ${days(db, start)}`)} END`;
  let where = `${opts.since ? FINDING_EVENTS_IN_WINDOW : `e."model" = 'vulnerabilities'`} AND ${FIX_EVENT}`;
  if (opts.sourceIds) {
    where += ` AND e."source_id" IN ${placeholders(opts.sourceIds)}`;
    params.push(...opts.sourceIds);
  }
  if (opts.since) where += ` AND ${sinceClause('e', opts.since, params)}`;
  if (opts.since && opts.since.afterRun === null) {
    where += ` AND COALESCE(${FIX_DATE}, e."at") >= ?`;
    params.push(opts.since.at);
  }
  if (opts.until) {
    where += ` AND COALESCE(${FIX_DATE}, e."at") < ?`;
    params.push(opts.until);
  }
  const group = `PARTITION BY f."source", f."severity"`;
  const rows = await db.all(
    `WITH f AS (
SELECT ${bySource ? 's."name"' : "''"} AS "source", v."severity" AS "severity", ${spent} AS "d"
FROM "changes" e JOIN "rec_vulnerabilities" v ON v."id" = e."record_id" JOIN "sources" s ON s."id" = e."source_id"
WHERE ${where}
), r AS (
SELECT f."source", f."severity", f."d", ROW_NUMBER() OVER (${group} ORDER BY CASE WHEN f."d" IS NULL THEN 1 ELSE 0 END, f."d") AS "rn", COUNT(f."d") OVER (${group}) AS "cnt" FROM f
)
SELECT r."source" AS "source", r."severity" AS "severity", COUNT(*) AS "n", COUNT(r."d") AS "dated", SUM(r."d") AS "total",
AVG(CASE WHEN r."d" IS NOT NULL AND 2 * r."rn" IN (r."cnt", r."cnt" + 1, r."cnt" + 2) THEN r."d" END) AS "median"
FROM r GROUP BY r."source", r."severity"`,
    params,
  );
  return rows.map((r) => ({
    source: String(r.source),
    severity: r.severity === null ? null : String(r.severity),
    fixed: Number(r.n),
    meanDaysToRemediate: Number(r.dated) > 0 ? round1(Number(r.total) / Number(r.dated)) : null,
    medianDaysToRemediate: round1(r.median),
    undatedFixes: Number(r.n) - Number(r.dated),
  }));
}

async function oldOpen(db: Driver, now: string) {
  const age = atLeastZero(db, `${days(db, 'CAST(? AS TEXT)')} - ${days(db, 'COALESCE(v."first_seen", v."last_seen")')}`);
  const rows = await db.all(
    `SELECT s."name" AS "source", v."severity" AS "severity", COUNT(*) AS "n", AVG(${age}) AS "mean", MAX(${age}) AS "oldest"
FROM "rec_vulnerabilities" v JOIN "sources" s ON s."id" = v."source_id"
WHERE v."removed" = 0 AND v."status" IN ('open', 'reopened') GROUP BY s."name", v."severity"`,
    [now, now],
  );
  return rows.map((r) => ({
    source: String(r.source),
    severity: r.severity === null ? null : String(r.severity),
    open: Number(r.n),
    meanOpenAgeDays: round1(r.mean),
    oldestOpenAgeDays: round1(r.oldest),
  }));
}

/** The trends' days as computed before issue 30 (the window's events joined to their findings). */
async function oldTrendDays(db: Driver, opts: { days: number; to?: string; now: string; sourceIds?: string[] }) {
  const DAY_MS = DAY;
  const OPEN = `('open', 'reopened')`;
  const zero = (): Record<string, number> => Object.fromEntries(SEVERITIES.map((x) => [x, 0]));
  const today = opts.now.slice(0, 10);
  const last = opts.to && opts.to < today ? opts.to : today;
  const first = new Date(Date.parse(`${last}T00:00:00.000Z`) - (opts.days - 1) * DAY_MS).toISOString();
  const dates: string[] = [];
  for (let t = Date.parse(first); t <= Date.parse(`${today}T00:00:00.000Z`); t += DAY_MS) dates.push(new Date(t).toISOString().slice(0, 10));
  const sources = (col: string, params: unknown[]) => {
    if (!opts.sourceIds) return '';
    params.push(...opts.sourceIds);
    return ` AND ${col} IN ${placeholders(opts.sourceIds)}`;
  };
  const nowParams: unknown[] = [];
  const current = await db.all(
    `SELECT v."severity" AS "severity", COUNT(*) AS "n" FROM "rec_vulnerabilities" v WHERE v."removed" = 0 AND v."status" IN ${OPEN}${sources('v."source_id"', nowParams)} GROUP BY v."severity"`,
    nowParams,
  );
  const isOpen = (col: string) => `COALESCE(e.${col}, '') IN ${OPEN}`;
  const firstFixed = `(${FIX_EVENT} AND e."change" = 'new')`;
  const opening = `((${isOpen('"to"')} AND NOT ${isOpen('"from"')}) OR ${firstFixed})`;
  const closing = `((${isOpen('"from"')} AND NOT ${isOpen('"to"')}) OR ${firstFixed})`;
  const deltaParams: unknown[] = [first, opts.now];
  const deltas = await db.all(
    `SELECT CASE WHEN ${opening} THEN SUBSTR(${OPEN_DATE}, 1, 10) END AS "opened", CASE WHEN ${closing} THEN SUBSTR(COALESCE(${FIX_DATE}, e."at"), 1, 10) END AS "closed",
v."severity" AS "severity", COUNT(*) AS "n"
FROM "changes" e JOIN "rec_vulnerabilities" v ON v."id" = e."record_id"
WHERE ${FINDING_EVENTS_IN_WINDOW} AND e."at" >= ? AND e."at" <= ? AND (${opening} OR ${closing})${sources('e."source_id"', deltaParams)}
GROUP BY 1, 2, v."severity"`,
    deltaParams,
  );
  const open = zero();
  for (const r of current) if (SEVERITIES.includes(String(r.severity))) open[String(r.severity)] = Number(r.n);
  const byDay = new Map<string, Record<string, number>>();
  const add = (day: unknown, severity: string, n: number) => {
    if (day === null || day === undefined) return;
    const d = byDay.get(String(day)) ?? zero();
    d[severity]! += n;
    byDay.set(String(day), d);
  };
  for (const r of deltas) {
    if (!SEVERITIES.includes(String(r.severity))) continue;
    add(r.opened, String(r.severity), Number(r.n));
    add(r.closed, String(r.severity), -Number(r.n));
  }
  const days: { date: string; open: Record<string, number> }[] = [];
  const running = { ...open };
  for (let i = dates.length - 1; i >= 0; i--) {
    if (dates[i]! <= last) days.unshift({ date: dates[i]!, open: { ...running } });
    const d = byDay.get(dates[i]!);
    if (d) for (const x of SEVERITIES) running[x]! -= d[x]!;
  }
  return days;
}

const key = (x: { source: string; severity: string | null }) => `${x.source}|${x.severity}`;
const sortedBy = <T extends { source: string; severity: string | null }>(xs: T[]) => [...xs].sort((a, b) => key(a).localeCompare(key(b)));

/** The report (and the trends' counts of today and fixes of their window) against the reference. */
async function agree(app: AppContext, label: string, check = { trendDays: true }): Promise<void> {
  const db = app.store.db;
  const now = new Date().toISOString();
  // Every fix, those of the last 10 days, and those of the runs after the second run (a window given as a run).
  const [run] = await db.all(`SELECT "id", "started_at" FROM "sync_runs" ORDER BY "started_at" LIMIT 1 OFFSET 1`);
  // Windows as times: one opening within a day (its partial first day read from the rows), one opening on a
  // day's start (whole days only), one within today (no whole day), and a run.
  const times = [
    new Date(Date.now() - 10 * DAY).toISOString(),
    new Date(Date.parse(`${now.slice(0, 10)}T00:00:00.000Z`) - 5 * DAY).toISOString(),
    new Date(Date.now() - 2 * 3_600_000).toISOString(),
  ];
  for (const since of [null, ...times.map(sinceTime), ...(run ? [sinceRun(String(run.id), String(run.started_at))] : [])]) {
    const report = await app.store.reports.remediation({ now, since });
    const fixes = await oldFixStats(db, { since });
    const open = await oldOpen(db, now);
    assert.deepEqual(
      sortedBy(report.filter((r) => r.fixed > 0)).map((r) => ({
        source: r.source,
        severity: r.severity,
        fixed: r.fixed,
        meanDaysToRemediate: r.meanDaysToRemediate,
        medianDaysToRemediate: r.medianDaysToRemediate,
        undatedFixes: r.undatedFixes,
      })),
      sortedBy(fixes),
      `${label}: fixes${since ? ` since ${since.from}` : ''}`,
    );
    assert.deepEqual(
      sortedBy(report.filter((r) => r.open > 0)).map((r) => ({
        source: r.source,
        severity: r.severity,
        open: r.open,
        meanOpenAgeDays: r.meanOpenAgeDays,
        oldestOpenAgeDays: r.oldestOpenAgeDays,
      })),
      sortedBy(open),
      `${label}: open ages`,
    );
    assert.equal(report.filter((r) => r.fixed === 0 && r.open === 0).length, 0, `${label}: no empty row`);
  }
  // One source alone.
  for (const s of await app.store.sources.list()) {
    const report = await app.store.reports.remediation({ now, sourceIds: [s.id] });
    assert.ok(
      report.every((r) => r.source === s.name),
      `${label}: only ${s.name}`,
    );
    assert.deepEqual(
      sortedBy(report.filter((r) => r.fixed > 0)).map((r) => [r.severity, r.fixed, r.meanDaysToRemediate]),
      sortedBy(await oldFixStats(db, { sourceIds: [s.id] })).map((r) => [r.severity, r.fixed, r.meanDaysToRemediate]),
      `${label}: fixes of ${s.name}`,
    );
  }
  // The trends: every day's open counts (all sources, one source, a window ending earlier) and the window's fixes (all sources together).
  const trends = await app.store.reports.trends({ days: 30, now });
  const sorts = (days: { date: string; open: Record<string, number> }[]) =>
    days.map((d) => ({ date: d.date, open: Object.fromEntries(SEVERITIES.map((x) => [x, d.open[x]])) }));
  if (check.trendDays) assert.deepEqual(sorts(trends.days), sorts(await oldTrendDays(db, { days: 30, now })), `${label}: trends' days`);
  const earlier = new Date(Date.now() - 12 * DAY).toISOString().slice(0, 10);
  for (const s of check.trendDays ? await app.store.sources.list() : []) {
    const one = await app.store.reports.trends({ days: 90, to: earlier, now, sourceIds: [s.id] });
    assert.deepEqual(sorts(one.days), sorts(await oldTrendDays(db, { days: 90, to: earlier, now, sourceIds: [s.id] })), `${label}: trends' days of ${s.name}`);
  }
  const counts = await db.all(
    `SELECT "severity", COUNT(*) AS n FROM "rec_vulnerabilities" WHERE "removed" = 0 AND "status" IN ('open', 'reopened') GROUP BY 1`,
  );
  assert.deepEqual(
    trends.days.at(-1)!.open,
    Object.fromEntries(SEVERITIES.map((s) => [s, Number(counts.find((c) => c.severity === s)?.n ?? 0)])),
    `${label}: trends today`,
  );
  const first = new Date(Date.parse(`${now.slice(0, 10)}T00:00:00.000Z`) - 29 * DAY).toISOString();
  const end = new Date(Date.parse(`${now.slice(0, 10)}T00:00:00.000Z`) + DAY).toISOString();
  const window = await oldFixStats(db, { since: sinceTime(first), until: end }, false);
  for (const r of trends.remediation) {
    const want = window.find((w) => w.severity === r.severity);
    assert.deepEqual(
      [r.fixed, r.meanDaysToRemediate, r.medianDaysToRemediate, r.undatedFixes],
      [want?.fixed ?? 0, want?.meanDaysToRemediate ?? null, want?.medianDaysToRemediate ?? null, want?.undatedFixes ?? 0],
      `${label}: trends' fixes of ${r.severity}`,
    );
  }
  // Every fix of a window ending before today (whole days and a partial last day) against the reference.
  for (const [from, until] of [
    [new Date(Date.now() - 40 * DAY).toISOString(), new Date(Date.now() - 3 * DAY).toISOString()],
    [new Date(Date.parse(`${now.slice(0, 10)}T00:00:00.000Z`) - 20 * DAY).toISOString(), `${now.slice(0, 10)}T00:00:00.000Z`],
  ]) {
    const report = await app.store.reports.remediation({ now, since: sinceTime(from!), until, openAges: false });
    assert.deepEqual(
      sortedBy(report.filter((r) => r.fixed > 0)).map((r) => [r.source, r.severity, r.fixed, r.meanDaysToRemediate, r.medianDaysToRemediate, r.undatedFixes]),
      sortedBy(await oldFixStats(db, { since: sinceTime(from!), until })).map((r) => [
        r.source,
        r.severity,
        r.fixed,
        r.meanDaysToRemediate,
        r.medianDaysToRemediate,
        r.undatedFixes,
      ]),
      `${label}: fixes from ${from} until ${until}`,
    );
  }
  // The kept rows are what migrations 38 and 47 fill from the records and the feed now.
  const fixDays = fixDaysFill(db.dialect).map(([t, cols, sql]) => [t, `INSERT INTO ${t} (${cols}) ${sql}`, cols] as const);
  for (const [table, fill, cols] of [
    ['sum_open_days', openAgesFill(db.dialect), 'source_id, severity, first_day, n, ms, seen'],
    ['sum_fixes', fixFactsFill(db.dialect), 'seq, source_id, record_id, at, run_id, change, kind, moves, severity, fix_date, d, dated_at'],
    ['sum_fix_totals', FIX_TOTALS_FILL, 'source_id, severity, n, dated, total'],
    ...fixDays,
  ] as const) {
    // A row is live while a count in it is not 0 (a sum taken out to 0 stays as a row); floats compared to 6 places.
    const live = (r: Record<string, unknown>) =>
      table === 'sum_fixes' ||
      (table === 'sum_fix_days'
        ? [r.fixes, r.dated, r.moves].some((v) => Number(v) !== 0)
        : Number(r.n) !== 0 || (table === 'sum_open_days' && Number(r.seen) !== 0));
    const text = (v: unknown) => (typeof v === 'number' ? (Math.abs(v - Math.round(v)) < 1e-9 ? String(Math.round(v)) : v.toFixed(6)) : String(v));
    const read = async () =>
      (await db.all(`SELECT ${cols} FROM ${table}`))
        .filter(live)
        .map((r) => JSON.stringify(Object.values(r).map(text)))
        .sort();
    const kept = await read();
    await db.transaction(async (tx) => {
      await tx.run(`DELETE FROM ${table}`);
      await tx.run(fill);
    });
    assert.deepEqual(kept, await read(), `${label}: ${table} as its migration would fill it`);
  }
}

for (const backend of BACKENDS) {
  describe(`remediation report from kept rows on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let app: AppContext;
    before(async () => {
      db = await backend.create();
      app = await openTestApp(db, { connectors: [connector()] });
      await addSource(app, 'remfix', 'one', { url: 'https://one.example' });
      await addSource(app, 'remfix', 'two', { url: 'https://two.example' });
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    test('after imports, incremental, sweeping and refixing runs, a direct write and a removal it agrees with the old computation', async () => {
      data.findings = estate(90, 0);
      assert.equal((await runSync(app, 'one', { full: true })).status, 'succeeded');
      data.findings = estate(40, 2);
      assert.equal((await runSync(app, 'two', { full: true })).status, 'succeeded');
      await agree(app, 'first imports');
      const fixedOnce = (await app.store.db.all(`SELECT COUNT(*) AS n FROM sum_fixes`))[0]!.n;
      assert.ok(Number(fixedOnce) > 20, 'fixes stored fixed by the first imports');

      // Incremental: a third of the open ones fixed (half with a mitigation date), the fixed ones back
      // open (reopened), a severity changed on a fixed one and on an open one, new findings.
      const base = estate(90, 0);
      data.findings = [
        ...base.map((f, i): Finding => {
          if (f.status === 'fixed') return { ...f, status: 'open', mitigatedAt: undefined, severity: i === 5 ? 'critical' : f.severity };
          if (i % 3 === 1) return { ...f, status: 'fixed', mitigatedAt: i % 2 ? new Date(Date.now() - 2 * DAY).toISOString() : undefined };
          return i === 4 ? { ...f, severity: 'low' } : f;
        }),
        ...estate(100, 0).slice(90),
      ];
      assert.equal((await runSync(app, 'one', { full: false })).status, 'succeeded');
      await agree(app, 'incremental run');

      // A full run without host h5 and some others: swept (fixed by the sweep, dated by the run).
      data.findings = data.findings.filter((f, i) => f.host !== 'h5' && i % 11 !== 3);
      assert.equal((await runSync(app, 'one', { full: true, allowLargeRemoval: true })).status, 'succeeded');
      await agree(app, 'sweeping full run');

      // The swept ones back (reopened), then fixed again with a newer mitigation date: the earlier
      // fixes' figures change with the finding's row.
      data.findings = estate(100, 0).map((f, i) => (i % 4 === 0 ? { ...f, status: 'fixed', mitigatedAt: new Date(Date.now() - 3_600_000).toISOString() } : f));
      assert.equal((await runSync(app, 'one', { full: true, allowLargeRemoval: true })).status, 'succeeded');
      await agree(app, 'reopened and refixed');
      data.findings = data.findings.map((f) => ({ ...f, status: 'open', mitigatedAt: undefined }));
      assert.equal((await runSync(app, 'one', { full: false })).status, 'succeeded');
      data.findings = data.findings.map((f, i) => (i % 4 === 0 ? { ...f, status: 'fixed', mitigatedAt: new Date(Date.now() - 60_000).toISOString() } : f));
      assert.equal((await runSync(app, 'one', { full: false })).status, 'succeeded');
      await agree(app, 'reopened again and refixed with a newer date');
    });

    test('a page written outside a run and a direct upsert are kept too', async () => {
      const s = await app.store.sources.get('two');
      await app.store.records.writePage(
        { sourceId: s.id, sourceName: 'two', runId: 'manual', generation: 'manual', now: new Date().toISOString() },
        'findings',
        'incremental',
        {
          vulnerabilities: [
            {
              key: 'hx|1',
              hostKey: 'host:hx',
              firstSeen: new Date(Date.now() - 9 * DAY).toISOString(),
              fields: { pluginId: '77', severity: 'critical', status: 'open' },
            },
            { key: 'h0|1000', hostKey: 'host:h0', fields: { pluginId: '1000', severity: 'high', status: 'fixed' } },
            // One without a severity.
            { key: 'hz|3', hostKey: 'host:hz', firstSeen: new Date(Date.now() - 3 * DAY).toISOString(), fields: { pluginId: '79', status: 'open' } },
          ],
        },
        { value: null, complete: false },
      );
      await agree(app, 'direct page');
      // First seen after now (a scanner's clock ahead): its age counts 0. The trends (not compared here)
      // put its opening on its first-seen day, the old join on the day it was stored (open-ages.ts).
      await app.store.records.writePage(
        { sourceId: s.id, sourceName: 'two', runId: 'manual', generation: 'manual', now: new Date().toISOString() },
        'findings',
        'incremental',
        {
          vulnerabilities: [
            {
              key: 'hy|2',
              hostKey: 'host:hy',
              firstSeen: new Date(Date.now() + 2 * DAY).toISOString(),
              fields: { pluginId: '78', severity: 'critical', status: 'open' },
            },
          ],
        },
        { value: null, complete: false },
      );
      await agree(app, 'first seen after now', { trendDays: false });
      const stamp = { sourceId: s.id, sourceName: 'two', runId: 'manual', generation: 'manual', now: new Date().toISOString() };
      await app.store.records.upsert('vulnerabilities', [{ key: 'hx|1', hostKey: 'host:hx', fields: { severity: 'low' } }], stamp);
      await agree(app, 'direct upsert', { trendDays: false });
    });

    test("a removed source's rows leave the report", async () => {
      await removeSource(app, 'two');
      await agree(app, 'source removed');
      const rest = await app.store.db.all(`SELECT COUNT(*) AS n FROM sum_fixes f JOIN sources s ON s.id = f.source_id WHERE s.name = 'two'`);
      assert.equal(Number(rest[0]!.n), 0);
      assert.ok((await app.store.reports.remediation({ now: new Date().toISOString() })).every((r) => r.source === 'one'));
    });
  });
}
