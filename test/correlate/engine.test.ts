// The matching ladder as a pure function: normalisation, every rule, the veto, ambiguity, IP scoping,
// DHCP reuse, overrides, and the assets built from the links.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildAsset, components, linksOf } from '../../src/correlate/assets.ts';
import { matchAll, MemoryContext } from '../../src/correlate/engine.ts';
import { cmdbIdentifiers, hostIdentifiers, normFqdn, normMac, normSerial, normUuid, shortName } from '../../src/correlate/normalize.ts';
import { mentionsOf } from '../../src/correlate/tickets.ts';

type R = Record<string, unknown> & { id: string };

function run(hosts: R[], cmdb: R[], overrides: { hostId: string; cmdbAssetId: string; action: 'link' | 'unlink' }[] = []) {
  const h = hosts.map(hostIdentifiers);
  const ctx = new MemoryContext(cmdb.map(cmdbIdentifiers), h, overrides);
  return matchAll(h, ctx);
}

function linkOf(m: ReturnType<typeof run>, hostId: string): { rule: string; to: string[] } | string {
  const x = m.get(hostId)!;
  if (x.kind === 'linked') return { rule: x.rule, to: x.cmdbAssetIds };
  return x.kind;
}

test('identifiers are normalised: case, MAC spellings, DOMAIN\\NAME, FQDN vs short name, trailing dots, placeholder serials', () => {
  assert.equal(normMac('00-50-56-AB-CD-EF'), '00:50:56:ab:cd:ef');
  assert.equal(normMac('0050.56ab.cdef'), '00:50:56:ab:cd:ef');
  assert.equal(normMac('005056ABCDEF'), '00:50:56:ab:cd:ef');
  assert.equal(normMac('00:00:00:00:00:00'), null);
  assert.equal(shortName('CORP\\WS-0042'), 'ws-0042');
  assert.equal(shortName('ws-0042.corp.example.'), 'ws-0042');
  assert.equal(shortName('10.1.2.3'), null);
  assert.equal(normFqdn('WS-0042.Corp.Example.'), 'ws-0042.corp.example');
  assert.equal(normFqdn('WS-0042'), null);
  assert.equal(normSerial(' fk1d-9gz '), 'FK1D9GZ');
  assert.equal(normSerial('To Be Filled By O.E.M.'), null);
  assert.equal(normSerial('0000000'), null);
  assert.equal(normUuid('{4C4C4544-0042-3510-8052-B4C04F4D4E31}'), '4c4c4544-0042-3510-8052-b4c04f4d4e31');
  assert.equal(normUuid('00000000-0000-0000-0000-000000000000'), null);
});

test('serial number links first, even when the host was renamed and its NIC replaced', () => {
  const m = run(
    [{ id: 'h1', serialNumber: 'abc123', hostname: 'new-name', macAddresses: ['00:11:22:33:44:55'] }],
    [{ id: 'c1', name: 'old-name', serialNumber: 'ABC123', macAddresses: ['66:77:88:99:aa:bb'] }],
  );
  assert.deepEqual(linkOf(m, 'h1'), { rule: 'serial', to: ['c1'] });
  const d = (m.get('h1') as unknown as { details: { matched: unknown } }).details;
  assert.deepEqual(d.matched, { serial: ['ABC123'] });
});

test('BIOS UUID links when neither side has a serial', () => {
  const m = run(
    [{ id: 'h1', biosUuid: '4C4C4544-0042-3510-8052-B4C04F4D4E31' }],
    [{ id: 'c1', name: 'x1', biosUuid: '{4c4c4544-0042-3510-8052-b4c04f4d4e31}' }],
  );
  assert.deepEqual(linkOf(m, 'h1'), { rule: 'bios-uuid', to: ['c1'] });
});

test('MAC links across spellings; a MAC several records share is no evidence and a weaker rule decides', () => {
  assert.deepEqual(linkOf(run([{ id: 'h1', macAddresses: ['AA-BB-CC-00-11-22'] }], [{ id: 'c1', macAddresses: ['aabb.cc00.1122'] }]), 'h1'), {
    rule: 'mac',
    to: ['c1'],
  });
  const dock = run(
    [{ id: 'h1', macAddresses: ['aa:bb:cc:00:11:22'], hostname: 'lt-7' }],
    [
      { id: 'c1', name: 'lt-7', macAddresses: ['aa:bb:cc:00:11:22'] },
      { id: 'c2', name: 'lt-8', macAddresses: ['aa:bb:cc:00:11:22'] },
    ],
  );
  assert.deepEqual(linkOf(dock, 'h1'), { rule: 'hostname', to: ['c1'] });
});

test('FQDN links a host to a CMDB record named by its FQDN, trailing dot and case aside', () => {
  assert.deepEqual(linkOf(run([{ id: 'h1', fqdn: 'web01.corp.example.' }], [{ id: 'c1', name: 'WEB01.corp.example' }]), 'h1'), { rule: 'fqdn', to: ['c1'] });
});

