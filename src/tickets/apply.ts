// Applying a ticket plan (issue 32 §2/§3): every write goes through a TicketWriter the ticketing
// connector gives, one key at a time under a claim (two workers never write the same key), and lands in
// the audit log. One request per key, ever: the key and its intent are stored before the create call,
// the request carries the key's marker in its subject, and before creating the service desk is searched
// for the marker, so a crash (SIGKILL) between the create call and its record leaves no duplicate: the
// next run adopts the request it finds. A request a person closed is noted, never reopened.
import { randomUUID } from 'node:crypto';
import { errorMessage } from '../core/errors.ts';
import type { RemediationTicketsConfig, TicketWriter } from '../core/tickets.ts';
import type { Store } from '../store/index.ts';
import { loadTicketFindings, withDetails } from './findings.ts';
import { draftOf, planTickets, type TicketAction, type TicketPlan } from './plan.ts';

/** Findings per new request whose CVEs, solution, SLA date and host name are read for its text. */
const DETAILED = 200;

export interface TicketSource {
  id: string;
  name: string;
}

export interface ApplyOptions {
  /** Who claims the keys (default: a new id per call). */
  worker?: string;
  /** How long a claim holds before another worker may take the key over (default 10 minutes). */
  claimMs?: number;
  signal?: AbortSignal;
  /** For tests: runs right after a create call answered, before the answer is recorded (a crash there). */
  afterCreate?: (action: TicketAction, requestId: string) => Promise<void> | void;
}

export interface ApplyResult {
  runId: string;
  created: number;
  /** Requests found by their marker (created by a run that crashed before recording them). */
  adopted: number;
  noted: number;
  resolved: number;
  /** Requests found closed by a person while their findings are open. */
  closedUpstream: number;
  deferred: number;
  /** Keys another worker held. */
  skipped: number;
  failed: number;
  /** Calls that changed the service desk (create, note, resolve). */
  writes: number;
  errors: string[];
}

/** The plan of a ticketing source from the store; the requests it would create this run carry their full text. */
export async function ticketPlan(store: Store, source: TicketSource, settings: RemediationTicketsConfig): Promise<TicketPlan> {
  const known = await store.tickets.list(source.id);
  const findings = await loadTicketFindings(store, settings, known);
  const plan = planTickets(settings, source.id, findings, known);
  const creates = plan.actions.filter((a) => a.kind === 'create' && !a.deferred);
  if (creates.length) {
    const byId = new Map(findings.map((f) => [f.id, f]));
    const of = (a: TicketAction) => a.findingIds.map((id) => byId.get(id)!);
    // A request's text names at most 200 hosts: details of that many findings per request are enough.
    await withDetails(
      store,
      creates.flatMap((a) => of(a).slice(0, DETAILED)),
    );
    for (const a of creates) {
      a.draft = draftOf(settings, of(a), a.marker);
      a.title = a.draft.subject;
    }
  }
  return plan;
}

const list = (ids: string[], max = 50) => (ids.length > max ? `${ids.slice(0, max).join(', ')}, … (${ids.length} in all)` : ids.join(', '));

function changeNote(a: TicketAction, closedBy?: 'person' | 'us'): string {
  const parts: string[] = [];
  if (closedBy === 'person') parts.push(`<div>This request was closed while ${a.findingIds.length} of its findings are still open; it is not reopened.</div>`);
  if (closedBy === 'us') parts.push('<div>Findings of this resolved request are open again.</div>');
  if (a.added.length) parts.push(`<div><b>Added (${a.added.length}):</b> ${list(a.added)}</div>`);
  if (a.fixed.length) parts.push(`<div><b>Fixed (${a.fixed.length}):</b> ${list(a.fixed)}</div>`);
  if (a.left.length) parts.push(`<div><b>No longer ticketed (${a.left.length}):</b> ${list(a.left)}</div>`);
  parts.push(`<div>${a.findingIds.length} finding(s) open. (${a.marker})</div>`);
  return parts.join('');
}

