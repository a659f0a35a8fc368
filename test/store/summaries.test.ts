// The summary tables (store/reports/summary-tables-write.ts) against direct counts of the records, on both stores: after a
// full run, an incremental run, a full run that sweeps, a failed run and its resumed run, direct writes
// outside a run, and a source's removal; and the overdue counts around the SLA deadline's own day.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppContext } from '../../src/app/context.ts';
import { addSource, removeSource } from '../../src/app/sources.ts';
import type { Page, StreamContext } from '../../src/core/connector.ts';
import { UpstreamError } from '../../src/core/errors.ts';
import { parseFilter } from '../../src/store/records/filter-syntax.ts';
import { groupCount } from '../../src/store/records/group-counts.ts';
import { runSync } from '../../src/sync/runner.ts';
import { openTestApp } from '../helpers/app.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { streamsConnector } from '../helpers/streams-connector.ts';

process.env.TRIBUTARY_MASTER_KEY = Buffer.alloc(32, 5).toString('base64');
process.env.TRIBUTARY_RETRY_BASE_MS = '1';

const DAY = 86_400_000;
const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'];
const SLA: Record<string, number> = { critical: 15, high: 30, medium: 90, low: 180 };

interface Finding {
  host: string;
  plugin: string;
  port: number;
  severity: string;
  status: 'open' | 'fixed';
  firstSeen: string;
  kev: boolean;
}

const data = {
  findings: [] as Finding[],
  software: [] as { host: string; name: string }[],
  compliance: [] as { host: string; benchmark: string | null; rule: string; result: string }[],
  failAtPage: -1,
};

/** Rule results on hosts h0…h3 under two benchmarks (and none), each result in turn. */
function rules(n: number, seed: number): typeof data.compliance {
  const results = ['passed', 'failed', 'warning', 'error', 'passed', 'failed'];
  return Array.from({ length: n }, (_, i) => ({
    host: `h${i % 4}`,
    benchmark: i % 5 === 4 ? null : i % 2 ? 'CIS L1' : 'STIG',
    rule: `r${i}`,
    result: results[(i + seed) % results.length]!,
  }));
}

/** Findings spread over severities, plugins, ports and first-seen dates on both sides of each severity's deadline (hours apart, never on it). */
function estate(n: number, seed: number): Finding[] {
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => {
    const severity = SEVERITIES[(i + seed) % 5]!;
    const days = SLA[severity] ?? 10;
    const offsetHours = ((i * 7 + seed) % 9) - 4 + 0.5; // within the deadline's day ± 4.5 h
    return {
      host: `h${i % 6}`,
      plugin: String(1000 + (i % 9)),
      port: i % 2 ? 443 : 80,
      severity,
      status: i % 7 === 0 ? 'fixed' : 'open',
      firstSeen: new Date(now - days * DAY + offsetHours * 3_600_000 - (i % 3) * 40 * DAY).toISOString(),
      kev: i % 5 === 1,
    };
  });
}

