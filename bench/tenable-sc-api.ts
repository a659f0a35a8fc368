// Benchmark `bench/tenable-sc-api` (issue 3 §4, issue 30): Tributary's Tenable.sc API sync against a
// floor measured in the same run.
//
//   node bench/tenable-sc-api.ts [--hosts 20000] [--findings-per-host 50] [--store sqlite|postgres|both]
//                                [--runs 1] [--quick] [--pg-url postgres://postgres@127.0.0.1:5432/test]
//                                [--node-flags='…'] [--only floor|floor-late|tributary] [--floor-late]
//                                [--incremental [--changed 0.01] [--incremental-runs 1] [--incremental-base DIR]]
//                                [--cpu-prof] [--keep DIR]
//
// What runs where. The simulator runs in its own process (its CPU and memory are not ours); every
// measurement runs in a fresh child process of its own, so each peak RSS is that run's alone. On a
// 2-core machine the simulator competes for CPU with the process measured, in both measurements alike.
//
// Timing (both sides alike): end to end, from the spawn of the measured process to its exit, as the
// parent sees it: Node's start, module loading, opening the database and its migrations, the whole run,
// closing. (Until issue 30 the children timed themselves from the first request to the last write, which
// left out the start and the close.)
//
// What is measured (both read the same simulator, 1000 rows a page):
//   floor      fetch every page of the queries a sync must read (sumip; vulndetails patched then
//              cumulative, includeInformational on) (undici, keep-alive; like the connector, the next
//              page is requested before the current one is stored), JSON.parse it, skip compliance rows
//              (they belong to the compliance stream), and store the rows' raw values into a fresh
//              database's rec_hosts (sumip) and rec_vulnerabilities (vulndetails) tables (same columns,
//              primary key and indexes; created by the same migrations; the id is the row's hostUUID or
//              vulnUUID), one transaction per page: SQLite with one cached prepared INSERT per row,
//              PostgreSQL with one COPY … FROM STDIN per page. No normalisation, no computed ids, no
//              upsert, no checkpoint.
//   floor-late (with --floor-late, or --only floor-late) the floor with both tables' secondary indexes
//              dropped before the load and built after it, inside the timed part: what a first import
//              of Tributary does (src/store/db/bulk-load.ts), so the ratio to it is of the rest.
//   tributary  a process that opens the store and does `runSync` (a full run) of a tenable-sc source
//              with the real connector: every stream a real sync runs (hosts, software, ports,
//              vulnerabilities with plugins, compliance) and the whole epilogue (distinct-record counts,
//              sweep, change events, summaries, deferred index builds, correlation). The source is
//              created beforehand by an untimed process (`tributary sources add` does that once).
//   incremental (with --incremental) after Tributary's first import, the simulator moves a day on and
//              rescans a fraction (--changed, default 1 %) of its hosts, so that fraction of the open
//              findings changes its lastSeen; then an incremental run of the same source, in a fresh
//              process on the same database, timed the same way. Reported as a share of the first
//              import's time (issue 30: ≤ 10 %). The simulator is reset afterwards. With --incremental-runs N
//              the incremental is timed N times, each on a copy of the store the first import left (the
//              simulator reset and advanced alike before each; the store itself stays as the first import
//              left it), and the median reported: on a shared machine one first import buys several figures.
//              --incremental-base DIR (a checkout of other code, e.g. `git worktree add --detach DIR main`
//              with its node_modules) times each of those runs also with DIR's code, on a copy of its own,
//              the two alternating: a before/after of a change under the same load.
// --keep DIR keeps Tributary's store of the first import where `bench/query-latency --keep DIR --reuse
//              --findings <hosts × findings-per-host>` measures it (SQLite: DIR/sqlite/tributary.db; PostgreSQL:
//              database tributary_qlat_<hosts × findings-per-host>), with that bench's master key; so the
//              queries of target 4 are timed on the store a real first import wrote, without a second fill.
// findings/s = vulnerability records stored / seconds; both store the same set of records (checked).
// Peak RSS is the process's peak resident set (getrusage maxrss) when 10 % of the records are stored
// (100k of 1M) and at the end; growth = (end − 10 %) / 10 %. Both children run with the V8 flags
// `tributary` is launched with (bench/launch-flags.ts), or with --node-flags when given ('' for none).
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeHeapSnapshot } from 'node:v8';
import { compileCacheDir } from '../bin/launch.js';
import { launchEnv, launchFlags } from './launch-flags.ts';
import { startTenableSimProcess } from './sim-process.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const PAGE = 1000;

