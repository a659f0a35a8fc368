// The stored hosts a run's streams share (streams/common.ts SharedHosts): read once (a page at a time,
// SEED_FIELDS only) while no page of the run carries host records, read again after one does, afresh
// through another knownHosts function; and a resolver seeded with the hosts cut to SEED_FIELDS resolves
// every row as one seeded with the whole hosts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KnownHost } from '../../../src/core/connector.ts';
import type { IncomingRecord, ModelName } from '../../../src/core/models.ts';
import { HostResolver, SEED_FIELDS, seedOnly } from '../../../src/connectors/tenable-sc/map/host-resolver.ts';
import { SharedHosts } from '../../../src/connectors/tenable-sc/streams/common.ts';
import { sumipRow, vulnRow } from './fixtures/rows.ts';

const REPO = { id: '2', name: 'Workstations', description: '', dataFormat: 'IPv4' };

const stored: KnownHost[] = [
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
      lastSeen: '2026-11-27T00:00:00.000Z',
      score: 42,
      openFindings: { critical: 1 },
    },
  },
  // No OS stored: a finding row fills it.
  { key: 'addr:2|10.0.0.9|', fields: { repository: 'Workstations', ipAddresses: ['10.0.0.9'], lastSeen: '2026-11-27T00:00:00.000Z' } },
  { key: 'uuid:legacy-7', fields: { repository: 'Workstations', ipAddresses: ['10.0.0.10'], os: 'Linux' } },
];

/**
 * A knownHosts function over `list()` as the store's is: pages of two hosts, each cut to the fields asked
 * (which must be SEED_FIELDS); `onRead` runs as a read starts (it may throw, as a closed store does).
 */
function pagesOf(list: () => KnownHost[], onRead: () => void = () => {}) {
  return (fields: readonly string[]): AsyncIterable<KnownHost[]> =>
    (async function* () {
      assert.deepEqual(fields, SEED_FIELDS);
      onRead();
      const hosts = list();
      for (let i = 0; i < hosts.length; i += 2)
        yield hosts.slice(i, i + 2).map((h) => ({ key: h.key, fields: Object.fromEntries(Object.entries(h.fields).filter(([f]) => fields.includes(f))) }));
    })();
}

test('SharedHosts: one read of the store while pages carry no hosts, another after a page with hosts', async () => {
  let reads = 0;
  const knownHosts = pagesOf(
    () => stored,
    () => reads++,
  );
  const shared = new SharedHosts();
  const a = await shared.resolver({ knownHosts });
  const b = await shared.resolver({ knownHosts });
  assert.equal(reads, 1);
  assert.notEqual(a, b, 'each stream gets its own resolver (they learn as they go)');
  assert.ok(a.has('uuid:aaaa-1') && b.has('uuid:aaaa-1'));
  shared.saw({ records: { software: [{ key: 'x', fields: {} }] }, checkpoint: null });
  await shared.resolver({ knownHosts });
  assert.equal(reads, 1, 'a page without hosts changes no stored host');
  shared.saw({ records: { hosts: [{ key: 'addr:2|10.0.0.11|', fields: {} }] }, checkpoint: null });
  await shared.resolver({ knownHosts });
  assert.equal(reads, 2, 'a page with hosts: the stored hosts are read again');
  await shared.resolver({
    knownHosts: pagesOf(
      () => [],
      () => reads++,
    ),
  });
  assert.equal(reads, 3, 'another knownHosts function is read afresh');
  assert.ok(!(await shared.resolver({})).has('uuid:aaaa-1'), 'without knownHosts: an empty resolver');
});

