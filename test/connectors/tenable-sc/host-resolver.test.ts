// The Tenable.sc host resolver on the fact sheet's row shapes: every identifier finds the host, in the
// console's order of trust and within the repository; a weaker identifier never joins hosts a stronger
// one tells apart; the key is the first row's and stays; the stored hosts seed it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IncomingRecord, ModelName } from '../../../src/core/models.ts';
import { HostResolver, rowHostIds } from '../../../src/connectors/tenable-sc/map/host-resolver.ts';
import { rowHostKey } from '../../../src/connectors/tenable-sc/map/identity.ts';
import { mapSumipRow } from '../../../src/connectors/tenable-sc/map/sumip.ts';
import { sumipRow, vulnRow } from './fixtures/rows.ts';

const REPO = { id: '2', name: 'Workstations', description: '', dataFormat: 'IPv4' };
const HOST_UUID = '3f2a9d10-5c1e-4b7a-9e0d-0123456789ab';

/** Resolves rows in order; returns each row's key and the host records the resolver asked for. */
function run(resolver: HostResolver, rows: Record<string, unknown>[]) {
  const hosts: IncomingRecord[] = [];
  const add = (m: ModelName, r: IncomingRecord | null | undefined) => {
    assert.equal(m, 'hosts');
    if (r) hosts.push(r);
  };
  return { keys: rows.map((r) => resolver.rowHost(r, add)), hosts };
}

test('6.x: sumip names an unauthenticated host by address, vulndetails by hostUUID: one host, in either order', () => {
  const sumip = sumipRow({ ip: '10.0.0.7', uuid: '', dnsName: '', netbiosName: '', macAddress: '', repository: REPO });
  const finding = vulnRow({ ip: '10.0.0.7', uuid: '', hostUUID: HOST_UUID, dnsName: '', netbiosName: '', macAddress: '', repository: REPO });
  for (const order of [
    [sumip, finding],
    [finding, sumip],
  ]) {
    const { keys, hosts } = run(new HostResolver(), order);
    assert.equal(keys[0], keys[1], 'the same host');
    assert.equal(keys[0], rowHostKey(order[0]!), 'keyed by the first row that named it');
    assert.equal(hosts[0]!.key, keys[0]);
  }
  // sumip first: the finding teaches the host its hostUUID (written onto it), and the OS every finding
  // row carries fills the OS the sumip row lacked (only where the store has none).
  const { hosts } = run(new HostResolver(), [sumip, finding]);
  assert.deepEqual(hosts.slice(1), [
    { key: 'addr:2|10.0.0.7|', fields: { hostUuid: HOST_UUID } },
    { key: 'addr:2|10.0.0.7|', fill: true, fields: { os: 'Microsoft Windows Server 2019' } },
  ]);
});

test('order of trust: Tenable UUID, BIOS UUID, MAC, NetBIOS, FQDN, IP each find the host', () => {
  const first = sumipRow({
    ip: '10.0.0.8',
    uuid: 'AAAA-1',
    biosGUID: 'BIOS-1',
    macAddress: '00:50:56:00:00:08',
    netbiosName: 'CORP\\WS8',
    dnsName: 'ws8.corp.example',
    repository: REPO,
  });
  const probes: Record<string, unknown>[] = [
    { uuid: 'aaaa-1', ip: '10.9.9.1' },
    { biosGUID: 'bios-1', ip: '10.9.9.2' },
    { macAddress: '00-50-56-00-00-08', ip: '10.9.9.3' },
    { netbiosName: 'WS8', ip: '10.9.9.4' },
    { dnsName: 'WS8.corp.example.', ip: '10.9.9.5' },
    { ip: '10.0.0.8' },
  ];
  for (const p of probes) {
    const resolver = new HostResolver();
    const { keys } = run(resolver, [first, { repository: REPO, ...p }]);
    assert.equal(keys[1], keys[0], JSON.stringify(p));
  }
});

test('a weaker identifier never joins what a stronger one or the repository tells apart', () => {
  const agent = sumipRow({ ip: '10.0.0.9', uuid: 'AAAA-2', dnsName: 'a.corp.example', netbiosName: '', macAddress: '', repository: REPO });
  const cases: [string, Record<string, unknown>][] = [
    ['another Tenable UUID at the address', { ip: '10.0.0.9', uuid: 'BBBB-2', dnsName: '' }],
    ['another DNS name at the address', { ip: '10.0.0.9', dnsName: 'b.corp.example' }],
    ['the same address in another repository', { ip: '10.0.0.9', dnsName: '', repository: { id: '1', name: 'Datacenter' } }],
    ['the same Tenable UUID in another repository', { ip: '10.0.0.9', uuid: 'AAAA-2', repository: { id: '1', name: 'Datacenter' } }],
  ];
  for (const [what, over] of cases) {
    const resolver = new HostResolver();
    const { keys, hosts } = run(resolver, [agent, { repository: REPO, ...over }]);
    assert.notEqual(keys[1], keys[0], what);
    assert.equal(hosts.filter((h) => h.key === keys[1]).length, 1, `${what}: created from the row`);
  }
  // The same Tenable UUID in two repositories: two hosts, two distinct keys.
  const { keys } = run(new HostResolver(), [agent, { ...agent, repository: { id: '1', name: 'Datacenter' } }]);
  assert.deepEqual(keys, ['uuid:aaaa-2', 'uuid:aaaa-2|Datacenter']);
});