function connector() {
  return streamsConnector('sumfix', () => [
    {
      name: 'hosts',
      models: ['hosts', 'software', 'compliance'],
      primaryKey: ['host'],
      async *read(): AsyncIterable<Page> {
        const hosts = [...new Set([...data.findings.map((f) => f.host), ...data.software.map((s) => s.host)])];
        yield {
          records: {
            hosts: hosts.map((h) => ({ key: `host:${h}`, fields: { hostname: h } })),
            software: data.software.map((s) => ({ key: `${s.host}|${s.name}`, hostKey: `host:${s.host}`, fields: { name: s.name, version: '1' } })),
            compliance: data.compliance.map((c) => ({
              key: `${c.host}|${c.rule}`,
              hostKey: `host:${c.host}`,
              fields: { benchmark: c.benchmark, ruleId: c.rule, ruleName: `Rule ${c.rule}`, result: c.result },
            })),
          },
          checkpoint: { done: true },
        };
      },
    },
    {
      name: 'findings',
      models: ['vulnerabilities'],
      primaryKey: ['host', 'plugin', 'port'],
      async *read(ctx: StreamContext): AsyncIterable<Page> {
        const start = ctx.resumed ? Number((ctx.checkpoint as { offset: number }).offset) : 0;
        for (let offset = start; offset < data.findings.length; offset += 10) {
          if (offset / 10 === data.failAtPage) throw new UpstreamError(`page ${offset / 10} refused`);
          const rows = data.findings.slice(offset, offset + 10);
          yield {
            records: {
              vulnerabilities: rows.map((f) => ({
                key: `${f.host}|${f.plugin}|${f.port}`,
                hostKey: `host:${f.host}`,
                firstSeen: f.firstSeen,
                fields: {
                  pluginId: f.plugin,
                  pluginName: `Plugin ${f.plugin}`,
                  severity: f.severity,
                  status: f.status,
                  scannerKnownExploited: f.kev,
                  port: f.port,
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

const sorted = <T>(xs: T[]) => xs.map((x) => JSON.stringify(x)).sort();

/** Every summary read against the same question asked of the records directly. */
async function agree(app: AppContext, label: string): Promise<void> {
  const db = app.store.db;
  const live = `"removed" = 0 AND "status" IN ('open', 'reopened')`;
  const f = (...w: string[]) => w.map((x) => parseFilter(x));
  // The overview: open findings by severity and KEV.
  const overview = await groupCount(db, 'vulnerabilities', ['severity', 'knownExploited'], { filters: f('removed=false', 'status!=fixed') });
  const overviewRaw = await db.all(`SELECT "severity", "known_exploited", COUNT(*) AS n FROM "rec_vulnerabilities" WHERE ${live} GROUP BY 1, 2`);
  assert.deepEqual(
    sorted(overview.map((g) => [g.values.severity, g.values.knownExploited, g.count])),
    sorted(overviewRaw.map((r) => [r.severity, r.known_exploited === null ? null : Number(r.known_exploited) === 1, Number(r.n)])),
    `${label}: severity × KEV`,
  );
  // Top plugins, model counts, software by name, severity floors.
  const plugins = await groupCount(db, 'vulnerabilities', ['pluginId'], { filters: f('removed=false', 'status!=fixed') });
  const pluginsRaw = await db.all(`SELECT "plugin_id", COUNT(*) AS n FROM "rec_vulnerabilities" WHERE ${live} GROUP BY 1`);
  assert.deepEqual(sorted(plugins.map((g) => [g.values.pluginId, g.count])), sorted(pluginsRaw.map((r) => [r.plugin_id, Number(r.n)])), `${label}: by plugin`);
  for (const w of [[], ['removed=false'], ['removed=true'], ['severity>=high', 'removed=false'], ['status=fixed']]) {
    const direct = Number((await db.all(`SELECT COUNT(*) AS n FROM "rec_vulnerabilities"`))[0]!.n);
    const n = await app.store.records.countMatching('vulnerabilities', { filters: f(...w) });
    const viaList = await app.store.records.countMatching('vulnerabilities', { filters: f(...w, 'pluginName~plugin') }); // a text search: read from the records
    assert.equal(n, viaList, `${label}: count of ${w.join(' ')}`);
    if (w.length === 0) assert.equal(n, direct);
  }
  const software = await groupCount(db, 'software', ['name'], { filters: f('removed=false') });
  const softwareRaw = await db.all(`SELECT "name", COUNT(*) AS n FROM "rec_software" WHERE "removed" = 0 GROUP BY 1`);
  assert.deepEqual(sorted(software.map((g) => [g.values.name, g.count])), sorted(softwareRaw.map((r) => [r.name, Number(r.n)])), `${label}: software`);
  const counts = await app.store.records.modelCounts();
  for (const m of ['hosts', 'software', 'vulnerabilities'] as const) {
    const raw = Number((await db.all(`SELECT COUNT(*) AS n FROM "rec_${m}"`))[0]!.n);
    assert.equal(
      counts.filter((c) => c.model === m).reduce((a, c) => a + c.n, 0),
      raw,
      `${label}: ${m} count`,
    );
  }
  // Overdue per severity: the summary's day buckets plus the deadline's day vs the overdue filter on the records.
  const overdue = await app.store.reports.overdueCounts();
  const overdueRaw = await groupCount(db, 'vulnerabilities', ['severity'], { filters: f('overdue=true', 'removed=false') });
  assert.deepEqual(
    Object.entries(overdue)
      .filter(([, n]) => n > 0)
      .sort(),
    overdueRaw.map((g) => [String(g.values.severity), g.count]).sort(),
    `${label}: overdue`,
  );
  // Vulnerabilities by plugin and per-host severities.
  const byPlugin = await app.store.reports.pluginSummary({ limit: 1000 });
  const names = new Map((await app.store.sources.list()).map((s) => [s.id, s.name]));
  const byPluginRaw = await db.all(
    `SELECT "source_id", "plugin_id", COUNT(*) AS n, COUNT(DISTINCT "host_id") AS h, MAX("known_exploited") AS k FROM "rec_vulnerabilities" WHERE ${live} GROUP BY 1, 2`,
  );
  assert.equal(byPlugin.total, byPluginRaw.length, `${label}: plugin rows`);
  assert.deepEqual(
    sorted(byPlugin.items.map((p) => [p.source, p.pluginId, p.findings, p.hosts, p.knownExploited])),
    sorted(byPluginRaw.map((r) => [names.get(String(r.source_id)), r.plugin_id, Number(r.n), Number(r.h), Number(r.k) === 1])),
    `${label}: by plugin`,
  );
  const hostIds = (await db.all(`SELECT "id" FROM "rec_hosts"`)).map((r) => String(r.id));
  const perHost = await app.store.reports.hostFindingCounts(hostIds);
  for (const h of perHost) {
    const raw = await db.all(`SELECT "severity", COUNT(*) AS n FROM "rec_vulnerabilities" WHERE "host_id" = ? AND ${live} GROUP BY 1`, [h.hostId]);
    const want = Object.fromEntries(SEVERITIES.map((s) => [s, Number(raw.find((r) => r.severity === s)?.n ?? 0)]));
    assert.deepEqual({ critical: h.critical, high: h.high, medium: h.medium, low: h.low, info: h.info }, want, `${label}: host ${h.hostId}`);
  }
  // Compliance per host and benchmark, every row, most failures first.
  const compliance = await app.store.reports.complianceSummary({ limit: 10_000 });
  const complianceRaw = await db.all(
    `SELECT "source_id", "host_id", "benchmark", "result", COUNT(*) AS n FROM "rec_compliance" WHERE "removed" = 0 GROUP BY 1, 2, 3, 4`,
  );
  const want = new Map<string, Record<string, unknown>>();
  for (const r of complianceRaw) {
    const benchmark = (r.benchmark as string | null) ?? '(no benchmark)';
    const key = `${r.host_id}|${benchmark}`;
    const row = want.get(key) ?? { hostId: r.host_id, source: names.get(String(r.source_id)), benchmark, passed: 0, failed: 0, warning: 0, error: 0, total: 0 };
    row[String(r.result)] = Number(row[String(r.result)]) + Number(r.n);
    row.total = Number(row.total) + Number(r.n);
    want.set(key, row);
  }
  assert.deepEqual(sorted(compliance), sorted([...want.values()]), `${label}: compliance per host`);
  assert.ok(
    compliance.every((c, i) => i === 0 || compliance[i - 1]!.failed >= c.failed),
    `${label}: compliance, most failures first`,
  );
  for (const hostId of hostIds.slice(0, 2)) {
    const one = await app.store.reports.complianceSummary({ hostId, limit: 10_000 });
    assert.deepEqual(sorted(one), sorted(compliance.filter((c) => c.hostId === hostId)), `${label}: compliance of one host`);
  }
  // Compliance counts by result (from sum_compliance) against the records, with result filters and by source.
  const resultsRaw = await db.all(`SELECT "source_id", "result", COUNT(*) AS n FROM "rec_compliance" WHERE "removed" = 0 GROUP BY 1, 2`);
  assert.ok(resultsRaw.length > 0, `${label}: compliance results to count`);
  for (const [w, keep] of [
    [['removed=false'], () => true],
    [['removed=false', 'result=failed'], (r: unknown) => r === 'failed'],
    [['removed=false', 'result!=passed'], (r: unknown) => r !== null && r !== 'passed'],
  ] as [string[], (r: unknown) => boolean][]) {
    const total = (rows: typeof resultsRaw) => rows.filter((r) => keep(r.result)).reduce((a, r) => a + Number(r.n), 0);
    const byResult = new Map<unknown, number>();
    for (const r of resultsRaw.filter((x) => keep(x.result))) byResult.set(r.result, (byResult.get(r.result) ?? 0) + Number(r.n));
    const got = await groupCount(db, 'compliance', ['result'], { filters: f(...w) });
    assert.deepEqual(sorted(got.map((g) => [g.values.result, g.count])), sorted([...byResult].map(([r, n]) => [r, n])), `${label}: compliance by result, ${w}`);
    const bySource = await groupCount(db, 'compliance', ['source', 'result'], { filters: f(...w) });
    assert.deepEqual(
      sorted(bySource.map((g) => [g.values.source, g.values.result, g.count])),
      sorted(resultsRaw.filter((r) => keep(r.result)).map((r) => [names.get(String(r.source_id)), r.result, Number(r.n)])),
      `${label}: compliance by source and result, ${w}`,
    );
    assert.equal(await app.store.records.countMatching('compliance', { filters: f(...w) }), total(resultsRaw), `${label}: compliance count, ${w}`);
    for (const id of names.keys()) {
      const one = await groupCount(db, 'compliance', ['result'], { sourceIds: [id], filters: f(...w) });
      assert.equal(
        one.reduce((a, g) => a + g.count, 0),
        total(resultsRaw.filter((r) => String(r.source_id) === id)),
        `${label}: compliance of one source, ${w}`,
      );
    }
  }
  // Compliance counts by benchmark (and result), with benchmark filters, against the records.
  const benchRaw = await db.all(`SELECT "benchmark", "result", COUNT(*) AS n FROM "rec_compliance" WHERE "removed" = 0 GROUP BY 1, 2`);
  const someBenchmark = benchRaw.find((r) => r.benchmark !== null)?.benchmark as string | undefined;
  for (const [w, keep] of [
    [['removed=false'], () => true],
    ...(someBenchmark
      ? [
          [['removed=false', `benchmark=${someBenchmark}`], (b: unknown) => b === someBenchmark],
          [['removed=false', `benchmark!=${someBenchmark}`], (b: unknown) => b !== null && b !== someBenchmark],
        ]
      : []),
  ] as [string[], (b: unknown) => boolean][]) {
    const want = new Map<string, number>();
    for (const r of benchRaw.filter((x) => keep(x.benchmark))) want.set(String(r.benchmark), (want.get(String(r.benchmark)) ?? 0) + Number(r.n));
    const got = await groupCount(db, 'compliance', ['benchmark'], { filters: f(...w) });
    assert.deepEqual(sorted(got.map((g) => [String(g.values.benchmark), g.count])), sorted([...want]), `${label}: compliance by benchmark, ${w}`);
    const both = await groupCount(db, 'compliance', ['benchmark', 'result'], { filters: f(...w) });
    assert.deepEqual(
      sorted(both.map((g) => [g.values.benchmark, g.values.result, g.count])),
      sorted(benchRaw.filter((r) => keep(r.benchmark)).map((r) => [r.benchmark, r.result, Number(r.n)])),
      `${label}: compliance by benchmark and result, ${w}`,
    );
  }
  // The coverage report's numbers (from the summaries) against its lists (from the records).
  const coverage = await app.store.reports.coverage(30);
  assert.equal(
    coverage.findingsWithoutTicket,
    (await app.store.reports.coverageList('findingsWithoutTicket', 30)).length,
    `${label}: urgent findings without ticket`,
  );
  assert.equal(coverage.scannedNotInCmdb, (await app.store.reports.coverageList('scannedNotInCmdb', 30)).length, `${label}: hosts not in the CMDB`);
  const urgentRaw = await db.all(`SELECT COUNT(*) AS n FROM "rec_vulnerabilities" WHERE ${live} AND ("severity" = 'critical' OR "known_exploited" = 1)`);
  assert.equal(coverage.findingsWithoutTicket, Number(urgentRaw[0]!.n), `${label}: no ticket, so every urgent finding`);
}

for (const backend of BACKENDS) {
  describe(`summaries on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let app: AppContext;
    before(async () => {
      db = await backend.create();
      app = await openTestApp(db, { connectors: [connector()] });
      await addSource(app, 'sumfix', 'one', { url: 'https://one.example' });
      await addSource(app, 'sumfix', 'two', { url: 'https://two.example' });
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    test('after full, incremental, sweeping, failed and resumed runs the summaries agree with the records', async () => {
      data.findings = estate(60, 0);
      data.software = [
        { host: 'h0', name: 'openssl' },
        { host: 'h1', name: 'openssl' },
        { host: 'h2', name: 'curl' },
      ];
      data.compliance = rules(30, 0);
      assert.equal((await runSync(app, 'one', { full: true })).status, 'succeeded');
      await agree(app, 'first full run');
      data.findings = estate(45, 3);
      data.compliance = rules(20, 1);
      assert.equal((await runSync(app, 'two', { full: true })).status, 'succeeded');
      await agree(app, 'second source');
      // Incremental: statuses move (some fixed, some reopened) and new findings come; nothing is swept.
      data.findings = estate(70, 1).map((x, i) => (i < 60 ? { ...x, status: i % 4 === 0 ? 'fixed' : 'open' } : x));
      assert.equal((await runSync(app, 'one', { full: false })).status, 'succeeded');
      await agree(app, 'incremental run');
      // A full run without some findings and a host's software: swept (fixed / removed).
      data.findings = estate(70, 1).filter((x) => x.host !== 'h5');
      data.software = data.software.slice(0, 2);
      data.compliance = rules(30, 2).filter((c) => c.host !== 'h3');
      assert.equal((await runSync(app, 'one', { full: true, allowLargeRemoval: true })).status, 'succeeded');
      await agree(app, 'sweeping full run');
      // A run that fails halfway (its pages stay stored), then the run that resumes it.
      data.findings = estate(80, 2);
      data.failAtPage = 4;
      assert.equal((await runSync(app, 'one', { full: true })).status, 'partial');
      await agree(app, 'failed run');
      data.failAtPage = -1;
      const resumed = await runSync(app, 'one');
      assert.equal(resumed.status, 'succeeded');
      assert.ok(resumed.resumedFrom, 'the second run resumed the first');
      await agree(app, 'resumed run');
    });

    test('a page written outside a run is counted at the next read', async () => {
      const s = await app.store.sources.get('two');
      const before = await app.store.records.countMatching('vulnerabilities', { sourceIds: [s.id], filters: [parseFilter('removed=false')] });
      await app.store.records.writePage(
        { sourceId: s.id, sourceName: 'two', runId: 'manual', generation: 'manual', now: new Date().toISOString() },
        'findings',
        'incremental',
        { vulnerabilities: [{ key: 'hx|1', hostKey: 'host:hx', fields: { pluginId: '77', pluginName: 'Plugin 77', severity: 'critical', status: 'open' } }] },
        { value: null, complete: false },
      );
      assert.equal(await app.store.records.countMatching('vulnerabilities', { sourceIds: [s.id], filters: [parseFilter('removed=false')] }), before + 1);
      await agree(app, 'direct write');
    });

    test("a removed source's records leave every summary", async () => {
      await removeSource(app, 'two');
      await agree(app, 'source removed');
      assert.ok((await app.store.reports.pluginSummary({ limit: 1000 })).items.every((p) => p.source === 'one'));
    });
  });
}
