// Benchmark `bench/export` (issues 16, 30): exporting N findings in every export format from SQLite and
// from PostgreSQL, each run end to end as a user runs it, against a floor measured in the same run on
// the same store.
//
//   node bench/export.ts [--rows 1000000] [--stores sqlite,postgres] [--runs 1] [--node-flags '…']
//                        [--extra-flags '…'] [--pg-url postgres://postgres@127.0.0.1:5432/postgres]
//                        [--only floor,floor-arrays,ocsf,ecs,csv,jsonl,parquet] [--cpu-prof DIR] [--keep]
//                        [--reuse sqlite:PATH|postgres://… --data-dir DIR]
// (--keep leaves the seeded store, SQLite file or PostgreSQL database, in place and prints where it is;
//  --reuse measures a kept store again without seeding it. --extra-flags: Node flags added to the
//  launch flags of every measured process, e.g. '--heap-prof --heap-prof-dir DIR'.)
//
// Set-up (not timed): a fresh store per backend with one Tenable.sc source, N/50 hosts and N findings
// (plugin, name, severity, one or two CVEs, CVSS v2/v3, EPSS, VPR, known-exploited, status, port),
// written as a sync writes them (store pages with a run stamp).
// Every measurement is a fresh process timed whole by /usr/bin/time (from its start to its exit:
// start-up, module loading, opening the store included; wall seconds, user + system CPU seconds, peak
// RSS), with the V8 flags and environment `tributary` is launched with (bench/launch-flags.ts) unless
// --node-flags says otherwise; each writes its output to a file on the same disk (removed after):
//   floor    the cheapest program doing the same unavoidable work: opens the store's driver, reads the
//            same rows (the export's SQL: same columns, joins and WHERE, keyset pages on the id), each
//            driver row JSON.stringify'd as it comes (no conversion to a record, no hosts looked up),
//            one UTF-8 chunk per page, written to a file with backpressure
//   floor-arrays (a second floor, reported beside the first, not instead of it)
//            the same, with the rows read as the export reads them since issue 30 (arrays of values,
//            Driver.allArrays, cheaper to read than the driver's row objects), each array stringified
//   ocsf, ecs, csv, jsonl, parquet
//            `tributary export vulnerabilities --format ocsf|ecs|csv|jsonl|ocsf-parquet --out FILE`
//            (bin/tributary.js, the command a user runs)
// × floor = floor seconds / format seconds of the same run (and the same for CPU seconds, the figure to
// read on a shared machine); the median over runs of those per-run ratios; the same against each
// second floor. Target (issue 30): every format ≥ 0.8 × floor, peak RSS ≤ 200 MB. --runs N: the floors
// and then every format, N times, the formats' order rotated each run.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launchEnv, launchFlags } from './launch-flags.ts';
import { floor } from './export-floors.ts';
import { freshPostgres } from './scratch-database.ts';

const FORMATS = { ocsf: 'ocsf', ecs: 'ecs', csv: 'csv', jsonl: 'jsonl', parquet: 'ocsf-parquet' } as const;
const FLOORS = ['floor', 'floor-arrays'] as const;
const PHASES = [...FLOORS, ...(Object.keys(FORMATS) as (keyof typeof FORMATS)[])] as const;
type Phase = (typeof PHASES)[number];
const MASTER_KEY = Buffer.alloc(32, 21).toString('base64');
const BIN = fileURLToPath(new URL('../bin/tributary.js', import.meta.url));

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    runs: { type: 'string', default: '1' },
    'node-flags': { type: 'string' },
    'extra-flags': { type: 'string', default: '' },
    'pg-url': { type: 'string', default: process.env.TRIBUTARY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    child: { type: 'string' },
    db: { type: 'string' },
    'data-dir': { type: 'string' },
    out: { type: 'string' },
    reuse: { type: 'string' },
    only: { type: 'string', default: PHASES.join(',') },
    'cpu-prof': { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});

async function openBenchApp(db: string, dataDir: string) {
  const { openApp } = await import('../src/app/context.ts');
  const { createLogger } = await import('../src/core/log.ts');
  return openApp({ dataDir, db, env: { ...process.env, TRIBUTARY_MASTER_KEY: MASTER_KEY }, log: createLogger({ level: 'silent' }) });
}

