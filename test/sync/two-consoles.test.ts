// Past one machine, in one test (issue 30): two Tenable.sc consoles (two simulators, two sources) synced
// at once by two pg-boss workers (separate `tributary worker` processes, one sync each at a time) into
// one PostgreSQL store. Both runs overlap in time and run on different workers; each source ends with
// exactly what its console holds (hosts and findings counted through the console's own API) and
// exactly the records a single process syncing that console alone stores; no record of one source
// points at a host of the other, and no record points at a missing host.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { type AppContext, openApp } from '../../src/app/context.ts';
import { addSource } from '../../src/app/sources.ts';
import { TenableScClient } from '../../src/connectors/tenable-sc/client.ts';
import { requireApi } from '../../src/connectors/tenable-sc/config.ts';
import { tenableScConnector } from '../../src/connectors/tenable-sc/index.ts';
import { createLogger } from '../../src/core/log.ts';
import { hasHost, MODEL_NAMES, type ModelName } from '../../src/core/models.ts';
import { SyncQueue } from '../../src/sync/queue.ts';
import { runSync } from '../../src/sync/runner.ts';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { cliEnv } from '../helpers/cli.ts';
import { startWorker as startWorkerOn, type Worker } from '../helpers/worker.ts';
import { BACKENDS, createPostgres, createSqlite, type TestDatabase } from '../helpers/databases.ts';
import { consoleFindingTotal } from '../connectors/tenable-sc/console-totals.ts';

const pg = BACKENDS.find((b) => b.kind === 'postgres')!;
const env = cliEnv({
  TRIBUTARY_QUEUE_HEARTBEAT_SECONDS: '10',
  TRIBUTARY_QUEUE_MONITOR_SECONDS: '1',
  TRIBUTARY_QUEUE_POLL_SECONDS: '0.5',
  TRIBUTARY_QUEUE_RETRY_DELAY_SECONDS: '1',
  TRIBUTARY_LOG_LEVEL: 'warn',
});
process.env.TRIBUTARY_MASTER_KEY = env.TRIBUTARY_MASTER_KEY;

const CONSOLES = [
  { name: 'east', seed: 301, hosts: 50, findingsPerHost: 20 },
  { name: 'west', seed: 302, hosts: 70, findingsPerHost: 15 },
];
const PAGE_SIZE = 50;

const startWorker = (db: TestDatabase) => startWorkerOn(db, env, 1);

const config = (sim: RunningTenableSim) => ({ apiUrl: sim.url, accessKey: sim.analyst.accessKey, secretKey: sim.analyst.secretKey, pageSize: PAGE_SIZE });

/** Every record of a source, read page by page through the store's cursor. */
async function recordsOf(app: AppContext, model: ModelName, sourceId: string) {
  const all = [];
  let cursor: string | null = null;
  do {
    const page = await app.store.records.query(model, { sourceIds: [sourceId], limit: 2000, cursor });
    all.push(...page.records);
    cursor = page.nextCursor;
  } while (cursor);
  return all as (Record<string, unknown> & { id: string; source: string | null; externalId: string | null; removed: boolean })[];
}

/**
 * A source's records as store-independent lines (ids differ between stores: they hash the source's id):
 * source name, external id, removed, a finding's status and a record's host by its external id. Every
 * record's host must be a host of the same source.
 */
async function signature(app: AppContext, sourceName: string): Promise<Record<string, string[]>> {
  const sourceId = (await app.store.sources.get(sourceName)).id;
  const hosts = await recordsOf(app, 'hosts', sourceId);
  const hostKey = new Map(hosts.map((h) => [h.id, h.externalId]));
  const out: Record<string, string[]> = {};
  for (const m of MODEL_NAMES) {
    const recs = await recordsOf(app, m, sourceId);
    out[m] = recs
      .map((r) => {
        assert.equal(r.source, sourceName, `${m} ${r.id} is served under its own source`);
        let host = '';
        if (hasHost(m)) {
          const h = hostKey.get(String(r.hostId));
          assert.ok(h !== undefined, `${sourceName} ${m} ${r.id}: its host ${String(r.hostId)} is a host of the same source`);
          host = String(h);
        }
        return `${r.source}|${r.externalId}|${r.removed}|${'status' in r ? r.status : ''}|${host}`;
      })
      .sort();
  }
  return out;
}

/** What a console holds, through its own API: hosts, and findings the connector reads (Low–Critical, active plugins) open and patched. */
async function consoleHolds(sim: RunningTenableSim): Promise<{ hosts: number; open: number; fixed: number }> {
  const state = (await (await fetch(`${sim.url}/_sim/state`)).json()) as { hosts: number };
  const client = new TenableScClient(requireApi(tenableScConnector.configSchema.parse(config(sim))));
  try {
    const total = (sourceType: 'cumulative' | 'patched') => consoleFindingTotal(client, sourceType);
    return { hosts: state.hosts, open: Number(await total('cumulative')), fixed: Number(await total('patched')) };
  } finally {
    await client.close();
  }
}

const sims: RunningTenableSim[] = [];
let db: TestDatabase;
let app: AppContext;
const workers: Worker[] = [];

