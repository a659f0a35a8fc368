// The full pass's compact CMDB index (CompactContext) answers exactly as the in-memory one
// (MemoryContext): the same matches for a generated estate with its drift, hash collisions told
// apart, and values holding the packing's separators kept whole.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cmdbIdentity, Estate } from '../../sim/shared/estate.ts';
import { CompactContext, keyOf } from '../../src/correlate/compact.ts';
import { type HostMatch, matchAll, matchFirst, matchSecond, MemoryContext } from '../../src/correlate/engine.ts';
import { cmdbIdentifiers, hostIdentifiers, type Identifiers } from '../../src/correlate/normalize.ts';

/** The full pass's order: phase 1 host by host (each host's addresses made known as it comes), then phase 2. */
function streamed(hosts: Identifiers[], cmdb: Identifiers[], overrides: { hostId: string; cmdbAssetId: string; action: 'link' | 'unlink' }[]) {
  const ctx = new CompactContext(overrides);
  for (const c of cmdb) ctx.addCmdb(c);
  const out = new Map<string, HostMatch>();
  for (const h of hosts) {
    ctx.addHost(h);
    out.set(h.id, matchFirst(h, ctx));
  }
  for (const h of hosts) out.set(h.id, matchSecond(h, out.get(h.id)!, ctx));
  return out;
}

test('the compact context matches a generated estate exactly as the in-memory one', () => {
  const e = new Estate(7, 3000);
  const hosts: Identifiers[] = [];
  for (let i = 0; i < e.scanned; i++) hosts.push(hostIdentifiers({ id: `h${i}`, ...e.hostIdentity(i) }));
  const cmdb = e.cmdb().map((c, i) => cmdbIdentifiers({ id: `c${i}`, ...cmdbIdentity(c) }));
  // A value with the packing's separators, a record with no identifier at all, and overrides.
  cmdb.push(cmdbIdentifiers({ id: 'odd', name: 'odd-1', serialNumber: 'SER\u0001IAL\u0002X' }), cmdbIdentifiers({ id: 'bare' }));
  hosts.push(hostIdentifiers({ id: 'hodd', serialNumber: 'ser\u0001ial\u0002x' }));
  const overrides = [
    { hostId: 'h1', cmdbAssetId: 'c5', action: 'link' as const },
    { hostId: 'h2', cmdbAssetId: 'c2', action: 'unlink' as const },
    { hostId: 'h3', cmdbAssetId: 'gone', action: 'link' as const },
  ];
  const expected = matchAll(hosts, new MemoryContext(cmdb, hosts, overrides));
  const actual = streamed(hosts, cmdb, overrides);
  assert.deepEqual(actual, expected);
  const kinds = new Set<string>([...expected.values()].map((m) => (m.kind === 'linked' ? m.rule : m.kind)));
  for (const k of ['manual', 'serial', 'mac', 'hostname', 'ambiguous', 'none']) assert.ok(kinds.has(k), `the estate exercises ${k}`);
  assert.deepEqual(actual.get('hodd'), {
    kind: 'linked',
    rule: 'serial',
    cmdbAssetIds: ['odd'],
    details: { rule: 'serial', matched: { serial: ['SER\u0001IAL\u0002X'] } },
  });
});

test('two values sharing an index hash find only their own records', () => {
  const seen = new Map<number, string>();
  let pair: [string, string] | null = null;
  for (let i = 0; !pair; i++) {
    const v = `srv-${i.toString(36)}`;
    const k = keyOf(4, v);
    const had = seen.get(k);
    if (had !== undefined) pair = [had, v];
    else seen.set(k, v);
  }
  const [a, b] = pair;
  assert.equal(keyOf(4, a), keyOf(4, b));
  const ctx = new CompactContext();
  ctx.addCmdb(cmdbIdentifiers({ id: 'ca', name: a }));
  ctx.addCmdb(cmdbIdentifiers({ id: 'cb', name: b }));
  assert.deepEqual(ctx.cmdbWith('hostname', a), ['ca']);
  assert.deepEqual(ctx.cmdbWith('hostname', b), ['cb']);
  assert.deepEqual(ctx.cmdbWith('fqdn', a), []);
  assert.deepEqual(ctx.cmdb('ca'), cmdbIdentifiers({ id: 'ca', name: a }));
});