/** Writes the findings as a sync would: pages of 1000 with their hosts, under one run. */
async function seed(db: string, dataDir: string, rows: number): Promise<void> {
  const { nowIso } = await import('../src/store/index.ts');
  const app = await openBenchApp(db, dataDir);
  try {
    const source = await app.store.sources.create(
      'lab',
      'tenable-sc',
      { inputMode: 'api', apiUrl: 'https://sc.example', accessKey: 'a', secretKey: 'b' },
      null,
    );
    const runId = randomBytes(16).toString('hex');
    const generation = randomBytes(16).toString('hex');
    const startedAt = nowIso();
    await app.store.runs.create({ id: runId, sourceId: source.id, mode: 'full', generation, resumedFrom: null, trigger: 'bench', owner: null, startedAt });
    const stamp = { sourceId: source.id, sourceName: source.name, runId, generation, now: startedAt };
    const perHost = 50;
    const sev = ['info', 'low', 'medium', 'high', 'critical'];
    for (let start = 0; start < rows; start += 1000) {
      const n = Math.min(1000, rows - start);
      const hosts = new Map<string, { key: string; fields: Record<string, unknown> }>();
      const vulns = [];
      for (let i = start; i < start + n; i++) {
        const h = Math.floor(i / perHost);
        const hostKey = `h${h}`;
        if (!hosts.has(hostKey)) {
          hosts.set(hostKey, {
            key: hostKey,
            fields: {
              hostname: `srv-${h}`,
              fqdn: `srv-${h}.corp.example.com`,
              ipAddresses: [`10.${(h >> 16) & 255}.${(h >> 8) & 255}.${h & 255}`],
              macAddresses: [
                `00:50:56:${((h >> 16) & 255).toString(16).padStart(2, '0')}:${((h >> 8) & 255).toString(16).padStart(2, '0')}:${(h & 255).toString(16).padStart(2, '0')}`,
              ],
              os: h % 3 ? 'Microsoft Windows Server 2019 Standard' : 'Ubuntu 22.04 LTS',
              netbiosName: `SRV-${h}`,
              repository: 'Internal',
              credentialed: true,
            },
          });
        }
        const plugin = 10_000 + ((i * 7919) % 150_000);
        vulns.push({
          key: `${hostKey}|443|tcp|${plugin}|${i}`,
          hostKey,
          firstSeen: '2026-09-01T00:00:00.000Z',
          lastSeen: '2026-11-20T00:00:00.000Z',
          fields: {
            pluginId: String(plugin),
            pluginName: `Vendor Product ${plugin % 97}.x < ${plugin % 13}.${plugin % 7} Multiple Vulnerabilities`,
            severity: sev[i % 5],
            cves:
              i % 4 === 0
                ? []
                : i % 4 === 1
                  ? [`CVE-2024-${10_000 + (i % 50_000)}`, `CVE-2023-${20_000 + (i % 30_000)}`]
                  : [`CVE-2025-${10_000 + (i % 60_000)}`],
            cvssV2BaseScore: i % 4 === 0 ? null : 5 + (i % 50) / 10,
            cvssV3BaseScore: i % 4 === 0 ? null : 4 + (i % 60) / 10,
            scannerEpssScore: (i % 1000) / 1000,
            vprScore: 1 + (i % 90) / 10,
            scannerKnownExploited: i % 23 === 0,
            status: 'open',
            port: 443,
            protocol: 'tcp',
          },
        });
      }
      await app.store.records.writePage(
        stamp,
        'bench',
        'full',
        { hosts: [...hosts.values()], vulnerabilities: vulns },
        { value: { offset: start + n }, complete: false },
      );
    }
    await app.store.runs.finish(runId, 'succeeded', {}, null);
  } finally {
    await app.close();
  }
}

const isFloor = (p: Phase): p is (typeof FLOORS)[number] => (FLOORS as readonly string[]).includes(p);

interface Measure {
  records: number;
  bytes: number;
  seconds: number;
  cpu: number;
  maxRssMb: number;
}