before(async () => {
  if (pg.skip) return;
  // Each request takes 40 ms at the console, so each sync runs for seconds and the two overlap.
  for (const c of CONSOLES) sims.push(await startTenableSim({ port: 0, seed: c.seed, hosts: c.hosts, findingsPerHost: c.findingsPerHost, latencyMs: 40 }));
  db = await createPostgres();
  app = await openApp({ dataDir: db.dataDir, db: db.url, log: createLogger({ level: 'silent' }), env });
  for (const [i, c] of CONSOLES.entries()) await addSource(app, 'tenable-sc', c.name, config(sims[i]!));
});

after(async () => {
  for (const w of workers) w.child.kill('SIGKILL');
  await Promise.all(workers.map((w) => w.exited));
  await app?.close();
  await db?.drop();
  for (const s of sims) await s.close();
});

test('two consoles synced at once by two workers into one PostgreSQL store: each source holds exactly its console', {
  skip: pg.skip,
  timeout: 240_000,
}, async () => {
  workers.push(await startWorker(db), await startWorker(db));
  const queue = await new SyncQueue(app).start();
  try {
    for (const c of CONSOLES) assert.ok(await queue.enqueue(c.name, { trigger: 'test', full: true }), `${c.name} enqueued`);
  } finally {
    await queue.stop(false);
  }
  const ids = await Promise.all(CONSOLES.map(async (c) => (await app.store.sources.get(c.name)).id));
  const end = Date.now() + 180_000;
  for (;;) {
    const last = await Promise.all(ids.map((id) => app.store.runs.last(id)));
    if (last.every((r) => r && r.status !== 'running')) break;
    assert.ok(Date.now() < end, `both syncs end in time\n${workers.map((w) => w.log()).join('\n')}`);
    await sleep(250);
  }
  const runs = await Promise.all(ids.map(async (id) => (await app.store.runs.list(id))[0]!));
  for (const [i, r] of runs.entries()) assert.equal(r.status, 'succeeded', `${CONSOLES[i]!.name}: ${r.error}\n${workers.map((w) => w.log()).join('\n')}`);
  assert.equal(runs.length, 2);
  for (const id of ids) assert.equal((await app.store.runs.list(id)).length, 1, 'one run per source: neither was retried');

  // At once, on two workers: the runs overlap in time, and each was owned by a different worker process.
  const [a, b] = runs as [(typeof runs)[0], (typeof runs)[0]];
  assert.ok(
    Date.parse(a.startedAt) < Date.parse(b.finishedAt!) && Date.parse(b.startedAt) < Date.parse(a.finishedAt!),
    `the runs overlap: ${a.startedAt}–${a.finishedAt} and ${b.startedAt}–${b.finishedAt}`,
  );
  const pids = runs.map((r) => Number(String(r.owner).split(':').pop()));
  assert.deepEqual(new Set(pids), new Set(workers.map((w) => w.child.pid)), `each worker ran one sync (owners ${runs.map((r) => r.owner)})`);

  // Each source holds exactly what its console holds, and the two together are the whole store.
  let findings = 0;
  let hosts = 0;
  for (const [i, c] of CONSOLES.entries()) {
    const holds = await consoleHolds(sims[i]!);
    const id = ids[i]!;
    assert.equal(await app.store.records.count('hosts', id), holds.hosts, `${c.name}: hosts`);
    const vulns = await recordsOf(app, 'vulnerabilities', id);
    assert.equal(vulns.filter((v) => v.status === 'fixed').length, holds.fixed, `${c.name}: patched findings`);
    assert.equal(vulns.filter((v) => v.status !== 'fixed').length, holds.open, `${c.name}: open findings`);
    assert.ok(holds.open > c.hosts * 2, `${c.name} holds a real number of findings (${holds.open})`);
    findings += vulns.length;
    hosts += holds.hosts;
  }
  assert.equal(await app.store.records.count('vulnerabilities'), findings, 'no finding outside the two sources');
  assert.equal(await app.store.records.count('hosts'), hosts, 'no host outside the two sources');
  for (const m of MODEL_NAMES) if (hasHost(m)) assert.equal(await app.store.records.orphans(m), 0, `${m}: no record points at a missing host`);

  // The same records, source by source, as one process syncing that console alone into its own store.
  const got = Object.fromEntries(await Promise.all(CONSOLES.map(async (c) => [c.name, await signature(app, c.name)] as const)));
  for (const [i, c] of CONSOLES.entries()) {
    const ref = await createSqlite();
    const refApp = await openApp({ dataDir: ref.dataDir, db: ref.url, log: createLogger({ level: 'silent' }) });
    try {
      await addSource(refApp, 'tenable-sc', c.name, config(sims[i]!));
      assert.equal((await runSync(refApp, c.name, { full: true })).status, 'succeeded');
      const want = await signature(refApp, c.name);
      for (const m of MODEL_NAMES) assert.deepEqual(got[c.name]![m], want[m], `${c.name} ${m}`);
      assert.ok(want.software!.length > 0 && want.ports!.length > 0 && want.compliance!.length > 0, 'every stream stored records');
    } finally {
      await refApp.close();
      await ref.drop();
    }
  }
});
