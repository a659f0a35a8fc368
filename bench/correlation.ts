// Benchmark `bench/correlation` (issue 15): N scanner hosts against ~N CMDB assets of one generated
// estate (sim/shared/estate.ts, with its drift), on SQLite and PostgreSQL. The records are stored first
// (not timed); then a child process, launched with the product's V8 flags, runs the full correlation
// (timed, peak RSS measured in that process), touches 1 % of the hosts in a new run and runs the
// incremental pass after it (timed).
//
//   node bench/correlation.ts [--rows 100000] [--only sqlite,postgres] [--quick]
//                             [--pg-url postgres://postgres@127.0.0.1:5432/test] [--reuse DIR]
//
// --reuse DIR: keeps the loaded store (SQLite: DIR/base-<rows>.db; PostgreSQL: the database
// tributary_bench_base_<rows>, dropped by hand) and measures a copy of it, so a second run skips the
// load (for trying changes to the correlation itself).
//
// Targets: full ≤ 30 s on each store, peak RSS ≤ 400 MB, incremental ≤ 5 % of full.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cmdbIdentity, Estate } from '../sim/shared/estate.ts';
import type { IncomingRecord } from '../src/core/models.ts';
import { SecretBox } from '../src/core/secrets.ts';
import { openStore } from '../src/store/index.ts';
import { launchEnv, launchFlags } from './launch-flags.ts';
import { createPostgres, freshPostgres, postgresExists } from './scratch-database.ts';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    only: { type: 'string', default: 'sqlite,postgres' },
    'pg-url': { type: 'string', default: process.env.TRIBUTARY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    quick: { type: 'boolean', default: false },
    reuse: { type: 'string' },
    // Internal: the measuring child.
    measure: { type: 'string' },
  },
});
const rows = args.quick ? 10_000 : Number(args.rows);
const box = new SecretBox(Buffer.alloc(32, 9));
const PAGE = 5000;

/** The estate whose scanned machines number `rows` (scanned = 90 % of the machines). */
const estateFor = (n: number) => new Estate(15, Math.ceil(n / 0.9));

function hostRecord(e: Estate, i: number, touched = false): IncomingRecord {
  const identity = e.hostIdentity(i);
  return {
    key: `host:${i}`,
    fields: {
      ...identity,
      hostname: touched ? `${identity.hostname}-t` : identity.hostname,
      scannerLastSeen: new Date(Date.now() - (i % 40) * 86_400_000).toISOString(),
    },
  };
}

async function load(url: string): Promise<{ hosts: number; cmdb: number }> {
  const store = await openStore(url, box, () => []);
  try {
    const scan = await store.sources.create('scan', 'fixture', {}, null);
    const desk = await store.sources.create('desk', 'fixture', {}, null);
    const e = estateFor(rows);
    const stamp = (s: { id: string; name: string }, run: string) => ({
      sourceId: s.id,
      sourceName: s.name,
      runId: run,
      generation: 'g0',
      now: new Date().toISOString(),
    });
    for (let i = 0; i < e.scanned; i += PAGE) {
      const page = Array.from({ length: Math.min(PAGE, e.scanned - i) }, (_, k) => hostRecord(e, i + k));
      await store.records.writePage(stamp(scan, 'load'), 'hosts', 'full', { hosts: page }, { value: null, complete: false });
    }
    const cmdb = e.cmdb();
    for (let i = 0; i < cmdb.length; i += PAGE) {
      const page: IncomingRecord[] = cmdb.slice(i, i + PAGE).map((c, k) => ({
        key: `asset:${i + k}`,
        externalId: String(i + k),
        fields: { ...cmdbIdentity(c), department: c.department, assignedUser: `user${(i + k) % 997}` },
      }));
      await store.records.writePage(stamp(desk, 'load'), 'cmdb', 'full', { 'cmdb-assets': page }, { value: null, complete: false });
    }
    return { hosts: e.scanned, cmdb: cmdb.length };
  } finally {
    await store.close();
  }
}