test('a host that moved keeps its key; its old address still finds it', () => {
  const resolver = new HostResolver();
  const before = vulnRow({ ip: '10.0.1.1', ips: '10.0.1.1', uuid: '', hostUUID: HOST_UUID, repository: REPO });
  const after = vulnRow({ ip: '10.0.2.2', ips: '10.0.2.2', uuid: '', hostUUID: HOST_UUID, repository: REPO });
  const { keys } = run(resolver, [
    before,
    after,
    sumipRow({ ip: '10.0.1.1', uuid: '', dnsName: 'app01.corp.example', netbiosName: 'CORP\\APP01', macAddress: '', repository: REPO }),
  ]);
  assert.equal(new Set(keys).size, 1);
  assert.deepEqual(resolver.addressesOf(keys[0]!), ['10.0.1.1', '10.0.2.2']);
});

test('seeded with the stored hosts: a later run (or a resumed one) finds them by any identifier', () => {
  const resolver = new HostResolver();
  resolver.seed({ key: 'addr:2|10.0.0.7|', fields: { repository: 'Workstations', ipAddresses: ['10.0.0.7'], hostUuid: HOST_UUID } });
  // Stored before hosts had identifier fields: the `uuid:` key itself names the host.
  resolver.seed({ key: 'uuid:cccc-3', fields: { repository: 'Workstations', ipAddresses: ['10.0.0.10'] } });
  const { keys, hosts } = run(resolver, [
    vulnRow({ ip: '10.5.5.5', uuid: '', hostUUID: HOST_UUID.toUpperCase(), repository: REPO }),
    vulnRow({ ip: '10.0.0.10', uuid: 'CCCC-3', dnsName: 'x.corp.example', repository: REPO }),
  ]);
  assert.deepEqual(keys, ['addr:2|10.0.0.7|', 'uuid:cccc-3']);
  assert.deepEqual(
    hosts.filter((h) => !h.fill),
    [{ key: 'uuid:cccc-3', fields: { tenableUuid: 'cccc-3' } }],
    'only what the store lacks is written',
  );
});

test("a host's missing facts fill in from any row that names it, once, and only where the store has none", () => {
  const resolver = new HostResolver();
  resolver.seed({ key: 'addr:2|10.0.0.7|', fields: { repository: 'Workstations', ipAddresses: ['10.0.0.7'], hostUuid: HOST_UUID, os: 'From the hosts API' } });
  const row = vulnRow({
    ip: '10.0.0.7',
    uuid: '',
    hostUUID: HOST_UUID,
    dnsName: 'web01.corp.example',
    netbiosName: '',
    operatingSystem: 'Row OS',
    repository: REPO,
  });
  const { hosts } = run(resolver, [row, { ...row, pluginID: '19506' }]);
  assert.deepEqual(
    hosts,
    [{ key: 'addr:2|10.0.0.7|', fill: true, fields: { hostname: 'web01', fqdn: 'web01.corp.example' } }],
    'the stored OS is not offered again; the names are, once',
  );
});

test('the fact sheet sumip example: identifiers kept on the host', () => {
  const row = {
    ip: '10.0.0.15',
    uuid: '4add65d0-27fc-491c-91ba-3f498a61f49e',
    macAddress: '00:50:56:a6:60:bc',
    netbiosName: 'CORP\\WS015',
    dnsName: 'ws015.corp.example',
    biosGUID: 'ce162642-caf4-a4e1-78d4-3ff87addeff2',
    lastAuthRun: '1716012345',
    lastUnauthRun: '',
    repository: { id: '2', name: 'Corp', description: '', sciID: '1', dataFormat: 'IPv4' },
  };
  const ids = rowHostIds(row);
  assert.deepEqual(ids, {
    scope: 'Corp',
    hostUuid: null,
    tenableUuid: '4add65d0-27fc-491c-91ba-3f498a61f49e',
    biosUuid: 'ce162642-caf4-a4e1-78d4-3ff87addeff2',
    macs: ['00:50:56:a6:60:bc'],
    netbios: 'ws015',
    fqdn: 'ws015.corp.example',
    ips: ['10.0.0.15'],
  });
  const host = mapSumipRow({ ...row, acrScore: '7', assetExposureScore: 612 });
  assert.equal(host.fields.tenableUuid, '4add65d0-27fc-491c-91ba-3f498a61f49e');
  assert.equal(host.fields.biosUuid, 'ce162642-caf4-a4e1-78d4-3ff87addeff2');
  assert.equal(host.fields.acrScore, 7);
  assert.equal(host.fields.aesScore, 612);
  assert.equal(host.fields.scannerLastSeen, '2024-05-18T06:05:45.000Z');
});

