// Simulator state that changes at runtime: patch/reopen/advance, faults, request counters, volume.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { analysis, call, findingKey, pageAll, vulnQuery } from './tenable-sc-helpers.ts';

const NOW = 1_760_000_000;

describe('lifecycle control', () => {
  let sim: RunningTenableSim;
  before(async () => {
    sim = await startTenableSim({ port: 0, seed: 3, hosts: 20, findingsPerHost: 20, now: NOW });
  });
  after(() => sim.close());

  test('patched findings leave cumulative, appear in patched, and reopen as resurfaced', async () => {
    const patchedQuery = { ...vulnQuery(), sourceType: 'patched' };
    const before = await pageAll(sim, vulnQuery());
    const patchedBefore = await pageAll(sim, patchedQuery);
    assert.equal(before.length, 400);
    assert.ok(patchedBefore.length > 0, 'some findings start out mitigated');
    const target = before.find((r) => r.checkType === 'local' && r.severity.id !== '0' && Number(r.pluginID) < 1000000 && r.pluginID !== '20811')!;

    const advanced = await call(sim, 'POST', '/_sim/advance', { body: { seconds: 3600 } });
    assert.equal(advanced.json.now, NOW + 3600);
    const rescanned = await pageAll(sim, vulnQuery([{ filterName: 'lastSeen', operator: '=', value: `${NOW + 3600}-${NOW + 3600}` }]));
    assert.equal(rescanned.length, 400, 'a full rescan refreshes lastSeen of every open finding');

    const patch = await call(sim, 'POST', '/_sim/patch', { body: { hosts: [target.ip], pluginIDs: [target.pluginID] } });
    assert.equal(patch.status, 200);
    assert.deepEqual([patch.json.cumulative, patch.json.patched], [399, patchedBefore.length + 1]);
    const cumulative = await pageAll(sim, vulnQuery());
    assert.ok(!cumulative.some((r) => findingKey(r) === findingKey(target)));
    const mitigated = (await pageAll(sim, patchedQuery)).find((r) => findingKey(r) === findingKey(target));
    assert.equal(mitigated?.lastSeen, String(NOW + 3600));
    assert.equal(mitigated?.vulnUUID, target.vulnUUID, 'identity is stable across the move');

    await call(sim, 'POST', '/_sim/advance', { body: { seconds: 60, rescanFraction: 0 } });
    await call(sim, 'POST', '/_sim/reopen', { body: { hosts: [target.ip], pluginIDs: [target.pluginID] } });
    const back = (await pageAll(sim, vulnQuery())).find((r) => findingKey(r) === findingKey(target));
    assert.equal(back?.hasBeenMitigated, '1');
    assert.equal(back?.lastSeen, String(NOW + 3660));
    assert.equal(back?.firstSeen, target.firstSeen);
  });

  test('fractional patching is deterministic and moves roughly that share', async () => {
    await call(sim, 'POST', '/_sim/reset');
    const a = (await call(sim, 'POST', '/_sim/patch', { body: { fraction: 0.25 } })).json;
    const keysA = (await pageAll(sim, vulnQuery())).map(findingKey);
    await call(sim, 'POST', '/_sim/reset');
    const b = (await call(sim, 'POST', '/_sim/patch', { body: { fraction: 0.25 } })).json;
    assert.deepEqual(keysA, (await pageAll(sim, vulnQuery())).map(findingKey));
    assert.equal(a.cumulative, b.cumulative);
    assert.ok(a.cumulative < 400 - 40 && a.cumulative > 400 - 140, `cumulative ${a.cumulative}`);
    assert.equal((await call(sim, 'POST', '/_sim/patch', { body: { fraction: 2 } })).status, 400);
  });

  test('a moved host gets a new address: findings seen after the move carry it, those seen before the old one', async () => {
    await call(sim, 'POST', '/_sim/reset');
    const first = await pageAll(sim, vulnQuery());
    const ip = first[0]!.ip;
    const mine = (rows: typeof first) => rows.filter((r) => r.uuid === first[0]!.uuid && r.dnsName === first[0]!.dnsName);
    const count = mine(first).length;
    await call(sim, 'POST', '/_sim/advance', { body: { seconds: 86400, rescanFraction: 0, moveHosts: [ip] } });
    // Not rescanned yet: its findings were last seen at the old address.
    assert.deepEqual([...new Set(mine(await pageAll(sim, vulnQuery())).map((r) => r.ip))], [ip]);
    await call(sim, 'POST', '/_sim/advance', { body: { seconds: 60, rescanFraction: 1 } });
    const after = mine(await pageAll(sim, vulnQuery()));
    assert.equal(after.length, count, 'the same findings');
    const moved = [...new Set(after.map((r) => r.ip))];
    assert.equal(moved.length, 1);
    assert.notEqual(moved[0], ip);
    assert.match(moved[0]!, /^10\.151\./);
    // The other hosts keep theirs; a second move gives another address.
    assert.ok((await pageAll(sim, vulnQuery())).some((r) => r.ip !== moved[0] && r.ip === first.find((f) => f.ip !== ip)!.ip));
    await call(sim, 'POST', '/_sim/move', { body: { hosts: [ip] } });
    await call(sim, 'POST', '/_sim/advance', { body: { seconds: 60, rescanFraction: 1 } });
    assert.match(mine(await pageAll(sim, vulnQuery()))[0]!.ip, /^10\.152\./);
  });
});

