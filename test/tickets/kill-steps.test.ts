// SIGKILL at each step of each kind of ticket write (issue 32 §3), on both stores: a worker applying the
// plan is killed at the step (tickets/apply.ts APPLY_STEPS, through test/helpers/tickets-crash-child.ts),
// the next run applies again, and then: one request per group key in the service desk, every intent has
// its request id and no write is left in flight, every request and every note has its audit entry (none
// doubled, none lost), and the service desk's requests agree with the plan (nothing left to do, states
// match; a close, its findings excepted, is set to movedStatus). And the marker search finds a request
// whose subject a person edited (by its description).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SdpTicketWriter } from '../../src/connectors/servicedesk-plus/ticket-writer.ts';
import { silentLogger } from '../../src/core/log.ts';
import type { IncomingRecord } from '../../src/core/models.ts';
import { type RemediationTicketsConfig, remediationTicketsSchema } from '../../src/core/tickets.ts';
import type { SourceRecord, Store } from '../../src/store/index.ts';
import { APPLY_STEPS, type ApplyStep } from '../../src/tickets/apply.ts';
import { applyTickets, ticketPlan } from '../../src/tickets/index.ts';
import { type RunningSdpSim, startSdpSim } from '../../sim/servicedesk-plus/index.ts';
import { memState, parseConfig } from '../connectors/servicedesk-plus/helpers.ts';
import { runChild } from '../helpers/child-run.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { openTestStore, writeRecords } from '../helpers/store.ts';

const child = fileURLToPath(new URL('../helpers/tickets-crash-child.ts', import.meta.url));
const DEFAULT = { enabled: true };
const host = (key: string, ip: string): IncomingRecord => ({ key, externalId: key, fields: { hostname: key, ipAddresses: [ip], department: 'Finance' } });
const vuln = (hostKey: string, pluginId: string, status = 'open'): IncomingRecord => ({
  key: `${hostKey}|${pluginId}`,
  hostKey,
  fields: { pluginId, pluginName: `Fix ${pluginId}`, severity: 'critical', status, cves: [`CVE-2026-${pluginId}`] },
});
const MARKER = /TRB-[0-9a-f]{12}/;

