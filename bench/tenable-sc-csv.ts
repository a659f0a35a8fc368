// Benchmark `bench/tenable-sc-csv` (issue 4 §3): Tributary's Tenable.sc CSV import against a floor
// measured in the same run, on the same generated file.
//
//   node bench/tenable-sc-csv.ts [--rows 1000000] [--runs 1] [--keep] [--file PATH] [--node-flags '…']
//                                [--only parse,floor,tributary] [--cpu-prof DIR] [--store sqlite|postgres]
//                                [--pg-url postgres://postgres@127.0.0.1:5432/postgres]
//
// --node-flags: V8/Node flags for the floor and tributary children (the same for both, for fairness);
// without it, the flags `tributary` is launched with (bench/launch-flags.ts). --runs N: floor and
// tributary alternate N times; the median time and the highest peak RSS are reported.
// --file: reuse a generated export (kept with --keep) instead of writing one. --only: which children
// run (the floor needs a Tributary run's records: with --only floor one runs untimed first). --cpu-prof DIR: the tributary child writes V8 CPU profiles (one per thread) into DIR.
//
// The file: a generated Vulnerability Detail List export with the 44 columns of a real Tenable.sc
// export (quoted, comma-separated, multi-line `Plugin Output: …` cells, 50 findings per host of which
// 5 are inventory plugins: scan info, OS, software list, netstat, service detection), written as a
// stream to a temp dir (≈1.4 KB a row, ≈1.4 GB for a million rows).
//
// Every measurement runs in a fresh child process, so each peak RSS (getrusage maxrss) is its own:
//   parse      the chosen parser (src/filedrop/csv/reader.ts) alone over the file
//   floor      the same parser over the file + bare prepared INSERTs of the very records the import
//              stored (hosts, findings, software, ports, compliance, plugins, and the change feed's
//              events: read back, untimed to compute, from
//              the Tributary run of the same iteration, with every column as stored) into a fresh
//              database migrated with our migrations (same tables and indexes), each table's share of
//              records per 2000 CSV rows, one transaction each. No validation, mapping, ids, upserts,
//              checkpoints or bookkeeping: the ratio measures those, not the cost of storing more.
//              (Reading the records back costs the floor a SELECT step per record.)
//   tributary  the real path: the file is uploaded into a fresh data dir's bucket by a child of its
//              own (not timed, and not in the import's peak RSS), then a fresh child runs
//              `runSync` (a full run) of a tenable-sc source in file mode with includeInformational on
//              (every row is a vulnerability), timed from the call to its return: planning, header
//              detection, parsing, validation, mapping (plugin-output parsers for software/ports/OS),
//              host records, upserts with checkpoints, import bookkeeping, counts and the sweep. Pages
//              are written by the store's SQLite writer thread while the next is parsed, as in the
//              product (src/store/db/sqlite-writer.ts); the process's peak RSS includes that thread.
// --store postgres: the import into a fresh PostgreSQL database each run (beside the one --pg-url
// names); its floor reads the records back through a cursor per table (values as the server's text) and
// stores them with one COPY per table per 2000 CSV rows into another fresh database, same migrations.
// rows/s = CSV data rows / seconds. Bytes stored per finding: the findings table and its indexes
// (dbstat), and the whole database file, over the number of findings, after the last run.
// Target: tributary ≥ 0.8 × floor, peak RSS ≤ 300 MB.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { VULN_DETAIL_COLUMNS } from '../sim/tenable-sc/export-columns.ts';
import { launchEnv, launchFlags } from './launch-flags.ts';
import { freshPostgres } from './scratch-database.ts';

export const SC_COLUMNS: string[] = [...VULN_DETAIL_COLUMNS];

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const SEV = ['Info', 'Low', 'Medium', 'High', 'Critical'];
const pad = (n: number) => String(n).padStart(2, '0');

export function scDate(epochSeconds: number): string {
  const d = new Date(epochSeconds * 1000);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC`;
}

/** xorshift32: fast, deterministic. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

const q = (s: string) => `"${s.replace(/"/g, '""')}"`;

