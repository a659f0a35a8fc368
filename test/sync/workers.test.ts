// PostgreSQL mode with pg-boss workers as separate processes: three sources, two workers, one killed
// with SIGKILL mid-run → every run succeeds and the data equals a single-process run; schedules fire
// once with two workers; SIGTERM drains (page in flight stored, run interrupted, resumed elsewhere).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { type AppContext, openApp } from '../../src/app/context.ts';
import { addSource, configureSource } from '../../src/app/sources.ts';
import { createLogger } from '../../src/core/log.ts';
import { MODEL_NAMES } from '../../src/core/models.ts';
import { runSync } from '../../src/sync/runner.ts';
import { SyncQueue } from '../../src/sync/queue.ts';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { buildServer } from '../../src/server/server.ts';
import { cliEnv } from '../helpers/cli.ts';
import { startWorker as startWorkerOn, type Worker } from '../helpers/worker.ts';
import { ADMIN_PASSWORD, apiToken, bearer, waitForRun } from '../server/helpers.ts';
import { BACKENDS, createPostgres, createSqlite, type TestDatabase } from '../helpers/databases.ts';
import { queryAll } from '../helpers/store.ts';

const pg = BACKENDS.find((b) => b.kind === 'postgres')!;
const env = cliEnv({
  TRIBUTARY_QUEUE_HEARTBEAT_SECONDS: '10',
  TRIBUTARY_QUEUE_MONITOR_SECONDS: '1',
  TRIBUTARY_QUEUE_POLL_SECONDS: '0.5',
  TRIBUTARY_QUEUE_RETRY_DELAY_SECONDS: '1',
  TRIBUTARY_SCHEDULER_TICK_MS: '300',
  TRIBUTARY_LOG_LEVEL: 'warn',
});
process.env.TRIBUTARY_MASTER_KEY = env.TRIBUTARY_MASTER_KEY;

const startWorker = (db: TestDatabase) => startWorkerOn(db, env, 2);

async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 90_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

async function snapshot(app: AppContext) {
  const out: Record<string, string[]> = {};
  for (const m of MODEL_NAMES)
    out[m] = (await queryAll(app.store, m, 5000)).map((r) => `${r.id}|${r.removed}|${'status' in r ? r.status : ''}|${'hostId' in r ? r.hostId : ''}`).sort();
  return out;
}

