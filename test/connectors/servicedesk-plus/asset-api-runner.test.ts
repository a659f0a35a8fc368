// Through the sync runner on both stores: an on-prem server moving from the old asset API to the
// per-product-type one keeps the same asset records; a product type's missing list removes nothing;
// the sweep works again once every list answers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppContext } from '../../../src/app/context.ts';
import { addSource } from '../../../src/app/sources.ts';
import { servicedeskPlusConnector } from '../../../src/connectors/servicedesk-plus/index.ts';
import { runSync } from '../../../src/sync/runner.ts';
import { type RunningSdpSim, startSdpSim } from '../../../sim/servicedesk-plus/index.ts';
import { BACKENDS, type TestDatabase } from '../../helpers/databases.ts';
import { openTestApp } from '../../helpers/app.ts';

process.env.TRIBUTARY_MASTER_KEY = Buffer.alloc(32, 6).toString('base64');
process.env.TRIBUTARY_RETRY_BASE_MS = '1';

for (const backend of BACKENDS) {
  describe(`asset API switch through the runner on ${backend.kind}`, { skip: backend.skip }, () => {
    let sim: RunningSdpSim;
    let db: TestDatabase;
    let app: AppContext;

    before(async () => {
      sim = await startSdpSim({ seed: 13, now: Date.now() - 2 * 86400_000, assetApi: 'legacy', requests: 5, assets: 25, cis: 2, users: 4, technicians: 1 });
      db = await backend.create();
      app = await openTestApp(db, { connectors: [servicedeskPlusConnector as never] });
    });
    after(async () => {
      await app?.close();
      await db?.drop();
      await sim?.close();
    });

    const assets = async () => {
      const s = await app.store.sources.get('desk');
      const page = await app.store.records.query('cmdb-assets', { sourceIds: [s.id], limit: 1000 });
      return page.records.filter((r) => String(r.externalId) && r.ciType === 'Asset');
    };

    test('old API → new API → a missing list → all lists again', async () => {
      const source = await addSource(app, 'servicedesk-plus', 'desk', { serverUrl: sim.url, apiKey: sim.apiKey });
      const first = await runSync(app, 'desk');
      assert.equal(first.status, 'succeeded', first.error ?? '');
      const before = await assets();
      assert.equal(before.length, 25);
      assert.equal(((await app.store.sources.getState(source.id)).assetApi as { api: string }).api, 'legacy');

      sim.setAssetApi('product-type');
      const moved = await runSync(app, 'desk', { full: true });
      assert.equal(moved.status, 'succeeded', moved.error ?? '');
      assert.equal(moved.streams['cmdb-assets']!.errors, 0);
      const after = await assets();
      assert.deepEqual(after.map((r) => r.id).sort(), before.map((r) => r.id).sort(), 'same records, none added');
      assert.ok(
        after.every((r) => !r.removed),
        'none removed by the switch',
      );
      assert.equal(((await app.store.sources.getState(source.id)).assetApi as { api: string }).api, 'product-type');

      sim.setAssetApi('product-type', ['asset_laptops']);
      const partial = await runSync(app, 'desk', { full: true });
      assert.equal(partial.streams['cmdb-assets']!.errors, 1, 'the missing list is counted');
      assert.equal((await assets()).filter((r) => r.removed).length, 0, 'a run that could not read every list removes nothing');

      sim.setAssetApi('product-type');
      const gone = (await (
        await fetch(`${sim.url}/_sim/delete`, { method: 'POST', body: JSON.stringify({ kind: 'assets', ids: [before[0]!.externalId] }) })
      ).json()) as { ids: string[] };
      assert.equal(gone.ids.length, 1);
      const whole = await runSync(app, 'desk', { full: true });
      assert.equal(whole.status, 'succeeded', whole.error ?? '');
      const removed = (await assets()).filter((r) => r.removed).map((r) => r.externalId);
      assert.deepEqual(removed, gone.ids, 'a complete run sweeps again');
    });
  });
}
