// Benchmark `bench/export` (issue 16): exporting N findings as OCSF and as ECS from SQLite and from
// PostgreSQL, against a floor measured in the same run on the same store.
//
//   node bench/export.ts [--rows 1000000] [--stores sqlite,postgres] [--runs 1] [--node-flags '…']
//                        [--pg-url postgres://postgres@127.0.0.1:5432/postgres] [--only floor,ocsf,ecs]
//                        [--cpu-prof DIR] [--keep]
// (--keep leaves the seeded store, SQLite file or PostgreSQL database, in place and prints where it
//  is, for profiling a phase by hand: node bench/export.ts --child ocsf --db sqlite:PATH|URL --data-dir DIR)
//
// Set-up (not timed): a fresh store per backend with one Tenable.sc source, N/50 hosts and N findings
// (plugin, name, severity, one or two CVEs, CVSS v2/v3, EPSS, VPR, known-exploited, status, port),
// written as a sync writes them (store pages with a run stamp).
// Every measurement then runs in a fresh child process (own peak RSS, getrusage maxrss), with the V8
// flags `tributary` is launched with (bench/launch-flags.ts) unless --node-flags says otherwise:
//   floor    the same finding rows read from the store by the export's own reader (src/store/records/export-read.ts
//            recordPages: same SQL, same joins, same keyset pages (stream.ts EXPORT_PAGE_SIZE), same record conversion) and each
//            record JSON.stringify'd, one chunk per page encoded as UTF-8, into a sink that discards it. The floor does not
//            read the hosts (the export reads each page's few hosts, 20 per 1000 findings here: part of its work)
//   ocsf     src/export/stream.ts exportChunks(vulnerabilities, OCSF 1.1.0): paging, the hosts of each
//            page looked up, mapping to Vulnerability Finding, stringify, into the same sink
//   ecs      the same with the ECS mapping
//   parquet  the same as OCSF 1.1.0 Parquet (--format ocsf-parquet; not part of the target: a measure)
// records/s = N / seconds (wall clock); cpu s = the child's user + system CPU time, which says more than
// the wall clock when other processes share the machine. Target: ocsf and ecs ≥ 0.8 × floor, peak RSS
// ≤ 200 MB. --runs N alternates the phases N times and reports the median time and the highest peak RSS.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launchEnv, launchFlags } from './launch-flags.ts';
import { freshPostgres } from './scratch-database.ts';

