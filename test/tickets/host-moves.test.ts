// Tickets of hosts the console knows only by address (unauthenticated scans: no Tenable UUID, no agent)
// when they move, through real syncs of the Tenable.sc simulator on both stores, grouped per asset (the
// grouping whose key names the machine). A 6.x console gives every finding row the host's `hostUUID`:
// the findings stay on the host record they were on, so each request keeps its key (no new request). A
// console before 6.0 gives no id of its own for such a host: after a move its findings are a new host's,
// which gets a request of its own, as docs/architecture.md says.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type AppContext, openApp } from '../../src/app/context.ts';
import { addSource } from '../../src/app/sources.ts';
import { createLogger } from '../../src/core/log.ts';
import { remediationTicketsSchema } from '../../src/core/tickets.ts';
import type { SourceRecord } from '../../src/store/index.ts';
import { runSync } from '../../src/sync/runner.ts';
import { ticketPlan } from '../../src/tickets/index.ts';
import { type RunningSdpSim, startSdpSim } from '../../sim/servicedesk-plus/index.ts';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { applyOnSim } from './apply-on-sim.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';

process.env.TRIBUTARY_MASTER_KEY = Buffer.alloc(32, 3).toString('base64');

const SETTINGS = remediationTicketsSchema.parse({ enabled: true, grouping: 'asset', maxCreatesPerRun: 1000 });

async function unauthenticatedIps(sim: RunningTenableSim): Promise<string[]> {
  const res = await fetch(`${sim.url}/rest/analysis`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-apikey': `accesskey=${sim.analyst.accessKey}; secretkey=${sim.analyst.secretKey}` },
    body: JSON.stringify({ type: 'vuln', sourceType: 'cumulative', query: { type: 'vuln', tool: 'sumip', filters: [] }, startOffset: 0, endOffset: 1000 }),
  });
  const rows = ((await res.json()) as { response: { results: Record<string, unknown>[] } }).response.results;
  return rows.filter((r) => r.uuid === '' && r.lastAuthRun === '').map((r) => String(r.ip));
}

for (const backend of BACKENDS) {
  for (const version of ['6.4.0', '5.19.0']) {
    describe(`tickets of address-only hosts that move, console ${version}, on ${backend.kind}`, { skip: backend.skip }, () => {
      let db: TestDatabase;
      let app: AppContext;
      let sim: RunningTenableSim;
      let sdp: RunningSdpSim;
      let desk: SourceRecord;
      const apply = async () => {
        return applyOnSim(app.store, desk, SETTINGS, sdp);
      };
      const openOn = async (ips: string[]) => {
        const open = await app.store.tickets.openFindings({ severities: ['critical', 'high'], knownExploited: true });
        const hosts = await app.store.records.hostLabels([...new Set(open.map((f) => f.hostId))]);
        const on = new Set(hosts.filter((h) => h.ipAddresses.some((ip) => ips.includes(ip))).map((h) => h.id));
        return open.filter((f) => on.has(f.hostId));
      };

      before(async () => {
        sim = await startTenableSim({ port: 0, hosts: 40, findingsPerHost: 20, seed: 3, version });
        sdp = await startSdpSim({ seed: 15, requests: 5 });
        db = await backend.create();
        app = await openApp({ dataDir: db.dataDir, db: db.url, log: createLogger({ level: 'silent' }) });
        await addSource(app, 'tenable-sc', 'sc', { apiUrl: sim.url, accessKey: sim.analyst.accessKey, secretKey: sim.analyst.secretKey });
        desk = await app.store.sources.create('desk', 'fixture', {}, null);
      });
      after(async () => {
        await app?.close();
        await db?.drop();
        await sim?.close();
        await sdp?.close();
      });

      test('moving every address-only host: 6.x keeps each request (hostUUID); before 6.0 the moved hosts are new hosts with requests of their own', async () => {
        assert.equal((await runSync(app, 'sc')).status, 'succeeded');
        const ips = await unauthenticatedIps(sim);
        assert.ok(ips.length >= 3, `${ips.length} unauthenticated hosts`);
        const ticketed = await openOn(ips);
        assert.ok(ticketed.length > 0, 'they have ticketed findings');
        const first = await apply();
        assert.ok(first.created > 0);
        const keys = new Set((await app.store.tickets.list(desk.id)).map((r) => r.key));
        const res = await fetch(`${sim.url}/_sim/advance`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ seconds: 86_400, rescanFraction: 1, moveHosts: ips }),
        });
        assert.equal(res.status, 200);
        assert.equal((await runSync(app, 'sc')).status, 'succeeded');
        const plan = await ticketPlan(app.store, desk, SETTINGS);
        const creates = plan.actions.filter((a) => a.kind === 'create');
        const hostIds = new Set(ticketed.map((f) => f.hostId));
        if (version === '6.4.0') {
          assert.deepEqual(
            creates.map((a) => a.key),
            [],
            'no new request: every request keeps its key',
          );
          // The findings are still on the host records they were on (the asset identity), now open on the new address.
          const still = await app.store.tickets.openFindings({ severities: ['critical', 'high'], knownExploited: true });
          const byId = new Map(still.map((f) => [f.id, f]));
          assert.ok(
            ticketed.some((f) => byId.has(f.id)),
            'the moved hosts findings are still open',
          );
          for (const f of ticketed) if (byId.has(f.id)) assert.ok(hostIds.has(byId.get(f.id)!.hostId), `finding ${f.id} on its host`);
          const r = await apply();
          assert.equal(r.created, 0);
          assert.deepEqual(new Set((await app.store.tickets.list(desk.id)).map((x) => x.key)), keys);
        } else {
          // No id of the console's own: the moved hosts' findings are new hosts' (documented), each asked a request of its own.
          assert.ok(creates.length > 0, 'new hosts, new requests');
          for (const a of creates) assert.ok(!keys.has(a.key));
        }
      });
    });
  }
}
