// The sync runner with a fixture connector, on both stores: counts, idempotent re-runs, incremental
// checkpoints, transient retries, no sweep after a failed run, and resume after a real crash (SIGKILL).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { AppContext } from '../../src/app/context.ts';
import { addSource } from '../../src/app/sources.ts';
import { ConflictError } from '../../src/core/errors.ts';
import { runSync } from '../../src/sync/runner.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { fixtureAppSuite, newControl } from '../helpers/fixture-connector.ts';

process.env.TRIBUTARY_MASTER_KEY = Buffer.alloc(32, 3).toString('base64');
process.env.TRIBUTARY_RETRY_BASE_MS = '1';
const crashScript = fileURLToPath(new URL('../helpers/crash-sync.ts', import.meta.url));

const findings = (n: number, hosts = 3) => Array.from({ length: n }, (_, i) => ({ host: `h${i % hosts}`, plugin: String(100 + i) }));

async function snapshot(app: AppContext, source: string) {
  const s = await app.store.sources.get(source);
  const vulns = await app.store.records.query('vulnerabilities', { sourceIds: [s.id], limit: 10_000 });
  const hosts = await app.store.records.query('hosts', { sourceIds: [s.id], limit: 10_000 });
  const strip = (r: Record<string, unknown>) => ({
    id: r.id,
    removed: r.removed,
    status: r.status,
    pluginId: r.pluginId,
    hostId: r.hostId,
    hostname: r.hostname,
  });
  return { vulns: vulns.records.map(strip), hosts: hosts.records.map(strip) };
}

