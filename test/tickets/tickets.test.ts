// Remediation tickets end to end against the ServiceDesk Plus simulator, on both stores (issue 32 §2/§3):
// grouping per fix and owner group, one request per key, a run that changes nothing sends nothing, notes
// when findings are added and fixed, resolution when every finding is fixed, a request a person closed is
// noted and not reopened, an IP change keeps the ticket, and a worker killed (SIGKILL) between the create
// call and its record leaves no duplicate.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { mapRequest } from '../../src/connectors/servicedesk-plus/map/tickets.ts';
import { SdpTicketWriter } from '../../src/connectors/servicedesk-plus/ticket-writer.ts';
import { silentLogger } from '../../src/core/log.ts';
import type { IncomingRecord } from '../../src/core/models.ts';
import { remediationTicketsSchema } from '../../src/core/tickets.ts';
import type { SourceRecord, Store } from '../../src/store/index.ts';
import { applyTickets, ticketPlan } from '../../src/tickets/index.ts';
import { type RunningSdpSim, startSdpSim } from '../../sim/servicedesk-plus/index.ts';
import { memState, parseConfig } from '../connectors/servicedesk-plus/helpers.ts';
import { runChild } from '../helpers/child-run.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { openTestStore, writeRecords } from '../helpers/store.ts';

const SETTINGS = remediationTicketsSchema.parse({ enabled: true });

const host = (key: string, hostname: string, ip: string, department: string): IncomingRecord => ({
  key,
  externalId: key,
  fields: { hostname, ipAddresses: [ip], department },
});
const vuln = (hostKey: string, pluginId: string, severity: string, status = 'open', extra: Record<string, unknown> = {}): IncomingRecord => ({
  key: `${hostKey}|${pluginId}`,
  hostKey,
  fields: { pluginId, pluginName: `Fix ${pluginId}`, severity, status, cves: [`CVE-2026-${pluginId}`], ...extra },
});