test('host name links a NetBIOS DOMAIN\\NAME to a CMDB short name, and a short name to an FQDN-named record', () => {
  assert.deepEqual(linkOf(run([{ id: 'h1', netbiosName: 'CORP\\FIN-LT-0001' }], [{ id: 'c1', name: 'fin-lt-0001' }]), 'h1'), { rule: 'hostname', to: ['c1'] });
  assert.deepEqual(linkOf(run([{ id: 'h1', hostname: 'fin-lt-0002' }], [{ id: 'c1', name: 'fin-lt-0002.corp.example' }]), 'h1'), {
    rule: 'hostname',
    to: ['c1'],
  });
});

test('a stronger single-valued identifier that disagrees vetoes a weaker match, and says so', () => {
  // Same MAC, different serials: two machines (a NIC moved from one to the other).
  const m = run(
    [{ id: 'h1', serialNumber: 'S1', macAddresses: ['aa:bb:cc:00:11:22'] }],
    [{ id: 'c1', serialNumber: 'S2', macAddresses: ['aa:bb:cc:00:11:22'] }],
  );
  assert.equal(linkOf(m, 'h1'), 'none');
  const details = (m.get('h1') as unknown as { details: { vetoed: { cmdbAssetId: string; rule: string; shared: string[]; conflict: { kind: string } }[] } })
    .details;
  // The veto names the value it blocked, as well as the values that disagree.
  assert.deepEqual(
    details.vetoed.map((v) => [v.cmdbAssetId, v.rule, v.shared, v.conflict]),
    [['c1', 'mac', ['aa:bb:cc:00:11:22'], { kind: 'serial', host: ['S1'], cmdb: ['S2'] }]],
  );
  // Same host name, different FQDNs: vetoed; same host name, different BIOS UUIDs: vetoed.
  assert.equal(linkOf(run([{ id: 'h1', fqdn: 'web.dmz.example', hostname: 'web' }], [{ id: 'c1', name: 'web', fqdn: 'web.corp.example' }]), 'h1'), 'none');
  assert.equal(
    linkOf(
      run(
        [{ id: 'h1', hostname: 'web', biosUuid: '4c4c4544-0042-3510-8052-b4c04f4d4e31' }],
        [{ id: 'c1', name: 'web', biosUuid: '4c4c4544-0042-3510-8052-b4c04f4d4e32' }],
      ),
      'h1',
    ),
    'none',
  );
  // A differing host name does not veto a serial (renamed machine); a differing MAC set vetoes nothing.
  assert.deepEqual(linkOf(run([{ id: 'h1', serialNumber: 'S1', hostname: 'a' }], [{ id: 'c1', serialNumber: 'S1', name: 'b' }]), 'h1'), {
    rule: 'serial',
    to: ['c1'],
  });
  assert.deepEqual(
    linkOf(run([{ id: 'h1', hostname: 'a', macAddresses: ['aa:bb:cc:00:11:22'] }], [{ id: 'c1', name: 'a', macAddresses: ['aa:bb:cc:00:11:99'] }]), 'h1'),
    { rule: 'hostname', to: ['c1'] },
  );
});

test('two CMDB records with the same host name leave the host unmatched, listed with both candidates', () => {
  const m = run(
    [{ id: 'h1', hostname: 'dup-01' }],
    [
      { id: 'c1', name: 'DUP-01' },
      { id: 'c2', name: 'dup-01.corp.example' },
    ],
  );
  const x = m.get('h1')!;
  assert.equal(x.kind, 'ambiguous');
  assert.deepEqual(x.kind === 'ambiguous' && x.candidates, ['c1', 'c2']);
  assert.equal(x.kind === 'ambiguous' && x.rule, 'hostname');
  const links = linksOf('h1', x);
  assert.deepEqual(
    links.map((l) => [l.cmdbAssetId, l.rule]),
    [['', 'ambiguous']],
  );
});

test('IP links only when exactly one CMDB record and one host hold it, within the repository / site', () => {
  assert.deepEqual(linkOf(run([{ id: 'h1', ipAddresses: ['10.0.0.5'] }], [{ id: 'c1', ipAddresses: ['10.0.0.5'] }]), 'h1'), { rule: 'ip', to: ['c1'] });
  // Two CMDB records with the address: ambiguous.
  assert.equal(
    linkOf(
      run(
        [{ id: 'h1', ipAddresses: ['10.0.0.5'] }],
        [
          { id: 'c1', ipAddresses: ['10.0.0.5'] },
          { id: 'c2', ipAddresses: ['10.0.0.5'] },
        ],
      ),
      'h1',
    ),
    'ambiguous',
  );
  // Two hosts of two repositories with one private address, one CMDB record: neither is guessed…
  const two = run(
    [
      { id: 'h1', ipAddresses: ['10.0.0.5'], repository: 'Paris' },
      { id: 'h2', ipAddresses: ['10.0.0.5'], repository: 'Lyon' },
    ],
    [{ id: 'c1', ipAddresses: ['10.0.0.5'] }],
  );
  assert.equal(linkOf(two, 'h1'), 'ambiguous');
  assert.equal(linkOf(two, 'h2'), 'ambiguous');
  // …unless the CMDB record's site is one host's repository (the network partition).
  const scoped = run(
    [
      { id: 'h1', ipAddresses: ['10.0.0.5'], repository: 'Paris' },
      { id: 'h2', ipAddresses: ['10.0.0.5'], repository: 'Lyon' },
    ],
    [{ id: 'c1', ipAddresses: ['10.0.0.5'], site: 'paris' }],
  );
  assert.deepEqual(linkOf(scoped, 'h1'), { rule: 'ip', to: ['c1'] });
  assert.equal(linkOf(scoped, 'h2'), 'none');
});

