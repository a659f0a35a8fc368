// An asset's match details in sentences: the values that linked a pair, who linked a pair by hand and
// when, the shared value a veto blocked and the values that disagreed, and why a host is unlinked.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildAsset, linksOf } from '../../src/correlate/assets.ts';
import { matchAll, MemoryContext } from '../../src/correlate/engine.ts';
import { cmdbIdentifiers, hostIdentifiers } from '../../src/correlate/normalize.ts';
import { matchReasons } from '../../src/correlate/reasons.ts';

type R = Record<string, unknown> & { id: string };
const NAMES: Record<string, string> = { h1: 'fin-ws-0131', h2: 'fin-ws-0132', c1: 'FIN-WS-0131', c2: 'FIN-WS-0077', c3: 'FIN-WS-0078' };
const nameOf = (id: string) => NAMES[id] ?? id;

/** The reasons of the asset holding host `hostId`, from real matching. */
function reasonsOf(
  hosts: R[],
  cmdb: R[],
  hostId: string,
  overrides: { hostId: string; cmdbAssetId: string; action: 'link' | 'unlink' }[] = [],
  manual?: Parameters<typeof linksOf>[2],
) {
  const h = hosts.map(hostIdentifiers);
  const m = matchAll(h, new MemoryContext(cmdb.map(cmdbIdentifiers), h, overrides));
  const links = linksOf(hostId, m.get(hostId)!, manual);
  const members = cmdb.filter((c) => links.some((l) => l.cmdbAssetId === c.id));
  const asset = buildAsset(
    hosts.filter((x) => x.id === hostId),
    members,
    links,
    () => undefined,
    () => undefined,
  );
  return matchReasons(asset.matchDetails, nameOf).map((r) => ({ pair: [r.hostId, r.cmdbAssetId], text: r.text, notes: r.notes }));
}

test('a link by a rule names the values the two records share', () => {
  assert.deepEqual(reasonsOf([{ id: 'h1', serialNumber: 'FK1D9GZ' }], [{ id: 'c1', serialNumber: 'fk1d9gz' }], 'h1'), [
    { pair: ['h1', 'c1'], text: 'same serial FK1D9GZ', notes: [] },
  ]);
});

test('a manual link says who linked the pair and when, never "rule manual on {}"', () => {
  const reasons = reasonsOf([{ id: 'h1' }], [{ id: 'c1' }], 'h1', [{ hostId: 'h1', cmdbAssetId: 'c1', action: 'link' }], () => ({
    by: 'alice',
    at: '2026-11-27T09:15:00.000Z',
  }));
  assert.deepEqual(reasons, [{ pair: ['h1', 'c1'], text: 'linked manually by alice on 2026-11-27', notes: [] }]);
  // Made before who was recorded: the date alone.
  assert.equal(
    reasonsOf([{ id: 'h1' }], [{ id: 'c1' }], 'h1', [{ hostId: 'h1', cmdbAssetId: 'c1', action: 'link' }], () => ({ by: null, at: '2026-11-01T00:00:00Z' }))[0]!
      .text,
    'linked manually on 2026-11-01',
  );
});

test('a veto names the shared value it blocked and the values that disagree', () => {
  // The address DHCP gave another machine: same IP, different serials.
  const reasons = reasonsOf(
    [{ id: 'h1', hostname: 'fin-ws-0131', serialNumber: 'FK1D9GZ', ipAddresses: ['10.40.0.113'] }],
    [{ id: 'c2', name: 'fin-ws-0077', serialNumber: 'CN0R2P7', ipAddresses: ['10.40.0.113'] }],
    'h1',
  );
  assert.deepEqual(reasons, [
    {
      pair: ['h1', null],
      text: 'not linked to a CMDB record',
      notes: ['IP 10.40.0.113 shared with CMDB record FIN-WS-0077, vetoed: serial FK1D9GZ ≠ CN0R2P7'],
    },
  ]);
});

test('an ambiguous host names the value and its candidates', () => {
  const reasons = reasonsOf(
    [{ id: 'h1', hostname: 'fin-ws-0078' }],
    [
      { id: 'c2', name: 'fin-ws-0078' },
      { id: 'c3', name: 'FIN-WS-0078.corp.example' },
    ],
    'h1',
  );
  assert.equal(reasons.length, 1);
  assert.match(reasons[0]!.text, /^not linked: host name fin-ws-0078 matches 2 CMDB records \(FIN-WS-0077, FIN-WS-0078\)$/);
});
