// Benchmark `bench/changes` (issue 14, Performance): how long one page of the change feed takes on a
// store holding 1,000,000 findings and 100,000 change events (target ≤ 50 ms a page).
//
//   node bench/changes.ts [--findings 1000000] [--events 100000] [--store sqlite|postgres|both]
//                         [--quick] [--repeat 20] [--pg-url postgres://postgres@127.0.0.1:5432/test]
//
// The store is filled directly (not by syncs, which would take far longer than what is measured):
// hosts (one per 50 findings), findings, and events spread over 20 runs of two sources as a sync
// writes them (mostly findings: new, fixed, reopened; hosts new and removed; software; tickets updated),
// through the store's own migrations and the driver's bulk insert. Then each query below is asked
// `--repeat` times through Store.records.changes (what the API and the CLI call) and its median and 90th
// percentile times printed: a first page, a page deep in the feed (by cursor), `since` a run, a rare model, one
// source, one record's history, a kind of change. --quick: 100,000 findings and 10,000 events.
// The feed is indexed by its order and by model in that order (each index more costs every event a
// first import writes): a filter on a source, or on one record, reads the feed up to the first page of
// matches (the generated desk events start with run 1); `since` bounds that.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { SecretBox } from '../src/core/secrets.ts';
import { openStore, recordId, type Store } from '../src/store/index.ts';
import { withScratchDatabase } from './scratch-database.ts';

type StoreKind = 'sqlite' | 'postgres';
const PAGE = 100;