test('a DHCP-reused address does not merge two machines: veto by name, and no IP link onto a record another host holds', () => {
  // The CMDB still lists the old machine at the address the scanner now sees on another one.
  const vetoed = run([{ id: 'h1', hostname: 'new-box', ipAddresses: ['10.0.0.9'] }], [{ id: 'c1', name: 'old-box', ipAddresses: ['10.0.0.9'] }]);
  assert.equal(linkOf(vetoed, 'h1'), 'none');
  // A nameless host at an address whose CMDB record is held by another host through its serial.
  const claimed = run(
    [
      { id: 'h1', ipAddresses: ['10.0.0.9'] },
      { id: 'h2', serialNumber: 'S9', ipAddresses: ['10.0.0.77'] },
    ],
    [{ id: 'c1', serialNumber: 'S9', ipAddresses: ['10.0.0.9'] }],
  );
  assert.deepEqual(linkOf(claimed, 'h2'), { rule: 'serial', to: ['c1'] });
  assert.equal(linkOf(claimed, 'h1'), 'none');
});

test('a manual link beats every rule; an unlink forbids the pair and the ladder goes on', () => {
  const hosts = [{ id: 'h1', serialNumber: 'S1', hostname: 'a' }];
  const cmdb = [
    { id: 'c1', serialNumber: 'S1' },
    { id: 'c2', serialNumber: 'S2', name: 'other' },
    { id: 'c3', name: 'a' },
  ];
  assert.deepEqual(linkOf(run(hosts, cmdb, [{ hostId: 'h1', cmdbAssetId: 'c2', action: 'link' }]), 'h1'), { rule: 'manual', to: ['c2'] });
  assert.deepEqual(linkOf(run(hosts, cmdb, [{ hostId: 'h1', cmdbAssetId: 'c1', action: 'unlink' }]), 'h1'), { rule: 'hostname', to: ['c3'] });
});

test("assets: one per machine, with both sources, owner from the CMDB record and department from the owner's user record", () => {
  const hosts = [
    { id: 'h1', serialNumber: 'S1', hostname: 'fin-lt-1', ipAddresses: ['10.0.0.1'], scannerLastSeen: '2026-11-20T00:00:00.000Z' },
    { id: 'h2', hostname: 'lonely', ipAddresses: ['10.0.0.2'] },
  ];
  const cmdb = [
    { id: 'c1', serialNumber: 'S1', name: 'FIN-LT-1', assignedUser: 'Bo Chen', site: 'HQ' },
    { id: 'c2', name: 'never-scanned' },
  ];
  const m = run(hosts, cmdb);
  const links = [...m].flatMap(([id, x]) => linksOf(id, x));
  const groups = components(['h1', 'h2'], ['c1', 'c2'], links);
  assert.equal(groups.length, 3);
  const g = groups.find((x) => x.hostIds.includes('h1'))!;
  assert.deepEqual(g, { hostIds: ['h1'], cmdbIds: ['c1'] });
  const users = (n: string) => (n === 'Bo Chen' ? { id: 'u1', department: 'Finance' } : undefined);
  const a = buildAsset(
    [hosts[0]!],
    [cmdb[0]!],
    links.filter((l) => l.hostId === 'h1'),
    users,
    () => ({ critical: 2 }),
  );
  assert.equal(a.name, 'FIN-LT-1');
  assert.deepEqual([a.owner, a.department, a.site], ['Bo Chen', 'Finance', 'HQ']);
  assert.equal(a.matchRule, 'serial');
  assert.deepEqual(a.openFindings, { critical: 2 });
  assert.equal(a.lastScanned, '2026-11-20T00:00:00.000Z');
  assert.deepEqual(a.hostnames, ['fin-lt-1']);
  const lonely = buildAsset([hosts[1]!], [], [], users, () => undefined);
  assert.equal(lonely.matchRule, 'none');
});

test('ticket text: CVE and plugin IDs, addresses, host names, FQDNs and asset tags; plain words are no host names', () => {
  const m = mentionsOf(
    'Patch CVE-2024-3094 on FIN-LT-0042',
    '<div>Plugin ID: 156032 seen on 10.20.0.7 and web01.corp.example. Asset tag A-10042. The printer is fine.</div>',
  );
  assert.deepEqual(m.cves, ['CVE-2024-3094']);
  assert.deepEqual(m.plugins, ['156032']);
  assert.deepEqual(m.ips, ['10.20.0.7']);
  assert.ok(m.hostnames.includes('fin-lt-0042'));
  assert.ok(m.fqdns.includes('web01.corp.example'));
  assert.ok(m.tokens.includes('A-10042'));
  assert.ok(!m.hostnames.includes('printer'));
});