const LOREM =
  'The remote host is affected by a vulnerability that allows a remote, unauthenticated attacker to execute arbitrary code or cause a denial of service. ' +
  'Note that Nessus has not tested for this issue but has instead relied only on the application\u2019s self-reported version number. ';

/** Plugins a generated host gets, with the share of hosts that report each. */
interface PluginDef {
  id: string;
  name: string;
  family: string;
  sev: number;
  port: number;
  proto: string;
  output: (host: number, r: () => number) => string;
}

const PACKAGES = [
  'openssl',
  'bash',
  'glibc',
  'zlib',
  'curl',
  'openssh',
  'systemd',
  'sudo',
  'python3',
  'perl',
  'tar',
  'gzip',
  'coreutils',
  'kernel',
  'nss',
  'libxml2',
];

const INFO_PLUGINS: PluginDef[] = [
  {
    id: '19506',
    name: 'Nessus Scan Information',
    family: 'Settings',
    sev: 0,
    port: 0,
    proto: 'TCP',
    output: () =>
      'Information about this scan : \n\nNessus version : 10.7.2\nPlugin feed version : 202405140312\nScanner IP : 10.0.0.5\nCredentialed checks : yes\nScan Start Date : 2024/5/14 3:12 UTC',
  },
  {
    id: '11936',
    name: 'OS Identification',
    family: 'General',
    sev: 0,
    port: 0,
    proto: 'TCP',
    output: (h) =>
      `\nRemote operating system : ${h % 3 === 0 ? 'Microsoft Windows Server 2019' : 'Linux Kernel 5.14 on Red Hat Enterprise Linux 9'}\nConfidence level : 99\nMethod : ${h % 3 === 0 ? 'SMB' : 'LinuxDistribution'}\n`,
  },
  {
    id: '22869',
    name: 'Software Enumeration (SSH)',
    family: 'General',
    sev: 0,
    port: 0,
    proto: 'TCP',
    output: (_h, r) => {
      const lines = ['Here is the list of packages installed on the remote Red Hat Linux system : ', ''];
      for (let i = 0; i < 24; i++)
        lines.push(
          `  ${PACKAGES[i % PACKAGES.length]}${i >= PACKAGES.length ? '-libs' : ''}-${1 + Math.floor(r() * 3)}.${Math.floor(r() * 20)}.${Math.floor(r() * 9)}-${1 + Math.floor(r() * 5)}.el9|(none)`,
        );
      return lines.join('\n');
    },
  },
  {
    id: '34220',
    name: 'Netstat Portscanner (WMI)',
    family: 'Port scanners',
    sev: 0,
    port: 443,
    proto: 'TCP',
    output: () => 'Port 443/tcp was found to be open',
  },
  {
    id: '22964',
    name: 'Service Detection',
    family: 'Service detection',
    sev: 0,
    port: 22,
    proto: 'TCP',
    output: () => 'An SSH server is running on this port.',
  },
];

function vulnPlugin(i: number): PluginDef {
  const id = String(100000 + ((i * 7919) % 90000));
  return {
    id,
    name: `Vendor Product ${i % 97} Multiple Vulnerabilities (ADV-${2020 + (i % 5)}-${i % 1000})`,
    family: ['General', 'Web Servers', 'Windows', 'Red Hat Local Security Checks', 'Databases'][i % 5]!,
    sev: 1 + (i % 4),
    port: [443, 80, 22, 445, 0, 1433][i % 6]!,
    proto: 'TCP',
    output: (_h, r) =>
      `\n  Installed version : ${1 + Math.floor(r() * 9)}.${Math.floor(r() * 30)}.${Math.floor(r() * 99)}\n  Fixed version     : ${10 + Math.floor(r() * 9)}.0.1\n  Path              : /usr/lib/vendor/product${i % 13}\n`,
  };
}

export interface GenOptions {
  rows: number;
  seed?: number;
  /** Findings per host (default 50). */
  perHost?: number;
}