for (const backend of BACKENDS) {
  describe(`SIGKILL at each step of a ticket write on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let store: Store;
    let sim: RunningSdpSim;
    let lab: SourceRecord;
    let desk: SourceRecord;
    const writer = (extra: Record<string, unknown> = {}) =>
      new SdpTicketWriter(
        parseConfig({ serverUrl: sim.url, apiKey: sim.apiKey, ...extra }),
        { sourceName: 'desk', log: silentLogger, state: memState() },
        null,
      );
    const apply = async (raw: Record<string, unknown> = DEFAULT) => {
      const w = writer();
      try {
        return await applyTickets(store, desk, remediationTicketsSchema.parse(raw), w);
      } finally {
        await w.close();
      }
    };
    const settled = async (raw: Record<string, unknown> = DEFAULT) => {
      const r = await apply(raw);
      assert.equal(r.failed, 0, JSON.stringify(r.errors));
    };
    /** Runs the crash child killed at `step`; the simulator answers it from this process's event loop. */
    const killedAt = (step: ApplyStep, raw: Record<string, unknown> = DEFAULT) =>
      runChild(child, [db.url, sim.url, sim.apiKey, desk.id, desk.name, step, JSON.stringify(raw)], 90_000);

    /** What must hold after any crash and the run after it. */
    const invariants = async (settings: RemediationTicketsConfig, replacedIds: Set<string>) => {
      const rows = await store.tickets.list(desk.id);
      for (const row of rows) {
        assert.notEqual(row.state, 'intent', `${row.key} has its request`);
        assert.ok(row.requestId, `${row.key} has its request id`);
        assert.equal(row.pending, null, `${row.key}: no write left in flight`);
      }
      // One request per marker: the marker is read from the description (a person may edit the subject).
      const requests = sim.written.all();
      const byMarker = new Map<string, string[]>();
      for (const rec of requests) {
        const m = MARKER.exec(String(rec.description))?.[0];
        assert.ok(m, `request ${String(rec.id)} carries a marker`);
        byMarker.set(m, [...(byMarker.get(m) ?? []), String(rec.id)]);
      }
      for (const [m, ids] of byMarker) assert.equal(ids.length, 1, `${m}: one request, not ${ids.join(', ')}`);
      for (const row of rows) assert.deepEqual(byMarker.get(row.marker), [row.requestId], `${row.key}: its request carries its marker`);
      // Every request is one a row follows, or one a replacement left closed.
      const followed = new Set(rows.map((r) => r.requestId));
      for (const rec of requests) assert.ok(followed.has(String(rec.id)) || replacedIds.has(String(rec.id)), `request ${String(rec.id)} is followed`);
      // The audit log: each request created or adopted once, each note logged once (none doubled, none lost).
      const log = await store.tickets.logEntries(desk.id, 10_000);
      assert.deepEqual(
        log.filter((e) => !e.ok),
        [],
        'no failed write',
      );
      for (const rec of requests) {
        const id = String(rec.id);
        assert.equal(
          log.filter((e) => e.requestId === id && (e.action === 'create' || e.action === 'adopt')).length,
          1,
          `request ${id}: one create or adopt entry`,
        );
        const noted = log.filter((e) => e.requestId === id && ['note', 'flag-closed', 'reopen', 'close'].includes(e.action)).length;
        assert.equal(sim.written.notes(id).length, noted, `request ${id}: as many notes as noting entries`);
      }
      // The service desk agrees with the plan: nothing left to do, each request's status as its row says.
      assert.deepEqual(
        (await ticketPlan(store, desk, settings)).actions.map((a) => [a.kind, a.key]),
        [],
      );
      for (const row of rows) {
        const status = (sim.written.get(row.requestId!)!.status as { name: string }).name;
        const closedAs = closedKeys.has(row.key) ? settings.movedStatus : 'Resolved';
        assert.equal(status, row.state === 'resolved' ? closedAs : 'Open', `${row.key} is ${row.state}`);
      }
    };

    before(async () => {
      db = await backend.create();
      store = await openTestStore(db);
      sim = await startSdpSim({ seed: 21, requests: 5 });
      lab = await store.sources.create('lab', 'fixture', {}, null);
      desk = await store.sources.create('desk', 'fixture', {}, null);
      await writeRecords(store, lab, { hosts: [host('h1', '10.0.0.1'), host('h2', '10.0.0.2')] });
    });
    after(async () => {
      await store?.close();
      await sim?.close();
      await db?.drop();
    });

    const replaced = new Set<string>();
    /** Keys whose requests a close step set to movedStatus (their findings excepted). */
    const closedKeys = new Set<string>();
    let plugin = 1000;
    for (const step of APPLY_STEPS) {
      test(`killed at ${step}: the next run leaves one request per key, every write logged once, the plan met`, async () => {
        const p = String(++plugin);
        const kind = step.split(':')[0]!;
        const raw = kind === 'replace' ? { enabled: true, reopen: 'new' } : DEFAULT;
        const key = `fix=${p};owner=finance`;
        // The state before the write: none for a create, else a request (resolved for a reopen, closed by a person for a replacement).
        if (kind !== 'create') {
          await writeRecords(store, lab, { vulnerabilities: [vuln('h1', p)] });
          await settled(raw);
        }
        if (kind === 'reopen' || kind === 'replace') {
          await writeRecords(store, lab, { vulnerabilities: [vuln('h1', p, 'fixed')] });
          await settled(raw);
          assert.equal((await store.tickets.get(desk.id, key))!.state, 'resolved');
        }
        const old = await store.tickets.get(desk.id, key);
        if (kind === 'replace') {
          assert.ok(sim.written.setStatus(old!.requestId!, 'Closed'));
          replaced.add(old!.requestId!);
        }
        // A close: the finding is taken out by an approved exception (the killed run closes the request).
        if (kind === 'close') {
          const id = (await store.tickets.get(desk.id, key))!.findingIds[0]!;
          const x = await store.exceptions.propose(
            { findingId: id, reason: `accepted ${p}`, expiresAt: new Date(Date.now() + 86_400_000 * 30).toISOString().slice(0, 10) },
            'a',
          );
          await store.exceptions.decide(x.id, 'approve', 'b');
          closedKeys.add(key);
        }
        // The change the killed run writes.
        const change = {
          create: [vuln('h1', p), vuln('h2', p)],
          note: [vuln('h2', p)],
          resolve: [vuln('h1', p, 'fixed')],
          reopen: [vuln('h1', p, 'reopened')],
          replace: [vuln('h1', p, 'reopened')],
          close: [],
        }[kind]!;
        if (change.length) await writeRecords(store, lab, { vulnerabilities: change });
        const planned = await ticketPlan(store, desk, remediationTicketsSchema.parse(raw));
        assert.deepEqual(
          planned.actions.map((a) => [a.kind, a.key]),
          [[kind === 'replace' ? 'reopen' : kind === 'close' ? 'resolve' : kind, key]],
        );
        const requestsBefore = sim.written.size;

        const killed = await killedAt(step, raw);
        assert.equal(killed.signal, 'SIGKILL', `${killed.stdout}${killed.stderr}`);
        assert.match(killed.stdout, new RegExp(`^at ${step} ${key.replace(/[;=]/g, '.')} `, 'm'));
        // What the crash left: the intent before its call, the write in flight after it.
        const row = await store.tickets.get(desk.id, key);
        if (step === 'create:before-intent') assert.equal(row, null);
        if (step === 'create:before-call') assert.deepEqual([row?.state, row?.requestId, row?.pending], ['intent', null, null]);
        if (step.endsWith(':after-call') || step === 'reopen:after-status' || step === 'reopen:after-note' || step === 'close:after-note') {
          assert.ok(row?.pending, `${step}: the write is in flight`);
          assert.equal(row.pending.runId.startsWith('tickets-'), true);
        }
        if (step === 'create:after-call') assert.equal(sim.written.size, requestsBefore + 1, 'the killed worker created the request');

        const again = await apply(raw);
        assert.equal(again.failed, 0, JSON.stringify(again.errors));
        if (step === 'create:after-call') assert.deepEqual([again.adopted, again.created], [1, 0], 'found by its marker, not created again');
        if (step === 'note:after-call') assert.equal(again.writes, 0, 'the note the killed run wrote is found by its tag, not written again');
        if (step === 'resolve:after-call') assert.equal(again.writes, 0, 'already resolved: recorded, not written again');
        if (step === 'reopen:after-note') assert.equal(again.writes, 0, 'reopened and noted already: recorded only');
        if (step === 'close:after-note') assert.equal(again.writes, 1, 'the note is found by its tag: only the status is written');
        if (step === 'close:after-call') assert.equal(again.writes, 0, 'closed already: recorded, not written again');
        if (kind === 'close') assert.equal((sim.written.get(old!.requestId!)!.status as { name: string }).name, 'Canceled');
        const expectNew = kind === 'create' || kind === 'replace' ? 1 : 0;
        assert.equal(sim.written.size, requestsBefore + expectNew, 'no duplicate request');
        await invariants(remediationTicketsSchema.parse(raw), replaced);
        // A crash the next run recovered from is named in the audit log.
        if (step.endsWith(':after-call') && kind !== 'create') {
          const last = (await store.tickets.logEntries(desk.id, 1))[0]!;
          assert.match(String(last.detail), /run tickets-/, String(last.detail));
        }
        assert.equal((await apply(raw)).writes, 0, 'and then nothing more to write');
      });
    }

    test('a request whose subject a person edited is found by the marker in its description; the key field is searched too', async () => {
      const p = String(++plugin);
      const key = `fix=${p};owner=finance`;
      await writeRecords(store, lab, { vulnerabilities: [vuln('h1', p), vuln('h2', p)] });
      const before = sim.written.size;
      const killed = await killedAt('create:after-call');
      assert.equal(killed.signal, 'SIGKILL', killed.stderr);
      const made = /^at create:after-call \S+ (\d+)$/m.exec(killed.stdout)?.[1];
      assert.ok(made, killed.stdout);
      const marker = (await store.tickets.get(desk.id, key))!.marker;
      // A person renames it before the next run: the marker is no longer in the subject.
      assert.ok(sim.written.personEdit(made, { subject: 'Patch the web servers' }));
      const w = writer();
      try {
        const found = await w.findByMarker(marker);
        assert.equal(found?.id, made);
        assert.equal(await w.findByMarker('TRB-000000000000'), null, 'a marker nobody carries finds nothing');
      } finally {
        await w.close();
      }
      const r = await apply();
      assert.deepEqual([r.adopted, r.created, r.failed], [1, 0, 0], JSON.stringify(r.errors));
      assert.equal(sim.written.size, before + 1);
      assert.equal((await store.tickets.get(desk.id, key))!.requestId, made);
      // Subject and description both edited: only the key field (ticketKeyField) still carries it.
      const keyed = writer({ ticketKeyField: 'udf_sline_301' });
      try {
        const draft = (await ticketPlan(store, desk, remediationTicketsSchema.parse({ enabled: true, minSeverity: 'info', maxCreatesPerRun: 0 }))).actions;
        assert.deepEqual(draft, []);
        const one = await keyed.create({
          marker: 'TRB-0000000000ff',
          subject: 'Patch [TRB-0000000000ff]',
          description: '<div>(TRB-0000000000ff)</div>',
          priority: null,
          group: null,
          category: null,
          assetIds: [],
          dueAt: null,
          severity: 'high',
        });
        assert.ok(sim.written.personEdit(one.id, { subject: 'Renamed', description: 'Rewritten by a person' }));
        assert.equal((await keyed.findByMarker('TRB-0000000000ff'))?.id, one.id);
        const plain = writer();
        assert.equal(await plain.findByMarker('TRB-0000000000ff'), null, 'without the key field, nothing carries it any more');
        await plain.close();
      } finally {
        await keyed.close();
      }
    });
  });
}
