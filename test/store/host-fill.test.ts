// A record that only fills (IncomingRecord.fill): a host's facts from a less trusted row land where the
// stored host has none and never overwrite a stronger source's value, in either order, in one page or
// across pages. On both stores.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BACKENDS } from '../helpers/databases.ts';
import { labStoreSuite, queryAll, writeRecords } from '../helpers/store.ts';

for (const backend of BACKENDS) {
  describe(`host facts that only fill on ${backend.kind}`, { skip: backend.skip }, () => {
    const s = labStoreSuite(backend, async () => {});
    const host = async (key: string) => (await queryAll(s.store, 'hosts', 100)).find((h) => h.externalId === key);

    test('a fill lands where the host has no value and leaves a stronger value alone, in either order', async () => {
      // Across pages: the strong record first, then a fill.
      await writeRecords(s.store, s.lab, { hosts: [{ key: 'a', externalId: 'a', fields: { os: 'From the host summary', ipAddresses: ['10.0.0.1'] } }] });
      await writeRecords(s.store, s.lab, { hosts: [{ key: 'a', externalId: 'a', fill: true, fields: { os: 'From a finding row', hostname: 'web01' } }] });
      const a = await host('a');
      assert.equal(a?.os, 'From the host summary');
      assert.equal(a?.hostname, 'web01');
      // In one page: the fill first, then the strong record, which overwrites.
      await writeRecords(s.store, s.lab, {
        hosts: [
          { key: 'b', externalId: 'b', fill: true, fields: { os: 'From a finding row', fqdn: 'b.corp.example' } },
          { key: 'b', externalId: 'b', fields: { os: 'From the hosts API' } },
        ],
      });
      const b = await host('b');
      assert.equal(b?.os, 'From the hosts API');
      assert.equal(b?.fqdn, 'b.corp.example');
    });
  });
}
