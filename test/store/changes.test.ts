// The change feed on both stores, through the runner and a fixture connector: the events of a first
// run, of a run that changes nothing (none), of fixes, sweeps, reopenings and new records; fixedAt and
// reopenedAt; since after a run and from a time, one run's events; cursor paging; and a run killed mid-stream and resumed,
// which writes each event once (the same events as the same change synced without a crash).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { AppContext } from '../../src/app/context.ts';
import { addSource } from '../../src/app/sources.ts';
import { InputError } from '../../src/core/errors.ts';
import type { ChangeEvent } from '../../src/core/api-shapes-reports.ts';
import { runSync } from '../../src/sync/runner.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { type FixtureControl, fixtureAppSuite, newControl } from '../helpers/fixture-connector.ts';

process.env.TRIBUTARY_MASTER_KEY = Buffer.alloc(32, 3).toString('base64');
const crashScript = fileURLToPath(new URL('../helpers/crash-sync.ts', import.meta.url));

type Finding = FixtureControl['findings'][number];
const open = (host: string, plugin: string): Finding => ({ host, plugin, status: 'open' });
const fixed = (host: string, plugin: string): Finding => ({ host, plugin, status: 'fixed' });

async function allChanges(app: AppContext, opts: { since?: string; run?: string; source?: string; limit?: number } = {}): Promise<ChangeEvent[]> {
  const sourceIds = opts.source ? [(await app.store.sources.get(opts.source)).id] : undefined;
  const since = opts.since ? await app.store.records.resolveSince(opts.since) : null;
  const run = opts.run ? await app.store.records.resolveRun(opts.run) : null;
  const out: ChangeEvent[] = [];
  let cursor: string | null = null;
  do {
    const page = await app.store.records.changes({ sourceIds, since, run, cursor, limit: opts.limit ?? 1000 });
    out.push(...page.records);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/** Events as `model externalId change from→to`, sorted (the fixture's finding externalId is its plugin). */
const brief = (cs: ChangeEvent[]) => cs.map((c) => `${c.model} ${c.externalId} ${c.change} ${c.from ?? '-'}→${c.to ?? '-'}`).sort();

for (const backend of BACKENDS) {
  describe(`change feed on ${backend.kind}`, { skip: backend.skip }, () => {
    const fx = fixtureAppSuite(backend);

    test('a first run adds one new event per record; a run that changes nothing adds none', async () => {
      Object.assign(
        fx.control,
        newControl({ hosts: ['h0', 'h1', 'h2'], findings: [open('h0', '1'), open('h0', '2'), open('h1', '3'), fixed('h1', '4'), open('h2', '5')] }),
      );
      await addSource(fx.app, 'fixture', 'a', { url: 'https://up.example', token: 'good-token-123' });
      const r1 = await runSync(fx.app, 'a');
      const first = await allChanges(fx.app);
      assert.deepEqual(brief(first), [
        'hosts h0 new -→-',
        'hosts h1 new -→-',
        'hosts h2 new -→-',
        'vulnerabilities 1 new -→open',
        'vulnerabilities 2 new -→open',
        'vulnerabilities 3 new -→open',
        'vulnerabilities 4 new -→fixed',
        'vulnerabilities 5 new -→open',
      ]);
      assert.ok(first.every((c) => c.runId === r1.runId && c.source === 'a'));
      const host = (await fx.app.store.records.query('hosts', { filters: [{ field: 'hostname', op: '=', value: 'h0' }] })).records[0];
      assert.equal(first.find((c) => c.externalId === 'h0')?.recordId, host.id);
      // A finding first seen fixed carries the time Tributary learned it.
      const f4 = (await fx.app.store.records.query('vulnerabilities', { filters: [{ field: 'pluginId', op: '=', value: '4' }] })).records[0];
      assert.equal(f4.fixedAt, first.find((c) => c.externalId === '4')?.at);
      assert.equal(f4.reopenedAt, null);

      const r2 = await runSync(fx.app, 'a', { full: true });
      assert.equal(r2.status, 'succeeded');
      assert.equal((await allChanges(fx.app)).length, first.length, 'the unchanged full run added no event');
      assert.deepEqual(await allChanges(fx.app, { run: r2.runId }), []);
    });

    test('fixes, sweeps, reopenings and new records are events of the run that saw them, with fixedAt and reopenedAt', async () => {
      // 1 is fixed upstream, 2 and host h2 (with 5) are gone, 4 is open again, 6 is new.
      fx.control.hosts = ['h0', 'h1'];
      fx.control.findings = [fixed('h0', '1'), open('h1', '3'), open('h1', '4'), open('h0', '6')];
      const r3 = await runSync(fx.app, 'a', { full: true });
      assert.equal(r3.status, 'succeeded');
      const events = await allChanges(fx.app, { run: r3.runId });
      assert.deepEqual(brief(events), [
        'hosts h2 removed -→-',
        'vulnerabilities 1 fixed open→fixed',
        'vulnerabilities 2 fixed open→fixed',
        'vulnerabilities 4 reopened fixed→reopened',
        'vulnerabilities 5 fixed open→fixed',
        'vulnerabilities 6 new -→open',
      ]);
      assert.ok(events.every((c) => c.runId === r3.runId));
      const byPlugin = async (p: string) =>
        (await fx.app.store.records.query('vulnerabilities', { filters: [{ field: 'pluginId', op: '=', value: p }] })).records[0];
      const at = (p: string, change: string) => events.find((c) => c.externalId === p && c.change === change)?.at;
      assert.equal((await byPlugin('1')).fixedAt, at('1', 'fixed'));
      assert.equal((await byPlugin('2')).fixedAt, at('2', 'fixed'), 'swept findings are fixed at the sweep');
      assert.equal((await byPlugin('4')).reopenedAt, at('4', 'reopened'));
      assert.equal((await byPlugin('3')).fixedAt, null);

      // Finding 1 seen open again: reopened; nothing else moves.
      fx.control.findings = [open('h0', '1'), open('h1', '3'), open('h1', '4'), open('h0', '6')];
      const r4 = await runSync(fx.app, 'a', { full: true });
      assert.deepEqual(brief(await allChanges(fx.app, { run: r4.runId })), ['vulnerabilities 1 reopened fixed→reopened']);
      const f1 = await byPlugin('1');
      assert.equal(f1.status, 'reopened');
      assert.equal(f1.fixedAt, at('1', 'fixed'), 'the last fix is kept after a reopening');
      assert.ok(String(f1.reopenedAt) > String(f1.fixedAt));
    });

    test('since takes a run id or an ISO-8601 time; pages follow the cursor oldest first', async () => {
      const all = await allChanges(fx.app);
      // In the order they were written: their times never go back.
      assert.ok(
        all.every((c, i) => i === 0 || all[i - 1]!.at <= c.at),
        'oldest first',
      );
      assert.deepEqual(await allChanges(fx.app, { limit: 2 }), all, 'paging by two gives the same events');
      // Runs oldest first: r1 (all new), r2 (nothing), r3 (fixes, sweeps, a reopening), r4 (a reopening).
      const [r1, r2, r3, r4] = (await fx.app.store.runs.list(null, 10)).reverse();
      const runIds = (cs: ChangeEvent[]) => [...new Set(cs.map((c) => c.runId))];
      // After a run: the events of the runs that started after it, never its own.
      assert.deepEqual(runIds(await allChanges(fx.app, { since: r1!.id })), [r3!.id, r4!.id]);
      assert.deepEqual(await allChanges(fx.app, { since: r3!.id }), await allChanges(fx.app, { run: r4!.id }));
      assert.deepEqual(await allChanges(fx.app, { since: r4!.id }), [], 'nothing happened after the last run');
      assert.deepEqual(
        await allChanges(fx.app, { since: r2!.id }),
        all.filter((c) => c.runId !== r1!.id),
      );
      // By time: at or after it, so a run's start takes in that run's own events.
      const byTime = await allChanges(fx.app, { since: r3!.startedAt });
      assert.deepEqual(runIds(byTime), [r3!.id, r4!.id]);
      assert.deepEqual(await fx.app.store.records.resolveSince(r3!.id), { from: r3!.id, at: r3!.startedAt, afterRun: r3!.id });
      // One run: exactly its events.
      assert.deepEqual(runIds(await allChanges(fx.app, { run: r3!.id })), [r3!.id]);
      assert.deepEqual(await allChanges(fx.app, { run: r2!.id }), []);
      assert.deepEqual(await allChanges(fx.app, { since: '2999-01-01' }), []);
      assert.equal((await allChanges(fx.app, { since: '2000-01-01T00:00:00Z' })).length, all.length);
      await assert.rejects(fx.app.store.records.resolveSince('no-such-run'), InputError);
      await assert.rejects(fx.app.store.records.resolveRun('no-such-run'), InputError);
      const window = await fx.app.store.records.resolveSince(r1!.id);
      await assert.rejects(fx.app.store.records.changes({ since: window, run: await fx.app.store.records.resolveRun(r3!.id) }), InputError);
      const filtered = await fx.app.store.records.changes({ models: ['hosts'], changes: ['removed'] });
      assert.deepEqual(brief(filtered.records), ['hosts h2 removed -→-']);
      await assert.rejects(fx.app.store.records.changes({ filters: [{ field: 'colour', op: '=', value: 'x' }] }), InputError);
      await assert.rejects(fx.app.store.records.changes({ cursor: 'garbage' }), InputError);
    });

    test('a run killed mid-stream and resumed writes each event once, as a clean run does', async () => {
      const before1 = { hosts: ['h0', 'h1', 'h2'], findings: Array.from({ length: 10 }, (_, i) => open(`h${i % 3}`, String(100 + i))), pageSize: 2 };
      // Every page moves something: fixes, reopenings are impossible yet, so fixes and new findings.
      const after1 = {
        hosts: ['h0', 'h1', 'h2'],
        findings: Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? fixed(`h${i % 3}`, String(100 + i)) : open(`h${i % 3}`, String(100 + i)))),
        pageSize: 2,
      };
      for (const name of ['crashy', 'clean']) {
        Object.assign(fx.control, newControl(before1));
        await addSource(fx.app, 'fixture', name, { url: 'https://up.example', token: 'good-token-123' });
        assert.equal((await runSync(fx.app, name)).status, 'succeeded');
      }
      // Just after the baselines' last event (the next run's events may fall in the same millisecond as `new Date()`).
      const mark = new Date(Date.parse((await allChanges(fx.app)).at(-1)!.at) + 1).toISOString();
      const child = spawnSync(process.execPath, [crashScript, fx.db.url, fx.db.dataDir, 'crashy', JSON.stringify(after1), '3'], {
        encoding: 'utf8',
        env: process.env,
      });
      assert.equal(child.signal, 'SIGKILL', child.stderr);
      const crashedEvents = await allChanges(fx.app, { since: mark, source: 'crashy' });
      assert.ok(crashedEvents.length > 0, 'the killed attempt stored some pages with their events');
      Object.assign(fx.control, newControl(after1));
      const resumed = await runSync(fx.app, 'crashy');
      assert.ok(resumed.resumedFrom);
      Object.assign(fx.control, newControl(after1));
      assert.equal((await runSync(fx.app, 'clean', { full: true })).status, 'succeeded');

      const crashy = await allChanges(fx.app, { since: mark, source: 'crashy' });
      const clean = await allChanges(fx.app, { since: mark, source: 'clean' });
      assert.deepEqual(brief(crashy), brief(clean));
      assert.equal(new Set(crashy.map((c) => c.id)).size, crashy.length);
      assert.equal(brief(clean).filter((b) => b.endsWith('fixed open→fixed')).length, 5);
      assert.equal(brief(clean).filter((b) => b.includes(' new ')).length, 2);
      // The events the crashed attempt wrote are kept under its run id; the resumed run adds the rest.
      assert.ok(crashy.some((c) => c.runId === resumed.resumedFrom) && crashy.some((c) => c.runId === resumed.runId));
    });
  });
}