/** One measured process under /usr/bin/time: its wall and CPU seconds and peak RSS, the records it wrote and the output's size. */
function measure(phase: Phase, db: string, dataDir: string, flags: string[], outDir: string): Promise<Measure> {
  const out = join(outDir, `${phase}.out`);
  const timing = join(outDir, `${phase}.time`);
  const prof = args['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', args['cpu-prof']] : [];
  const extra = args['extra-flags']!.split(/\s+/).filter(Boolean);
  const command = isFloor(phase)
    ? [fileURLToPath(import.meta.url), '--child', phase, '--db', db, '--out', out]
    : [BIN, '--data-dir', dataDir, '--db', db, '--json', 'export', 'vulnerabilities', '--format', FORMATS[phase], '--out', out];
  return new Promise((resolve, reject) => {
    const p = spawn('/usr/bin/time', ['-f', '%e %U %S %M', '-o', timing, process.execPath, ...flags, ...extra, ...prof, ...command], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...launchEnv(), TRIBUTARY_MASTER_KEY: MASTER_KEY },
    });
    let text = '';
    p.stdout.on('data', (d) => {
      text += d;
    });
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${phase} exited ${code}`));
      const [wall, user, sys, rssKb] = readFileSync(timing, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
      const bytes = statSync(out).size;
      rmSync(out, { force: true });
      const records = Number(JSON.parse(isFloor(phase) ? text.trim().split('\n').pop()! : text).records);
      resolve({ records, bytes, seconds: wall, cpu: user + sys, maxRssMb: rssKb / 1024 });
    });
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  // Of an even count, the mean of the middle two (not the upper one).
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** The findings a kept store holds. */
async function countFindings(db: string): Promise<number> {
  const { openDriver } = await import('../src/store/index.ts');
  const driver = await openDriver(db);
  try {
    return Number((await driver.all('SELECT COUNT(*) AS n FROM "rec_vulnerabilities"'))[0].n);
  } finally {
    await driver.close();
  }
}

async function main(): Promise<void> {
  if (args.child === 'floor' || args.child === 'floor-arrays') return floor(args.db!, args.out!, args.child === 'floor-arrays');
  const runs = Number(args.runs);
  const flags = args['node-flags'] !== undefined ? args['node-flags'].split(/\s+/).filter(Boolean) : launchFlags();
  const only = args.only!.split(',') as Phase[];
  if (!only.includes('floor')) throw new Error('--only must include floor (every ratio is to the floor of the same run)');
  const floors = FLOORS.filter((p) => only.includes(p));
  const formats = PHASES.filter((p) => !isFloor(p) && only.includes(p));
  process.stderr.write(`bench/export: ${runs} run(s), node flags ${flags.join(' ') || '(none)'} ${args['extra-flags']}\n`);
  const table: string[] = [
    '| store | run | seconds | records/s | × floor | cpu s | × floor (cpu) | × floor-arrays (cpu) | MB out | peak RSS MB |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const stores = args.reuse ? [args.reuse.startsWith('sqlite:') ? 'sqlite' : 'postgres'] : args.stores!.split(',');
  for (const store of stores) {
    const dataDir = args.reuse ? args['data-dir']! : mkdtempSync(join(tmpdir(), 'tributary-bench-export-'));
    const outDir = mkdtempSync(join(tmpdir(), 'tributary-bench-export-out-'));
    let db = args.reuse ?? `sqlite:${join(dataDir, 'tributary.db')}`;
    let dropPg: (() => Promise<void>) | null = null;
    if (args.reuse) {
      // measured as kept
    } else if (store === 'postgres') {
      const fresh = await freshPostgres(args['pg-url']!);
      db = fresh.url;
      dropPg = fresh.drop;
    } else if (store !== 'sqlite') throw new Error(`unknown store '${store}'`);
    try {
      let rows = Number(args.rows);
      if (args.reuse) rows = await countFindings(db);
      else {
        const t = performance.now();
        await seed(db, dataDir, rows);
        process.stderr.write(`${store}: seeded ${rows} findings in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
      }
      const results = Object.fromEntries(
        PHASES.map((p) => [
          p,
          {
            seconds: [] as number[],
            cpu: [] as number[],
            wallRatio: [] as number[],
            cpuRatio: [] as number[],
            arraysCpuRatio: [] as number[],
            rss: [] as number[],
            bytes: 0,
          },
        ]),
      );
      for (let r = 0; r < runs; r++) {
        const order = formats.map((_, i) => formats[(i + r) % formats.length]);
        const measured: Partial<Record<Phase, Measure>> = {};
        for (const phase of [...floors, ...order]) {
          const res = await measure(phase, db, dataDir, flags, outDir);
          if (res.records !== rows) throw new Error(`${phase} exported ${res.records} of ${rows} records`);
          measured[phase] = res;
          const base = measured.floor!;
          const o = results[phase];
          o.seconds.push(res.seconds);
          o.cpu.push(res.cpu);
          o.wallRatio.push(base.seconds / res.seconds);
          o.cpuRatio.push(base.cpu / res.cpu);
          // The second floor, beside the first.
          if (measured['floor-arrays'] && !isFloor(phase)) o.arraysCpuRatio.push(measured['floor-arrays'].cpu / res.cpu);
          o.rss.push(res.maxRssMb);
          o.bytes = res.bytes;
          process.stderr.write(
            `${store} ${phase} run ${r + 1}: ${res.seconds.toFixed(1)} s (cpu ${res.cpu.toFixed(1)} s), ${Math.round(res.records / res.seconds)} records/s, ${(res.bytes / 1e6).toFixed(0)} MB out, peak RSS ${res.maxRssMb.toFixed(0)} MB; × floor ${(base.seconds / res.seconds).toFixed(2)} (cpu ${(base.cpu / res.cpu).toFixed(2)})\n`,
          );
        }
      }
      for (const phase of PHASES) {
        const o = results[phase];
        if (!o.seconds.length) continue;
        const s = median(o.seconds);
        const second = (xs: number[]) => (xs.length ? median(xs).toFixed(2) : '—');
        table.push(
          `| ${store} | ${phase} | ${s.toFixed(1)} | ${Math.round(rows / s).toLocaleString('en')} | ${median(o.wallRatio).toFixed(2)} | ${median(o.cpu).toFixed(1)} | ${median(o.cpuRatio).toFixed(2)} | ${second(o.arraysCpuRatio)} | ${(o.bytes / 1e6).toFixed(0)} | ${Math.max(...o.rss).toFixed(0)} |`,
        );
      }
    } finally {
      rmSync(outDir, { recursive: true, force: true });
      if (args.keep || args.reuse) process.stderr.write(`kept ${db} (data dir ${dataDir})\n`);
      else {
        await dropPg?.();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  }
  process.stdout.write(table.join('\n') + '\n');
}

await main();