test('SharedHosts: after a page with hosts, only the hosts the pages since named are read again (by key), merged into the list', async () => {
  // The store: the stored hosts, then a page changes one (a new address) and adds one.
  let store = stored;
  let full = 0;
  const asked: string[][] = [];
  const knownHosts = pagesOf(
    () => store,
    () => full++,
  );
  const knownHostsByKey = async (keys: string[]) => {
    asked.push([...keys].sort());
    return store.filter((h) => keys.includes(h.key));
  };
  const shared = new SharedHosts();
  await shared.resolver({ knownHosts, knownHostsByKey });
  const moved: KnownHost = { key: 'uuid:legacy-7', fields: { repository: 'Workstations', ipAddresses: ['10.0.0.77'], tenableUuid: 'legacy-7' } };
  const added: KnownHost = { key: 'addr:2|10.0.0.11|', fields: { repository: 'Workstations', ipAddresses: ['10.0.0.11'] } };
  store = [stored[0]!, stored[1]!, moved, added];
  shared.saw({
    records: {
      hosts: [
        { key: moved.key, fields: {} },
        { key: added.key, fields: {} },
      ],
    },
    checkpoint: null,
  });
  shared.saw({ records: { software: [{ key: 's', hostKey: 'uuid:aaaa-1', fields: {} }] }, checkpoint: null });
  const r = await shared.resolver({ knownHosts, knownHostsByKey });
  assert.equal(full, 1, 'no second read of every host');
  assert.deepEqual(asked, [['addr:2|10.0.0.11|', 'uuid:aaaa-1', 'uuid:legacy-7']], 'the hosts the pages named');
  // It resolves rows as a resolver seeded from every stored host now.
  const rows = [
    vulnRow({ ip: '10.0.0.77', uuid: '', hostUUID: '', dnsName: '', netbiosName: '', macAddress: '', repository: REPO }),
    vulnRow({ ip: '10.0.0.11', uuid: '', hostUUID: '', dnsName: '', netbiosName: '', macAddress: '', repository: REPO }),
    vulnRow({ ip: '10.9.9.1', uuid: 'AAAA-1', repository: REPO }),
  ];
  const keys = (res: HostResolver) => rows.map((row) => res.rowHost(row, () => {}));
  assert.deepEqual(keys(r), keys(HostResolver.seeded(store.map(seedOnly))));
  assert.deepEqual(keys(r), ['uuid:legacy-7', 'addr:2|10.0.0.11|', 'uuid:aaaa-1']);
  // Nothing named since: the list is kept.
  await shared.resolver({ knownHosts, knownHostsByKey });
  assert.equal(asked.length, 1);
  // A first import's pages name more hosts than are worth looking up one by one: every host is read again.
  shared.saw({ records: { hosts: Array.from({ length: 6000 }, (_, i) => ({ key: `addr:2|10.1.${i >> 8}.${i & 255}|`, fields: {} })) }, checkpoint: null });
  await shared.resolver({ knownHosts, knownHostsByKey });
  assert.equal(full, 2);
  assert.equal(asked.length, 1);
});

test('SharedHosts: a failed read is not kept', async () => {
  let fail = true;
  const knownHosts = pagesOf(
    () => stored,
    () => {
      if (fail) throw new Error('store closed');
    },
  );
  const shared = new SharedHosts();
  await assert.rejects(shared.resolver({ knownHosts }), /store closed/);
  fail = false;
  assert.ok((await shared.resolver({ knownHosts })).has('uuid:aaaa-1'));
});

test('a resolver seeded with hosts cut to SEED_FIELDS resolves rows as one seeded with the whole hosts', () => {
  const rows = [
    vulnRow({ ip: '10.9.9.1', uuid: 'AAAA-1', repository: REPO }),
    vulnRow({ ip: '10.0.0.9', uuid: '', hostUUID: '', dnsName: '', netbiosName: '', macAddress: '', repository: REPO }),
    vulnRow({ ip: '10.9.9.3', uuid: '', hostUUID: '', macAddress: '00-50-56-00-00-08', dnsName: '', netbiosName: '', repository: REPO }),
    vulnRow({ ip: '10.0.0.10', uuid: 'legacy-7', repository: REPO }),
    sumipRow({ ip: '10.0.0.12', uuid: 'new-1', repository: REPO }),
  ];
  const resolveAll = (r: HostResolver) => {
    const out: [string, IncomingRecord | null | undefined][] = [];
    const add = (m: ModelName, rec: IncomingRecord | null | undefined) => out.push([m, rec]);
    return { keys: rows.map((row) => r.rowHost(row, add)), out };
  };
  const whole = resolveAll(HostResolver.seeded(stored));
  const cut = resolveAll(HostResolver.seeded(stored.map(seedOnly)));
  assert.deepEqual(cut, whole);
  assert.equal(whole.keys[0], 'uuid:aaaa-1');
  assert.equal(whole.keys[1], 'addr:2|10.0.0.9|');
  assert.ok(
    whole.out.some(([, r]) => r?.key === 'addr:2|10.0.0.9|' && r.fill),
    'the stored host without an OS gets it filled',
  );
  assert.deepEqual(Object.keys(seedOnly(stored[0]!).fields).sort(), [
    'fqdn',
    'hostname',
    'ipAddresses',
    'macAddresses',
    'netbiosName',
    'repository',
    'tenableUuid',
  ]);
});