/** Writes the export to `path`; resolves with the byte size. */
export async function writeVulnDetailCsv(path: string, opts: GenOptions): Promise<number> {
  const r = rng(opts.seed ?? 42);
  const perHost = opts.perHost ?? 50;
  const out = createWriteStream(path, { highWaterMark: 1 << 20 });
  let bytes = 0;
  const write = async (s: string) => {
    bytes += Buffer.byteLength(s);
    if (!out.write(s)) await once(out, 'drain');
  };
  await write(`${SC_COLUMNS.map(q).join(',')}\n`);
  const base = 1_714_000_000;
  let buf = '';
  for (let n = 0; n < opts.rows; n++) {
    const host = Math.floor(n / perHost);
    const j = n % perHost;
    const p = j < INFO_PLUGINS.length ? INFO_PLUGINS[j]! : vulnPlugin(host * 31 + j);
    const ip = `10.${(host >> 16) & 255}.${(host >> 8) & 255}.${host & 255}`;
    const mac = `00:50:56:${pad(((host >> 16) & 255) % 100)}:${pad(((host >> 8) & 255) % 100)}:${pad((host & 255) % 100)}`;
    const first = base - Math.floor(r() * 86400 * 300);
    const last = base + Math.floor(r() * 86400 * 7);
    const cves = p.sev > 0 ? Array.from({ length: 1 + (n % 3) }, (_, k) => `CVE-20${18 + (k % 6)}-${1000 + ((n * 13 + k) % 40000)}`).join(',') : '';
    const row = [
      p.id,
      p.name,
      p.family,
      SEV[p.sev]!,
      ip,
      p.proto,
      String(p.port),
      p.sev > 2 ? 'Yes' : 'No',
      `Repo ${host % 4}`,
      mac,
      `host${host}.corp.example`,
      `CORP\\HOST${host}`,
      `Plugin Output: ${p.output(host, r)}`,
      'The remote host is missing a security update.',
      LOREM.repeat(1 + (n % 3)).trim(),
      p.sev > 0 ? 'Upgrade to the latest version or apply the vendor patch.' : 'n/a',
      p.sev > 0 ? `https://www.example.com/advisories/${p.id}\nhttps://nvd.nist.gov/` : '',
      p.sev === 0 ? 'None' : SEV[p.sev]!,
      '',
      p.sev > 0 ? (r() * 10).toFixed(1) : '',
      p.sev > 0 ? (p.sev * 2.3).toFixed(1) : '',
      p.sev > 0 ? (p.sev * 2.4).toFixed(1) : '',
      '',
      '',
      p.sev > 0 ? 'AV:N/AC:L/Au:N/C:P/I:P/A:P' : '',
      p.sev > 0 ? 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' : '',
      p.sev > 0 ? 'cpe:/a:vendor:product' : '',
      cves,
      '',
      p.sev > 2 ? `IAVA #2024-A-${pad(n % 100)}${n % 50 === 0 ? ',CISA-KNOWN-EXPLOITED #2024/05/03' : ''}` : '',
      scDate(first),
      scDate(last),
      p.sev > 0 ? scDate(base - 400 * 86400) : 'N/A',
      p.sev > 0 ? scDate(base - 300 * 86400) : 'N/A',
      scDate(base - 500 * 86400),
      scDate(base - 10 * 86400),
      p.sev > 2 ? 'Exploits are available' : '',
      '',
      p.sev === 0 ? 'summary' : 'local',
      '1.12',
      '',
      '',
      '',
      '',
    ];
    buf += `${row.map(q).join(',')}\n`;
    if (buf.length > 1 << 20) {
      await write(buf);
      buf = '';
    }
  }
  if (buf) await write(buf);
  out.end();
  await once(out, 'finish');
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Children.

interface Measured {
  kind: string;
  rows: number;
  seconds: number;
  peakRssMb: number;
  /** User + system CPU seconds of the timed part (every thread of the process). */
  cpu?: number;
  note?: string;
}

const maxRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

async function parseOnly(file: string): Promise<Measured> {
  const { readCsv, isBlankRecord } = await import('../src/filedrop/csv/reader.ts');
  const t = performance.now();
  let rows = -1;
  let chars = 0;
  for await (const batch of readCsv(createReadStream(file, { highWaterMark: 256 * 1024 }))) {
    for (const r of batch) {
      if (isBlankRecord(r.fields)) continue;
      rows++;
      chars += r.fields.length;
    }
  }
  return { kind: 'parse', rows, seconds: (performance.now() - t) / 1000, peakRssMb: maxRssMb(), note: `${chars} cells` };
}

/**
 * Reads the file's data rows (blank records and the header skipped) and calls `onPage` with the rows read
 * so far after every `pageRows` of them, as the import's pages; returns the number of data rows.
 */
async function inPagesOfRows(file: string, pageRows: number, onPage: (rowsSoFar: number) => unknown): Promise<number> {
  const { readCsv, isBlankRecord } = await import('../src/filedrop/csv/reader.ts');
  let rows = 0;
  let header = false;
  let inPage = 0;
  for await (const batch of readCsv(createReadStream(file, { highWaterMark: 256 * 1024 }))) {
    for (const r of batch) {
      if (isBlankRecord(r.fields)) continue;
      if (!header) {
        header = true;
        continue;
      }
      rows++;
      if (++inPage >= pageRows) {
        await onPage(rows);
        inPage = 0;
      }
    }
  }
  return rows;
}

/**
 * Tables of what the import stores, in the order a page writes them: the records, the plugin catalog
 * (one record per plugin, issue 14) and the change feed (an event per new record, issue 14), which the
 * import must store too.
 */
const RECORD_TABLES = ['rec_hosts', 'rec_vulnerabilities', 'rec_software', 'rec_ports', 'rec_compliance', 'rec_plugins', 'changes'];

/**
 * The PostgreSQL floor: the same parser over the file, and the records the import stored (read back
 * from its database through one cursor per table, values as PostgreSQL's text) stored with a COPY per
 * table per 2000 CSV rows, one transaction each, into a fresh database migrated with our migrations.
 */
async function floorPostgres(file: string, db: string, recordsDb: string): Promise<Measured> {
  await import('../src/filedrop/csv/reader.ts'); // loaded before the clock starts (inPagesOfRows reads with it)
  const { MIGRATIONS } = await import('../src/store/index.ts');
  const pg = (await import('pg')).default;
  const { from: copyFrom } = await import('pg-copy-streams');
  const { pipeline } = await import('node:stream/promises');
  const { Readable } = await import('node:stream');
  const out = new pg.Client({ connectionString: db });
  await out.connect();
  for (const m of MIGRATIONS) await out.query(m.postgres ?? m.sql);
  const src = new pg.Client({ connectionString: recordsDb });
  await src.connect();
  // Every value as the server's text, unparsed: the floor copies it as it came.
  const asText = { getTypeParser: () => (v: string) => v };
  await src.query('BEGIN');
  const totalRows = Number((await src.query('SELECT SUM(rows_read) AS n FROM file_imports')).rows[0].n);
  const tables: { name: string; cols: string[]; total: number; done: number }[] = [];
  for (const t of RECORD_TABLES) {
    const cols = (
      await src.query(
        `SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND table_schema = current_schema() AND is_generated = 'NEVER' ORDER BY ordinal_position`,
        [t],
      )
    ).rows.map((c: { column_name: string }) => `"${c.column_name}"`);
    const total = Number((await src.query(`SELECT COUNT(*) AS n FROM ${t}`)).rows[0].n);
    await src.query(`DECLARE c_${t} NO SCROLL CURSOR FOR SELECT ${cols.join(',')} FROM ${t} ORDER BY ctid`);
    tables.push({ name: t, cols, total, done: 0 });
  }
  const esc = (v: unknown) =>
    v === null || v === undefined ? '\\N' : String(v).replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
  /** COPYs each table's share of its records for the CSV rows read so far, in one transaction. */
  const insertUpTo = async (rows: number) => {
    await out.query('BEGIN');
    for (const t of tables) {
      const target = rows >= totalRows ? t.total : Math.floor((t.total * rows) / totalRows);
      if (target <= t.done) continue;
      const got = await src.query({ text: `FETCH ${target - t.done} FROM c_${t.name}`, rowMode: 'array', types: asText });
      if (got.rows.length === 0) continue;
      let text = '';
      for (const r of got.rows as unknown[][]) text += r.map(esc).join('\t') + '\n';
      await pipeline(Readable.from([text]), out.query(copyFrom(`COPY ${t.name} (${t.cols.join(',')}) FROM STDIN`)));
      t.done += got.rows.length;
    }
    await out.query('COMMIT');
  };
  const t0 = performance.now();
  const cpu0 = cpuSeconds();
  const rows = await inPagesOfRows(file, 2000, insertUpTo);
  await insertUpTo(Number.POSITIVE_INFINITY);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds() - cpu0;
  await src.query('COMMIT');
  await src.end();
  await out.end();
  const stored = tables.map((t) => t.done).reduce((a, b) => a + b, 0);
  return { kind: 'floor', rows, seconds, cpu, peakRssMb: maxRssMb(), note: `${stored} records` };
}

async function floor(file: string, db: string, recordsDb: string): Promise<Measured> {
  if (db.startsWith('postgres')) return floorPostgres(file, db, recordsDb);
  await import('../src/filedrop/csv/reader.ts'); // loaded before the clock starts (inPagesOfRows reads with it)
  const { MIGRATIONS } = await import('../src/store/index.ts');
  const { DatabaseSync } = await import('node:sqlite');
  const sq = new DatabaseSync(db);
  sq.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  for (const m of MIGRATIONS) sq.exec(m.sql);
  // The records the import stored (a Tributary run on the same file), read back in the order it wrote
  // them: the floor stores exactly those, with the same columns, ids and values, into the same tables
  // and indexes, without computing any of them.
  const src = new DatabaseSync(recordsDb, { readOnly: true });
  const totalRows = Number((src.prepare('SELECT SUM(rows_read) AS n FROM file_imports').get() as { n: number }).n);
  const tables = RECORD_TABLES.map((t) => {
    const cols = (src.prepare(`SELECT name FROM pragma_table_info('${t}')`).all() as { name: string }[]).map((c) => `"${c.name}"`);
    const total = Number((src.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n);
    const read = src.prepare(`SELECT ${cols.join(',')} FROM ${t} ORDER BY rowid`);
    read.setReturnArrays(true);
    const insert = sq.prepare(`INSERT INTO ${t} (${cols.join(',')}) VALUES (${cols.map(() => '?').join(',')})`);
    return { total, it: read.iterate() as Iterator<unknown[]>, insert, done: 0 };
  });
  /** Inserts each table's share of its records for the CSV rows read so far. */
  const insertUpTo = (rows: number) => {
    for (const t of tables) {
      const target = rows >= totalRows ? t.total : Math.floor((t.total * rows) / totalRows);
      for (; t.done < target; t.done++) {
        const n = t.it.next();
        if (n.done) break;
        t.insert.run(...(n.value as (string | number | null)[]));
      }
    }
  };
  const t0 = performance.now();
  const cpu0 = cpuSeconds();
  sq.exec('BEGIN IMMEDIATE');
  // One transaction per 2000 CSV rows, as the import's pages.
  const rows = await inPagesOfRows(file, 2000, (soFar) => {
    insertUpTo(soFar);
    sq.exec('COMMIT');
    sq.exec('BEGIN IMMEDIATE');
  });
  insertUpTo(Number.POSITIVE_INFINITY);
  sq.exec('COMMIT');
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds() - cpu0;
  src.close();
  const stored = tables.map((t) => t.done).reduce((a, b) => a + b, 0);
  sq.close();
  return { kind: 'floor', rows, seconds, cpu, peakRssMb: maxRssMb(), note: `${stored} records` };
}

/** Bytes a database stores per finding: the findings table with its indexes, and the whole file. */
async function bytesPerFinding(path: string): Promise<{ findings: number; tableBytes: number; fileBytes: number }> {
  const { DatabaseSync } = await import('node:sqlite');
  const d = new DatabaseSync(path);
  try {
    d.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const findings = Number((d.prepare('SELECT COUNT(*) AS n FROM rec_vulnerabilities').get() as { n: number }).n);
    const names = (d.prepare(`SELECT name FROM sqlite_schema WHERE tbl_name = 'rec_vulnerabilities'`).all() as { name: string }[]).map((r) => r.name);
    const table = Number((d.prepare(`SELECT SUM(pgsize) AS n FROM dbstat WHERE name IN (${names.map(() => '?').join(',')})`).get(...names) as { n: number }).n);
    const file = Number((d.prepare('SELECT page_count * page_size AS n FROM pragma_page_count, pragma_page_size').get() as { n: number }).n);
    return { findings, tableBytes: findings ? table / findings : 0, fileBytes: findings ? file / findings : 0 };
  } finally {
    d.close();
  }
}

/** Opens the app of a bench data dir (production log level, written nowhere unless BENCH_LOG is set). */
async function benchApp(dataDir: string, db?: string) {
  const { openApp } = await import('../src/app/context.ts');
  const { createLogger } = await import('../src/core/log.ts');
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  // BENCH_LOG=1: the run's log (debug level) on stderr, to see where its time goes (stream, indexes, epilogue).
  const log = createLogger({ level: process.env.BENCH_LOG ? 'debug' : 'info', destination: process.env.BENCH_LOG ? process.stderr : sink });
  return openApp({ dataDir, db, log, env: {} });
}

/** Not timed, and in its own process so the import's peak RSS is the import's: the source and the upload. */
async function prepare(file: string, dataDir: string, db?: string): Promise<Measured> {
  const { addSource } = await import('../src/app/sources.ts');
  const { uploadFiles } = await import('../src/filedrop/upload.ts');
  const app = await benchApp(dataDir, db);
  const t = performance.now();
  await addSource(app, 'tenable-sc', 'bench', { inputMode: 'file', includeInformational: true });
  await uploadFiles(app, 'bench', [file]);
  const seconds = (performance.now() - t) / 1000;
  await app.close();
  return { kind: 'upload', rows: 0, seconds, peakRssMb: maxRssMb() };
}

async function tributary(dataDir: string, db?: string): Promise<Measured> {
  const { runSync } = await import('../src/sync/runner.ts');
  const { listImports } = await import('../src/filedrop/imports.ts');
  const app = await benchApp(dataDir, db);
  const source = (await app.store.sources.get('bench'))!;
  const sampler = process.env.MEMSAMPLE
    ? setInterval(() => {
        const m = process.memoryUsage();
        process.stderr.write(
          `mem ${new Date().toISOString().slice(11, 19)} rss ${Math.round(m.rss / 1048576)} heapTotal ${Math.round(m.heapTotal / 1048576)} heapUsed ${Math.round(m.heapUsed / 1048576)} ext ${Math.round(m.external / 1048576)}\n`,
        );
      }, 3000)
    : null;
  const t = performance.now();
  const cpu0 = cpuSeconds();
  const result = await runSync(app, 'bench', { full: true });
  if (sampler) clearInterval(sampler);
  const seconds = (performance.now() - t) / 1000;
  const cpu = cpuSeconds() - cpu0;
  const peakRssMb = maxRssMb();
  const [imp] = await listImports(app, source.id);
  await app.close();
  if (result.status !== 'succeeded') throw new Error(`the run ended ${result.status}: ${result.error}`);
  const c = result.streams;
  const note = `vulnerabilities ${c.vulnerabilities?.records}, hosts ${c.hosts?.records}, software ${c.software?.records}, ports ${c.ports?.records}; file ${imp?.status}, ${imp?.rowsRejected} rejected`;
  return { kind: 'tributary', rows: imp?.rowsImported ?? 0, seconds, cpu, peakRssMb, note };
}

// ---------------------------------------------------------------------------------------------
// Parent.

function child(args: string[], nodeFlags: string[] = []): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...nodeFlags, fileURLToPath(import.meta.url), ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: launchEnv() });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) return reject(new Error(`child ${args.join(' ')} exited ${code}`));
      resolve(JSON.parse(out.trim().split('\n').pop()!) as Measured);
    });
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string', default: '1000000' },
      keep: { type: 'boolean', default: false },
      child: { type: 'string' },
      file: { type: 'string' },
      out: { type: 'string' },
      records: { type: 'string' },
      'node-flags': { type: 'string' },
      runs: { type: 'string', default: '1' },
      only: { type: 'string' },
      'cpu-prof': { type: 'string' },
      store: { type: 'string', default: 'sqlite' },
      db: { type: 'string' },
      'pg-url': { type: 'string', default: process.env.TRIBUTARY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    },
  });
  if (values.child) {
    const file = values.file!;
    const c = values.child;
    const r =
      c === 'parse'
        ? await parseOnly(file)
        : c === 'floor'
          ? await floor(file, values.out!, values.records!)
          : c === 'upload'
            ? await prepare(file, values.out!, values.db)
            : await tributary(values.out!, values.db);
    process.stdout.write(`${JSON.stringify(r)}\n`);
    return;
  }
  const rows = Number(values.rows);
  const dir = mkdtempSync(join(tmpdir(), 'tributary-bench-csv-'));
  try {
    let file = values.file;
    let bytes: number;
    if (file) bytes = statSync(file).size;
    else {
      file = join(dir, 'vulnerability-detail-list.csv');
      const t = performance.now();
      bytes = await writeVulnDetailCsv(file, { rows });
      process.stderr.write(`generated ${rows} rows, ${(bytes / 1e6).toFixed(0)} MB in ${((performance.now() - t) / 1000).toFixed(1)} s: ${file}\n`);
    }
    const only = new Set((values.only ?? 'parse,floor,tributary').split(','));
    const flags = values['node-flags'] !== undefined ? values['node-flags'].split(/\s+/).filter(Boolean) : launchFlags();
    const flagText = flags.length ? flags.join(' ') : 'no flags';
    const prof = values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', values['cpu-prof']] : [];
    const runs = Math.max(1, Number(values.runs));
    const pgStore = values.store === 'postgres';
    if (!pgStore && values.store !== 'sqlite') throw new Error(`--store must be sqlite or postgres`);
    const results: { m: Measured; ratio: boolean }[] = [];
    if (only.has('parse')) results.push({ m: await child(['--child', 'parse', '--file', file]), ratio: false });
    // Floor and Tributary alternate, so a slow spell of a shared machine hits both; medians are reported.
    const floors: Measured[] = [];
    const tribs: Measured[] = [];
    const floorDb = join(dir, 'floor.db');
    const tribDb = join(dir, 'data', 'tributary.db');
    let sizes: { floor?: Awaited<ReturnType<typeof bytesPerFinding>>; tributary?: Awaited<ReturnType<typeof bytesPerFinding>> } = {};
    for (let i = 0; i < runs; i++) {
      // Tributary first: the floor stores the records this run stored (it needs them, even when only
      // the floor is measured).
      // PostgreSQL: a fresh database for each run's import and one for its floor, dropped after the run.
      const pgDbs = pgStore ? [await freshPostgres(values['pg-url']!), await freshPostgres(values['pg-url']!)] : [];
      const runDb = pgStore ? ['--db', pgDbs[0].url] : [];
      const runFloorDb = pgStore ? pgDbs[1].url : floorDb;
      const runRecordsDb = pgStore ? pgDbs[0].url : tribDb;
      try {
        if (only.has('tributary') || only.has('floor')) {
          rmSync(join(dir, 'data'), { recursive: true, force: true });
          await child(['--child', 'upload', '--file', file, '--out', join(dir, 'data'), ...runDb]);
          const m = await child(['--child', 'tributary', '--file', file, '--out', join(dir, 'data'), ...runDb], [...flags, ...prof]);
          if (only.has('tributary')) tribs.push(m);
        }
        if (only.has('floor')) {
          for (const ext of ['', '-wal', '-shm']) rmSync(floorDb + ext, { force: true });
          floors.push(await child(['--child', 'floor', '--file', file, '--out', runFloorDb, '--records', runRecordsDb], flags));
        }
      } finally {
        for (const d of pgDbs) await d.drop();
      }
      if (pgStore) {
        // no dbstat: sizes are SQLite's
      } else if (i === runs - 1) sizes = { ...(only.has('floor') ? { floor: await bytesPerFinding(floorDb) } : {}), tributary: await bytesPerFinding(tribDb) };
      if (runs > 1)
        process.stderr.write(
          `run ${i + 1}/${runs}: ${[...floors.slice(-1), ...tribs.slice(-1)].map((m) => `${m.kind} ${m.seconds.toFixed(1)} s (cpu ${m.cpu?.toFixed(1)} s), ${m.peakRssMb} MB`).join('; ')}\n`,
        );
    }
    /** The run with the median time, with the highest peak RSS of all runs. */
    const median = (ms: Measured[], kind: string): Measured | null => {
      if (ms.length === 0) return null;
      const sorted = [...ms].sort((a, b) => a.seconds - b.seconds);
      return { ...sorted[Math.floor((sorted.length - 1) / 2)]!, kind: `${kind}, ${flagText}`, peakRssMb: Math.max(...ms.map((m) => m.peakRssMb)) };
    };
    const fl = median(floors, 'floor');
    if (fl) results.push({ m: fl, ratio: true });
    const trib = median(tribs, 'tributary');
    if (trib) results.push({ m: trib, ratio: true });
    const rate = (m: Measured) => m.rows / m.seconds;
    const cpuOf = (ms: Measured[]) =>
      ms.length ? [...ms.map((m) => m.cpu ?? Number.NaN)].sort((a, b) => a - b)[Math.floor((ms.length - 1) / 2)]! : Number.NaN;
    const cpuRatio = (m: Measured) => (m.kind.startsWith('tributary') ? cpuOf(floors) / cpuOf(tribs) : m.kind.startsWith('floor') ? 1 : Number.NaN);
    const line = (m: Measured, ratio: string) =>
      `| ${m.kind} | ${m.rows.toLocaleString('en-US')} | ${m.seconds.toFixed(1)} | ${Math.round(rate(m)).toLocaleString('en-US')} | ${(bytes / 1e6 / m.seconds).toFixed(0)} | ${m.peakRssMb} | ${ratio} | ${m.kind.startsWith('tributary') ? cpuOf(tribs).toFixed(1) : m.kind.startsWith('floor') ? cpuOf(floors).toFixed(1) : ''} | ${Number.isNaN(cpuRatio(m)) ? '' : cpuRatio(m).toFixed(2)} |`;
    const out = [
      `Tenable.sc CSV import, ${rows.toLocaleString('en-US')} rows, ${(bytes / 1e6).toFixed(0)} MB, ${pgStore ? 'PostgreSQL' : 'SQLite'}, node ${process.version}`,
      '',
      '| run | rows | seconds | rows/s | MB/s | peak RSS MB | vs floor | cpu s | vs floor (cpu) |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...results.map(({ m, ratio }) => line(m, ratio && fl ? (rate(m) / rate(fl)).toFixed(2) : '')),
      '',
    ];
    for (const [kind, b] of Object.entries(sizes)) {
      if (b)
        out.push(
          `${kind}: ${b.findings.toLocaleString('en-US')} findings, ${Math.round(b.tableBytes)} bytes stored per finding (table and indexes), ${Math.round(b.fileBytes)} bytes of database per finding`,
        );
    }
    if (fl) out.push(`floor: ${fl.note}`);
    if (trib) {
      out.push(`tributary: ${trib.note}`);
      const last = results[results.length - 1]!.m;
      if (fl)
        out.push(
          `target (${last.kind}): ≥ 0.80 × floor (${rate(last) / rate(fl) >= 0.8 ? 'met' : 'NOT met'}), peak RSS ≤ 300 MB (${last.peakRssMb <= 300 ? 'met' : 'NOT met'})`,
        );
    }
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    if (!values.keep) rmSync(dir, { recursive: true, force: true });
    else process.stderr.write(`kept ${dir}\n`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