const PHASES = ['floor', 'ocsf', 'ecs', 'parquet'] as const;
type Phase = (typeof PHASES)[number];
const MASTER_KEY = Buffer.alloc(32, 21).toString('base64');

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    runs: { type: 'string', default: '1' },
    'node-flags': { type: 'string' },
    'pg-url': { type: 'string', default: process.env.TRIBUTARY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    child: { type: 'string' },
    db: { type: 'string' },
    'data-dir': { type: 'string' },
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

/** A sink that discards what it is given, one callback per chunk (so backpressure is exercised). */
const discard = () =>
  new Writable({
    highWaterMark: 1 << 20,
    write(_chunk, _enc, cb) {
      cb();
    },
  });

async function child(phase: Phase, db: string, dataDir: string): Promise<void> {
  const app = await openBenchApp(db, dataDir);
  // Every module either phase runs is loaded before the clock starts (module loading is no part of the export).
  const { exportChunks, EXPORT_PAGE_SIZE } = await import('../src/export/stream.ts');
  const startRssMb = process.memoryUsage().rss / 1048576;
  let records = 0;
  let bytes = 0;
  const u0 = process.resourceUsage();
  const cpuBefore = (u0.userCPUTime + u0.systemCPUTime) / 1e6;
  const t0 = performance.now();
  try {
    let source: AsyncIterable<string | Uint8Array>;
    if (phase === 'floor') {
      source = (async function* () {
        for await (const page of app.store.records.pages('vulnerabilities', {}, EXPORT_PAGE_SIZE)) {
          let chunk = '';
          for (const r of page) chunk += JSON.stringify(r) + '\n';
          records += page.length;
          // Encoded once, as the export encodes its chunks (a string would be measured here, then encoded by the sink).
          yield Buffer.from(chunk, 'utf8');
        }
      })();
    } else {
      const fmt =
        phase === 'ocsf'
          ? ({ format: 'ocsf', ocsfVersion: '1.1.0' } as const)
          : phase === 'ecs'
            ? ({ format: 'ecs' } as const)
            : ({ format: 'ocsf-parquet', ocsfVersion: '1.1.0' } as const);
      source = exportChunks(app, { model: 'vulnerabilities' }, fmt, (p) => {
        records = p.records;
      });
    }
    const counted = (async function* () {
      for await (const c of source) {
        bytes += typeof c === 'string' ? Buffer.byteLength(c) : c.byteLength;
        yield c;
      }
    })();
    await pipeline(Readable.from(counted), discard());
  } finally {
    await app.close();
  }
  const seconds = (performance.now() - t0) / 1000;
  const u = process.resourceUsage();
  const cpu = (u.userCPUTime + u.systemCPUTime) / 1e6 - cpuBefore;
  process.stdout.write(JSON.stringify({ phase, records, bytes, seconds, cpu, startRssMb, maxRssMb: u.maxRSS / 1024 }) + '\n');
}

function runChild(
  phase: Phase,
  db: string,
  dataDir: string,
  flags: string[],
): Promise<{ phase: Phase; records: number; bytes: number; seconds: number; cpu: number; startRssMb: number; maxRssMb: number }> {
  return new Promise((resolve, reject) => {
    const prof = args['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', args['cpu-prof']] : [];
    const p = spawn(process.execPath, [...flags, ...prof, fileURLToPath(import.meta.url), '--child', phase, '--db', db, '--data-dir', dataDir], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: launchEnv(),
    });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`${phase} child exited ${code}`))));
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  if (args.child) return child(args.child as Phase, args.db!, args['data-dir']!);
  const rows = Number(args.rows);
  const runs = Number(args.runs);
  const flags = args['node-flags'] !== undefined ? args['node-flags'].split(/\s+/).filter(Boolean) : launchFlags();
  process.stderr.write(`bench/export: ${rows} findings, ${runs} run(s), node flags ${flags.join(' ') || '(none)'}\n`);
  const table: string[] = [
    '| store | run | seconds | records/s | × floor | cpu s | × floor (cpu) | MB out | peak RSS MB |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const store of args.stores!.split(',')) {
    const dataDir = mkdtempSync(join(tmpdir(), 'tributary-bench-export-'));
    let db = `sqlite:${join(dataDir, 'tributary.db')}`;
    let dropPg: (() => Promise<void>) | null = null;
    if (store === 'postgres') {
      const fresh = await freshPostgres(args['pg-url']!);
      db = fresh.url;
      dropPg = fresh.drop;
    } else if (store !== 'sqlite') throw new Error(`unknown store '${store}'`);
    try {
      const t = performance.now();
      await seed(db, dataDir, rows);
      process.stderr.write(`${store}: seeded ${rows} findings in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
      const results = Object.fromEntries(PHASES.map((p) => [p, { seconds: [] as number[], cpu: [] as number[], rss: [] as number[], records: 0, bytes: 0 }]));
      for (let r = 0; r < runs; r++) {
        for (const phase of PHASES) {
          if (!args.only!.split(',').includes(phase)) continue;
          const res = await runChild(phase, db, dataDir, flags);
          if (res.records !== rows) throw new Error(`${phase} exported ${res.records} of ${rows} records`);
          results[phase].seconds.push(res.seconds);
          results[phase].cpu.push(res.cpu);
          results[phase].rss.push(res.maxRssMb);
          results[phase].records = res.records;
          results[phase].bytes = res.bytes;
          process.stderr.write(
            `${store} ${phase} run ${r + 1}: ${res.seconds.toFixed(1)} s (cpu ${res.cpu.toFixed(1)} s), ${Math.round(res.records / res.seconds)} records/s, ${(res.bytes / 1e6).toFixed(0)} MB out, RSS ${res.startRssMb.toFixed(0)} MB at start, peak ${res.maxRssMb.toFixed(0)} MB\n`,
          );
        }
      }
      const floorRate = results.floor.seconds.length ? rows / median(results.floor.seconds) : Number.NaN;
      const floorCpu = results.floor.cpu.length ? median(results.floor.cpu) : Number.NaN;
      for (const phase of PHASES) {
        const r = results[phase];
        if (!r.seconds.length) continue;
        const s = median(r.seconds);
        const rate = rows / s;
        const cpu = median(r.cpu);
        table.push(
          `| ${store} | ${phase} | ${s.toFixed(1)} | ${Math.round(rate).toLocaleString('en')} | ${(rate / floorRate).toFixed(2)} | ${cpu.toFixed(1)} | ${(floorCpu / cpu).toFixed(2)} | ${(r.bytes / 1e6).toFixed(0)} | ${Math.max(...r.rss).toFixed(0)} |`,
        );
      }
    } finally {
      if (args.keep) process.stderr.write(`kept ${db} (data dir ${dataDir})\n`);
      else {
        await dropPg?.();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  }
  process.stdout.write(table.join('\n') + '\n');
}

await main();