const { values } = parseArgs({
  options: {
    findings: { type: 'string' },
    events: { type: 'string' },
    store: { type: 'string', default: 'both' },
    quick: { type: 'boolean', default: false },
    repeat: { type: 'string', default: '20' },
    'pg-url': { type: 'string', default: process.env.TRIBUTARY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
  },
});
const findings = Number(values.findings ?? (values.quick ? 100_000 : 1_000_000));
const events = Number(values.events ?? (values.quick ? 10_000 : 100_000));
const repeat = Math.max(1, Number(values.repeat));
const stores: StoreKind[] = values.store === 'both' ? ['sqlite', 'postgres'] : [values.store as StoreKind];

const iso = (ms: number) => new Date(ms).toISOString();
const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'];
const T0 = Date.parse('2026-10-01T00:00:00.000Z');
const RUNS = 20;

/** Fills the store: sources, runs, hosts, findings and events. Returns what the queries need. */
async function fill(store: Store): Promise<{ runs: string[]; sourceIds: string[]; recordWithHistory: string }> {
  const db = store.db;
  const sources = [await store.sources.create('lab', 'tenable-sc', {}, null), await store.sources.create('desk', 'servicedesk-plus', {}, null)];
  const runs: string[] = [];
  for (let r = 0; r < RUNS; r++) {
    const id = randomUUID();
    const source = sources[r % 2 === 0 ? 0 : 1]!;
    await store.runs.create({
      id,
      sourceId: source.id,
      mode: 'full',
      generation: randomUUID(),
      resumedFrom: null,
      trigger: 'bench',
      owner: null,
      startedAt: iso(T0 + r * 12 * 3600_000),
    });
    await store.runs.finish(id, 'succeeded', {}, null);
    runs.push(id);
  }
  const lab = sources[0]!.id;
  const hostCount = Math.max(1, Math.round(findings / 50));
  const hostIds: string[] = [];
  const batch = async (table: string, columns: string[], rows: unknown[][], key: string | null = '"id"') => {
    const head = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(',')})`;
    const tail = key ? ` ON CONFLICT (${key}) DO NOTHING` : '';
    for (let i = 0; i < rows.length; i += 5000) await db.transaction((tx) => tx.insertMany({ head, columns: columns.length, tail }, rows.slice(i, i + 5000)));
  };
  const common = ['id', 'source_id', 'natural_key', 'external_id', 'first_seen', 'last_seen', 'removed', 'seen_gen', 'seen_run'];
  let rows: unknown[][] = [];
  for (let h = 0; h < hostCount; h++) {
    const key = `uuid:host-${h}`;
    const id = recordId('lab', 'hosts', key);
    hostIds.push(id);
    rows.push([
      id,
      lab,
      key,
      `host-${h}`,
      iso(T0),
      iso(T0),
      0,
      'g',
      runs[0],
      JSON.stringify([`10.${(h >> 16) & 255}.${(h >> 8) & 255}.${h & 255}`]),
      `host-${h}`,
    ]);
  }
  await batch('rec_hosts', [...common, 'ip_addresses', 'hostname'], rows);
  const findingIds: string[] = [];
  for (let f = 0; f < findings; f += 50_000) {
    rows = [];
    for (let i = f; i < Math.min(findings, f + 50_000); i++) {
      const host = hostIds[i % hostCount]!;
      const key = `uuid:host-${i % hostCount}|${443 + (i % 7)}|tcp|${10000 + i}`;
      const id = recordId('lab', 'vulnerabilities', key, host);
      if (findingIds.length < events) findingIds.push(id);
      const status = i % 10 === 0 ? 'fixed' : 'open';
      rows.push([
        id,
        lab,
        key,
        randomUUID(),
        iso(T0 - (i % 400) * 86400_000),
        iso(T0),
        0,
        'g',
        runs[0],
        host,
        String(10000 + i),
        `Plugin ${10000 + i}`,
        SEVERITIES[i % 5],
        status,
        443 + (i % 7),
        'tcp',
      ]);
    }
    await batch('rec_vulnerabilities', [...common, 'host_id', 'plugin_id', 'plugin_name', 'severity', 'status', 'port', 'protocol'], rows);
  }
  // Events: 70 % findings (new, then fixed / reopened), 12 % hosts, 10 % software, 6 % tickets (desk), 2 % users (desk).
  rows = [];
  const ids = new Set<string>();
  for (let e = 0; rows.length < events; e++) {
    const run = e % RUNS;
    const at = iso(T0 + run * 12 * 3600_000 + (e % 997) * 1000);
    const slot = e % 50;
    let model: string;
    let rec: string;
    let change: string;
    let from: string | null = null;
    let to: string | null = null;
    let source = lab;
    if (slot < 35) {
      model = 'vulnerabilities';
      rec = findingIds[e % findingIds.length]!;
      change = ['new', 'new', 'fixed', 'reopened'][e % 4]!;
      [from, to] = change === 'new' ? [null, 'open'] : change === 'fixed' ? ['open', 'fixed'] : ['fixed', 'reopened'];
    } else if (slot < 41) {
      model = 'hosts';
      rec = hostIds[e % hostIds.length]!;
      change = e % 3 === 0 ? 'removed' : 'new';
    } else if (slot < 46) {
      model = 'software';
      rec = recordId('lab', 'software', `sw-${e}`, hostIds[e % hostIds.length]);
      change = 'new';
    } else if (slot < 49) {
      model = 'tickets';
      source = sources[1]!.id;
      rec = recordId('desk', 'tickets', `t-${e % 2000}`);
      change = 'updated';
      [from, to] = ['Open', 'Resolved'];
    } else {
      model = 'users';
      source = sources[1]!.id;
      rec = recordId('desk', 'users', `u-${e}`);
      change = 'new';
    }
    // One event per record, run and change, as the store writes them.
    const key = `${rec}|${run}|${change}`;
    if (ids.has(key)) continue;
    ids.add(key);
    rows.push([at, rec, change, source, model, null, from, to, runs[run]]);
  }
  // Written in time order, as runs write them (the feed is numbered in that order).
  rows.sort((x, y) => (String(x[0]) < String(y[0]) ? -1 : String(x[0]) > String(y[0]) ? 1 : 0));
  await batch('changes', ['at', 'record_id', 'change', 'source_id', 'model', 'external_id', 'from', 'to', 'run_id'], rows, null);
  if (db.dialect === 'postgres') await db.exec('ANALYZE');
  return { runs, sourceIds: sources.map((s) => s.id), recordWithHistory: findingIds[0]! };
}

async function time(fn: () => Promise<unknown>): Promise<{ median: number; p90: number }> {
  const ms: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)]!, p90: ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.9))]! };
}

async function benchStore(kind: StoreKind): Promise<string[][]> {
  return withScratchDatabase(kind, values['pg-url']!, async (url) => {
    const store = await openStore(url, new SecretBox(Buffer.alloc(32, 5)), () => []);
    try {
      const t = performance.now();
      const { runs, sourceIds, recordWithHistory } = await fill(store);
      process.stderr.write(
        `${kind}: ${findings.toLocaleString('en-US')} findings and ${events.toLocaleString('en-US')} events stored in ${((performance.now() - t) / 1000).toFixed(1)} s\n`,
      );
      // A cursor half-way through the feed: follow pages of 1000 to there once.
      let deep: string | null = null;
      for (let seen = 0; seen < events / 2; seen += 1000) deep = (await store.records.changes({ limit: 1000, cursor: deep })).nextCursor;
      const since = await store.records.resolveSince(runs[RUNS - 3]!);
      const oneRun = await store.records.resolveRun(runs[RUNS - 3]!);
      const queries: [string, () => Promise<unknown>][] = [
        ['first page', () => store.records.changes({ limit: PAGE })],
        ['page half-way (cursor)', () => store.records.changes({ limit: PAGE, cursor: deep })],
        ['after a run (3rd last)', () => store.records.changes({ limit: PAGE, since })],
        ['one run (3rd last)', () => store.records.changes({ limit: PAGE, run: oneRun })],
        ['model = users (2 %)', () => store.records.changes({ limit: PAGE, models: ['users'] })],
        ['source = desk, after a run', () => store.records.changes({ limit: PAGE, sourceIds: [sourceIds[1]!], since })],
        ['change = reopened', () => store.records.changes({ limit: PAGE, changes: ['reopened'] })],
        ["one finding's history", () => store.records.changes({ limit: PAGE, filters: [{ field: 'recordId', op: '=', value: recordWithHistory }] })],
        ['page of 1000', () => store.records.changes({ limit: 1000 })],
      ];
      const out: string[][] = [];
      for (const [name, fn] of queries) {
        const r = await time(fn);
        out.push([kind, name, r.median.toFixed(1), r.p90.toFixed(1), r.p90 <= 50 ? 'yes' : 'NO']);
      }
      return out;
    } finally {
      await store.close();
    }
  });
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}

const results: string[][] = [['store', 'query (page of 100 unless said)', 'median ms', 'p90 ms', 'p90 ≤ 50 ms']];
for (const kind of stores) results.push(...(await benchStore(kind)));
process.stdout.write(
  `\n${table(results)}\n\n${findings.toLocaleString('en-US')} findings, ${events.toLocaleString('en-US')} events, ${repeat} times each; node ${process.version}.\n`,
);
