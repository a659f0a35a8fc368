// Correlation over HTTP on both stores: the assets model, link / unlink by host id (and by asset id with
// hostId), the asset with its records side by side, and the coverage report with its lists.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { recordId } from '../../src/store/index.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { apiToken, bearer, call, type Harness, makeHarness } from './helpers.ts';

for (const backend of BACKENDS) {
  describe(`assets API on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let h: Harness;
    let auth: Record<string, string>;
    const host = recordId('scan', 'hosts', 'h1');
    const other = recordId('scan', 'hosts', 'h2');
    const c1 = recordId('desk', 'cmdb-assets', 'c1');
    const c2 = recordId('desk', 'cmdb-assets', 'c2');

    before(async () => {
      db = await backend.create();
      h = await makeHarness({ db: db.url });
      auth = bearer(await apiToken(h.server));
      const store = h.app.store;
      const scan = await store.sources.create('scan', 'fixture', {}, null);
      const desk = await store.sources.create('desk', 'fixture', {}, null);
      const now = new Date().toISOString();
      await store.records.writePage(
        { sourceId: scan.id, sourceName: 'scan', runId: 'r1', generation: 'g1', now },
        'x',
        'full',
        {
          hosts: [
            { key: 'h1', fields: { hostname: 'web01', serialNumber: 'SN1', ipAddresses: ['10.0.0.1'] } },
            { key: 'h2', fields: { hostname: 'lonely', ipAddresses: ['10.0.0.2'] } },
          ],
          vulnerabilities: [{ key: 'v1', hostKey: 'h1', fields: { pluginId: '1', severity: 'critical', status: 'open', cves: [] } }],
        },
        { value: null, complete: false },
      );
      await store.records.writePage(
        { sourceId: desk.id, sourceName: 'desk', runId: 'r2', generation: 'g2', now },
        'x',
        'full',
        {
          'cmdb-assets': [
            { key: 'c1', fields: { name: 'WEB01', serialNumber: 'sn1', owner: 'Bo Chen', department: 'Finance', ipAddresses: ['10.0.0.1'] } },
            { key: 'c2', fields: { name: 'spare', ipAddresses: ['10.0.0.9'] } },
          ],
        },
        { value: null, complete: false },
      );
      await store.correlation.correlateAll();
    });
    after(async () => {
      await h?.close();
      await db?.drop();
    });

    test('assets are a model like the others; owners filter findings', async () => {
      const res = await call(h.server, { method: 'GET', url: '/api/v1/assets?matchRule=serial', headers: auth });
      assert.equal(res.statusCode, 200, res.body);
      const items = (res.data as { items: Record<string, unknown>[] }).items;
      assert.deepEqual(
        items.map((a) => [a.hostIds, a.cmdbAssetIds, a.owner, a.source]),
        [[[host], [c1], 'Bo Chen', null]],
      );
      const v = await call(h.server, { method: 'GET', url: '/api/v1/vulnerabilities?department=Finance', headers: auth });
      assert.equal((v.data as { items: unknown[] }).items.length, 1);
      const side = await call(h.server, { method: 'GET', url: `/api/v1/assets/${items[0]!.id}/records`, headers: auth });
      assert.deepEqual(
        [(side.data as { hosts: { id: string }[] }).hosts.map((x) => x.id), (side.data as { cmdbAssets: { id: string }[] }).cmdbAssets.map((x) => x.id)],
        [[host], [c1]],
      );
    });

    test('coverage report and its lists', async () => {
      const res = await call(h.server, { method: 'GET', url: '/api/v1/reports/coverage?days=30', headers: auth });
      assert.deepEqual(res.data, { cmdbNotScanned: 1, scannedNotInCmdb: 1, findingsWithoutTicket: 1, ticketsForFixedFindings: 0, days: 30 });
      const list = await call(h.server, { method: 'GET', url: '/api/v1/reports/coverage?list=scannedNotInCmdb', headers: auth });
      assert.deepEqual(
        (list.data as { items: { id: string }[] }).items.map((x) => x.id),
        [other],
      );
      const bad = await call(h.server, { method: 'GET', url: '/api/v1/reports/coverage?list=nope', headers: auth });
      assert.equal(bad.statusCode, 400);
    });

    test('link by host id, unlink by asset id with hostId; unknown records are 404', async () => {
      const link = await call(h.server, { method: 'POST', url: `/api/v1/assets/${other}/link`, headers: auth, payload: { cmdbAssetId: c2 } });
      assert.equal(link.statusCode, 200, link.body);
      const asset = (link.data as { asset: Record<string, unknown> }).asset;
      assert.deepEqual([asset.hostIds, asset.cmdbAssetIds, asset.matchRule], [[other], [c2], 'manual']);
      // The link says who made it (the API token, by name) and when.
      const made = (asset.matchDetails as { links: Record<string, unknown>[] }).links[0]!;
      assert.equal(made.by, 'API token tests');
      assert.match(String(made.at), /^\d{4}-\d{2}-\d{2}T/);
      assert.equal('matched' in made, false, 'no empty matched object');
      const unlink = await call(h.server, {
        method: 'DELETE',
        url: `/api/v1/assets/${asset.id}/link`,
        headers: auth,
        payload: { cmdbAssetId: c2, hostId: other },
      });
      assert.equal(unlink.statusCode, 200, unlink.body);
      assert.deepEqual((unlink.data as { asset: { cmdbAssetIds: string[] } }).asset.cmdbAssetIds, []);
      const missing = await call(h.server, { method: 'POST', url: `/api/v1/assets/${other}/link`, headers: auth, payload: { cmdbAssetId: 'nope' } });
      assert.equal(missing.statusCode, 404);
    });
  });
}