type StoreKind = 'sqlite' | 'postgres';
type Kind = 'floor' | 'floor-late' | 'tributary' | 'incremental' | 'incremental-base';

interface Target {
  url: string;
  accessKey: string;
  secretKey: string;
}

interface RunResult {
  kind: Kind;
  store: StoreKind;
  rowsRead: number;
  stored: number;
  /** From the process's spawn to its exit (the parent's clock). */
  seconds: number;
  /** The child's own clock, from its first request to its last write (for reading where the rest went). */
  innerSeconds: number;
  perSecond: number;
  markAt: number;
  peakAtMarkMb: number;
  peakEndMb: number;
  status?: string;
}

// ---------------------------------------------------------------------------------------------
// Shared: the queries of the vulnerabilities stream, and RSS sampling.

const PHASES = [
  { name: 'patched', sourceType: 'patched' as const, status: 'fixed' },
  { name: 'cumulative', sourceType: 'cumulative' as const, status: 'open' },
];

function analysisBody(sourceType: 'patched' | 'cumulative', offset: number, tool: 'vulndetails' | 'sumip' = 'vulndetails'): Record<string, unknown> {
  // Exactly what the connector sends on a full run with includeInformational (no filters).
  return {
    type: 'vuln',
    sourceType,
    query: { type: 'vuln', tool, filters: [], startOffset: offset, endOffset: offset + PAGE },
    startOffset: offset,
    endOffset: offset + PAGE,
  };
}

const maxRssMb = () => process.resourceUsage().maxRSS / 1024;

/** Records the peak RSS when `stored` first reaches `mark`. */
class RssMarks {
  readonly mark: number;
  atMark = 0;
  #timer: NodeJS.Timeout;
  constructor(mark: number) {
    this.mark = mark;
    // getrusage's maxrss is the true peak; the timer only keeps the mark honest between pages.
    const debug = process.env.BENCH_MEMORY === '1';
    let ticks = 0;
    this.#timer = setInterval(() => {
      if (debug && ++ticks % 40 === 0) {
        const m = process.memoryUsage();
        const mb = (n: number) => Math.round(n / 1048576);
        process.stderr.write(
          `    rss ${mb(m.rss)} heapTotal ${mb(m.heapTotal)} heapUsed ${mb(m.heapUsed)} external ${mb(m.external)} arrayBuffers ${mb(m.arrayBuffers)}\n`,
        );
      }
    }, 50);
  }
  progress(stored: number): void {
    if (this.atMark === 0 && stored >= this.mark) this.atMark = maxRssMb();
  }
  stop(): number {
    clearInterval(this.#timer);
    const end = maxRssMb();
    if (this.atMark === 0) this.atMark = end;
    return end;
  }
}

// ---------------------------------------------------------------------------------------------
// Child: the floor.