/** In the child: full pass, then 1 % of hosts touched by a new run and the incremental pass. */
async function measure(url: string): Promise<void> {
  if (process.env.CORR_TRACE) {
    const g = globalThis as unknown as { gc: () => void; __corrMark: (l: string) => void };
    let last = performance.now();
    g.__corrMark = (l: string) => {
      const rss0 = process.memoryUsage().rss;
      const before = process.memoryUsage().heapUsed;
      g.gc();
      const m = process.memoryUsage();
      const now = performance.now();
      process.stderr.write(
        `  ${l.padEnd(28)} +${((now - last) / 1000).toFixed(2)}s heap ${(before / 1e6).toFixed(0)}→${(m.heapUsed / 1e6).toFixed(0)} MB cpu ${(process.cpuUsage().user / 1e6).toFixed(1)}+${(process.cpuUsage().system / 1e6).toFixed(1)}s rss ${(rss0 / 1e6).toFixed(0)} MB maxrss ${(process.resourceUsage().maxRSS / 1024).toFixed(0)}\n`,
      );
      last = performance.now();
    };
  }
  const store = await openStore(url, box, () => []);
  try {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const full = await store.correlation.correlateAll();
    const fullMs = performance.now() - t0;
    const fullCpu = process.cpuUsage(c0);
    const fullRss = process.resourceUsage().maxRSS / 1024;
    const scan = await store.sources.get('scan');
    const e = estateFor(rows);
    const touched = Math.max(1, Math.round(e.scanned / 100));
    const step = Math.floor(e.scanned / touched);
    const page = Array.from({ length: touched }, (_, k) => hostRecord(e, k * step, true));
    await store.records.writePage(
      { sourceId: scan.id, sourceName: 'scan', runId: 'touch', generation: 'g1', now: new Date().toISOString() },
      'hosts',
      'incremental',
      { hosts: page },
      { value: null, complete: true },
    );
    const t1 = performance.now();
    const c1 = process.cpuUsage();
    const inc = await store.correlation.correlateRun(scan.id, 'touch', 0);
    const incMs = performance.now() - t1;
    const incCpu = process.cpuUsage(c1);
    process.stdout.write(
      JSON.stringify({
        fullMs,
        incMs,
        fullCpuS: (fullCpu.user + fullCpu.system) / 1e6,
        incCpuS: (incCpu.user + incCpu.system) / 1e6,
        touched,
        assets: full.assets,
        linked: full.linked,
        ambiguous: full.ambiguous,
        incMode: inc?.mode,
        peakRssMb: Math.max(fullRss, process.resourceUsage().maxRSS / 1024),
      }) + '\n',
    );
  } finally {
    await store.close();
  }
}

/** A fresh database; with --reuse, a copy of the loaded one (PostgreSQL's template copy), loaded first when missing. */
async function withPostgres<T>(fn: (url: string) => Promise<T>): Promise<T> {
  let template: string | undefined;
  if (args.reuse) {
    template = `tributary_bench_base_${rows}`;
    if (await postgresExists(args['pg-url'], template)) process.stderr.write(`postgres: reusing database ${template}\n`);
    else {
      const base = await createPostgres(args['pg-url'], template);
      try {
        const t = performance.now();
        const loaded = await load(base.url);
        process.stderr.write(`postgres: stored ${loaded.hosts} hosts and ${loaded.cmdb} CMDB assets in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
      } catch (err) {
        await base.drop();
        throw err;
      }
    }
  }
  const db = await freshPostgres(args['pg-url'], template);
  try {
    return await fn(db.url);
  } finally {
    await db.drop();
  }
}

async function scenario(kind: string, url: string, reuse?: { base: string; run: string } | 'loaded'): Promise<void> {
  const t = performance.now();
  if (reuse === 'loaded') {
    // loaded already
  } else if (reuse && existsSync(reuse.base)) process.stderr.write(`${kind}: reusing ${reuse.base}\n`);
  else {
    const loaded = await load(reuse ? `sqlite:${(reuse as { base: string }).base}` : url);
    process.stderr.write(`${kind}: stored ${loaded.hosts} hosts and ${loaded.cmdb} CMDB assets in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
  }
  if (reuse && reuse !== 'loaded') copyFileSync(reuse.base, reuse.run);
  const self = fileURLToPath(import.meta.url);
  const child = spawnSync(
    process.execPath,
    [...launchFlags(), ...(process.env.CORR_TRACE ? ['--expose-gc'] : []), self, '--measure', url, '--rows', String(rows)],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      env: launchEnv(),
    },
  );
  if (child.status !== 0) throw new Error(`${kind}: the measuring process failed (${child.status})`);
  const r = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as {
    fullMs: number;
    incMs: number;
    fullCpuS: number;
    incCpuS: number;
    touched: number;
    assets: number;
    linked: number;
    ambiguous: number;
    incMode: string;
    peakRssMb: number;
  };
  const pct = (100 * r.incMs) / r.fullMs;
  process.stdout.write(
    `${kind.padEnd(9)} full ${(r.fullMs / 1000).toFixed(2)} s (CPU ${r.fullCpuS.toFixed(1)} s; ${r.assets} assets, ${r.linked} links, ${r.ambiguous} ambiguous)  incremental after ${r.touched} hosts touched (${r.incMode}) ${(r.incMs / 1000).toFixed(2)} s (CPU ${r.incCpuS.toFixed(2)} s) = ${pct.toFixed(1)} % of full  peak RSS ${r.peakRssMb.toFixed(0)} MB  (load average ${loadavg()[0]!.toFixed(1)})\n`,
  );
}

if (args.measure) {
  await measure(args.measure);
} else {
  const only = new Set(args.only.split(','));
  if (only.has('sqlite')) {
    const dir = args.reuse ?? mkdtempSync(join(tmpdir(), 'tributary-bench-corr-'));
    const run = join(dir, 'tributary.db');
    try {
      await scenario('sqlite', `sqlite:${run}`, args.reuse ? { base: join(dir, `base-${rows}.db`), run } : undefined);
    } finally {
      if (args.reuse) for (const f of [run, `${run}-wal`, `${run}-shm`]) rmSync(f, { force: true });
      else rmSync(dir, { recursive: true, force: true });
    }
  }
  if (only.has('postgres')) await withPostgres((url) => scenario('postgres', url, args.reuse ? 'loaded' : undefined));
}