describe('pg-boss workers', { skip: pg.skip }, () => {
  const sims: RunningTenableSim[] = [];
  let db: TestDatabase;
  let app: AppContext;
  const workers: Worker[] = [];

  before(async () => {
    for (let i = 0; i < 3; i++) sims.push(await startTenableSim({ port: 0, seed: 10 + i, hosts: 40, findingsPerHost: 12, latencyMs: 80 }));
    db = await createPostgres();
    app = await openApp({ dataDir: db.dataDir, db: db.url, log: createLogger({ level: 'silent' }) });
    for (const [i, sim] of sims.entries()) {
      await addSource(app, 'tenable-sc', `console-${i}`, { apiUrl: sim.url, accessKey: sim.analyst.accessKey, secretKey: sim.analyst.secretKey, pageSize: 25 });
    }
  });
  after(async () => {
    for (const w of workers) w.child.kill('SIGKILL');
    await app?.close();
    await db?.drop();
    for (const s of sims) await s.close();
  });

  test('a worker killed mid-run: its job resumes on another worker and the data equals a single-process run', async () => {
    workers.push(await startWorker(db), await startWorker(db));
    const queue = await new SyncQueue(app).start();
    try {
      for (let i = 0; i < 3; i++) assert.ok(await queue.enqueue(`console-${i}`, { trigger: 'test' }));
    } finally {
      await queue.stop(false);
    }
    const ids = await Promise.all([0, 1, 2].map(async (i) => (await app.store.sources.get(`console-${i}`)).id));
    // Kill the worker running a sync once that sync has stored some pages.
    const victim = await waitFor('a run with progress', async () => {
      for (const id of ids) {
        const run = await app.store.runs.active(id);
        if (run && Object.values(run.counts).some((c) => c.records > 0)) return run;
      }
      return null;
    });
    const pid = Number(victim.owner?.split(':').pop());
    const killed = workers.find((w) => w.child.pid === pid);
    assert.ok(killed, `run ${victim.id} is owned by one of our workers (${victim.owner})`);
    killed.child.kill('SIGKILL');
    assert.equal(await killed.exited, 'SIGKILL');

    await waitFor(
      'all three sources synced',
      async () => {
        const last = await Promise.all(ids.map((id) => app.store.runs.last(id)));
        return last.every((r) => r?.status === 'succeeded');
      },
      120_000,
    );
    const victimRun = await app.store.runs.get(victim.id);
    assert.equal(victimRun.status, 'interrupted');
    const runs = await app.store.runs.list(victim.sourceId);
    const resumed = runs.find((r) => r.resumedFrom === victim.id);
    const cps = [...(await app.store.runs.checkpoints(victim.sourceId)).values()].map(
      (c) => `${c.stream}:${c.generation === victim.generation ? 'victim-gen' : 'other'}:${c.complete}`,
    );
    assert.ok(
      resumed,
      `a later run resumed the killed one: ${JSON.stringify(runs.map((r) => [r.id === victim.id ? 'victim' : r.id.slice(0, 6), r.status, r.resumedFrom === victim.id, r.mode, r.trigger, r.error]))} ${cps}\n${workers.map((w) => w.log()).join('\n')}`,
    );
    assert.equal(resumed.status, 'succeeded');

    // The same consoles synced by one process into a fresh store give the same records.
    const ref = await createSqlite();
    const refApp = await openApp({ dataDir: ref.dataDir, db: ref.url, log: createLogger({ level: 'silent' }) });
    try {
      for (const [i, sim] of sims.entries()) {
        await addSource(refApp, 'tenable-sc', `console-${i}`, {
          apiUrl: sim.url,
          accessKey: sim.analyst.accessKey,
          secretKey: sim.analyst.secretKey,
          pageSize: 25,
        });
        assert.equal((await runSync(refApp, `console-${i}`)).status, 'succeeded');
      }
      const [got, want] = [await snapshot(app), await snapshot(refApp)];
      for (const m of MODEL_NAMES) assert.deepEqual(got[m], want[m], m);
      assert.ok(want.vulnerabilities.length > 300);
    } finally {
      await refApp.close();
      await ref.drop();
    }
  });

  test('a due schedule fires once with two workers running', async () => {
    const alive = workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
    while (alive.length < 2) {
      const w = await startWorker(db);
      workers.push(w);
      alive.push(w);
    }
    const sim = sims[0];
    await addSource(app, 'tenable-sc', 'scheduled', {
      apiUrl: sim.url,
      accessKey: sim.analyst.accessKey,
      secretKey: sim.analyst.secretKey,
      pageSize: 500,
      schedule: '1h',
    });
    const id = (await app.store.sources.get('scheduled')).id;
    await waitFor('the scheduled run', async () => (await app.store.runs.last(id))?.status === 'succeeded', 60_000);
    await sleep(3000); // several scheduler ticks of both workers
    const runs = await app.store.runs.list(id);
    assert.equal(runs.length, 1, runs.map((r) => `${r.trigger} ${r.status}`).join(', '));
    assert.match(runs[0].trigger ?? '', /^schedule:job:/);
    await configureSource(app, 'scheduled', { schedule: '' });
  });

  test('SIGTERM drains: the page in flight is stored, the run ends interrupted and resumes on another worker', async () => {
    for (const w of workers) w.child.kill('SIGKILL');
    workers.length = 0;
    const w1 = await startWorker(db);
    workers.push(w1);
    const sim = sims[1];
    await call(sim, { latencyMs: 150 });
    const queue = await new SyncQueue(app).start();
    try {
      assert.ok(await queue.enqueue('console-1', { trigger: 'test', full: true }));
    } finally {
      await queue.stop(false);
    }
    const id = (await app.store.sources.get('console-1')).id;
    const running = await waitFor('progress', async () => {
      const r = await app.store.runs.active(id);
      return r && Object.values(r.counts).some((c) => c.records > 0) ? r : null;
    });
    const t0 = Date.now();
    w1.child.kill('SIGTERM');
    assert.equal(await w1.exited, 0, w1.log());
    assert.ok(Date.now() - t0 < 15_000, 'the drain took the page in flight, not the whole run');
    const drained = await app.store.runs.get(running.id);
    assert.equal(drained.status, 'interrupted', drained.error ?? '');
    const cps = await app.store.runs.checkpoints(id);
    assert.ok(
      [...cps.values()].some((c) => c.generation === drained.generation && !c.complete),
      'a checkpoint of the drained run is stored',
    );
    await call(sim, { latencyMs: 0 });
    workers.push(await startWorker(db));
    const resumed = await waitFor(
      'the resumed run',
      async () => (await app.store.runs.list(id)).find((r) => r.resumedFrom === drained.id && r.status === 'succeeded'),
      30_000,
    );
    assert.equal(resumed.mode, 'full');
    assert.equal(resumed.generation, drained.generation);
  });
});

test('PostgreSQL mode: the API enqueues Sync now and a serve process works the queue', { skip: pg.skip }, async () => {
  const sim = await startTenableSim({ port: 0, seed: 21, hosts: 10, findingsPerHost: 5 });
  const db = await createPostgres();
  const app = await openApp({ dataDir: db.dataDir, db: db.url, log: createLogger({ level: 'silent' }), env });
  const server = await buildServer(app, { worker: true, env: { TRIBUTARY_ADMIN_PASSWORD: ADMIN_PASSWORD } });
  try {
    await addSource(app, 'tenable-sc', 'via-api', { apiUrl: sim.url, accessKey: sim.analyst.accessKey, secretKey: sim.analyst.secretKey });
    const token = await apiToken(server);
    const res = await server.inject({ method: 'POST', url: '/api/v1/sources/via-api/sync', headers: bearer(token), payload: {} });
    assert.equal(res.statusCode, 202, res.body);
    const body = res.json() as { runId: string | null; jobId: string };
    assert.match(body.jobId, /^[0-9a-f-]{36}$/);
    assert.ok(body.runId, 'this server worked the job and reported its run');
    const run = await waitForRun(server, token, body.runId, 30_000);
    assert.equal(run.status, 'succeeded');
    assert.match(String(run.trigger ?? (await app.store.runs.get(body.runId)).trigger), /job:/);
  } finally {
    await server.close();
    await app.close();
    await db.drop();
    await sim.close();
  }
});

async function call(sim: RunningTenableSim, faults: Record<string, unknown>) {
  const res = await fetch(`${sim.url}/_sim/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) });
  assert.equal(res.status, 200);
}