export async function applyTickets(
  store: Store,
  source: TicketSource,
  settings: RemediationTicketsConfig,
  writer: TicketWriter,
  opts: ApplyOptions = {},
): Promise<ApplyResult & { plan: TicketPlan }> {
  const runId = `tickets-${new Date().toISOString().replace(/[-:.]/g, '')}-${randomUUID().slice(0, 8)}`;
  const worker = opts.worker ?? randomUUID();
  const claimMs = opts.claimMs ?? 10 * 60_000;
  const r: ApplyResult = { runId, created: 0, adopted: 0, noted: 0, resolved: 0, closedUpstream: 0, deferred: 0, skipped: 0, failed: 0, writes: 0, errors: [] };
  const plan = await ticketPlan(store, source, settings);
  const log = (a: TicketAction, action: string, requestId: string | null, ok: boolean, detail: string | null) =>
    store.tickets.log({ sourceId: source.id, key: a.key, requestId, action, runId, ok, detail });

  for (const a of plan.actions) {
    if (opts.signal?.aborted) break;
    if (a.deferred) {
      r.deferred++;
      continue;
    }
    // The intent is stored before anything is asked of the service desk.
    if (a.kind === 'create') await store.tickets.recordIntent({ sourceId: source.id, key: a.key, marker: a.marker, title: a.title, findingIds: [] });
    if (!(await store.tickets.claim(source.id, a.key, worker, Date.now() + claimMs))) {
      r.skipped++;
      continue;
    }
    try {
      // Read again under the claim: another worker may have written this key since the plan.
      const row = await store.tickets.get(source.id, a.key);
      if (!row) continue;
      if (a.kind === 'create') {
        if (row.requestId) continue;
        const found = await writer.findByMarker(a.marker, opts.signal);
        if (found) {
          await store.tickets.update(source.id, a.key, { requestId: found.id, state: found.closed ? 'closed-upstream' : 'open', findingIds: a.findingIds });
          await log(a, 'adopt', found.id, true, `found by its marker ${a.marker} (status ${found.status})`);
          r.adopted++;
          continue;
        }
        const made = await writer.create(a.draft!, opts.signal);
        r.writes++;
        await opts.afterCreate?.(a, made.id);
        await store.tickets.update(source.id, a.key, { requestId: made.id, state: 'open', findingIds: a.findingIds });
        await log(a, 'create', made.id, true, `created with ${a.findingIds.length} finding(s): ${a.title}`);
        r.created++;
        continue;
      }
      const id = row.requestId;
      if (!id) continue;
      const remote = await writer.get(id, opts.signal);
      if (!remote) {
        await log(a, a.kind, id, false, 'the request no longer exists in the service desk');
        r.failed++;
        continue;
      }
      if (a.kind === 'resolve') {
        if (remote.closed) {
          // Closed already (by a person): recorded, nothing written.
          await store.tickets.update(source.id, a.key, { state: 'resolved', findingIds: [] });
          await log(a, 'resolve', id, true, `already ${remote.status}; every finding is fixed`);
          r.resolved++;
          continue;
        }
        const text = `Every finding of this request is fixed, as the scanner confirms: ${list(a.fixed)}. (${a.marker})`;
        await writer.resolve(id, settings.resolvedStatus, text, opts.signal);
        r.writes++;
        await store.tickets.update(source.id, a.key, { state: 'resolved', findingIds: [] });
        await log(a, 'resolve', id, true, `set to ${settings.resolvedStatus}; ${a.fixed.length} finding(s) fixed`);
        r.resolved++;
        continue;
      }
      // A note: on a request we follow, or (note-closed) one that is resolved or closed.
      const personClosed = a.kind === 'note' && remote.closed;
      const closedBy = personClosed || row.state === 'closed-upstream' ? 'person' : a.kind === 'note-closed' ? 'us' : undefined;
      await writer.note(id, changeNote(a, closedBy), opts.signal);
      r.writes++;
      await store.tickets.update(source.id, a.key, { findingIds: a.findingIds, ...(personClosed ? { state: 'closed-upstream' as const } : {}) });
      if (personClosed) r.closedUpstream++;
      await log(a, personClosed ? 'flag-closed' : 'note', id, true, `+${a.added.length} added, ${a.fixed.length} fixed, ${a.left.length} no longer ticketed`);
      r.noted++;
    } catch (err) {
      r.failed++;
      r.errors.push(`${a.kind} ${a.marker}: ${errorMessage(err)}`);
      await log(a, `${a.kind}-failed`, a.requestId, false, errorMessage(err));
    } finally {
      await store.tickets.release(source.id, a.key, worker);
    }
  }
  return { ...r, plan };
}