test('two hosts the console lists apart (by address, no UUID) stay two in a run, whatever they share', () => {
  const a = sumipRow({ ip: '10.0.3.1', uuid: '', dnsName: '', netbiosName: 'WORKGROUP\\DB', macAddress: '9c:8e:99:1b:8b:dc', repository: REPO });
  const b = { ...a, ip: '10.0.3.2' };
  const { keys } = run(new HostResolver(), [a, b, a, b]);
  assert.deepEqual(keys, ['addr:2|10.0.3.1|', 'addr:2|10.0.3.2|', 'addr:2|10.0.3.1|', 'addr:2|10.0.3.2|']);
  // Nor across runs: a stored host keyed by its address is that console host (a host without a UUID
  // at a new address is a new console host; with one, it is found by it).
  const later = new HostResolver();
  later.seed({
    key: 'addr:2|10.0.3.1|',
    fields: { repository: 'Workstations', ipAddresses: ['10.0.3.1'], macAddresses: ['9c:8e:99:1b:8b:dc'], netbiosName: 'WORKGROUP\\DB' },
  });
  assert.deepEqual(run(later, [b]).keys, ['addr:2|10.0.3.2|']);
  assert.deepEqual(
    run(later, [
      { ...b, ip: '10.0.3.3', hostUUID: HOST_UUID },
      { ...b, ip: '10.0.3.1', hostUUID: HOST_UUID },
    ]).keys,
    [`uuid:${HOST_UUID}`, `uuid:${HOST_UUID}`],
  );
  // A Host Assets row that names no repository is the same console host as the row that did.
  const csv = new HostResolver();
  const key = csv.resolve({ scope: 'Corp', ips: ['10.0.0.1'], fqdn: 'web1.corp.example' }, 'addr:Corp|10.0.0.1|web1.corp.example').key;
  assert.equal(csv.resolve({ scope: '', ips: ['10.0.0.1'], fqdn: 'web1.corp.example' }, 'addr:|10.0.0.1|web1.corp.example').key, key);
});

test('6.x: an unauthenticated host that moved keeps its identity: its findings (hostUUID) stay on the host they were on, not on the new address', () => {
  const before = run(new HostResolver(), [
    sumipRow({ ip: '10.0.0.7', uuid: '', dnsName: '', netbiosName: '', macAddress: '', repository: REPO }),
    vulnRow({ ip: '10.0.0.7', uuid: '', hostUUID: HOST_UUID, dnsName: '', netbiosName: '', macAddress: '', repository: REPO }),
  ]);
  const stored = { key: before.keys[0]!, fields: { repository: 'Workstations', hostUuid: HOST_UUID, ipAddresses: ['10.0.0.7'] } };
  // The next run: sumip names the new address (no id of the console's own: a host of its own), the findings carry the hostUUID.
  const after = run(HostResolver.seeded([stored]), [
    sumipRow({ ip: '10.0.9.9', uuid: '', dnsName: '', netbiosName: '', macAddress: '', repository: REPO }),
    vulnRow({ ip: '10.0.9.9', uuid: '', hostUUID: HOST_UUID, dnsName: '', netbiosName: '', macAddress: '', repository: REPO }),
  ]);
  assert.notEqual(after.keys[0], stored.key, 'the address-only sumip row has no id to follow');
  assert.equal(after.keys[1], stored.key, 'the findings stay with the host the hostUUID names');
  // Another repository's host with the same hostUUID is another host (the console scopes by repository).
  const other = run(HostResolver.seeded([stored]), [
    sumipRow({ ip: '10.0.9.9', uuid: '', dnsName: '', netbiosName: '', macAddress: '', repository: { ...REPO, id: '3', name: 'DMZ' } }),
    vulnRow({ ip: '10.0.9.9', uuid: '', hostUUID: HOST_UUID, dnsName: '', netbiosName: '', macAddress: '', repository: { ...REPO, id: '3', name: 'DMZ' } }),
  ]);
  assert.notEqual(other.keys[1], stored.key);
  // A host whose address key holds its own hostUUID is never redirected.
  const own = run(HostResolver.seeded([stored]), [
    vulnRow({ ip: '10.0.0.7', uuid: '', hostUUID: HOST_UUID, dnsName: '', netbiosName: '', macAddress: '', repository: REPO }),
  ]);
  assert.equal(own.keys[0], stored.key);
});
