// The stored hosts a Tenable.sc stream seeds its host resolver from (issue 30, flat memory): the store
// hands them a page at a time with only the fields asked for, never the whole list, and a resolver
// seeded so (SEED_FIELDS) resolves every row as one seeded with the whole hosts. On both stores.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KnownHost } from '../../../src/core/connector.ts';
import type { IncomingRecord, ModelName } from '../../../src/core/models.ts';
import { SecretBox } from '../../../src/core/secrets.ts';
import { HostResolver, SEED_FIELDS } from '../../../src/connectors/tenable-sc/map/host-resolver.ts';
import { openStore, type Store } from '../../../src/store/index.ts';
import { BACKENDS, type TestDatabase } from '../../helpers/databases.ts';
import { sumipRow, vulnRow } from './fixtures/rows.ts';

const box = new SecretBox(Buffer.alloc(32, 7));
const REPO = { id: '2', name: 'Workstations', description: '', dataFormat: 'IPv4' };

const STORED = [
  {
    key: 'uuid:aaaa-1',
    fields: {
      repository: 'Workstations',
      tenableUuid: 'aaaa-1',
      ipAddresses: ['10.0.0.8'],
      macAddresses: ['00:50:56:00:00:08'],
      netbiosName: 'CORP\\WS8',
      fqdn: 'ws8.corp.example',
      hostname: 'ws8',
      manufacturer: 'VMware',
      lastLoggedOnUser: 'CORP\\alice',
    },
  },
  // No OS stored: a finding row fills it.
  { key: 'addr:2|10.0.0.9|', fields: { repository: 'Workstations', ipAddresses: ['10.0.0.9'] } },
  { key: 'uuid:legacy-7', fields: { repository: 'Workstations', ipAddresses: ['10.0.0.10'], os: 'Linux' } },
];

/** Every host key and record a resolver gives these rows. */
function resolveAll(r: HostResolver) {
  const rows = [
    vulnRow({ ip: '10.9.9.1', uuid: 'AAAA-1', repository: REPO }),
    vulnRow({ ip: '10.0.0.9', uuid: '', hostUUID: '', dnsName: '', netbiosName: '', macAddress: '', repository: REPO }),
    vulnRow({ ip: '10.9.9.3', uuid: '', hostUUID: '', macAddress: '00-50-56-00-00-08', dnsName: '', netbiosName: '', repository: REPO }),
    vulnRow({ ip: '10.0.0.10', uuid: 'legacy-7', repository: REPO }),
    sumipRow({ ip: '10.0.0.12', uuid: 'new-1', repository: REPO }),
  ];
  const out: [string, IncomingRecord | null | undefined][] = [];
  const add = (m: ModelName, rec: IncomingRecord | null | undefined) => out.push([m, rec]);
  return { keys: rows.map((row) => r.rowHost(row, add)), out };
}

for (const backend of BACKENDS) {
  describe(`known hosts a page at a time on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let store: Store;
    let sourceId: string;
    const stamp = () => ({ sourceId, sourceName: 'lab', runId: 'r1', generation: 'g1', now: '2026-11-27T00:00:00.000Z' });

    before(async () => {
      db = await backend.create();
      store = await openStore(db.url, box, () => []);
      sourceId = (await store.sources.create('lab', 'tenable-sc', {}, null)).id;
    });
    after(async () => {
      await store?.close();
      await db?.drop();
    });

    test('pages of at most the size asked, every host once, only the fields asked', async () => {
      const other = (await store.sources.create('other', 'tenable-sc', {}, null)).id;
      const many = Array.from({ length: 25 }, (_, i) => ({
        key: `addr:1|10.1.0.${i}|`,
        fields: { ipAddresses: [`10.1.0.${i}`], hostname: `h${i}`, os: 'Linux' },
      }));
      await store.records.upsert('hosts', many, { ...stamp(), sourceId: other, sourceName: 'other' });
      const sizes: number[] = [];
      const keys: string[] = [];
      for await (const page of store.records.knownHostPages(other, ['ipAddresses', 'hostname', 'noSuchField'], 10)) {
        sizes.push(page.length);
        for (const h of page) {
          keys.push(h.key);
          assert.deepEqual(Object.keys(h.fields).sort(), ['hostname', 'ipAddresses']);
        }
      }
      assert.deepEqual(sizes, [10, 10, 5]);
      assert.deepEqual(keys.sort(), many.map((h) => h.key).sort());
      const exact: number[] = [];
      for await (const page of store.records.knownHostPages(other, ['hostname'], 5)) exact.push(page.length);
      assert.deepEqual(exact, [5, 5, 5, 5, 5], 'a last full page is followed by nothing');
    });

    test('a resolver seeded through the pages with SEED_FIELDS resolves rows as one seeded with the whole hosts', async () => {
      await store.records.upsert('hosts', STORED, stamp());
      const whole: KnownHost[] = await store.records.knownHosts(sourceId);
      assert.ok(
        whole.some((h) => h.fields.manufacturer === 'VMware'),
        'the whole hosts carry fields seeding does not read',
      );
      const seen: KnownHost[] = [];
      const resolver = await HostResolver.load((fields) => {
        assert.deepEqual(fields, SEED_FIELDS);
        return (async function* () {
          for await (const page of store.records.knownHostPages(sourceId, fields, 2)) {
            assert.ok(page.length <= 2);
            seen.push(...page);
            yield page;
          }
        })();
      });
      assert.equal(seen.length, STORED.length);
      assert.ok(
        seen.every((h) => Object.keys(h.fields).every((f) => SEED_FIELDS.includes(f))),
        'only the fields seeding reads',
      );
      const cut = resolveAll(resolver);
      assert.deepEqual(cut, resolveAll(HostResolver.seeded(whole)));
      assert.equal(cut.keys[0], 'uuid:aaaa-1');
      assert.equal(cut.keys[1], 'addr:2|10.0.0.9|');
      assert.ok(
        cut.out.some(([, r]) => r?.key === 'addr:2|10.0.0.9|' && r.fill),
        'the stored host without an OS gets it filled',
      );
      assert.ok(!(await HostResolver.load(undefined)).has('uuid:aaaa-1'), 'without knownHosts: an empty resolver');
    });
  });
}
