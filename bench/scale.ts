// Benchmark `bench/scale` (issue 7): three simulated Tenable.sc consoles with realistic per-request
// latency, synced into PostgreSQL by one worker and by three workers (separate `tributary worker`
// processes, one sync at a time each), and into SQLite by one process (the embedded mode).
//
//   node bench/scale.ts [--findings 300000] [--latency-ms 150] [--page-size 1000] [--quick]
//                       [--pg-url postgres://postgres@127.0.0.1:5432/test] [--only sqlite,pg1,pg3]
//
// Each console serves `findings` findings (hosts × 50). Every scenario starts from an empty store and
// runs a full sync of all three sources (all streams: hosts, software, ports, vulnerabilities,
// compliance). Timed: from the first enqueue (or call) to the last run's end, read from the runs'
// own start/finish stamps. findings/s = vulnerability findings stored / seconds.
// Targets: 3 workers ≥ 2.2 × 1 worker (the upstream's latency, not us, is the bottleneck);
// PostgreSQL 1 worker ≥ 0.7 × SQLite.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type AppContext, openApp } from '../src/app/context.ts';
import { addSource } from '../src/app/sources.ts';
import { createLogger } from '../src/core/log.ts';
import { SyncQueue } from '../src/sync/queue.ts';
import { runSync } from '../src/sync/runner.ts';
import { freshPostgres } from './scratch-database.ts';
import { type SimProcess, startTenableSimProcess } from './sim-process.ts';

const BIN = fileURLToPath(new URL('../bin/tributary.js', import.meta.url));
const { values: args } = parseArgs({
  options: {
    findings: { type: 'string', default: '300000' },
    'latency-ms': { type: 'string', default: '150' },
    'page-size': { type: 'string', default: '1000' },
    'pg-url': { type: 'string', default: process.env.TRIBUTARY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    only: { type: 'string', default: 'sqlite,pg1,pg3' },
    quick: { type: 'boolean', default: false },
  },
});
const perConsole = args.quick ? 30_000 : Number(args.findings);
const hosts = Math.max(1, Math.round(perConsole / 50));
const latencyMs = Number(args['latency-ms']);
const env = { ...process.env, TRIBUTARY_MASTER_KEY: Buffer.alloc(32, 42).toString('base64'), TRIBUTARY_LOG_LEVEL: 'warn', TRIBUTARY_QUEUE_POLL_SECONDS: '0.5' };
process.env.TRIBUTARY_MASTER_KEY = env.TRIBUTARY_MASTER_KEY;

function startWorker(dataDir: string, dbUrl: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, '--db', dbUrl, 'worker'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
      if (/worker ready/.test(err)) resolve(child);
    });
    child.once('exit', (c) => reject(new Error(`worker exited ${c}: ${err}`)));
  });
}

async function addConsoles(app: AppContext, sims: SimProcess[]): Promise<string[]> {
  const names: string[] = [];
  for (const [i, s] of sims.entries()) {
    const name = `console-${i + 1}`;
    await addSource(app, 'tenable-sc', name, { apiUrl: s.url, accessKey: s.accessKey, secretKey: s.secretKey, pageSize: Number(args['page-size']) });
    names.push(name);
  }
  return names;
}

interface Outcome {
  scenario: string;
  seconds: number;
  findings: number;
  perSecond: number;
}

async function measure(app: AppContext, scenario: string, names: string[]): Promise<Outcome> {
  const runs = [];
  for (const n of names) {
    const s = await app.store.sources.get(n);
    const run = (await app.store.runs.list(s.id, 1))[0];
    if (run?.status !== 'succeeded') throw new Error(`${scenario}: ${n} ended ${run?.status}: ${run?.error}`);
    runs.push(run);
  }
  const start = Math.min(...runs.map((r) => Date.parse(r.startedAt)));
  const end = Math.max(...runs.map((r) => Date.parse(r.finishedAt!)));
  const findings = runs.reduce((a, r) => a + (r.counts.vulnerabilities?.records ?? 0), 0);
  const seconds = (end - start) / 1000;
  return { scenario, seconds, findings, perSecond: findings / seconds };
}

async function sqliteScenario(sims: SimProcess[]): Promise<Outcome> {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-scale-'));
  const app = await openApp({ dataDir: dir, log: createLogger({ level: 'warn' }) });
  try {
    const names = await addConsoles(app, sims);
    for (const n of names) await runSync(app, n, { full: true });
    return await measure(app, 'SQLite, 1 process', names);
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function pgScenario(sims: SimProcess[], workers: number): Promise<Outcome> {
  const db = await freshPostgres(args['pg-url']!);
  const dir = mkdtempSync(join(tmpdir(), 'tributary-scale-'));
  const app = await openApp({ dataDir: dir, db: db.url, log: createLogger({ level: 'warn' }), env });
  const children: ChildProcess[] = [];
  try {
    const names = await addConsoles(app, sims);
    const queue = await new SyncQueue(app).start();
    for (let i = 0; i < workers; i++) children.push(await startWorker(dir, db.url));
    for (const n of names) await queue.enqueue(n, { full: true, trigger: 'bench' });
    await queue.stop(false);
    const ids = await Promise.all(names.map(async (n) => (await app.store.sources.get(n)).id));
    for (;;) {
      const last = await Promise.all(ids.map((id) => app.store.runs.last(id)));
      if (last.every((r) => r && r.status !== 'running' && r.trigger?.startsWith('bench'))) break;
      await sleep(500);
    }
    return await measure(app, `PostgreSQL, ${workers} worker${workers > 1 ? 's' : ''}`, names);
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
    await app.close();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const only = new Set(args.only!.split(','));
const sims = await Promise.all(
  [1, 2, 3].map((i) =>
    startTenableSimProcess(['--seed', String(100 + i), '--hosts', String(hosts), '--findings-per-host', '50', '--latency-ms', String(latencyMs)]),
  ),
);
const results: Outcome[] = [];
try {
  console.error(`3 consoles × ${hosts * 50} findings (${hosts} hosts), ${latencyMs} ms per request, pages of ${args['page-size']}`);
  if (only.has('sqlite')) results.push(await sqliteScenario(sims));
  if (only.has('pg1')) results.push(await pgScenario(sims, 1));
  if (only.has('pg3')) results.push(await pgScenario(sims, 3));
} finally {
  for (const s of sims) s.child.kill('SIGTERM');
}
const by = (s: string) => results.find((r) => r.scenario.startsWith(s));
console.log(`| scenario | findings | seconds | findings/s |\n|---|---:|---:|---:|`);
for (const r of results) console.log(`| ${r.scenario} | ${r.findings} | ${r.seconds.toFixed(1)} | ${Math.round(r.perSecond)} |`);
const one = by('PostgreSQL, 1');
const three = by('PostgreSQL, 3');
const lite = by('SQLite');
if (one && three) console.log(`\nspeed-up, 3 workers vs 1: ${(three.perSecond / one.perSecond).toFixed(2)}× (target ≥ 2.2×)`);
if (one && lite) console.log(`PostgreSQL 1 worker vs SQLite: ${(one.perSecond / lite.perSecond).toFixed(2)}× (target ≥ 0.7×)`);
