// Benchmark `bench/query-latency` (issue 17 §1): the store filled through a real sync of a simulated
// Tenable.sc console, then every list, filter, sort and summary the UI and API offer timed over HTTP.
//
//   node bench/query-latency.ts [--findings 1000000] [--store sqlite|postgres|both] [--runs 20]
//                               [--pg-url postgres://postgres@127.0.0.1:5432/test] [--only NAME,…] [--slow-ms 2000]
//                               [--keep DIR] [--reuse] [--help]
//
// Fill: one full `runSync` (all streams: hosts, software, ports, vulnerabilities, compliance) of a
// console with findings/50 hosts × 50 findings per host (the simulator runs in its own process), timed.
// Then `tributary serve`'s HTTP server is started in this process on a free port, logged in with a
// session cookie, and each query is requested once to warm up and `--runs` times timed (the whole
// HTTP round trip: routing, auth, SQL, serialisation), reported as p50 and p95 in milliseconds; a query
// whose warm-up takes over --slow-ms is timed 3 times only (it misses the target by far either way).
// The trends report is cached per window, day and data: its uncached row asks another window each time.
// Target (issue 17, issue 30 target 4): every list page and every summary ≤ 100 ms at p95, on both stores.
// Floor: a trivial request (the session) timed the same way in the same run: the round trip's share on a loaded machine.
// Store size: the SQLite file (with its WAL) or the PostgreSQL database's tables
// (sum of pg_total_relation_size), divided by the findings stored.
// --keep DIR keeps the filled stores (SQLite under DIR/sqlite, PostgreSQL as database
// tributary_qlat_<findings>) instead of removing them; with --reuse a kept store is measured again
// without a new fill (to time a query change at a size whose fill takes many minutes).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openApp } from '../src/app/context.ts';
import { addSource } from '../src/app/sources.ts';
import { createLogger } from '../src/core/log.ts';
import { startServer } from '../src/server/server.ts';
import { runSync } from '../src/sync/runner.ts';
import pg from 'pg';
import { createPostgres, freshPostgres, postgresExists } from './scratch-database.ts';
import { type SimProcess, startTenableSimProcess } from './sim-process.ts';