for (const backend of BACKENDS) {
  describe(`remediation tickets on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let store: Store;
    let sim: RunningSdpSim;
    let lab: SourceRecord;
    let desk: SourceRecord;
    const writer = () =>
      new SdpTicketWriter(parseConfig({ serverUrl: sim.url, apiKey: sim.apiKey }), { sourceName: 'desk', log: silentLogger, state: memState() }, null);
    const apply = async (settings = SETTINGS) => {
      const w = writer();
      try {
        return await applyTickets(store, desk, settings, w);
      } finally {
        await w.close();
      }
    };
    const rowOf = async (key: string) => (await store.tickets.get(desk.id, key))!;

    before(async () => {
      db = await backend.create();
      store = await openTestStore(db);
      sim = await startSdpSim({ seed: 11, requests: 30 });
      lab = await store.sources.create('lab', 'fixture', {}, null);
      desk = await store.sources.create('desk', 'fixture', {}, null);
      await writeRecords(store, lab, {
        hosts: [host('h1', 'web1', '10.0.0.1', 'Finance'), host('h2', 'web2', '10.0.0.2', 'Finance'), host('h3', 'db1', '10.0.0.3', 'HR')],
        vulnerabilities: [
          vuln('h1', '100', 'critical'),
          vuln('h2', '100', 'critical'),
          vuln('h3', '100', 'critical'),
          vuln('h1', '200', 'high'),
          // Below the severity floor: not ticketed …
          vuln('h1', '300', 'medium'),
          // … unless known exploited.
          vuln('h3', '400', 'low', 'open', { scannerKnownExploited: true }),
          // Fixed already: never ticketed.
          vuln('h2', '500', 'critical', 'fixed'),
        ],
      });
    });
    after(async () => {
      await store?.close();
      await sim?.close();
      await db?.drop();
    });

    test('the plan groups per fix and owner group and writes nothing', async () => {
      const plan = await ticketPlan(store, desk, SETTINGS);
      assert.equal(plan.findings, 5);
      assert.deepEqual(plan.actions.map((a) => [a.kind, a.key, a.findingIds.length]).sort(), [
        ['create', 'fix=100;owner=finance', 2],
        ['create', 'fix=100;owner=hr', 1],
        ['create', 'fix=200;owner=finance', 1],
        ['create', 'fix=400;owner=hr', 1],
      ]);
      const first = plan.actions[0]!;
      assert.equal(first.key, 'fix=100;owner=finance', 'the most severe and largest first');
      assert.match(first.draft!.subject, /^Remediate: Fix 100 \(2 hosts, Finance\) \[TRB-[0-9a-f]{12}\]$/);
      assert.match(first.draft!.description, /web1, web2/);
      assert.match(first.draft!.description, /CVE-2026-100/);
      assert.equal(first.draft!.priority, 'High');
      assert.equal(sim.stats().api, 0, 'planning asks the service desk nothing');
      assert.equal((await store.tickets.list(desk.id)).length, 0, 'nor stores anything');
    });

    test("ticketDecisions select by the findings' SSVC decision, severity aside (interfaces.md 7.4)", async () => {
      const all = await ticketPlan(store, desk, remediationTicketsSchema.parse({ enabled: true, decisions: 'act,attend,track-star,track' }));
      // Every open finding has a decision (the medium one below the severity floor too); the fixed one is out.
      assert.equal(all.findings, 6);
      let sum = 0;
      for (const d of ['act', 'attend', 'track-star', 'track']) {
        const plan = await ticketPlan(store, desk, remediationTicketsSchema.parse({ enabled: true, decisions: [d] }));
        sum += plan.findings;
        const ids = plan.actions.flatMap((a) => a.findingIds);
        assert.equal(ids.length, plan.findings);
        for (const r of await store.records.getMany('vulnerabilities', ids)) assert.equal(r.decision, d, `${r.id} is ${String(r.decision)}, not ${d}`);
      }
      assert.equal(sum, 6, 'each open finding is in exactly one decision');
      assert.equal((await store.tickets.list(desk.id)).length, 0);
    });

    test('apply creates one request per key with its marker; the next run changes nothing and sends no call at all', async () => {
      const r = await apply();
      assert.deepEqual([r.created, r.failed, r.writes], [4, 0, 4], JSON.stringify(r.errors));
      assert.equal(sim.written.size, 4);
      for (const row of await store.tickets.list(desk.id)) {
        assert.equal(row.state, 'open');
        const remote = sim.written.get(row.requestId!)!;
        assert.ok(String(remote.subject).endsWith(`[${row.marker}]`));
      }
      const log = await store.tickets.logEntries(desk.id);
      assert.equal(log.filter((e) => e.action === 'create' && e.ok && e.runId === r.runId).length, 4);
      const calls = sim.stats().api;
      const again = await apply();
      assert.deepEqual([again.created, again.noted, again.resolved, again.writes], [0, 0, 0, 0]);
      assert.equal(sim.stats().api, calls, 'a run that changes nothing sends no request to the service desk');
      assert.equal(sim.written.size, 4);
    });

    test('the requests written, synced back, are ordinary tickets records with their remediationKey (interfaces.md 7.4)', async () => {
      const rows = await store.tickets.list(desk.id);
      assert.equal(rows.length, 4);
      const synced = rows.map((row) => mapRequest(sim.written.get(row.requestId!) as Record<string, unknown>));
      // A request a person wrote carries no key.
      synced.push(mapRequest({ id: '999001', subject: 'Printer jammed [TRB-xyz]' }));
      await writeRecords(store, desk, { tickets: synced });
      for (const row of rows) {
        const hits = (await store.records.query('tickets', { filters: [{ field: 'remediationKey', op: '=', value: row.marker }] })).records;
        assert.deepEqual(
          hits.map((h) => h.externalId),
          [row.requestId],
        );
      }
      const plain = (await store.records.query('tickets', { filters: [{ field: 'externalId', op: '=', value: '999001' }] })).records[0]!;
      assert.equal(plain.remediationKey ?? null, null);
      // With ticketKeyField the create writes the key into that UDF too, and the mapper reads it first.
      // (A simulator of its own: the tests below count this one's requests.)
      const sim2 = await startSdpSim({ seed: 12, requests: 1 });
      const w = new SdpTicketWriter(
        parseConfig({ serverUrl: sim2.url, apiKey: sim2.apiKey, ticketKeyField: 'udf_sline_301' }),
        { sourceName: 'desk', log: silentLogger, state: memState() },
        null,
      );
      try {
        const draft = {
          ...(await ticketPlan(store, desk, remediationTicketsSchema.parse({ enabled: true, minSeverity: 'info', maxCreatesPerRun: 0 }))).actions[0]!.draft,
        };
        const made = await w.create({ ...draft!, marker: 'TRB-00000000abcd', subject: 'No marker in this subject' } as never);
        const remote = sim2.written.get(made.id) as Record<string, unknown>;
        assert.equal((remote.udf_fields as Record<string, unknown>).udf_sline_301, 'TRB-00000000abcd');
        assert.equal(mapRequest(remote).fields.remediationKey, 'TRB-00000000abcd');
      } finally {
        await w.close();
        await sim2.close();
      }
      // A UDF holding the key is read first.
      assert.equal(
        mapRequest({ id: '1', subject: 'Renamed by a person', udf_fields: { udf_sline_301: 'TRB-0123456789ab' } }).fields.remediationKey,
        'TRB-0123456789ab',
      );
    });

    test('an IP change keeps the ticket: the key is the host identity, not the address', async () => {
      await writeRecords(store, lab, { hosts: [host('h1', 'web1', '10.9.9.9', 'Finance')] });
      const plan = await ticketPlan(store, desk, SETTINGS);
      assert.deepEqual(plan.actions, []);
    });

    test('added and fixed findings are noted on the request; a group whose findings are all fixed is resolved', async () => {
      const finance = await rowOf('fix=100;owner=finance');
      await writeRecords(store, lab, {
        hosts: [host('h4', 'web4', '10.0.0.4', 'Finance')],
        vulnerabilities: [vuln('h2', '100', 'critical', 'fixed'), vuln('h4', '100', 'critical'), vuln('h1', '200', 'high', 'fixed')],
      });
      const plan = await ticketPlan(store, desk, SETTINGS);
      assert.deepEqual(plan.actions.map((a) => [a.kind, a.key, a.added.length, a.fixed.length]).sort(), [
        ['note', 'fix=100;owner=finance', 1, 1],
        ['resolve', 'fix=200;owner=finance', 0, 1],
      ]);
      const r = await apply();
      assert.deepEqual([r.noted, r.resolved, r.created, r.writes], [1, 1, 0, 2]);
      const notes = sim.written.notes(finance.requestId!);
      assert.equal(notes.length, 1);
      assert.match(String(notes[0]!.description), /Added \(1\)/);
      assert.match(String(notes[0]!.description), /Fixed \(1\)/);
      const resolved = await rowOf('fix=200;owner=finance');
      assert.equal(resolved.state, 'resolved');
      const remote = sim.written.get(resolved.requestId!)!;
      assert.equal((remote.status as { name: string }).name, 'Resolved');
      assert.match(String((remote.resolution as { content: string }).content), /fixed/);
      assert.equal(sim.written.size, 4, 'still one request per key');
    });

    test('a request a person closed while its findings are open is noted once, never reopened', async () => {
      const hr = await rowOf('fix=100;owner=hr');
      assert.ok(sim.written.setStatus(hr.requestId!, 'Closed'));
      await writeRecords(store, lab, { hosts: [host('h5', 'db2', '10.0.0.5', 'HR')], vulnerabilities: [vuln('h5', '100', 'critical')] });
      const r = await apply();
      assert.deepEqual([r.closedUpstream, r.noted, r.created], [1, 1, 0]);
      assert.equal((await rowOf('fix=100;owner=hr')).state, 'closed-upstream');
      const remote = sim.written.get(hr.requestId!)!;
      assert.equal((remote.status as { name: string }).name, 'Closed', 'not reopened');
      assert.match(String(sim.written.notes(hr.requestId!)[0]!.description), /closed while 2 of its findings are still open/);
      const again = await apply();
      assert.equal(again.writes, 0, 'noted once');
      assert.equal((await store.tickets.logEntries(desk.id)).filter((e) => e.action === 'flag-closed').length, 1);
    });

    test('the per-run cap defers creates to the next run', async () => {
      await writeRecords(store, lab, { vulnerabilities: [vuln('h1', '601', 'critical'), vuln('h1', '602', 'critical'), vuln('h1', '603', 'high')] });
      const capped = remediationTicketsSchema.parse({ enabled: true, maxCreatesPerRun: 2 });
      const r = await apply(capped);
      assert.deepEqual([r.created, r.deferred], [2, 1]);
      const next = await apply(capped);
      assert.deepEqual([next.created, next.deferred], [1, 0]);
      assert.equal(sim.written.size, 7);
    });

    test('SIGKILL between the create call and its record: the next run finds the request by its marker, no duplicate', async () => {
      await writeRecords(store, lab, { vulnerabilities: [vuln('h2', '700', 'critical'), vuln('h3', '700', 'critical'), vuln('h3', '800', 'high')] });
      const before = sim.written.size;
      // Asynchronously: the simulator answers the child from this process's event loop.
      const child = await runChild(
        fileURLToPath(new URL('../helpers/tickets-crash-child.ts', import.meta.url)),
        [db.url, sim.url, sim.apiKey, desk.id, desk.name],
        60_000,
      );
      assert.equal(child.signal, 'SIGKILL', child.stderr);
      const made = /^at create:after-call \S+ (\d+)$/m.exec(child.stdout)?.[1];
      assert.ok(made, child.stdout);
      assert.equal(sim.written.size, before + 1, 'the killed worker created one request');
      const orphan = (await store.tickets.list(desk.id)).find((t) => t.state === 'intent');
      assert.ok(orphan, 'its intent is stored without a request id');
      assert.equal(orphan.requestId, null);
      const plan = await ticketPlan(store, desk, SETTINGS);
      assert.ok(plan.actions.some((a) => a.key === orphan.key && a.recover));
      const r = await apply();
      assert.deepEqual([r.adopted, r.created, r.failed], [1, 2, 0], JSON.stringify(r.errors));
      assert.equal(sim.written.size, before + 3, 'three keys, three requests: none twice');
      assert.equal((await rowOf(orphan.key)).requestId, made);
      const subjects = sim.written.all().map((x) => String(x.subject));
      assert.equal(new Set(subjects).size, subjects.length, 'no two requests carry the same marker');
      assert.ok((await store.tickets.logEntries(desk.id)).some((e) => e.action === 'adopt' && e.requestId === made));
    });

    test('two workers applying at once never create the same request', async () => {
      await writeRecords(store, lab, { vulnerabilities: [vuln('h1', '900', 'critical'), vuln('h3', '901', 'critical'), vuln('h2', '902', 'high')] });
      const before = sim.written.size;
      const [a, b] = await Promise.all([apply(), apply()]);
      assert.equal(a.created + b.created + a.adopted + b.adopted, 3);
      assert.equal(sim.written.size, before + 3);
    });

    test('a request a person closed stays alone when its group changes again, and is counted in coverage as closed with findings open', async () => {
      const hr = await rowOf('fix=100;owner=hr');
      await writeRecords(store, lab, { hosts: [host('h6', 'db3', '10.0.0.6', 'HR')], vulnerabilities: [vuln('h6', '100', 'critical')] });
      const calls = sim.stats().api;
      const r = await apply();
      assert.deepEqual([r.writes, r.noted, r.created], [0, 0, 0]);
      assert.equal(sim.stats().api, calls, 'never reopened, never noted twice');
      // Coverage reads the service desk's imported requests: the HR request (flagged) and, once its last
      // sync reads it closed, the Finance one a person closed without any change of its findings.
      const finance = await rowOf('fix=100;owner=finance');
      assert.ok(sim.written.setStatus(finance.requestId!, 'Closed'));
      const request = (id: string, status: string) => ({ key: `request:${id}`, externalId: id, fields: { subject: `request ${id}`, status } });
      await writeRecords(store, desk, { tickets: [request(hr.requestId!, 'Closed'), request(finance.requestId!, 'Closed')] });
      const report = await store.reports.coverage(30);
      assert.equal(report.ticketsClosedFindingsOpen, 2);
      const listed = await store.reports.coverageList('ticketsClosedFindingsOpen', 30);
      assert.deepEqual(listed.map((t) => String(t.externalId)).sort(), [finance.requestId!, hr.requestId!].sort());
      const plan = await ticketPlan(store, desk, SETTINGS);
      assert.deepEqual(
        plan.actions.map((a) => [a.kind, a.key, a.added.length]),
        [['note', 'fix=100;owner=finance', 0]],
      );
      const flagged = await apply();
      assert.deepEqual([flagged.closedUpstream, flagged.noted, flagged.writes], [1, 1, 1]);
      assert.equal((sim.written.get(finance.requestId!)!.status as { name: string }).name, 'Closed', 'not reopened');
      assert.equal((await apply()).writes, 0, 'noted once');
      assert.equal((await store.reports.coverage(30)).ticketsClosedFindingsOpen, 2);
    });

    test('a finding that comes back reopens the request we resolved', async () => {
      const row = await rowOf('fix=200;owner=finance');
      assert.equal(row.state, 'resolved');
      await writeRecords(store, lab, { vulnerabilities: [vuln('h1', '200', 'high', 'reopened')] });
      const plan = await ticketPlan(store, desk, SETTINGS);
      assert.deepEqual(
        plan.actions.map((a) => [a.kind, a.key, a.added.length]),
        [['reopen', 'fix=200;owner=finance', 1]],
      );
      const before = sim.written.size;
      const r = await apply();
      assert.deepEqual([r.reopened, r.created, r.failed], [1, 0, 0], JSON.stringify(r.errors));
      assert.equal(sim.written.size, before, 'the same request, not a new one');
      assert.equal((sim.written.get(row.requestId!)!.status as { name: string }).name, 'Open');
      assert.match(String(sim.written.notes(row.requestId!).at(-1)!.description), /open again/);
      assert.equal((await rowOf(row.key)).state, 'open');
      assert.equal((await apply()).writes, 0);
    });

    test('reopen: new opens a new request when the old one is closed for good', async () => {
      const settings = remediationTicketsSchema.parse({ enabled: true, reopen: 'new' });
      const row = await rowOf('fix=200;owner=finance');
      await writeRecords(store, lab, { vulnerabilities: [vuln('h1', '200', 'high', 'fixed')] });
      assert.equal((await apply(settings)).resolved, 1);
      assert.ok(sim.written.setStatus(row.requestId!, 'Closed'));
      await writeRecords(store, lab, { vulnerabilities: [vuln('h1', '200', 'high', 'reopened')] });
      const before = sim.written.size;
      const r = await apply(settings);
      assert.deepEqual([r.replaced, r.created, r.reopened, r.failed], [1, 1, 0, 0], JSON.stringify(r.errors));
      assert.equal(sim.written.size, before + 1);
      const now = await rowOf(row.key);
      assert.notEqual(now.requestId, row.requestId);
      assert.notEqual(now.marker, row.marker, 'a new marker: the search for it never finds the closed request');
      assert.equal(now.state, 'open');
      assert.equal((sim.written.get(row.requestId!)!.status as { name: string }).name, 'Closed', 'the old one stays closed');
      assert.ok(String(sim.written.get(now.requestId!)!.subject).endsWith(`[${now.marker}]`));
      assert.equal((await apply(settings)).writes, 0);
    });

    test('an approved risk exception takes its findings out of the groups', async () => {
      const row = await rowOf('fix=901;owner=hr');
      assert.equal(row.findingIds.length, 1);
      const x = await store.exceptions.propose(
        { pluginId: '901', reason: 'compensating control', expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10) },
        'alice',
      );
      const proposed = await ticketPlan(store, desk, SETTINGS);
      assert.ok(!proposed.actions.some((a) => a.key === row.key), 'a proposed exception changes nothing');
      await store.exceptions.decide(x.id, 'approve', 'bob');
      const plan = await ticketPlan(store, desk, SETTINGS);
      const a = plan.actions.find((p) => p.key === row.key)!;
      // Every finding of the request excepted: it is closed (test/tickets/emptied.test.ts has the rest).
      assert.deepEqual([a.kind, a.reason, a.findingIds.length, a.left.length, a.fixed.length], ['resolve', 'excepted', 0, 1, 0]);
      const r = await apply();
      assert.deepEqual([r.noted, r.resolved, r.closed], [0, 0, 1]);
      assert.match(String(sim.written.notes(row.requestId!).at(-1)!.description), /Taken out by approved risk exceptions \(1\)/);
    });
  });
}
