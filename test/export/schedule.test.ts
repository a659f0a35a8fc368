// Scheduled exports on both stores: written after a successful sync (full, and changes-only after the
// first), a status per source, retried and reported when the target fails, never failing the sync.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { AppContext } from '../../src/app/context.ts';
import { addSource } from '../../src/app/sources.ts';
import { InputError } from '../../src/core/errors.ts';
import { exportRootOf } from '../../src/export/confine.ts';
import { addDestination, describeDestinations, drainScheduledExports, exportStatusesOf, runExportsFor } from '../../src/export/schedule.ts';
import { runSync } from '../../src/sync/runner.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { newControl, openFixtureApp } from '../helpers/fixture-connector.ts';
import { validateOcsf } from './ocsf-schema.ts';
import { readOcsfParquet } from './parquet-read.ts';
import { storeRun } from './seed.ts';

const readLines = (file: string) => readFileSync(file, 'utf8').trim().split('\n');

for (const backend of BACKENDS) {
  describe(`scheduled exports on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let app: AppContext;
    const control = newControl({ hosts: ['h0', 'h1'], findings: Array.from({ length: 5 }, (_, i) => ({ host: `h${i % 2}`, plugin: String(500 + i) })) });

    before(async () => {
      db = await backend.create();
      const env = { TRIBUTARY_MASTER_KEY: Buffer.alloc(32, 9).toString('base64'), TRIBUTARY_EXPORT_ATTEMPTS: '2', TRIBUTARY_EXPORT_RETRY_MS: '1' };
      app = await openFixtureApp(db, control, env);
      await addSource(app, 'fixture', 'a', { url: 'https://up.example', token: 'good-token-123' });
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    test('after a successful sync each destination is written; changes-only exports then carry only later runs', async () => {
      // A relative target is a folder under the export root; an absolute one there is as good.
      const lake = join(exportRootOf(app), 'lake');
      const siem = join(exportRootOf(app), 'siem');
      await addDestination(app, { name: 'lake', target: 'lake', format: 'jsonl', models: ['vulnerabilities'], mode: 'changes' });
      await addDestination(app, { name: 'siem', source: 'a', target: siem, format: 'ocsf', ocsfVersion: '1.3.0' });
      const parquet = join(exportRootOf(app), 'security-lake');
      await addDestination(app, { name: 'security-lake', target: 'security-lake', format: 'ocsf-parquet', models: ['vulnerabilities'] });
      await assert.rejects(addDestination(app, { name: 'bad', target: siem, format: 'ocsf', models: ['tickets'] }), InputError);
      await assert.rejects(addDestination(app, { name: 'bad', target: '-', format: 'csv' }), InputError);

      const r1 = await runSync(app, 'a');
      assert.equal(r1.status, 'succeeded');
      await drainScheduledExports(app);
      const lakeFiles = readdirSync(join(lake, 'a'));
      assert.equal(lakeFiles.length, 1);
      assert.match(lakeFiles[0], /^vulnerabilities-\d{8}T\d{6}Z-full-[0-9a-f]{8}\.jsonl$/, 'the first changes-only export is full');
      assert.equal(readLines(join(lake, 'a', lakeFiles[0])).length, 5);
      const siemFiles = readdirSync(join(siem, 'a')).sort();
      assert.deepEqual(
        siemFiles.map((f) => f.split('-')[0]),
        ['hosts', 'vulnerabilities'],
        'models without records get no file',
      );
      for (const f of siemFiles) for (const l of readLines(join(siem, 'a', f))) assert.deepEqual(validateOcsf('1.3.0', JSON.parse(l)), []);
      const [pqFile, ...more] = readdirSync(join(parquet, 'a'));
      assert.equal(more.length, 0);
      assert.match(pqFile, /^vulnerabilities-\d{8}T\d{6}Z-full-[0-9a-f]{8}\.ocsf\.parquet$/);
      const events = await readOcsfParquet(readFileSync(join(parquet, 'a', pqFile)));
      assert.equal(events.length, 5);
      for (const e of events) assert.deepEqual(validateOcsf('1.1.0', e), []);

      const [status] = await exportStatusesOf(app, 'a');
      assert.equal(status.destination, 'lake');
      assert.equal(status.status, 'succeeded');
      assert.equal(status.runId, r1.runId);
      assert.equal(status.records, 5);

      // A later run stores one new finding: the changes-only export holds just that one.
      const r2 = await storeRun(app, 'a', {
        vulnerabilities: [{ key: 'h0|999', hostKey: 'host:h0', fields: { pluginId: '999', severity: 'low', status: 'open' } }],
      });
      await runExportsFor(app, 'a', r2);
      const changes = readdirSync(join(lake, 'a')).filter((f) => f.includes('-changes-'));
      assert.equal(changes.length, 1);
      assert.deepEqual(
        readLines(join(lake, 'a', changes[0])).map((l) => JSON.parse(l).pluginId),
        ['999'],
      );
    });

    test('a failing target is retried, reported, and never fails the sync', async () => {
      const blocked = join(exportRootOf(app), 'not-a-folder');
      mkdirSync(exportRootOf(app), { recursive: true });
      writeFileSync(blocked, 'a file where the folder should be');
      await addDestination(app, { name: 'zz-broken', source: 'a', target: blocked, format: 'csv', models: ['hosts'] });
      const r = await runSync(app, 'a');
      assert.equal(r.status, 'succeeded');
      await drainScheduledExports(app);
      const broken = (await describeDestinations(app)).find((d) => d.name === 'zz-broken');
      assert.ok(broken);
      assert.equal(broken.status[0].status, 'failed');
      assert.equal(broken.status[0].attempts, 2);
      assert.match(broken.status[0].error ?? '', /not-a-folder/);
      assert.equal((await app.store.runs.get(r.runId)).status, 'succeeded');
      const others = (await exportStatusesOf(app, 'a')).filter((s) => s.destination !== 'zz-broken');
      assert.ok(
        others.every((s) => s.status === 'succeeded'),
        'the other destinations still ran',
      );
    });
  });
}