const { values: args } = parseArgs({
  options: {
    help: { type: 'boolean', default: false },
    findings: { type: 'string', default: '1000000' },
    store: { type: 'string', default: 'both' },
    runs: { type: 'string', default: '20' },
    'pg-url': { type: 'string', default: process.env.TRIBUTARY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    only: { type: 'string' },
    'slow-ms': { type: 'string', default: '2000' },
    keep: { type: 'string' },
    reuse: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log(`node bench/query-latency.ts [options]
  --findings N     findings to fill (N/50 hosts × 50), default 1000000
  --store S        sqlite | postgres | both (default both)
  --runs N         timed requests per query (default 20), after one warm-up
  --pg-url URL     the PostgreSQL server's admin URL (a database beside it is made)
  --only A,B       only the queries whose name contains one of these
  --slow-ms N      a query whose warm-up takes longer is timed 3 times (default 2000)
  --keep DIR       keep the filled stores: SQLite under DIR/sqlite, PostgreSQL as database tributary_qlat_<findings>
  --reuse          with --keep: measure the kept stores again without a fill (they are migrated on open)`);
  process.exit(0);
}
const findings = Number(args.findings);
const hosts = Math.max(1, Math.round(findings / 50));
const runs = Math.max(1, Number(args.runs));
const slowMs = Number(args['slow-ms']);
const PASSWORD = 'bench-password-0123456789';
process.env.TRIBUTARY_MASTER_KEY ??= Buffer.alloc(32, 42).toString('base64');

/** The queries: what the UI's pages request (inventory lists, sorts, filters, overview, hosts, plugins) and the API's summaries. */
function queries(ids: { hostId: string; findingId: string; pluginId: string; cve: string; hostname: string }): [string, string][] {
  const v = '/api/v1/vulnerabilities?removed=false&limit=50';
  return [
    // The floor: the same round trip (routing, session, serialisation) around a trivial query, timed in the
    // same run, so a loaded machine's share of every row shows.
    ['floor: the session (a trivial request)', '/api/v1/auth/session'],
    ['vulns: list page (by id)', v],
    ['vulns: default sort -severity', `${v}&sort=-severity`],
    ['vulns: sort severity (asc)', `${v}&sort=severity`],
    ['vulns: -severity, page 2', 'PAGE2:' + `${v}&sort=-severity`],
    ['vulns: sort -lastSeen', `${v}&sort=-lastSeen`],
    ['vulns: sort pluginName', `${v}&sort=pluginName`],
    ['vulns: sort -epssScore', `${v}&sort=-epssScore`],
    ['vulns: sort -cvssV3BaseScore', `${v}&sort=-cvssV3BaseScore`],
    ['vulns: sort -vprScore', `${v}&sort=-vprScore`],
    ['vulns: sort status', `${v}&sort=status`],
    ['vulns: filter severity=critical, -severity', `${v}&sort=-severity&severity=critical`],
    ['vulns: filter knownExploited, -severity', `${v}&sort=-severity&knownExploited=true`],
    ['vulns: filter status=open, -severity', `${v}&sort=-severity&status=open`],
    ['vulns: filter overdue, -severity', `${v}&sort=-severity&overdue=true`],
    ['vulns: filter CVE, -severity', `${v}&sort=-severity&cves=${ids.cve}`],
    ['vulns: filter pluginId, -severity', `${v}&sort=-severity&pluginId=${ids.pluginId}`],
    ['vulns: search name~ssl, -severity', `${v}&sort=-severity&where=pluginName~ssl`],
    ['vulns: of one host', `${v}&sort=-severity&hostId=${ids.hostId}`],
    ['hosts: list sort hostname', '/api/v1/hosts?removed=false&limit=50&sort=hostname'],
    ['hosts: sort -scannerLastSeen', '/api/v1/hosts?removed=false&limit=50&sort=-scannerLastSeen'],
    ['hosts: search hostname~', `/api/v1/hosts?removed=false&limit=50&sort=hostname&where=hostname~${encodeURIComponent(ids.hostname.slice(0, 6))}`],
    ['software: list sort name', '/api/v1/software?removed=false&limit=50&sort=name'],
    ['ports: list sort port', '/api/v1/ports?removed=false&limit=50&sort=port'],
    ['compliance: list', '/api/v1/compliance?removed=false&limit=50'],
    ['summary: stats (counts per model, overdue)', '/api/v1/stats'],
    ['summary: overview severity × KEV', '/api/v1/vulnerabilities/counts?by=severity&by=knownExploited&removed=false&status!=fixed'],
    ['summary: severity of one host', `/api/v1/vulnerabilities/counts?by=severity&hostId=${ids.hostId}&removed=false&status!=fixed`],
    ['summary: top plugins (counts by pluginId)', '/api/v1/vulnerabilities/counts?by=pluginId&removed=false&status!=fixed&limit=20'],
    ['summary: vulnerabilities by plugin (-hosts)', '/api/v1/vulnerabilities/plugins?limit=50&sort=-hosts'],
    ['summary: vulnerabilities by plugin (-severity)', '/api/v1/vulnerabilities/plugins?limit=50&sort=-severity'],
    ['summary: top software (counts by name)', '/api/v1/software/counts?by=name&removed=false&limit=20'],
    ['summary: hosts severity counts (a page)', 'HOSTCOUNTS'],
    ['summary: coverage report', '/api/v1/reports/coverage'],
    ['summary: compliance per host', '/api/v1/compliance/summary?limit=200'],
    ['summary: compliance counts by result', '/api/v1/compliance/counts?by=result&removed=false'],
    ['summary: compliance counts by benchmark', '/api/v1/compliance/counts?by=benchmark&removed=false&limit=20'],
    ['compliance: filter result=failed', '/api/v1/compliance?removed=false&limit=50&result=failed'],
    ['compliance: of one host', `/api/v1/compliance?removed=false&limit=50&hostId=${ids.hostId}`],
    ['summary: remediation report', '/api/v1/reports/remediation'],
    ['summary: remediation report (since 30 days)', `/api/v1/reports/remediation?since=${new Date(Date.now() - 30 * 86_400_000).toISOString()}`],
    ['summary: trends (30 days)', '/api/v1/reports/trends?days=30'],
    // The trends are cached per window, day and data: each timed request asks another window (30 days
    // and one more per request), so each is the cache's miss a first request of the day is.
    ['summary: trends, uncached (30+ days)', 'UNCACHED:/api/v1/reports/trends?days={30+i}'],
    ['changes: first page', '/api/v1/changes?limit=100'],
    ['vulns: one finding', `/api/v1/vulnerabilities/${ids.findingId}`],
    ['hosts: one host', `/api/v1/hosts/${ids.hostId}`],
    // Issue 31: what to fix first.
    ['vulns: sort -priority', `${v}&sort=-priority`],
    ['vulns: filter decision=act, -priority', `${v}&sort=-priority&decision=act`],
    ['summary: counts by decision (Act now)', '/api/v1/vulnerabilities/counts?by=decision&removed=false&status!=fixed'],
    ['summary: decisions report (all)', '/api/v1/reports/decisions'],
    ['summary: decisions per owner', '/api/v1/reports/decisions?by=owner'],
    ['summary: top remediations', '/api/v1/reports/remediations?limit=50'],
    // What the UI and API offer besides (issue 30 target 4, issue 31's speed): each list page's total, the
    // top fixes, a fix's hosts, the decisions per department and asset, a page's host labels, the
    // findings under a risk exception, the top remediations' export.
    ["vulns: count (a list page's total)", '/api/v1/vulnerabilities/count?removed=false'],
    ['vulns: count status=open', '/api/v1/vulnerabilities/count?removed=false&status=open'],
    ['vulns: count decision=act', '/api/v1/vulnerabilities/count?removed=false&decision=act'],
    ['vulns: count severity=critical', '/api/v1/vulnerabilities/count?removed=false&severity=critical'],
    ['vulns: filter excepted, -priority', `${v}&sort=-priority&excepted=true`],
    ['vulns: of one host, -priority', `${v}&sort=-priority&hostId=${ids.hostId}`],
    ['hosts: count', '/api/v1/hosts/count?removed=false'],
    ['hosts: labels (a page)', 'HOSTLABELS'],
    ['summary: top fixes', '/api/v1/reports/top-fixes?limit=50'],
    // The drill-down's page as the UI asks it (100 hosts), and the whole answer (a top fix has tens of thousands of hosts at 1M).
    ['summary: hosts of one fix', 'FIXHOSTS:&limit=100'],
    ['summary: hosts of one fix (all, unpaged)', 'FIXHOSTS:'],
    ['summary: decisions per department', '/api/v1/reports/decisions?by=department'],
    ['summary: decisions per asset', '/api/v1/reports/decisions?by=assetId&limit=50'],
    ['summary: decisions per asset (all, unpaged)', '/api/v1/reports/decisions?by=assetId'],
    ['summary: top remediations export (json, 1000)', '/api/v1/reports/remediations/export?format=json&limit=1000'],
    ['summary: remediation report (since 365 days)', `/api/v1/reports/remediation?since=${new Date(Date.now() - 365 * 86_400_000).toISOString()}`],
    ['summary: trends (366 days)', 'UNCACHED:/api/v1/reports/trends?days={366-i}'],
  ];
}

/** How many rows an answer holds (its items, groups or hosts), or its keys for an object of counts. */
function answerSize(body: unknown): number {
  if (Array.isArray(body)) return body.length;
  if (body && typeof body === 'object') {
    for (const k of ['items', 'groups', 'hosts', 'rows', 'fixes']) {
      const v = (body as Record<string, unknown>)[k];
      if (Array.isArray(v)) return v.length;
    }
    return Object.keys(body).length;
  }
  return 0;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

interface Row {
  name: string;
  p50: number;
  p95: number;
  status: number;
  /** The first (warm-up) request: a cache's miss (the trends report is cached per day and data). */
  first: number;
  /** Rows in the answer (items, or groups), to compare results across stores and changes. */
  size: number;
  /** Timed requests (fewer than --runs for a query over --slow-ms). */
  n: number;
}

/** Bytes the store takes: the SQLite file with its WAL and shared memory, or the PostgreSQL database's relations. */
async function storeBytes(kind: 'sqlite' | 'postgres', dir: string, url: string | undefined): Promise<number> {
  if (kind === 'sqlite')
    return readdirSync(dir)
      .filter((f) => f.startsWith('tributary.db'))
      .reduce((n, f) => n + statSync(join(dir, f)).size, 0);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query(
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS n FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace
       WHERE c.relkind IN ('r', 'm', 'p') AND ns.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')`,
    );
    return Number(r.rows[0].n);
  } finally {
    await c.end();
  }
}

async function measureStore(kind: 'sqlite' | 'postgres', sim: SimProcess): Promise<{ fillSeconds: number | null; stored: number; bytes: number; rows: Row[] }> {
  const keep = args.keep ? join(args.keep, kind) : null;
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'tributary-qlat-'));
  const keptName = `tributary_qlat_${findings}`;
  let db: { url: string; drop(): Promise<void> } | null = null;
  let reused = false;
  if (kind === 'postgres') {
    if (keep && args.reuse && (await postgresExists(args['pg-url']!, keptName))) {
      const url = new URL(args['pg-url']!);
      url.pathname = `/${keptName}`;
      db = { url: url.toString(), drop: async () => {} };
      reused = true;
    } else if (keep) {
      const made = await createPostgres(args['pg-url']!, keptName);
      db = { url: made.url, drop: async () => {} };
    } else db = await freshPostgres(args['pg-url']!);
  } else {
    reused = !!keep && args.reuse && existsSync(join(dir, 'tributary.db'));
    mkdirSync(dir, { recursive: true });
  }
  const app = await openApp({ dataDir: dir, db: db?.url, log: createLogger({ level: 'warn' }) });
  let server: { url: string; close(): Promise<void> } | null = null;
  try {
    let fillSeconds: number | null = null;
    let stored: number;
    if (reused) {
      stored = await app.store.records.count('vulnerabilities');
      console.error(`${kind}: reusing the kept store`);
    } else {
      await addSource(app, 'tenable-sc', 'console', { apiUrl: sim.url, accessKey: sim.accessKey, secretKey: sim.secretKey, includeInformational: true });
      const t0 = performance.now();
      const r = await runSync(app, 'console', { full: true });
      fillSeconds = (performance.now() - t0) / 1000;
      if (r.status !== 'succeeded') throw new Error(`sync ${r.status}: ${r.error}`);
      stored = r.streams.vulnerabilities?.records ?? 0;
      console.error(`${kind}: synced ${stored} findings in ${fillSeconds.toFixed(1)} s`);
    }
    server = await startServer(app, { port: 0, host: '127.0.0.1', env: { TRIBUTARY_ADMIN_PASSWORD: PASSWORD }, webUi: false });
    const base = server.url;
    const login = await fetch(`${base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: PASSWORD }),
    });
    if (login.status !== 200) throw new Error(`login: ${login.status}`);
    const cookie = (login.headers.getSetCookie().find((c) => c.startsWith('tributary_session=')) ?? '').split(';')[0]!;
    const getJson = async (path: string): Promise<{ status: number; body: Record<string, unknown> }> => {
      const res = await fetch(base + path, { headers: { cookie } });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const sample = (await getJson('/api/v1/vulnerabilities?removed=false&limit=200&where=cves!=null&sort=-severity')).body.items as Record<string, unknown>[];
    const sampled = sample.find((x) => Array.isArray(x.cves) && x.cves.length > 0) ?? sample[0]!;
    const host = ((await getJson(`/api/v1/hosts/${sampled.hostId}`)).body ?? {}) as Record<string, unknown>;
    const hostPage = ((await getJson('/api/v1/hosts?removed=false&limit=50&sort=hostname')).body.items as { id: string }[]).map((h) => h.id);
    const list = queries({
      hostId: String(sampled.hostId),
      findingId: String(sampled.id),
      pluginId: String(sampled.pluginId),
      cve: String((sampled.cves as string[] | null)?.[0] ?? 'CVE-2024-0001'),
      hostname: String(host.hostname ?? 'host'),
    });
    const only = args.only ? args.only.split(',') : null;
    const rows: Row[] = [];
    for (const [name, q] of list) {
      if (only && !name.startsWith('floor') && !only.some((o) => name.includes(o))) continue;
      let path = q;
      if (q === 'HOSTCOUNTS') path = `/api/v1/hosts/finding-counts?${hostPage.map((id) => `id=${id}`).join('&')}`;
      if (q === 'HOSTLABELS') path = `/api/v1/hosts/labels?${hostPage.map((id) => `id=${id}`).join('&')}`;
      if (q.startsWith('FIXHOSTS:')) {
        const top = ((await getJson('/api/v1/reports/remediations?limit=1')).body.items ?? []) as { key?: string }[];
        path = `/api/v1/reports/remediations/hosts?fix=${encodeURIComponent(String(top[0]?.key ?? 'none'))}${q.slice(9)}`;
      }
      if (q.startsWith('PAGE2:')) {
        const p1 = await getJson(q.slice(6));
        path = `${q.slice(6)}&cursor=${encodeURIComponent(String(p1.body.nextCursor))}`;
      }
      const times: number[] = [];
      let status = 0;
      let size = 0;
      let first = 0;
      let planned = runs;
      for (let i = 0; i <= planned; i++) {
        const t = performance.now();
        const url = q.startsWith('UNCACHED:')
          ? q
              .slice(9)
              .replace('{30+i}', String(30 + i))
              .replace('{366-i}', String(366 - i))
          : path;
        const res = await fetch(base + url, { headers: { cookie } });
        const buf = await res.arrayBuffer();
        status = res.status;
        if (i === 0 && status === 200) size = answerSize(JSON.parse(Buffer.from(buf).toString('utf8')));
        const ms = performance.now() - t;
        if (i === 0) first = ms;
        if (i > 0) times.push(ms);
        // A query far over the target (the warm-up took longer than --slow-ms) is timed 3 times, not 20.
        else if (ms > slowMs) planned = Math.min(runs, 3);
      }
      rows.push({ name, p50: pct(times, 50), p95: pct(times, 95), status, n: times.length, size, first });
      console.error(
        `  ${name}: p50 ${pct(times, 50).toFixed(1)} ms, p95 ${pct(times, 95).toFixed(1)} ms (first ${first.toFixed(0)} ms)${status === 200 ? '' : ` (HTTP ${status})`}`,
      );
    }
    const bytes = await storeBytes(kind, dir, db?.url);
    console.error(`${kind}: store ${(bytes / 1e6).toFixed(0)} MB, ${(bytes / Math.max(1, stored)).toFixed(0)} bytes per finding`);
    return { fillSeconds, stored, bytes, rows };
  } finally {
    await server?.close();
    await app.close();
    await db?.drop();
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

const stores = (args.store === 'both' ? ['sqlite', 'postgres'] : [args.store]) as ('sqlite' | 'postgres')[];
const sim = await startTenableSimProcess(['--seed', '17', '--hosts', String(hosts), '--findings-per-host', '50']);
const results: Partial<Record<'sqlite' | 'postgres', Awaited<ReturnType<typeof measureStore>>>> = {};
try {
  console.error(`${hosts} hosts × 50 findings per host; ${runs} timed requests per query`);
  for (const s of stores) results[s] = await measureStore(s, sim);
} finally {
  sim.child.kill('SIGTERM');
}
const names = [...new Set(stores.flatMap((s) => results[s]!.rows.map((r) => r.name)))];
const fmt = (r: Row | undefined) =>
  r
    ? `${r.p50.toFixed(1)} / ${r.p95.toFixed(1)}${r.n < runs ? ` (${r.n} runs)` : ''}${r.status === 200 ? '' : ` (HTTP ${r.status})`}${r.p95 > 100 ? ' ✗' : ''}`
    : '—';
console.log(`| query | ${stores.map((s) => `${s} p50 / p95 ms`).join(' | ')} |\n|---|${stores.map(() => '---:').join('|')}|`);
for (const n of names) console.log(`| ${n} | ${stores.map((s) => fmt(results[s]!.rows.find((r) => r.name === n))).join(' | ')} |`);
for (const s of stores) {
  const r = results[s]!;
  const slowest = r.rows.reduce((a, b) => (b.p95 > a.p95 ? b : a), r.rows[0]!);
  const floor = r.rows.find((x) => x.name.startsWith('floor'));
  console.log(
    `\n${s}: ${r.fillSeconds === null ? 'kept store reused' : `fill (full sync, all streams) in ${r.fillSeconds.toFixed(1)} s`}; ${r.stored} findings; store ${(r.bytes / 1e6).toFixed(0)} MB = ${(r.bytes / Math.max(1, r.stored)).toFixed(0)} bytes per finding; slowest p95 ${slowest?.p95.toFixed(1)} ms (${slowest?.name}); floor (a trivial request) p50 / p95 ${floor?.p50.toFixed(1)} / ${floor?.p95.toFixed(1)} ms; over 100 ms at p95: ${r.rows.filter((x) => x.p95 > 100).length} of ${r.rows.length}`,
  );
  console.log(`${s} answer sizes: ${r.rows.map((x) => `${x.name}=${x.size}`).join('; ')}`);
}