async function floorRun(store: StoreKind, target: Target, db: string, mark: number, late = false): Promise<RunResult> {
  const { Agent, request } = await import('undici');
  const { isComplianceRow } = await import('../src/connectors/tenable-sc/map/vulndetails.ts');
  const { MIGRATIONS } = await import('../src/store/index.ts');
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  const headers = {
    'x-apikey': `accesskey=${target.accessKey}; secretkey=${target.secretKey};`,
    'content-type': 'application/json',
    accept: 'application/json',
  };
  const fetchPage = async (sourceType: 'patched' | 'cumulative', offset: number, tool: 'vulndetails' | 'sumip' = 'vulndetails') => {
    const res = await request(`${target.url}/rest/analysis`, {
      method: 'POST',
      headers,
      body: JSON.stringify(analysisBody(sourceType, offset, tool)),
      dispatcher: agent,
    });
    const json = JSON.parse(await res.body.text()) as { response: { totalRecords: string; results: Record<string, unknown>[] } };
    return json.response;
  };
  const seen = new Set<string>();
  const rowOf = (r: Record<string, unknown>, status: string): unknown[] => {
    const blank = (v: unknown) => (v === '' || v === undefined ? null : v);
    const sev = r.severity as { name?: string } | undefined;
    // The id is the finding's vulnUUID as the console sends it (random; Tributary's ids instead keep a
    // host's records together). A repeat, should the simulator send one, gets a suffix.
    let id = r.vulnUUID as string;
    if (seen.has(id)) id += `-${seen.size}`;
    seen.add(id);
    return [
      id,
      'floor',
      `${r.hostUUID}|${r.port}|${r.protocol}|${r.pluginID}`,
      r.vulnUUID,
      r.firstSeen,
      r.lastSeen,
      0,
      'gen',
      'run',
      r.hostUUID,
      r.pluginID,
      r.pluginName,
      sev?.name ?? null,
      blank(r.cve),
      blank(r.baseScore),
      blank(r.cvssV3BaseScore),
      blank(r.epssScore),
      blank(r.vprScore),
      0,
      status,
      r.port,
      r.protocol,
      // The wide columns a finding row carries (as the console sends them, not normalised): the
      // plugin output (proof), the VPR drivers, the family and the flags.
      r.vprContext === undefined ? null : JSON.stringify(r.vprContext),
      blank(r.pluginText),
      (r.family as { name?: string } | undefined)?.name ?? null,
      r.exploitAvailable === 'true' ? 1 : 0,
      r.acceptRisk === '1' ? 1 : 0,
      r.recastRisk === '1' ? 1 : 0,
      blank(r.vulnUniqueness),
      blank(r.seolDate),
    ];
  };
  /** A sumip row's raw values into rec_hosts (the id is the console's host UUID). */
  const hostRowOf = (r: Record<string, unknown>): unknown[] => {
    const blank = (v: unknown) => (v === '' || v === undefined ? null : v);
    const repo = r.repository as { name?: string } | undefined;
    const last = Math.max(Number(r.lastAuthRun) || 0, Number(r.lastUnauthRun) || 0);
    return [
      `${r.uuid}|${r.ip}|${repo?.name ?? ''}`,
      'floor',
      `${r.uuid}`,
      r.uuid,
      null,
      last ? String(last) : null,
      0,
      'gen',
      'run',
      blank(r.ip),
      blank(r.macAddress),
      blank(r.dnsName),
      blank(r.netbiosName),
      blank(r.osCPE),
      repo?.name ?? null,
    ];
  };
  const hostCols =
    'id, source_id, natural_key, external_id, first_seen, last_seen, removed, seen_gen, seen_run, ip_addresses, mac_addresses, hostname, netbios_name, os, repository';
  const cols =
    'id, source_id, natural_key, external_id, first_seen, last_seen, removed, seen_gen, seen_run, host_id, plugin_id, plugin_name, severity, cves, cvss_v2_base_score, cvss_v3_base_score, scanner_epss_score, vpr_score, scanner_known_exploited, status, port, protocol, vpr_key_drivers, proof, plugin_family, exploit_available, accepted_risk, recast_risk, vuln_uniqueness, seol_date';

  let writePage: (rows: unknown[][], table?: 'hosts') => Promise<void>;
  let close: () => Promise<void>;
  /** With `late`: the table's secondary indexes, dropped before the load and built after it (timed). */
  let buildIndexes = async (): Promise<void> => {};
  if (store === 'sqlite') {
    const { DatabaseSync } = await import('node:sqlite');
    const sq = new DatabaseSync(db);
    sq.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
    for (const m of MIGRATIONS) sq.exec(m.sql);
    if (late) {
      const ixs = sq
        .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('rec_vulnerabilities', 'rec_hosts') AND sql IS NOT NULL`)
        .all() as {
        name: string;
        sql: string;
      }[];
      for (const ix of ixs) sq.exec(`DROP INDEX ${ix.name}`);
      buildIndexes = async () => {
        for (const ix of ixs) sq.exec(ix.sql);
      };
    }
    const stmt = sq.prepare(
      `INSERT INTO rec_vulnerabilities (${cols}) VALUES (${cols
        .split(',')
        .map(() => '?')
        .join(',')})`,
    );
    const hostStmt = sq.prepare(
      `INSERT INTO rec_hosts (${hostCols}) VALUES (${hostCols
        .split(',')
        .map(() => '?')
        .join(',')})`,
    );
    writePage = async (rows, table) => {
      const st = table === 'hosts' ? hostStmt : stmt;
      sq.exec('BEGIN IMMEDIATE');
      // biome-ignore lint/suspicious/noExplicitAny: node:sqlite's binding types
      for (const r of rows) st.run(...(r as any[]));
      sq.exec('COMMIT');
    };
    close = async () => sq.close();
  } else {
    const pg = (await import('pg')).default;
    const { from: copyFrom } = await import('pg-copy-streams');
    const { pipeline } = await import('node:stream/promises');
    const { Readable } = await import('node:stream');
    const client = new pg.Client({ connectionString: db });
    await client.connect();
    for (const m of MIGRATIONS) await client.query(m.postgres ?? m.sql);
    if (late) {
      const ixs = (
        await client.query(
          `SELECT indexname AS name, indexdef AS sql FROM pg_indexes WHERE tablename IN ('rec_vulnerabilities', 'rec_hosts') AND indexname NOT LIKE '%_pkey'`,
        )
      ).rows as { name: string; sql: string }[];
      for (const ix of ixs) await client.query(`DROP INDEX ${ix.name}`);
      buildIndexes = async () => {
        // The sort memory Tributary's own index builds ask for (src/store/db/bulk-load.ts).
        await client.query(`SET maintenance_work_mem = '256MB'`);
        for (const ix of ixs) await client.query(ix.sql);
      };
    }
    const esc = (v: unknown) =>
      v === null || v === undefined ? '\\N' : String(v).replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
    writePage = async (rows, table) => {
      await client.query('BEGIN');
      let text = '';
      for (const r of rows) text += r.map(esc).join('\t') + '\n';
      const copy = table === 'hosts' ? `COPY rec_hosts (${hostCols}) FROM STDIN` : `COPY rec_vulnerabilities (${cols}) FROM STDIN`;
      await pipeline(Readable.from([text]), client.query(copyFrom(copy)));
      await client.query('COMMIT');
    };
    close = () => client.end();
  }

  const marks = new RssMarks(mark);
  const started = performance.now();
  let rowsRead = 0;
  let stored = 0;
  // Like the connector: the next page is requested before the current one is stored. The hosts first
  // (sumip), as the sync's hosts stream reads them before the findings.
  {
    let next = fetchPage('cumulative', 0, 'sumip');
    for (let offset = 0; ; offset += PAGE) {
      const page = await next;
      const results = page.results ?? [];
      const last = results.length < PAGE || offset + PAGE >= Number(page.totalRecords);
      if (!last) next = fetchPage('cumulative', offset + PAGE, 'sumip');
      rowsRead += results.length;
      if (results.length) await writePage(results.map(hostRowOf), 'hosts');
      if (last) break;
    }
  }
  for (const phase of PHASES) {
    let next = fetchPage(phase.sourceType, 0);
    for (let offset = 0; ; offset += PAGE) {
      const page = await next;
      const results = page.results ?? [];
      const last = results.length < PAGE || offset + PAGE >= Number(page.totalRecords);
      if (!last) next = fetchPage(phase.sourceType, offset + PAGE);
      rowsRead += results.length;
      const rows: unknown[][] = [];
      for (const r of results) if (!isComplianceRow(r)) rows.push(rowOf(r, phase.status));
      if (rows.length) await writePage(rows);
      stored += rows.length;
      marks.progress(stored);
      if (last) break;
    }
  }
  await buildIndexes();
  const seconds = (performance.now() - started) / 1000;
  await close();
  await agent.close();
  const peakEndMb = marks.stop();
  return runResult(late ? 'floor-late' : 'floor', store, { rowsRead, stored, seconds, mark, marks, peakEndMb });
}

/** A child's measurement: its rate from what it stored in how long, and its peaks. */
function runResult(
  kind: Kind,
  store: StoreKind,
  m: { rowsRead: number; stored: number; seconds: number; mark: number; marks: RssMarks; peakEndMb: number; status?: string },
): RunResult {
  const { rowsRead, stored, seconds, mark, marks, peakEndMb, status } = m;
  // `seconds` is replaced by the parent's spawn-to-exit time (runChild).
  return {
    kind,
    store,
    rowsRead,
    stored,
    seconds,
    innerSeconds: seconds,
    perSecond: stored / seconds,
    markAt: mark,
    peakAtMarkMb: marks.atMark,
    peakEndMb,
    status,
  };
}

// ---------------------------------------------------------------------------------------------
// Child: Tributary.

/** The app a Tributary child opens: the real connector, every stream; the production log level, written nowhere. */
async function openBenchApp(store: StoreKind, db: string, dataDir: string) {
  const { openApp } = await import('../src/app/context.ts');
  const { ConnectorRegistry } = await import('../src/connectors/registry.ts');
  const { tenableScConnector } = await import('../src/connectors/tenable-sc/index.ts');
  const { createLogger } = await import('../src/core/log.ts');
  type Connector = import('../src/core/connector.ts').Connector;
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  return openApp({
    dataDir,
    db: store === 'sqlite' ? `sqlite:${db}` : db,
    log: createLogger({ level: process.env.BENCH_LOG ? 'debug' : 'info', destination: process.env.BENCH_LOG ? process.stderr : sink }),
    registry: new ConnectorRegistry([tenableScConnector as unknown as Connector]),
    // A kept store (--keep) is opened later by bench/query-latency with its master key.
    env: process.env.TRIBUTARY_MASTER_KEY ? { TRIBUTARY_MASTER_KEY: process.env.TRIBUTARY_MASTER_KEY } : {},
  });
}

/** Untimed: the source a sync reads (what `tributary sources add` does once). */
async function setupRun(store: StoreKind, target: Target, db: string, dataDir: string): Promise<void> {
  const { addSource } = await import('../src/app/sources.ts');
  const app = await openBenchApp(store, db, dataDir);
  await addSource(app, 'tenable-sc', 'bench', {
    apiUrl: target.url,
    accessKey: target.accessKey,
    secretKey: target.secretKey,
    includeInformational: true,
    pageSize: PAGE,
  });
  await app.close();
}

/**
 * With BENCH_HEAPSNAPSHOT=stream:page[,stream:page…] (e.g. software:8,vulnerabilities:300), a heap snapshot
 * of the Tributary child once that stream has stored that many pages, written to the working directory
 * (v8.writeHeapSnapshot): what the main heap holds there, to compare at two console sizes. Writing one
 * takes memory of its own: the run's peak RSS is then not a figure to report.
 */
function heapSnapshotAt(): ((stream: string) => void) | null {
  const wanted = new Map(
    (process.env.BENCH_HEAPSNAPSHOT ?? '')
      .split(',')
      .filter(Boolean)
      .map((w) => [w.split(':')[0]!, Number(w.split(':')[1] || 1)]),
  );
  if (wanted.size === 0) return null;
  const pages = new Map<string, number>();
  return (stream) => {
    const n = (pages.get(stream) ?? 0) + 1;
    pages.set(stream, n);
    if (wanted.get(stream) === n) process.stderr.write(`    heap snapshot (${stream}, page ${n}): ${writeHeapSnapshot()}\n`);
  };
}

async function tributaryRun(store: StoreKind, db: string, dataDir: string, mark: number, incremental: boolean): Promise<RunResult> {
  const { runSync } = await import('../src/sync/runner.ts');
  const app = await openBenchApp(store, db, dataDir);
  const marks = new RssMarks(mark);
  const snapshot = heapSnapshotAt();
  const started = performance.now();
  const result = await runSync(app, 'bench', {
    full: !incremental,
    onProgress: (p) => {
      marks.progress(p.counts.vulnerabilities?.records ?? 0);
      snapshot?.(p.stream);
    },
  });
  const seconds = (performance.now() - started) / 1000;
  const stored = result.streams.vulnerabilities?.records ?? 0;
  await app.close();
  const peakEndMb = marks.stop();
  if (result.status !== 'succeeded') throw new Error(`the run ended ${result.status}: ${result.error}`);
  if (incremental !== (result.mode === 'incremental')) throw new Error(`asked for ${incremental ? 'an incremental' : 'a full'} run, got ${result.mode}`);
  if (process.env.BENCH_LOG) process.stderr.write(`${JSON.stringify(result.streams)}\n`);
  return runResult(incremental ? 'incremental' : 'tributary', store, { rowsRead: Number.NaN, stored, seconds, mark, marks, peakEndMb, status: result.status });
}

// ---------------------------------------------------------------------------------------------
// Parent: simulator, databases, children, table.

async function startSim(hosts: number, perHost: number): Promise<{ proc: ChildProcess; target: Target }> {
  // A current console (6.4) offers the lastMitigated filter: an incremental run reads the findings fixed
  // since its window, not the whole patched set (the connector's fallback for consoles without it).
  const { url, accessKey, secretKey, child } = await startTenableSimProcess([
    '--hosts',
    String(hosts),
    '--findings-per-host',
    String(perHost),
    '--seed',
    '1',
    '--last-mitigated-filter',
  ]);
  return { proc: child, target: { url, accessKey, secretKey } };
}

/**
 * The parent's calls to the simulator, each on a connection of its own: a kept-alive one, idle while a
 * child ran, may be closed by the simulator just as it is reused (on a loaded machine, a bench at a
 * million findings failed so), and a control call is not one to send twice.
 */
async function simFetch(url: string, init: { method: string; headers?: Record<string, string>; body: string }): Promise<Response> {
  const { Agent, fetch } = await import('undici');
  const dispatcher = new Agent({ pipelining: 0 });
  try {
    const res = await fetch(url, { ...init, dispatcher });
    const text = await res.text();
    return new Response(text, { status: res.status });
  } finally {
    await dispatcher.close();
  }
}

/** Builds the simulator's per-query page index before anything is timed (first request of each phase). */
async function warmSim(target: Target): Promise<number> {
  let total = 0;
  for (const p of PHASES) {
    const res = await simFetch(`${target.url}/rest/analysis`, {
      method: 'POST',
      headers: { 'x-apikey': `accesskey=${target.accessKey}; secretkey=${target.secretKey};`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...analysisBody(p.sourceType, 0), startOffset: 0, endOffset: 1 }),
    });
    const j = (await res.json()) as { response: { totalRecords: string } };
    total += Number(j.response.totalRecords);
  }
  return total;
}

/**
 * Copies of the store a first import left (--incremental-runs), one fresh copy per call (SQLite: the
 * file, closed by the child; PostgreSQL: a database made from it as a template); the store itself stays
 * as the first import left it.
 */
async function storeCopy(store: StoreKind, pgUrl: string, db: string, n: number): Promise<{ db: string; drop(): Promise<void> }> {
  if (store === 'sqlite') {
    // The file with its WAL, should the child have left one (it checkpoints and removes it on close).
    const copy = `${db}.copy${n}`;
    for (const ext of ['', '-wal']) if (existsSync(`${db}${ext}`)) copyFileSync(`${db}${ext}`, `${copy}${ext}`);
    return {
      db: copy,
      drop: async () => {
        for (const ext of ['', '-wal', '-shm']) rmSync(`${copy}${ext}`, { force: true });
      },
    };
  }
  const { freshPostgres } = await import('./scratch-database.ts');
  const copy = await freshPostgres(pgUrl, new URL(db).pathname.slice(1));
  // A database made from a template starts with no activity counts: its first run's epilogue would take
  // every table it wrote for one changed since its last analysis and ANALYZE them all (seconds at a
  // million findings), which a store the first import left analysed does not do. Analysed here, untimed.
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: copy.url });
  await c.connect();
  try {
    await c.query('ANALYZE');
  } finally {
    await c.end();
  }
  return { db: copy.url, drop: copy.drop };
}

/** The simulator's control API (sim/tenable-sc/control.ts). */
async function simControl(target: Target, path: string, body: Record<string, unknown>): Promise<void> {
  const res = await simFetch(`${target.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

async function withDatabase<T>(
  store: StoreKind,
  pgUrl: string,
  fn: (db: string, dataDir: string) => Promise<T>,
  keep?: { dir: string; findings: number },
): Promise<T> {
  if (keep) {
    // Where bench/query-latency --keep DIR --reuse looks for it; nothing is removed afterwards.
    const dataDir = join(keep.dir, store);
    if (existsSync(join(dataDir, 'tributary.db'))) throw new Error(`${dataDir} already holds a store: remove it first`);
    mkdirSync(dataDir, { recursive: true });
    if (store === 'sqlite') return await fn(join(dataDir, 'tributary.db'), dataDir);
    const { createPostgres } = await import('./scratch-database.ts');
    const made = await createPostgres(pgUrl, `tributary_qlat_${keep.findings}`);
    return await fn(made.url, dataDir);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'tributary-bench-'));
  try {
    if (store === 'sqlite') return await fn(join(dataDir, 'bench.db'), dataDir);
    const { withScratchDatabase } = await import('./scratch-database.ts');
    return await withScratchDatabase('postgres', pgUrl, (url) => fn(url, dataDir));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function runChild(
  kind: Kind | 'setup',
  store: StoreKind,
  target: Target,
  db: string,
  dataDir: string,
  mark: number,
  extraNodeArgs: string[],
  /** Another checkout's copy of this file (--incremental-base), whose code the child runs. */
  script = fileURLToPath(import.meta.url),
): Promise<RunResult> {
  const args = [
    ...extraNodeArgs,
    script,
    '--child',
    kind,
    '--store',
    store,
    '--db',
    db,
    '--data-dir',
    dataDir,
    '--mark',
    String(mark),
    '--target',
    JSON.stringify(target),
  ];
  // With the compile cache `tributary` starts with (bin/launch.js), on from the child's first file.
  const spawned = performance.now();
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...launchEnv(), NODE_COMPILE_CACHE: compileCacheDir() } });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  return new Promise((resolve, reject) => {
    proc.on('exit', (code) => {
      const seconds = (performance.now() - spawned) / 1000;
      if (code !== 0) return reject(new Error(`${kind} (${store}) exited with ${code}`));
      const r = JSON.parse(out.trim().split('\n').pop()!) as RunResult;
      // End to end: the process's whole life, as a user running the command waits for it.
      resolve({ ...r, seconds, perSecond: r.stored / seconds });
    });
  });
}

const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
const fmtMb = (n: number) => `${Math.round(n)} MB`;

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(rows[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      hosts: { type: 'string' },
      'findings-per-host': { type: 'string', default: '50' },
      store: { type: 'string', default: 'both' },
      runs: { type: 'string', default: '1' },
      quick: { type: 'boolean', default: false },
      'pg-url': { type: 'string', default: process.env.TRIBUTARY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
      'cpu-prof': { type: 'boolean', default: false },
      'node-flags': { type: 'string' },
      only: { type: 'string' },
      'floor-late': { type: 'boolean', default: false },
      incremental: { type: 'boolean', default: false },
      changed: { type: 'string', default: '0.01' },
      'incremental-runs': { type: 'string', default: '1' },
      'incremental-base': { type: 'string' },
      keep: { type: 'string' },
      mode: { type: 'string' },
      child: { type: 'string' },
      db: { type: 'string' },
      'data-dir': { type: 'string' },
      mark: { type: 'string' },
      target: { type: 'string' },
    },
  });

  if (values.child) {
    const store = values.store as StoreKind;
    const target = JSON.parse(values.target!) as Target;
    const mark = Number(values.mark);
    if (values.child === 'setup') {
      await setupRun(store, target, values.db!, values['data-dir']!);
      process.stdout.write(`${JSON.stringify({ stored: 0 })}\n`);
      return;
    }
    const r =
      values.child === 'tributary' || values.child === 'incremental'
        ? await tributaryRun(store, values.db!, values['data-dir']!, mark, values.child === 'incremental')
        : await floorRun(store, target, values.db!, mark, values.child === 'floor-late');
    process.stdout.write(`${JSON.stringify(r)}\n`);
    return;
  }

  const hosts = Number(values.hosts ?? (values.quick ? 2000 : 20000));
  const perHost = Number(values['findings-per-host']);
  const stores: StoreKind[] = values.store === 'both' ? ['sqlite', 'postgres'] : [values.store as StoreKind];
  const runs = Math.max(1, Number(values.runs));
  // --only takes one kind or several, comma-separated (e.g. floor-late,tributary).
  const kinds: Kind[] = values.only ? (values.only.split(',') as Kind[]) : ['floor', 'tributary', ...(values['floor-late'] ? ['floor-late' as const] : [])];
  const changed = Number(values.changed);
  const incrementalRuns = Math.max(1, Number(values['incremental-runs']));
  const nodeFlags = values['node-flags'] !== undefined ? values['node-flags'].split(/\s+/).filter(Boolean) : launchFlags();
  const nodeArgs = [...nodeFlags, ...(values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', join(root, 'bench', '.prof')] : [])];

  // bench/query-latency's master key, so that it opens a kept store (its sources' secrets included).
  if (values.keep) process.env.TRIBUTARY_MASTER_KEY ??= Buffer.alloc(32, 42).toString('base64');
  const { proc: sim, target } = await startSim(hosts, perHost);
  try {
    const t0 = performance.now();
    const rowsTotal = await warmSim(target);
    process.stderr.write(
      `simulator: ${hosts} hosts × ${perHost} findings; the vulnerabilities stream reads ${fmtInt(rowsTotal)} rows (patched + cumulative); index built in ${Math.round(performance.now() - t0)} ms\n`,
    );
    const all: RunResult[] = [];
    for (const store of stores) {
      for (let i = 0; i < runs; i++) {
        // Alternate the order so neither side always runs on a warmer machine.
        const order = i % 2 === 0 ? kinds : [...kinds].reverse();
        for (const kind of order) {
          const mark = Math.round((hosts * perHost) / 10);
          const say = (r: RunResult) =>
            process.stderr.write(
              `  ${store} ${r.kind} #${i + 1}: ${fmtInt(r.stored)} findings in ${r.seconds.toFixed(1)} s (${r.innerSeconds.toFixed(1)} s inside) = ${fmtInt(r.perSecond)}/s, peak RSS ${fmtMb(r.peakAtMarkMb)} → ${fmtMb(r.peakEndMb)}\n`,
            );
          const keep = values.keep && kind === 'tributary' && i === 0 ? { dir: values.keep, findings: hosts * perHost } : undefined;
          await withDatabase(
            store,
            values['pg-url']!,
            async (db, dataDir) => {
              if (kind !== 'tributary') {
                const r = await runChild(kind, store, target, db, dataDir, mark, nodeArgs);
                say(r);
                all.push(r);
                return;
              }
              await runChild('setup', store, target, db, dataDir, mark, []);
              const r = await runChild(kind, store, target, db, dataDir, mark, nodeArgs);
              say(r);
              all.push(r);
              if (!values.incremental) return;
              // With several, each runs on a copy of the store the first import left.
              const base = values['incremental-base'];
              const sides = (k: number) => (base ? (k % 2 === 0 ? [false, true] : [true, false]) : [false]);
              for (let k = 0, n = 0; k < incrementalRuns; k++)
                for (const isBase of sides(k)) {
                  const copy = incrementalRuns > 1 || base ? await storeCopy(store, values['pg-url']!, db, ++n) : null;
                  // A day later, a rescan of `changed` of the hosts: their open findings' lastSeen moves.
                  await simControl(target, '/_sim/advance', { seconds: 86400, rescanFraction: changed });
                  try {
                    const script = isBase ? join(base!, 'bench', 'tenable-sc-api.ts') : undefined;
                    const inc = await runChild('incremental', store, target, copy?.db ?? db, dataDir, mark, nodeArgs, script);
                    const r = isBase ? { ...inc, kind: 'incremental-base' as const } : inc;
                    say(r);
                    all.push(r);
                  } finally {
                    await copy?.drop();
                    await simControl(target, '/_sim/reset', {});
                    await warmSim(target);
                  }
                }
            },
            keep,
          );
        }
      }
    }
    const out: string[][] = [
      ['store', 'findings', 'floor findings/s', 'Tributary findings/s', 'ratio', 'peak RSS @10%', 'peak RSS @end', 'growth', 'floor peak RSS'],
    ];
    const late: string[][] = [['store', 'floor (indexes after) findings/s', 'ratio to it', 'its peak RSS']];
    const incr: string[][] = [['store', 'first import s', 'incremental s', 'share', 'findings read', 'incremental peak RSS']];
    for (const store of stores) {
      const f = all.filter((r) => r.store === store && r.kind === 'floor');
      const t = all.filter((r) => r.store === store && r.kind === 'tributary');
      const median = (xs: number[]) => {
        const s = [...xs].sort((a, b) => a - b);
        return s.length === 0 ? Number.NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
      };
      const fRate = median(f.map((r) => r.perSecond));
      const tRate = median(t.map((r) => r.perSecond));
      const atMark = Math.max(...t.map((r) => r.peakAtMarkMb));
      const atEnd = Math.max(...t.map((r) => r.peakEndMb));
      const stored = (t[0] ?? f[0] ?? all.find((r) => r.store === store))?.stored ?? 0;
      if (f.length && t.length && f[0].stored !== t[0].stored) process.stderr.write(`WARNING: floor stored ${f[0].stored}, Tributary ${t[0].stored}\n`);
      out.push([
        store,
        fmtInt(stored),
        f.length ? fmtInt(fRate) : '-',
        t.length ? fmtInt(tRate) : '-',
        f.length && t.length ? (tRate / fRate).toFixed(2) : '-',
        t.length ? `${fmtMb(atMark)} (${fmtInt(t[0].markAt)})` : '-',
        t.length ? fmtMb(atEnd) : '-',
        t.length ? `${(((atEnd - atMark) / atMark) * 100).toFixed(1)} %` : '-',
        f.length ? fmtMb(Math.max(...f.map((r) => r.peakEndMb))) : '-',
      ]);
      const fl = all.filter((r) => r.store === store && r.kind === 'floor-late');
      if (fl.length) {
        const lRate = median(fl.map((r) => r.perSecond));
        late.push([store, fmtInt(lRate), t.length ? (tRate / lRate).toFixed(2) : '-', fmtMb(Math.max(...fl.map((r) => r.peakEndMb)))]);
      }
      for (const kind of ['incremental', 'incremental-base'] as const) {
        const inc = all.filter((r) => r.store === store && r.kind === kind);
        if (!inc.length || !t.length) continue;
        const fullS = median(t.map((r) => r.seconds));
        const incS = median(inc.map((r) => r.seconds));
        incr.push([
          kind === 'incremental' ? store : `${store} (base)`,
          fullS.toFixed(1),
          incS.toFixed(1),
          `${((incS / fullS) * 100).toFixed(1)} %`,
          fmtInt(inc[0].stored),
          fmtMb(Math.max(...inc.map((r) => r.peakEndMb))),
        ]);
      }
    }
    process.stdout.write(`\n${table(out)}\n\n`);
    if (late.length > 1) process.stdout.write(`${table(late)}\n\n`);
    if (incr.length > 1) process.stdout.write(`${table(incr)}\n\n`);
    process.stdout.write(
      `${runs} run(s) per side (median rate, max RSS); node ${process.version}${nodeFlags.length ? ` ${nodeFlags.join(' ')}` : ' (default flags)'}, ${(await import('node:os')).cpus().length} CPUs.\n`,
    );
  } finally {
    sim.kill('SIGTERM');
  }
}

await main();