for (const backend of BACKENDS) {
  describe(`runner on ${backend.kind}`, { skip: backend.skip }, () => {
    const fx = fixtureAppSuite(backend);

    test('a full run stores every page and counts per model; a re-run changes nothing', async () => {
      Object.assign(fx.control, newControl({ hosts: ['h0', 'h1', 'h2'], findings: findings(7) }));
      await addSource(fx.app, 'fixture', 'a', { url: 'https://up.example', token: 'good-token-123' });
      const r1 = await runSync(fx.app, 'a');
      assert.equal(r1.status, 'succeeded');
      assert.equal(r1.mode, 'full', 'the first run of a source is full');
      assert.deepEqual(r1.streams, { hosts: { records: 3, errors: 0 }, vulnerabilities: { records: 7, errors: 0 } });
      const before1 = await snapshot(fx.app, 'a');
      assert.equal(before1.vulns.length, 7);
      assert.ok(
        before1.vulns.every((v) => before1.hosts.some((h) => h.id === v.hostId)),
        'every finding points at a stored host',
      );
      const r2 = await runSync(fx.app, 'a', { full: true });
      assert.equal(r2.status, 'succeeded');
      assert.deepEqual(await snapshot(fx.app, 'a'), before1);
      const run = await fx.app.store.runs.get(r2.runId);
      assert.equal(run.status, 'succeeded');
      assert.deepEqual(run.counts.vulnerabilities, { records: 7, errors: 0 });
      assert.ok(run.finishedAt);
    });

    test('an incremental run gets the last complete checkpoint and never sweeps', async () => {
      fx.control.starts = [];
      fx.control.findings = findings(3);
      const r = await runSync(fx.app, 'a');
      assert.equal(r.mode, 'incremental');
      assert.deepEqual(
        fx.control.starts.find((s) => s.stream === 'findings'),
        { stream: 'findings', mode: 'incremental', checkpoint: { offset: 7 }, resumed: false },
      );
      assert.deepEqual(r.swept, {});
      const snap = await snapshot(fx.app, 'a');
      assert.equal(snap.vulns.filter((v) => v.removed).length, 0, 'nothing removed by an incremental run');
    });

    test('a failed run removes nothing; the next full run sweeps what is gone', async () => {
      fx.control.failFindingsAtPage = 1;
      const failed = await runSync(fx.app, 'a', { full: true });
      assert.equal(failed.status, 'partial', 'hosts succeeded, findings failed');
      assert.match(failed.error ?? '', /findings: upstream refused page 1 \(fixture hint\)/);
      assert.equal((await snapshot(fx.app, 'a')).vulns.filter((v) => v.removed).length, 0);
      assert.equal((await fx.app.store.runs.get(failed.runId)).status, 'partial');
      fx.control.failFindingsAtPage = undefined;
      const ok = await runSync(fx.app, 'a', { full: true });
      assert.equal(ok.status, 'succeeded');
      assert.equal(ok.swept.vulnerabilities, 4);
      const snap = await snapshot(fx.app, 'a');
      assert.equal(snap.vulns.filter((v) => v.removed && v.status === 'fixed').length, 4);
      assert.equal(snap.vulns.filter((v) => !v.removed && v.status === 'open').length, 3);
    });

    test('transient upstream errors restart the stream from its last page', async () => {
      fx.control.findings = findings(6);
      fx.control.transientFailures = 2;
      fx.control.starts = [];
      const r = await runSync(fx.app, 'a', { full: true });
      assert.equal(r.status, 'succeeded');
      assert.equal(r.streams.vulnerabilities.records, 6, 'no page written twice');
      const findingStarts = fx.control.starts.filter((s) => s.stream === 'findings');
      assert.equal(findingStarts.length, 3);
      assert.equal(findingStarts[1].resumed, false, 'failed before the first page: starts over');
      assert.equal(fx.control.transientFailures, 0);
      // The run keeps its retries, the 429s among them, and the log lines that say so.
      const activity = (await fx.app.store.runs.get(r.runId)).activity;
      assert.ok(activity);
      assert.equal(activity.retries, 2);
      assert.equal(activity.rateLimited, 2, 'the fixture answers 429');
      assert.equal(activity.log.filter((l) => l.level === 'warn' && /restarting the stream/.test(l.msg) && /status=429/.test(l.msg)).length, 2);
      assert.ok(activity.log.some((l) => l.msg.startsWith('sync started')));
    });

    test('a run whose process was killed mid-stream is resumed from its checkpoint and ends like a clean run', async () => {
      const data = { hosts: ['h0', 'h1', 'h2'], findings: findings(10), pageSize: 2 };
      Object.assign(fx.control, newControl(data));
      await addSource(fx.app, 'fixture', 'crashy', { url: 'https://up.example', token: 'good-token-123' });
      const child = spawnSync(process.execPath, [crashScript, fx.db.url, fx.db.dataDir, 'crashy', JSON.stringify(data), '3'], {
        encoding: 'utf8',
        env: process.env,
      });
      assert.equal(child.signal, 'SIGKILL', child.stderr);
      const source = await fx.app.store.sources.get('crashy');
      const dead = await fx.app.store.runs.active(source.id);
      assert.ok(dead, 'the killed run is still marked running');
      // Killed while reading page 3: pages 0-1 are stored; page 2 was being stored meanwhile (a page is
      // written while the next is read), so it is either wholly there or not at all.
      const stored = await fx.app.store.records.count('vulnerabilities', source.id);
      assert.ok(stored === 4 || stored === 6, `pages 0-1 (and perhaps 2) were stored before the crash, not ${stored} records`);

      // Something the crashed attempt stored but the resumed one will not see again must survive the sweep.
      fx.control.starts = [];
      const resumed = await runSync(fx.app, 'crashy');
      assert.equal(resumed.status, 'succeeded');
      assert.equal(resumed.resumedFrom, dead.id);
      assert.equal(resumed.mode, 'full');
      assert.deepEqual(
        fx.control.starts,
        [{ stream: 'findings', mode: 'full', checkpoint: { offset: stored }, resumed: true }],
        'hosts was complete; findings resumes after the last stored page',
      );
      // The summary adds up both attempts: the hosts the first stored (their stream is not read
      // again) and the findings of both, as a clean run's summary would say.
      assert.deepEqual(resumed.streams, { hosts: { records: 3, errors: 0 }, vulnerabilities: { records: 10, errors: 0 } });
      assert.deepEqual((await fx.app.store.runs.get(resumed.runId)).counts, resumed.streams, 'the stored run says the same');
      assert.equal((await fx.app.store.runs.get(dead.id)).status, 'interrupted');
      const afterResume = await snapshot(fx.app, 'crashy');
      assert.equal(afterResume.vulns.length, 10);
      assert.equal(afterResume.vulns.filter((v) => v.removed).length, 0, 'nothing from the crashed attempt was swept');

      // The same data synced cleanly into another source gives the same records (ids aside).
      await addSource(fx.app, 'fixture', 'clean', { url: 'https://up.example', token: 'good-token-123' });
      await runSync(fx.app, 'clean');
      const clean = await snapshot(fx.app, 'clean');
      const shape = (s: typeof clean) => s.vulns.map((v) => `${v.pluginId}|${v.status}|${v.removed}`).sort();
      assert.deepEqual(shape(afterResume), shape(clean));
    });

    test('a run stopped between two streams is resumed: the completed stream is skipped, the next starts', async () => {
      Object.assign(fx.control, newControl({ hosts: ['h0', 'h1'], findings: findings(4, 2) }));
      await addSource(fx.app, 'fixture', 'between', { url: 'https://up.example', token: 'good-token-123' });
      const source = await fx.app.store.sources.get('between');
      // The earlier run stored the hosts stream whole, then its process died before findings' first page.
      const gen = `gen-between-${backend.kind}`;
      await fx.app.store.runs.create({
        id: `stopped-${backend.kind}`,
        sourceId: source.id,
        mode: 'full',
        generation: gen,
        resumedFrom: null,
        trigger: 'test',
        owner: null,
        startedAt: new Date().toISOString(),
      });
      await fx.app.store.records.writePage(
        { sourceId: source.id, sourceName: 'between', runId: `stopped-${backend.kind}`, generation: gen, now: new Date().toISOString() },
        'hosts',
        'full',
        {},
        { value: { done: true }, complete: true },
      );
      await fx.app.store.runs.finish(`stopped-${backend.kind}`, 'interrupted', {}, 'interrupted: the process running it stopped before it finished');
      fx.control.starts = [];
      const r = await runSync(fx.app, 'between');
      assert.equal(r.status, 'succeeded');
      assert.equal(r.resumedFrom, `stopped-${backend.kind}`);
      assert.deepEqual(fx.control.starts, [{ stream: 'findings', mode: 'full', checkpoint: null, resumed: false }]);
      assert.equal(r.streams.vulnerabilities.records, 4);
    });

    test('a second sync of a source while one is running is refused', async () => {
      const source = await fx.app.store.sources.get('clean');
      await fx.app.store.runs.create({
        id: `live-${backend.kind}`,
        sourceId: source.id,
        mode: 'full',
        generation: 'g',
        resumedFrom: null,
        trigger: 'test',
        owner: null,
        startedAt: new Date().toISOString(),
      });
      await assert.rejects(runSync(fx.app, 'clean'), ConflictError);
      await fx.app.store.runs.finish(`live-${backend.kind}`, 'failed', {}, 'test');
    });
  });
}