describe('faults and counters', () => {
  let sim: RunningTenableSim;
  before(async () => {
    sim = await startTenableSim({ port: 0, hosts: 10, findingsPerHost: 10, rateLimit: { every: 2, retryAfter: 3 } });
  });
  after(() => sim.close());

  test('429 with Retry-After on every 2nd request, switchable at runtime', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      const r = await call(sim, 'GET', '/rest/system');
      statuses.push(r.status);
      if (r.status === 429) assert.equal(r.headers['retry-after'], '3');
    }
    assert.deepEqual(statuses, [200, 429, 200, 429]);
    await call(sim, 'POST', '/_sim/faults', { body: { rateLimit: null, serverError: { times: 2, status: 500 } } });
    const s = [
      (await call(sim, 'GET', '/rest/system')).status,
      (await call(sim, 'GET', '/rest/system')).status,
      (await call(sim, 'GET', '/rest/system')).status,
    ];
    assert.deepEqual(s, [500, 500, 200]);
  });

  test('connection reset mid-body, missing totalRecords, latency and slow pages', async () => {
    await call(sim, 'DELETE', '/_sim/faults');
    await call(sim, 'POST', '/_sim/faults', { body: { resetMidBody: { times: 1 }, paths: ['/rest/analysis'] } });
    await assert.rejects(analysis(sim, vulnQuery()));
    assert.equal((await analysis(sim, vulnQuery())).status, 200);
    await call(sim, 'POST', '/_sim/faults', { body: { missingTotalRecords: true } });
    const noTotal = (await analysis(sim, vulnQuery([], 0, 5))).json.response;
    assert.equal('totalRecords' in noTotal, false);
    assert.equal(noTotal.returnedRecords, 5);
    await call(sim, 'POST', '/_sim/faults', { body: { clear: true, latencyMs: 60, slowPageMs: 90 } });
    const t0 = performance.now();
    assert.equal((await analysis(sim, vulnQuery())).status, 200);
    assert.ok(performance.now() - t0 >= 140, 'latency plus slow body');
    await call(sim, 'DELETE', '/_sim/faults');
  });

  test('stats count requests by method and path', async () => {
    await call(sim, 'DELETE', '/_sim/stats');
    await call(sim, 'GET', '/rest/currentUser');
    await analysis(sim, vulnQuery());
    await analysis(sim, vulnQuery());
    const stats = (await call(sim, 'GET', '/_sim/stats')).json;
    assert.deepEqual(stats.byRoute, { 'GET /rest/currentUser': 1, 'POST /rest/analysis': 2 });
    assert.equal(stats.total, 3);
    assert.equal(stats.byStatus['200'], 3);
  });
});

test('a million findings are served lazily with flat memory', async () => {
  const sim = await startTenableSim({ port: 0, hosts: 20000, findingsPerHost: 50, now: NOW });
  try {
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const first = await analysis(sim, vulnQuery([], 0, 1000));
    assert.equal(first.json.response.totalRecords, '1000000');
    const seen = new Set<string>();
    for (const start of [0, 250_000, 499_500, 999_000]) {
      const r = await analysis(sim, vulnQuery([], start, start + 1000));
      assert.equal(r.json.response.returnedRecords, 1000);
      for (const row of r.json.response.results) seen.add(`${findingKey(row)}`);
    }
    assert.equal(seen.size, 4000);
    const last = await analysis(sim, vulnQuery([], 999_990, 1_001_000));
    assert.equal(last.json.response.returnedRecords, 10);
    // A deep page is computed from its offset alone: asked again, after other pages, it is the same rows.
    const deep = () => analysis(sim, vulnQuery([], 600_000, 601_000));
    const once = (await deep()).json.response.results.map(findingKey);
    for (let i = 1; i < 5; i++) await analysis(sim, vulnQuery([], 600_000 + i * 1000, 601_000 + i * 1000));
    assert.deepEqual((await deep()).json.response.results.map(findingKey), once);
    assert.equal(new Set(once).size, 1000);
    global.gc?.();
    const growth = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
    assert.ok(growth < 80, `heap grew ${growth} MB`);
  } finally {
    await sim.close();
  }
});
