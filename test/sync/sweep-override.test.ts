// Page.sweep: a stream that knows better than the run's mode says what its run sweeps (file imports:
// a complete new export sweeps on an incremental run; a run that read nothing new sweeps nothing even
// when it is full). Unset, the mode decides as before.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type AppContext, openApp } from '../../src/app/context.ts';
import { addSource } from '../../src/app/sources.ts';
import { ConnectorRegistry } from '../../src/connectors/registry.ts';
import type { Page, StreamContext } from '../../src/core/connector.ts';
import { silentLogger } from '../../src/core/log.ts';
import type { ModelName } from '../../src/core/models.ts';
import { runSync } from '../../src/sync/runner.ts';
import { createSqlite, type TestDatabase } from '../helpers/databases.ts';
import { streamsConnector } from '../helpers/streams-connector.ts';

process.env.TRIBUTARY_MASTER_KEY = Buffer.alloc(32, 5).toString('base64');

const control: { plugins: string[]; sweep: boolean | ModelName[] | undefined } = { plugins: [], sweep: undefined };

const connector = streamsConnector('sweepy', () => [
  {
    name: 'findings',
    models: ['hosts', 'vulnerabilities'],
    primaryKey: ['plugin'],
    async *read(_ctx: StreamContext): AsyncIterable<Page> {
      const vulns = control.plugins.map((p) => ({ key: `h|${p}`, hostKey: 'h', fields: { pluginId: p, severity: 'high', status: 'open' } }));
      yield {
        records: { hosts: control.plugins.length ? [{ key: 'h', fields: { hostname: 'h' } }] : [], vulnerabilities: vulns },
        checkpoint: { n: vulns.length },
      };
      yield { records: {}, checkpoint: { done: true }, ...(control.sweep !== undefined ? { sweep: control.sweep } : {}) };
    },
  },
]);

let db: TestDatabase;
let app: AppContext;
before(async () => {
  db = await createSqlite();
  app = await openApp({ dataDir: db.dataDir, db: db.url, log: silentLogger, registry: new ConnectorRegistry([connector]) });
  await addSource(app, 'sweepy', 's', {});
});
after(async () => {
  await app?.close();
  await db?.drop();
});

async function state() {
  const src = await app.store.sources.get('s');
  const v = await app.store.records.query('vulnerabilities', { sourceIds: [src.id], limit: 100 });
  const h = await app.store.records.query('hosts', { sourceIds: [src.id], limit: 100 });
  return { vulns: Object.fromEntries(v.records.map((r) => [r.pluginId, r.status])), hostRemoved: h.records.map((r) => r.removed) };
}

test('page.sweep decides what a run sweeps; unset, only full runs sweep', async () => {
  Object.assign(control, { plugins: ['1', '2', '3'], sweep: undefined });
  assert.equal((await runSync(app, 's')).mode, 'full');
  assert.deepEqual((await state()).vulns, { 1: 'open', 2: 'open', 3: 'open' });

  // Incremental, unset: no sweep.
  Object.assign(control, { plugins: ['1'], sweep: undefined });
  const inc = await runSync(app, 's');
  assert.equal(inc.mode, 'incremental');
  assert.deepEqual(inc.swept, {});
  assert.deepEqual((await state()).vulns, { 1: 'open', 2: 'open', 3: 'open' });

  // Incremental, the stream asks for a sweep of vulnerabilities only.
  Object.assign(control, { plugins: ['1', '2'], sweep: ['vulnerabilities'] });
  const r = await runSync(app, 's');
  assert.equal(r.mode, 'incremental');
  assert.deepEqual(r.swept, { vulnerabilities: 1 });
  assert.deepEqual((await state()).vulns, { 1: 'open', 2: 'open', 3: 'fixed' });

  // Full, but the stream read nothing new: nothing swept.
  Object.assign(control, { plugins: [], sweep: false });
  const f = await runSync(app, 's', { full: true });
  assert.equal(f.mode, 'full');
  assert.deepEqual(f.swept, {});
  assert.deepEqual((await state()).vulns, { 1: 'open', 2: 'open', 3: 'fixed' });
  assert.deepEqual((await state()).hostRemoved, [false]);

  // true = all of the stream's models.
  Object.assign(control, { plugins: ['2'], sweep: true });
  const all = await runSync(app, 's');
  assert.deepEqual(all.swept, { hosts: 0, vulnerabilities: 1 });
  assert.deepEqual((await state()).vulns, { 1: 'fixed', 2: 'open', 3: 'fixed' });
});
