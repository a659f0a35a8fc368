// Remediation tickets over the API (issue 32 §2): the plan (read) writes nothing, apply (operate) writes it
// to the ServiceDesk Plus simulator and is refused with 409 while the source has them off, the audit log
// lists every write; a source that is no service desk is refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addSource, configureSource } from '../../src/app/sources.ts';
import { ConnectorRegistry } from '../../src/connectors/registry.ts';
import servicedeskPlusConnector from '../../src/connectors/servicedesk-plus/index.ts';
import { type RunningSdpSim, startSdpSim } from '../../sim/servicedesk-plus/index.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { writeRecords } from '../helpers/store.ts';
import { runSync } from '../../src/sync/runner.ts';
import { ticketsAfterSync } from '../../src/tickets/index.ts';
import { fixtureConnector, GOOD_TOKEN } from './fixture-connector.ts';
import { apiToken, bearer, call, type Harness, makeHarness } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers read loosely in assertions
type Json = Record<string, any>;

for (const backend of BACKENDS) {
  describe(`remediation tickets API on ${backend.kind}`, { skip: backend.skip }, () => {
    let h: Harness;
    let sim: RunningSdpSim;
    let auth: Record<string, string>;
    let drop: () => Promise<void>;
    before(async () => {
      const db = await backend.create();
      drop = () => db.drop();
      sim = await startSdpSim({ seed: 12, requests: 10 });
      h = await makeHarness({ db: db.url, registry: new ConnectorRegistry([fixtureConnector, servicedeskPlusConnector]) });
      auth = bearer(await apiToken(h.server));
      const lab = await h.app.store.sources.create('lab', 'fixture', {}, null);
      await writeRecords(h.app.store, lab, {
        hosts: [{ key: 'h1', externalId: 'h1', fields: { hostname: 'web1', department: 'Finance' } }],
        vulnerabilities: [
          { key: 'h1|1', hostKey: 'h1', fields: { pluginId: '1', pluginName: 'Fix one', severity: 'critical', status: 'open' } },
          { key: 'h1|2', hostKey: 'h1', fields: { pluginId: '2', pluginName: 'Fix two', severity: 'high', status: 'open' } },
        ],
      });
      await addSource(h.app, 'servicedesk-plus', 'desk', { serverUrl: sim.url, apiKey: sim.apiKey });
    });
    after(async () => {
      await h?.close();
      await sim?.close();
      await drop?.();
    });

    test('off: the plan shows what enabling would do; apply is refused (409) and nothing is written', async () => {
      const plan = await call(h.server, { method: 'GET', url: '/api/v1/sources/desk/tickets/plan', headers: auth });
      assert.equal(plan.statusCode, 200, plan.body);
      const p = plan.data as Json;
      assert.equal(p.enabled, false);
      assert.equal(p.counts.create, 2);
      // The contract's buckets (interfaces.md 7.4), each item with key and findingIds.
      assert.equal(p.create.length, 2);
      assert.ok(p.create.every((a: Json) => typeof a.key === 'string' && Array.isArray(a.findingIds) && a.findingIds.length > 0));
      assert.deepEqual([p.update.length, p.resolve.length, p.reopen.length], [0, 0, 0]);
      const refused = await call(h.server, { method: 'POST', url: '/api/v1/sources/desk/tickets/apply', headers: auth });
      assert.equal(refused.statusCode, 409);
      assert.match((refused.data as Json).error.message, /remediationTickets\.enabled/);
      assert.equal(sim.stats().api, 0);
    });

    test('on: apply writes the plan; a second apply writes nothing; the log lists each write', async () => {
      await configureSource(h.app, 'desk', { remediationTickets: { enabled: true } });
      const applied = await call(h.server, { method: 'POST', url: '/api/v1/sources/desk/tickets/apply', headers: auth });
      assert.equal(applied.statusCode, 200, applied.body);
      const a = applied.data as Json;
      assert.deepEqual([a.created, a.failed, a.writes], [2, 0, 2]);
      assert.equal(sim.written.size, 2);
      const again = (await call(h.server, { method: 'POST', url: '/api/v1/sources/desk/tickets/apply', headers: auth })).data as Json;
      assert.equal(again.writes, 0);
      const log = await call(h.server, { method: 'GET', url: '/api/v1/sources/desk/tickets/log?limit=10', headers: auth });
      assert.equal(log.statusCode, 200);
      const items = (log.data as Json).items as Json[];
      assert.equal(items.length, 2);
      assert.ok(items.every((e) => e.action === 'create' && e.ok && e.runId === a.runId && sim.written.get(e.requestId)));
      const plan = (await call(h.server, { method: 'GET', url: '/api/v1/sources/desk/tickets/plan', headers: auth })).data as Json;
      assert.deepEqual(plan.actions, []);
    });

    test('every sync applies the plan after correlation; a failed ticket write is logged and never fails the sync', async () => {
      // A scanner source with 3 hosts: one critical and two high findings to ticket (one request each).
      await addSource(h.app, 'fixture', 'scan', { url: 'http://fixture.test', token: GOOD_TOKEN, pages: 1 });
      const r = await runSync(h.app, 'scan');
      assert.equal(r.status, 'succeeded');
      const subjects = sim.written.all().map((w) => String(w.subject));
      assert.equal(subjects.filter((t) => /OpenSSH issue \d \(1 hosts/.test(t)).length, 3, "the scanner sync created its findings' requests");
      const run = await h.app.store.runs.get(r.runId);
      assert.ok(
        run.activity?.log.some((l) => /remediation tickets of desk applied/.test(l.msg)),
        JSON.stringify(run.activity?.log),
      );
      // A sync of the service desk itself applies too: nothing changed, nothing is written.
      const calls = sim.stats().api;
      assert.deepEqual(
        (await ticketsAfterSync(h.app, 'r-1', h.app.log)).map((t) => [t.source, t.created, t.noted, t.failed]),
        [['desk', 0, 0, 0]],
      );
      assert.equal(sim.stats().api, calls);
      // The service desk refuses every call now: the sync still succeeds, the failure is in both logs.
      await configureSource(h.app, 'desk', { apiKey: 'not-the-key' });
      await configureSource(h.app, 'scan', { pages: 2 });
      const failing = await runSync(h.app, 'scan');
      assert.equal(failing.status, 'succeeded', 'a ticket write never fails the sync');
      assert.equal(sim.written.size, subjects.length, 'nothing was created while the service desk refused');
      const failedRun = await h.app.store.runs.get(failing.runId);
      assert.ok(
        failedRun.activity?.log.some((l) => /write\(s\) failed/.test(l.msg) && l.level === 'warn'),
        JSON.stringify(failedRun.activity?.log),
      );
      const log = await h.app.store.tickets.logEntries((await h.app.store.sources.get('desk')).id, 10);
      assert.ok(
        log.some((e) => !e.ok && e.action === 'create-failed'),
        JSON.stringify(log),
      );
      await configureSource(h.app, 'desk', { apiKey: sim.apiKey });
    });

    test('a source that is not a service desk is refused', async () => {
      const r = await call(h.server, { method: 'GET', url: '/api/v1/sources/lab/tickets/plan', headers: auth });
      assert.equal(r.statusCode, 400);
      assert.match((r.data as Json).error.message, /cannot take remediation tickets/);
    });
  });
}
