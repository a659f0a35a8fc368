// Record fields of kind json over HTTP on both stores: a json field may hold an object (a finding's VPR
// key drivers) or a list of objects (a plugin's VPR drivers), and both are served as stored — typed as
// an object, the plugin list answered 500 and the finding page lost its plugin's text.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BACKENDS } from '../helpers/databases.ts';
import { call, serverOn } from './helpers.ts';

const DRIVERS = [
  { id: 'exploit_code_maturity', name: 'Exploit Code Maturity', value: 'High' },
  { id: 'age_of_vuln', name: 'Vulnerability Age', value: { lowerBound: 366 } },
];

for (const backend of BACKENDS) {
  describe(`json record fields over the API (${backend.kind})`, { skip: backend.skip }, () => {
    const server = serverOn(backend, async (h) => {
      const scan = await h.app.store.sources.create('scan', 'fixture', {}, null);
      await h.app.store.records.writePage(
        { sourceId: scan.id, sourceName: 'scan', runId: 'r1', generation: 'g1', now: new Date().toISOString() },
        'x',
        'full',
        {
          hosts: [{ key: 'h1', fields: { hostname: 'web01' } }],
          vulnerabilities: [
            { key: 'v1', hostKey: 'h1', fields: { pluginId: '156032', severity: 'critical', status: 'open', vprKeyDrivers: { exploitCodeMaturity: 'High' } } },
          ],
          plugins: [{ key: '156032', fields: { pluginId: '156032', name: 'Apache Log4j RCE', vprDrivers: DRIVERS, checkType: 'remote' } }],
        },
        { value: null, complete: false },
      );
    });

    test('a list of objects in a json field (a plugin’s VPR drivers)', async () => {
      const res = await call(server.h.server, { method: 'GET', url: '/api/v1/plugins?pluginId=156032&limit=1', headers: server.auth });
      assert.equal(res.statusCode, 200, JSON.stringify(res.data));
      const [plugin] = (res.data as { items: Record<string, unknown>[] }).items;
      assert.deepEqual(plugin?.vprDrivers, DRIVERS);
      assert.equal(plugin?.checkType, 'remote');
    });

    test('an object in a json field (a finding’s VPR key drivers)', async () => {
      const res = await call(server.h.server, { method: 'GET', url: '/api/v1/vulnerabilities?pluginId=156032', headers: server.auth });
      assert.equal(res.statusCode, 200, JSON.stringify(res.data));
      const [finding] = (res.data as { items: Record<string, unknown>[] }).items;
      assert.deepEqual(finding?.vprKeyDrivers, { exploitCodeMaturity: 'High' });
    });
  });
}
