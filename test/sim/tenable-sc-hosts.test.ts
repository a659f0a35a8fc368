// The Tenable.sc simulator's host variants (fact sheet §6, §7, §9): agents, credentialed hosts with and
// without a Tenable UUID, unauthenticated hosts, hosts that moved to another address, one address in
// two repositories; 6.x rows carry `hostUUID` where the agent `uuid` is empty, and /rest/hosts gives
// the same host id. Deterministic: the same seed serves the same hosts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { call } from './tenable-sc-helpers.ts';

type Row = Record<string, string | Record<string, string>>;

async function rows(sim: RunningTenableSim, tool: string, sourceType = 'cumulative'): Promise<Row[]> {
  const out: Row[] = [];
  for (let start = 0; ; start += 1000) {
    const r = await call(sim, 'POST', '/rest/analysis', {
      body: { type: 'vuln', sourceType, query: { type: 'vuln', tool, filters: [] }, startOffset: start, endOffset: start + 1000 },
    });
    out.push(...r.json.response.results);
    if (r.json.response.results.length < 1000) return out;
  }
}

describe('simulated hosts cover the identity variants', () => {
  let sim: RunningTenableSim;
  before(async () => {
    sim = await startTenableSim({ port: 0, hosts: 84, findingsPerHost: 10, seed: 3, version: '6.4.0', now: 1_760_000_000 });
  });
  after(async () => {
    await sim?.close();
  });

  test('agents, credentialed hosts with and without a Tenable UUID, unauthenticated hosts', async () => {
    const sumip = await rows(sim, 'sumip');
    const agents = sumip.filter((r) => r.policyName === 'Basic Agent Scan');
    const credentialed = sumip.filter((r) => r.lastAuthRun !== '' && r.policyName !== 'Basic Agent Scan');
    const unauth = sumip.filter((r) => r.lastAuthRun === '');
    assert.ok(agents.length > 5 && agents.every((r) => r.uuid !== ''), 'agents have a Tenable UUID');
    assert.ok(credentialed.some((r) => r.uuid !== '') && credentialed.some((r) => r.uuid === ''), 'credentialed hosts with and without one');
    assert.ok(unauth.length > 5 && unauth.every((r) => r.uuid === ''), 'unauthenticated hosts have none');
  });

  test('6.x rows: hostUUID on every row, the agent uuid empty on some; /rest/hosts gives the same host id', async () => {
    const vulns = await rows(sim, 'vulndetails');
    assert.ok(vulns.every((r) => /^[0-9a-f-]{36}$/.test(String(r.hostUUID))));
    assert.ok(vulns.some((r) => r.uuid === ''));
    const hosts = (await call(sim, 'GET', '/rest/hosts?fields=uuid,tenableUUID,ipAddress,repID&limit=10000')).json.response as Row[];
    const hostIds = new Set(hosts.map((h) => h.uuid));
    assert.ok(vulns.every((r) => hostIds.has(String(r.hostUUID))));
  });

  test('one address in two repositories; a host that moved keeps its ids at its old address', async () => {
    const sumip = await rows(sim, 'sumip');
    const at38 = sumip.filter((r) => r.ip === '10.20.0.38');
    assert.equal(at38.length, 2);
    assert.notEqual((at38[0]!.repository as Record<string, string>).id, (at38[1]!.repository as Record<string, string>).id);
    const current = new Set(sumip.map((r) => String(r.ip)));
    const patched = await rows(sim, 'vulndetails', 'patched');
    const moved = patched.filter((r) => !current.has(String(r.ip)));
    assert.ok(moved.length > 0, 'findings last seen before a move carry the old address');
    const all = [...(await rows(sim, 'vulndetails')), ...patched];
    for (const m of moved) {
      const sameHost = all.filter((r) => r.hostUUID === m.hostUUID);
      assert.ok(
        sameHost.some((r) => current.has(String(r.ip))),
        'the same host id at the current address',
      );
    }
  });

  test('deterministic: the same seed serves the same hosts', async () => {
    const again = await startTenableSim({ port: 0, hosts: 84, findingsPerHost: 10, seed: 3, version: '6.4.0', now: 1_760_000_000 });
    try {
      assert.deepEqual(await rows(again, 'sumip'), await rows(sim, 'sumip'));
    } finally {
      await again.close();
    }
  });
});
