// Benchmark `bench/tenable-sc-api` (issue 3 §4): Tributary's Tenable.sc API sync against a floor
// measured in the same run.
//
//   node bench/tenable-sc-api.ts [--hosts 20000] [--findings-per-host 50] [--store sqlite|postgres|both]
//                                [--runs 1] [--quick] [--pg-url postgres://postgres@127.0.0.1:5432/test]
//                                [--node-flags='…'] [--only floor|floor-late|tributary] [--floor-late] [--cpu-prof]
//
// What runs where. The simulator runs in its own process (its CPU and memory are not ours); every
// measurement runs in a fresh child process of its own, so each peak RSS is that run's alone. On a
// 2-core machine the simulator competes for CPU with the process measured, in both measurements alike.
//
// What is measured (both read the same pages of the same simulator, with the vulnerabilities stream's
// queries: vulndetails, patched then cumulative, includeInformational on, 1000 rows a page):
//   floor      fetch each page (undici, keep-alive; like the connector, the next page is requested
//              before the current one is stored), JSON.parse it, skip compliance rows (they belong
//              to the compliance stream), and store the other rows' raw values into a fresh database's
//              rec_vulnerabilities table (same columns, primary key and indexes; created by the same
//              migrations; the id is the row's vulnUUID), one transaction per page: SQLite with one
//              cached prepared INSERT per row, PostgreSQL with one COPY … FROM STDIN per page. No
//              normalisation, no computed ids, no upsert, no checkpoint.
//   floor-late (with --floor-late, or --only floor-late) the floor with the table's secondary indexes
//              dropped before the load and built after it, inside the timed part: what a first
//              import of Tributary does (src/store/db/bulk-load.ts), so the ratio to it is of the rest.
//   tributary  `runSync` (a full run) of a tenable-sc source whose connector offers only its
//              vulnerabilities stream (the other streams are switched off in this benchmark's registry:
//              they read other rows). Timed from the call to its return: run bookkeeping, every page
//              fetched, validated, mapped, upserted with its checkpoint in one transaction, the run's
//              distinct-record count and the sweep.
// findings/s = vulnerability records stored / seconds; both store the same set of records (checked).
// Peak RSS is the process's peak resident set (getrusage maxrss) when 10 % of the records are stored
// (100k of 1M) and at the end; growth = (end − 10 %) / 10 %. Both children run with the V8 flags
// `tributary` is launched with (bench/launch-flags.ts), or with --node-flags when given ('' for none).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compileCacheDir } from '../bin/launch.js';
import { launchEnv, launchFlags } from './launch-flags.ts';
import { startTenableSimProcess } from './sim-process.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const PAGE = 1000;

type StoreKind = 'sqlite' | 'postgres';
type Kind = 'floor' | 'floor-late' | 'tributary';

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
  seconds: number;
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