test("SharedHosts: each stream's resolver is a copy of one seeded once per list: what one learns, the next does not see, and each resolves as a fresh seeding", async () => {
  let seeds = 0;
  const original = HostResolver.seeded;
  HostResolver.seeded = (hosts) => {
    seeds++;
    return original.call(HostResolver, hosts);
  };
  try {
    const shared = new SharedHosts();
    const knownHosts = pagesOf(() => stored);
    // Rows that create hosts (learned by the first stream) and rows that join stored ones.
    const rows = [
      vulnRow({ ip: '10.0.0.50', uuid: 'new-50', repository: REPO }),
      vulnRow({ ip: '10.0.0.50', uuid: '', hostUUID: '', dnsName: '', netbiosName: '', macAddress: '', repository: REPO }),
      vulnRow({ ip: '10.9.9.3', uuid: '', hostUUID: '', macAddress: '00-50-56-00-00-08', dnsName: '', netbiosName: '', repository: REPO }),
      vulnRow({ ip: '10.0.0.9', uuid: 'aaaa-1', repository: REPO }),
    ];
    const resolveAll = (r: HostResolver) => {
      const out: [string, IncomingRecord | null | undefined][] = [];
      return { keys: rows.map((row) => r.rowHost(row, (m, rec) => out.push([m, rec]))), out };
    };
    const fresh = () => resolveAll(original.call(HostResolver, stored.map(seedOnly)));
    const first = await shared.resolver({ knownHosts });
    assert.deepEqual(resolveAll(first), fresh());
    assert.ok(first.has('uuid:new-50'));
    const second = await shared.resolver({ knownHosts });
    assert.equal(seeds, 1, 'seeded once for the list');
    assert.ok(!second.has('uuid:new-50'), 'the host the first stream created is not in the next copy');
    assert.deepEqual(resolveAll(second), fresh());
    // The copy's writes left its source alone: a third copy still resolves as a fresh seeding.
    assert.deepEqual(resolveAll(await shared.resolver({ knownHosts })), fresh());
  } finally {
    HostResolver.seeded = original;
  }
});

test('SharedHosts: hosts a page only added identifiers to are seeded on a copy of the resolver before; any other change seeds the list again; each resolves as a fresh seeding', async () => {
  let seeds = 0;
  const original = HostResolver.seeded;
  HostResolver.seeded = (hosts) => {
    seeds++;
    return original.call(HostResolver, hosts);
  };
  try {
    let store = stored;
    const knownHosts = pagesOf(() => store);
    const knownHostsByKey = async (keys: string[]) => store.filter((h) => keys.includes(h.key));
    const shared = new SharedHosts();
    const rows = [
      vulnRow({ ip: '10.0.0.8', uuid: '', hostUUID: '', dnsName: '', netbiosName: '', macAddress: '', repository: REPO }),
      vulnRow({ ip: '10.0.0.88', uuid: '', hostUUID: '', dnsName: '', netbiosName: '', macAddress: '', repository: REPO }),
      vulnRow({ ip: '10.0.0.99', uuid: '', hostUUID: '', dnsName: '', netbiosName: '', macAddress: '', repository: REPO }),
      vulnRow({ ip: '10.0.0.9', uuid: 'bbbb-2', repository: REPO }),
      vulnRow({ ip: '10.9.9.9', uuid: 'aaaa-1', repository: REPO }),
      vulnRow({ ip: '10.0.0.10', uuid: 'legacy-7', repository: REPO }),
    ];
    const resolveAll = (r: HostResolver) => {
      const out: [string, IncomingRecord | null | undefined][] = [];
      return { keys: rows.map((row) => r.rowHost(row, (m, rec) => out.push([m, rec]))), out };
    };
    const fresh = () => resolveAll(original.call(HostResolver, store.map(seedOnly)));
    await shared.resolver({ knownHosts, knownHostsByKey });
    assert.equal(seeds, 1);
    // A page adds an address to one host, a UUID to another, and a new host that shares an address with the first.
    const page = (hosts: KnownHost[]) => shared.saw({ records: { hosts: hosts.map((h) => ({ key: h.key, fields: {} })) }, checkpoint: null });
    const grown: KnownHost = { ...stored[0]!, fields: { ...stored[0]!.fields, ipAddresses: ['10.0.0.8', '10.0.0.88'] } };
    const named: KnownHost = { ...stored[1]!, fields: { ...stored[1]!.fields, tenableUuid: 'bbbb-2' } };
    const sharing: KnownHost = { key: 'addr:2|10.0.0.88|', fields: { repository: 'Workstations', ipAddresses: ['10.0.0.88', '10.0.0.99'] } };
    store = [grown, named, stored[2]!, sharing];
    page([grown, named, sharing]);
    const r = await shared.resolver({ knownHosts, knownHostsByKey });
    assert.equal(seeds, 1, 'added identifiers: no seeding again');
    assert.deepEqual(resolveAll(r), fresh());
    // An address gone (a host moved): seeded again.
    const moved: KnownHost = { ...grown, fields: { ...grown.fields, ipAddresses: ['10.0.0.88'] } };
    store = [moved, named, stored[2]!, sharing];
    page([moved]);
    const r2 = await shared.resolver({ knownHosts, knownHostsByKey });
    assert.equal(seeds, 2, 'an identifier gone: the list seeded again');
    assert.deepEqual(resolveAll(r2), fresh());
    // A legacy key that gets its UUID: seeded again (its key stops standing for the UUID).
    const legacy: KnownHost = { ...stored[2]!, fields: { ...stored[2]!.fields, tenableUuid: 'legacy-7' } };
    store = [moved, named, legacy, sharing];
    page([legacy]);
    assert.deepEqual(resolveAll(await shared.resolver({ knownHosts, knownHostsByKey })), fresh());
    assert.equal(seeds, 3);
  } finally {
    HostResolver.seeded = original;
  }
});
