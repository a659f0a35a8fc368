// Measures whether a finding should carry its plugin's synopsis and solution (denormalised) or read them
// from `plugins` by a join: write time and store size for N findings, and read time for a page and for a
// text filter over all of them, on SQLite and PostgreSQL. `node bench/denormalise-measure.ts [--findings 200000] [--store sqlite|postgres|both]`
import { statSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { IncomingRecord } from '../src/core/models.ts';
import { SecretBox } from '../src/core/secrets.ts';
import { openStore, type Store } from '../src/store/index.ts';
import { freshPostgres } from './scratch-database.ts';

const { values } = parseArgs({
  options: {
    findings: { type: 'string', default: '200000' },
    store: { type: 'string', default: 'both' },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
  },
});
const N = Number(values.findings);
const PLUGINS = 2000;
const synopsis = (p: number) => `The remote host is missing a security update for package number ${p}, which fixes several flaws.`;
const solution = (p: number) =>
  `Update the affected package ${p} to the latest version published by the vendor, or apply the vendor's workaround described in advisory ADV-${p}.`;

async function open(kind: string): Promise<{ store: Store; size: () => Promise<number>; drop: () => Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'denorm-'));
    const file = join(dir, 'db.sqlite');
    const store = await openStore(`sqlite:${file}`, new SecretBox(Buffer.alloc(32, 1)), () => []);
    return {
      store,
      size: async () => statSync(file).size + (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const { url, drop } = await freshPostgres(values['pg-url']!);
  const store = await openStore(url, new SecretBox(Buffer.alloc(32, 1)), () => []);
  return {
    store,
    size: async () => Number((await store.db.all(`SELECT pg_total_relation_size('rec_vulnerabilities') AS n`))[0]!.n),
    drop,
  };
}

async function run(kind: string, denormalised: boolean) {
  const { store, size, drop } = await open(kind);
  const source = await store.sources.create('lab', 'fixture', {}, null);
  const stamp = { sourceId: source.id, sourceName: 'lab', runId: 'r', generation: 'g', now: new Date().toISOString() };
  const plugins: IncomingRecord[] = [];
  for (let p = 0; p < PLUGINS; p++)
    plugins.push({ key: String(100000 + p), fields: { pluginId: String(100000 + p), name: `Plugin ${p}`, synopsis: synopsis(p), solution: solution(p) } });
  await store.records.writePage(stamp, 'plugins', 'full', { plugins }, { value: null, complete: false });
  const t0 = performance.now();
  for (let i = 0; i < N; i += 1000) {
    const page: IncomingRecord[] = [];
    for (let j = i; j < Math.min(N, i + 1000); j++) {
      const p = (j * 7919) % PLUGINS;
      const fields: Record<string, unknown> = {
        pluginId: String(100000 + p),
        pluginName: `Plugin ${p}`,
        severity: 'high',
        status: 'open',
        cves: [`CVE-2024-${(j % 9000) + 1000}`],
        port: 443,
        protocol: 'tcp',
        proof: 'Remote package installed : x-1.0\nShould be : x-1.1',
      };
      if (denormalised) Object.assign(fields, { synopsis: synopsis(p), solution: solution(p) });
      page.push({ key: `k${j}`, hostKey: `h${Math.floor(j / 50)}`, fields });
    }
    await store.records.writePage(stamp, 'vulnerabilities', 'full', { vulnerabilities: page }, { value: null, complete: false });
  }
  const writeMs = performance.now() - t0;
  if (kind === 'sqlite') await store.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  // Fresh statistics, as a live store has them (autovacuum / ANALYZE), so the planner sees the tables as they are.
  await store.db.exec('ANALYZE');
  const bytes = await size();
  const join = `LEFT JOIN "rec_plugins" p ON p."source_id" = r."source_id" AND p."plugin_id" = r."plugin_id"`;
  const cols = denormalised ? 'r.*' : 'r.*, p."synopsis" AS "p_synopsis", p."solution" AS "p_solution"';
  const time = async (sql: string, params: unknown[] = [], reps = 5) => {
    const ts: number[] = [];
    for (let k = 0; k < reps; k++) {
      const t = performance.now();
      await store.db.all(sql, params);
      ts.push(performance.now() - t);
    }
    return ts.sort((a, b) => a - b)[Math.floor(reps / 2)]!;
  };
  const pageMs = await time(`SELECT ${cols} FROM "rec_vulnerabilities" r ${denormalised ? '' : join} WHERE r."id" > ? ORDER BY r."id" LIMIT 1000`, ['8']);
  const filterMs = await time(
    denormalised
      ? `SELECT COUNT(*) FROM "rec_vulnerabilities" r WHERE LOWER(r."solution") LIKE ?`
      : `SELECT COUNT(*) FROM "rec_vulnerabilities" r ${join} WHERE LOWER(p."solution") LIKE ?`,
    ['%adv-1234%'],
    3,
  );
  await store.close().catch(() => {});
  await drop();
  return {
    kind,
    variant: denormalised ? 'denormalised' : 'join',
    findings: N,
    writeS: +(writeMs / 1000).toFixed(1),
    perSec: Math.round(N / (writeMs / 1000)),
    mb: +(bytes / 1048576).toFixed(1),
    pageMs: +pageMs.toFixed(1),
    filterMs: Math.round(filterMs),
  };
}

const kinds = values.store === 'both' ? ['sqlite', 'postgres'] : [values.store!];
for (const kind of kinds) {
  // Alternating, twice each: the first run of a process pays for warming up.
  for (const d of [false, true, false, true]) console.log(JSON.stringify(await run(kind, d)));
}