function analysisBody(sourceType: 'patched' | 'cumulative', offset: number): Record<string, unknown> {
  // Exactly what the connector sends on a full run with includeInformational (no filters).
  return {
    type: 'vuln',
    sourceType,
    query: { type: 'vuln', tool: 'vulndetails', filters: [], startOffset: offset, endOffset: offset + PAGE },
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
  const fetchPage = async (sourceType: 'patched' | 'cumulative', offset: number) => {
    const res = await request(`${target.url}/rest/analysis`, {
      method: 'POST',
      headers,
      body: JSON.stringify(analysisBody(sourceType, offset)),
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
    ];
  };
  const cols =
    'id, source_id, natural_key, external_id, first_seen, last_seen, removed, seen_gen, seen_run, host_id, plugin_id, plugin_name, severity, cves, cvss_v2_base_score, cvss_v3_base_score, epss_score, vpr_score, known_exploited, status, port, protocol';

  let writePage: (rows: unknown[][]) => Promise<void>;
  let close: () => Promise<void>;
  /** With `late`: the table's secondary indexes, dropped before the load and built after it (timed). */
  let buildIndexes = async (): Promise<void> => {};
  if (store === 'sqlite') {
    const { DatabaseSync } = await import('node:sqlite');
    const sq = new DatabaseSync(db);
    sq.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
    for (const m of MIGRATIONS) sq.exec(m.sql);
    if (late) {
      const ixs = sq.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rec_vulnerabilities' AND sql IS NOT NULL`).all() as {
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
    writePage = async (rows) => {
      sq.exec('BEGIN IMMEDIATE');
      // biome-ignore lint/suspicious/noExplicitAny: node:sqlite's binding types
      for (const r of rows) stmt.run(...(r as any[]));
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
          `SELECT indexname AS name, indexdef AS sql FROM pg_indexes WHERE tablename = 'rec_vulnerabilities' AND indexname <> 'rec_vulnerabilities_pkey'`,
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
    writePage = async (rows) => {
      await client.query('BEGIN');
      let text = '';
      for (const r of rows) text += r.map(esc).join('\t') + '\n';
      await pipeline(Readable.from([text]), client.query(copyFrom(`COPY rec_vulnerabilities (${cols}) FROM STDIN`)));
      await client.query('COMMIT');
    };
    close = () => client.end();
  }

  const marks = new RssMarks(mark);
  const started = performance.now();
  let rowsRead = 0;
  let stored = 0;
  // Like the connector: the next page is requested before the current one is stored.
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
  const peakEndMb = marks.stop();
  await close();
  await agent.close();
  return runResult(late ? 'floor-late' : 'floor', store, { rowsRead, stored, seconds, mark, marks, peakEndMb });
}

/** A child's measurement: its rate from what it stored in how long, and its peaks. */
function runResult(
  kind: Kind,
  store: StoreKind,
  m: { rowsRead: number; stored: number; seconds: number; mark: number; marks: RssMarks; peakEndMb: number; status?: string },
): RunResult {
  const { rowsRead, stored, seconds, mark, marks, peakEndMb, status } = m;
  return { kind, store, rowsRead, stored, seconds, perSecond: stored / seconds, markAt: mark, peakAtMarkMb: marks.atMark, peakEndMb, status };
}

// ---------------------------------------------------------------------------------------------
// Child: Tributary.

async function tributaryRun(store: StoreKind, target: Target, db: string, dataDir: string, mark: number): Promise<RunResult> {
  const { openApp } = await import('../src/app/context.ts');
  const { addSource } = await import('../src/app/sources.ts');
  const { ConnectorRegistry } = await import('../src/connectors/registry.ts');
  const { tenableScConnector, tenableScStreams } = await import('../src/connectors/tenable-sc/index.ts');
  const { createLogger } = await import('../src/core/log.ts');
  const { runSync } = await import('../src/sync/runner.ts');
  type Connector = import('../src/core/connector.ts').Connector;

  // The real connector with only its vulnerabilities stream.
  const vulnOnly = {
    ...tenableScConnector,
    streams: (c: Parameters<typeof tenableScStreams>[0]) => tenableScStreams(c).filter((s) => s.name === 'vulnerabilities'),
  };
  const registry = new ConnectorRegistry([vulnOnly as unknown as Connector]);
  // The production log level (info), written nowhere.
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  const app = await openApp({
    dataDir,
    db: store === 'sqlite' ? `sqlite:${db}` : db,
    log: createLogger({ level: 'info', destination: sink }),
    registry,
    env: {},
  });
  await addSource(app, 'tenable-sc', 'bench', {
    apiUrl: target.url,
    accessKey: target.accessKey,
    secretKey: target.secretKey,
    includeInformational: true,
    pageSize: PAGE,
  });

  const marks = new RssMarks(mark);
  const started = performance.now();
  const result = await runSync(app, 'bench', { full: true, onProgress: (p) => marks.progress(p.counts.vulnerabilities?.records ?? 0) });
  const seconds = (performance.now() - started) / 1000;
  const peakEndMb = marks.stop();
  const stored = result.streams.vulnerabilities?.records ?? 0;
  await app.close();
  if (result.status !== 'succeeded') throw new Error(`the run ended ${result.status}: ${result.error}`);
  return runResult('tributary', store, { rowsRead: Number.NaN, stored, seconds, mark, marks, peakEndMb, status: result.status });
}

// ---------------------------------------------------------------------------------------------
// Parent: simulator, databases, children, table.

async function startSim(hosts: number, perHost: number): Promise<{ proc: ChildProcess; target: Target }> {
  const { url, accessKey, secretKey, child } = await startTenableSimProcess(['--hosts', String(hosts), '--findings-per-host', String(perHost), '--seed', '1']);
  return { proc: child, target: { url, accessKey, secretKey } };
}

/** Builds the simulator's per-query page index before anything is timed (first request of each phase). */
async function warmSim(target: Target): Promise<number> {
  let total = 0;
  for (const p of PHASES) {
    const res = await fetch(`${target.url}/rest/analysis`, {
      method: 'POST',
      headers: { 'x-apikey': `accesskey=${target.accessKey}; secretkey=${target.secretKey};`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...analysisBody(p.sourceType, 0), startOffset: 0, endOffset: 1 }),
    });
    const j = (await res.json()) as { response: { totalRecords: string } };
    total += Number(j.response.totalRecords);
  }
  return total;
}

async function withDatabase<T>(store: StoreKind, pgUrl: string, fn: (db: string, dataDir: string) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tributary-bench-'));
  try {
    if (store === 'sqlite') return await fn(join(dataDir, 'bench.db'), dataDir);
    const { withScratchDatabase } = await import('./scratch-database.ts');
    return await withScratchDatabase('postgres', pgUrl, (url) => fn(url, dataDir));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function runChild(kind: Kind, store: StoreKind, target: Target, db: string, dataDir: string, mark: number, extraNodeArgs: string[]): Promise<RunResult> {
  const args = [
    ...extraNodeArgs,
    fileURLToPath(import.meta.url),
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
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...launchEnv(), NODE_COMPILE_CACHE: compileCacheDir() } });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  return new Promise((resolve, reject) => {
    proc.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`${kind} (${store}) exited with ${code}`));
      resolve(JSON.parse(out.trim().split('\n').pop()!) as RunResult);
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
    const r =
      values.child === 'tributary'
        ? await tributaryRun(store, target, values.db!, values['data-dir']!, mark)
        : await floorRun(store, target, values.db!, mark, values.child === 'floor-late');
    process.stdout.write(`${JSON.stringify(r)}\n`);
    return;
  }

  const hosts = Number(values.hosts ?? (values.quick ? 2000 : 20000));
  const perHost = Number(values['findings-per-host']);
  const stores: StoreKind[] = values.store === 'both' ? ['sqlite', 'postgres'] : [values.store as StoreKind];
  const runs = Math.max(1, Number(values.runs));
  const kinds: Kind[] = values.only ? [values.only as Kind] : ['floor', 'tributary', ...(values['floor-late'] ? ['floor-late' as const] : [])];
  const nodeFlags = values['node-flags'] !== undefined ? values['node-flags'].split(/\s+/).filter(Boolean) : launchFlags();
  const nodeArgs = [...nodeFlags, ...(values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', join(root, 'bench', '.prof')] : [])];

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
          const r = await withDatabase(store, values['pg-url']!, (db, dataDir) => runChild(kind, store, target, db, dataDir, mark, nodeArgs));
          process.stderr.write(
            `  ${store} ${kind} #${i + 1}: ${fmtInt(r.stored)} findings in ${r.seconds.toFixed(1)} s = ${fmtInt(r.perSecond)}/s, peak RSS ${fmtMb(r.peakAtMarkMb)} → ${fmtMb(r.peakEndMb)}\n`,
          );
          all.push(r);
        }
      }
    }
    const out: string[][] = [
      ['store', 'findings', 'floor findings/s', 'Tributary findings/s', 'ratio', 'peak RSS @10%', 'peak RSS @end', 'growth', 'floor peak RSS'],
    ];
    const late: string[][] = [['store', 'floor (indexes after) findings/s', 'ratio to it']];
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
      const stored = (t[0] ?? f[0]).stored;
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
        late.push([store, fmtInt(lRate), t.length ? (tRate / lRate).toFixed(2) : '-']);
      }
    }
    process.stdout.write(`\n${table(out)}\n\n`);
    if (late.length > 1) process.stdout.write(`${table(late)}\n\n`);
    process.stdout.write(
      `${runs} run(s) per side (median rate, max RSS); node ${process.version}${nodeFlags.length ? ` ${nodeFlags.join(' ')}` : ' (default flags)'}, ${(await import('node:os')).cpus().length} CPUs.\n`,
    );
  } finally {
    sim.kill('SIGTERM');
  }
}

await main();
