// Applying a ticket plan (issue 32 §2/§3): every write goes through a TicketWriter the ticketing
// connector gives, one key at a time under a claim (two workers never write the same key), and lands in
// the audit log in the same transaction as its record. One request per key, ever: the key and its intent
// are stored before the create call, the request carries the key's marker (subject, description, key
// field), and before creating the service desk is searched for the marker, so a crash (SIGKILL) between
// the create call and its record leaves no duplicate: the next run adopts the request it finds. Every
// write is marked in flight (`pending`) before its call; a note carries a tag of what it says, so the run
// after a crash looks for the tag before noting again. A request a person closed is noted, never reopened.
// A request whose findings all left it unfixed (moved to another group's request, or excepted) is noted
// with where they went and set to `movedStatus`.
import { createHash, randomUUID } from 'node:crypto';
import { errorMessage } from '../core/errors.ts';
import type { RemediationTicketsConfig, TicketWriter } from '../core/tickets.ts';
import type { Store } from '../store/index.ts';
import { planInputs, withDetails } from './findings.ts';
import { draftOf, type KnownTicket, markerOf, planTickets, type TicketAction, type TicketPlan } from './plan.ts';

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
  /** For tests: runs at each step of each write (test/helpers/tickets-crash-child.ts kills the process there). */
  step?: (step: ApplyStep, action: TicketAction, requestId: string | null) => Promise<void> | void;
}

/**
 * The steps of the writes, in order: a create (before its intent is stored; after it, before the call;
 * after the call, before its record; after the record and its log entry), a note, a resolution, a close
 * (a resolution whose findings moved or were excepted: its note, then its status), a reopen
 * (its status, then its note), and a replacement's switch to a new marker (its create steps follow).
 * The audit log entry is written in the record's transaction: no step falls between the two.
 */
export const APPLY_STEPS = [
  'create:before-intent',
  'create:before-call',
  'create:after-call',
  'create:after-record',
  'note:before-call',
  'note:after-call',
  'note:after-record',
  'resolve:before-call',
  'resolve:after-call',
  'resolve:after-record',
  'close:before-call',
  'close:after-note',
  'close:after-call',
  'close:after-record',
  'reopen:before-call',
  'reopen:after-status',
  'reopen:after-note',
  'reopen:after-record',
  'replace:after-record',
] as const;
export type ApplyStep = (typeof APPLY_STEPS)[number];

export interface ApplyResult {
  runId: string;
  created: number;
  /** Requests found by their marker (created by a run that crashed before recording them). */
  adopted: number;
  noted: number;
  resolved: number;
  /** Requests set to `movedStatus` because every finding moved to another request or was excepted. */
  closed: number;
  /** Requests found closed by a person while their findings are open. */
  closedUpstream: number;
  /** Requests we resolved set open again because a finding came back. */
  reopened: number;
  /** Requests closed for good whose findings came back, followed by a new request (`reopen: new`). */
  replaced: number;
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
  const inputs = await planInputs(store, source.id, settings, await knownTickets(store, source.id));
  const { findings } = inputs;
  // Planned over the groups that changed; the counts are of every group.
  const plan = { ...planTickets(settings, source.id, findings, inputs.known), findings: inputs.selected, groups: inputs.groups };
  // A reopened request may be replaced by a new one (closed for good, `reopen: new`): its text is ready.
  const creates = plan.actions.filter((a) => (a.kind === 'create' || (a.kind === 'reopen' && settings.reopen === 'new')) && !a.deferred);
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

const CLOSED = /^(closed|resolved|cancel+ed|completed|rejected|done)$/i;

/** The stored rows, each marked when the ticketing source's last sync read its request closed. */
async function knownTickets(store: Store, sourceId: string): Promise<KnownTicket[]> {
  const rows = await store.tickets.list(sourceId);
  const statuses = rows.some((r) => r.state === 'open') ? await store.tickets.requestStatuses(sourceId) : new Map<string, string>();
  return rows.map((r) => ({ ...r, closedRemotely: !!r.requestId && CLOSED.test(statuses.get(r.requestId) ?? '') }));
}

const list = (ids: string[], max = 50) => (ids.length > max ? `${ids.slice(0, max).join(', ')}, … (${ids.length} in all)` : ids.join(', '));

/**
 * A note's tag: the key's marker and a digest of what the note says. The run after a crash between a note
 * call and its record looks for it among the request's notes before noting again.
 */
export function noteTag(a: TicketAction, closedBy?: 'person' | 'us'): string {
  const what = [a.kind, closedBy ?? '', a.findingIds.join(','), a.added.join(','), a.fixed.join(','), a.left.join(',')].join('\n');
  return `${a.marker}/${createHash('sha256').update(what).digest('hex').slice(0, 8)}`;
}

function changeNote(a: TicketAction, closedBy?: 'person' | 'us'): string {
  const parts: string[] = [];
  if (closedBy === 'person') parts.push(`<div>This request was closed while ${a.findingIds.length} of its findings are still open; it is not reopened.</div>`);
  if (closedBy === 'us') parts.push('<div>Findings of this resolved request are open again: it is reopened.</div>');
  if (a.added.length) parts.push(`<div><b>Added (${a.added.length}):</b> ${list(a.added)}</div>`);
  if (a.fixed.length) parts.push(`<div><b>Fixed (${a.fixed.length}):</b> ${list(a.fixed)}</div>`);
  if (a.left.length) parts.push(`<div><b>No longer ticketed (${a.left.length}):</b> ${list(a.left)}</div>`);
  parts.push(`<div>${a.findingIds.length} finding(s) open. (${noteTag(a, closedBy)})</div>`);
  return parts.join('');
}

/**
 * Where the findings of a request to close went: the requests of the groups they moved to (by id, as
 * stored now: created earlier in this run or before) and the exceptions that took them out. `missing`
 * when a group they moved to has no request yet.
 */
async function whereTheyWent(store: Store, sourceId: string, a: TicketAction): Promise<{ html: string; summary: string; missing: boolean }> {
  const html: string[] = [];
  const summary: string[] = [];
  let missing = false;
  const moved = [];
  for (const m of a.movedTo ?? []) {
    const requestId = (await store.tickets.get(sourceId, m.key))?.requestId ?? null;
    if (!requestId) missing = true;
    moved.push({ ...m, requestId });
  }
  if (moved.length) {
    const n = moved.reduce((t, m) => t + m.findingIds.length, 0);
    html.push(
      `<div><b>Moved to other requests (${n}):</b> ${moved.map((m) => `request ${esc(m.requestId ?? '?')} (${m.findingIds.length}: ${list(m.findingIds, 20)})`).join('; ')}</div>`,
    );
    summary.push(`${n} finding(s) moved to request(s) ${moved.map((m) => m.requestId ?? '?').join(', ')}`);
  }
  const xs = a.exceptions ?? [];
  if (xs.length) {
    const n = xs.reduce((t, x) => t + x.findingIds.length, 0);
    html.push(
      `<div><b>Taken out by approved risk exceptions (${n}):</b> ${xs.map((x) => `exception ${esc(x.id)} "${esc(x.reason)}" (${x.findingIds.length}: ${list(x.findingIds, 20)})`).join('; ')}</div>`,
    );
    summary.push(`${n} finding(s) excepted by ${xs.map((x) => `${x.id} (${x.reason})`).join(', ')}`);
  }
  if (a.reason === 'emptied') {
    html.push(
      '<div>Its findings left this request before Tributary closed requests left without findings (moved to another request, excepted, or no longer ticketed); none is ticketed here now.</div>',
    );
    summary.push('its findings left it before emptied requests were closed');
  }
  if (a.fixed.length) {
    html.push(`<div><b>Fixed (${a.fixed.length}):</b> ${list(a.fixed)}</div>`);
    summary.push(`${a.fixed.length} fixed`);
  }
  return { html: html.join(''), summary: summary.join('; '), missing };
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

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
  const r: ApplyResult = {
    runId,
    created: 0,
    adopted: 0,
    noted: 0,
    resolved: 0,
    closed: 0,
    closedUpstream: 0,
    reopened: 0,
    replaced: 0,
    deferred: 0,
    skipped: 0,
    failed: 0,
    writes: 0,
    errors: [],
  };
  const plan = await ticketPlan(store, source, settings);
  const entry = (a: TicketAction, action: string, requestId: string | null, ok: boolean, detail: string | null) => ({
    sourceId: source.id,
    key: a.key,
    requestId,
    action,
    runId,
    ok,
    detail,
  });
  const step = async (s: ApplyStep, a: TicketAction, requestId: string | null = a.requestId) => {
    await opts.step?.(s, a, requestId);
  };

  for (const a of plan.actions) {
    if (opts.signal?.aborted) break;
    if (a.deferred) {
      r.deferred++;
      continue;
    }
    // The intent is stored before anything is asked of the service desk.
    if (a.kind === 'create') {
      await step('create:before-intent', a);
      await store.tickets.recordIntent({ sourceId: source.id, key: a.key, marker: a.marker, title: a.title, findingIds: [] });
    }
    if (!(await store.tickets.claim(source.id, a.key, worker, Date.now() + claimMs))) {
      r.skipped++;
      continue;
    }
    try {
      // Read again under the claim: another worker may have written this key since the plan.
      const row = await store.tickets.get(source.id, a.key);
      if (!row) continue;
      // A write an earlier run sent without recording its answer (it crashed, or the answer was lost).
      const earlier = row.pending;
      const sentBefore = (what: string) => (earlier ? `; ${what} sent by run ${earlier.runId}, whose answer was not recorded` : '');
      const inFlight = (action: string, tag: string) =>
        store.tickets.update(source.id, a.key, { pending: { action, runId, tag, at: new Date().toISOString() } });
      // Searched by its marker first, then created; the row's marker is the one the request carries.
      const create = async (marker: string) => {
        const found = await writer.findByMarker(marker, opts.signal);
        if (found) {
          await store.tickets.update(
            source.id,
            a.key,
            { requestId: found.id, state: found.closed ? 'closed-upstream' : 'open', findingIds: a.findingIds, pending: null },
            entry(a, 'adopt', found.id, true, `found by its marker ${marker} (status ${found.status})${sentBefore('its create')}`),
          );
          r.adopted++;
          return;
        }
        const draft =
          marker === a.marker
            ? a.draft!
            : { ...a.draft!, marker, subject: a.draft!.subject.replace(a.marker, marker), description: a.draft!.description.replaceAll(a.marker, marker) };
        await step('create:before-call', a);
        await inFlight('create', marker);
        const made = await writer.create(draft, opts.signal);
        r.writes++;
        await step('create:after-call', a, made.id);
        await store.tickets.update(
          source.id,
          a.key,
          { requestId: made.id, state: 'open', findingIds: a.findingIds, pending: null },
          entry(a, 'create', made.id, true, `created with ${a.findingIds.length} finding(s): ${draft.subject}`),
        );
        r.created++;
        await step('create:after-record', a, made.id);
      };
      // A note, unless the run that sent the same one crashed before recording it and the note is there.
      const note = async (id: string, action: string, html: string, tag: string): Promise<string> => {
        if (earlier?.tag === tag && (await writer.hasNote(id, tag, opts.signal))) return `; the note (${tag}) was written by run ${earlier.runId}, not again`;
        await inFlight(action, tag);
        await writer.note(id, html, opts.signal);
        r.writes++;
        return '';
      };
      if (a.kind === 'create' || row.state === 'intent') {
        // (An intent left by a replacement that crashed: its new marker is the row's.)
        if (row.requestId || !a.draft) continue;
        await create(row.marker);
        continue;
      }
      const id = row.requestId;
      if (!id) continue;
      const remote = await writer.get(id, opts.signal);
      if (!remote) {
        await store.tickets.log(entry(a, a.kind, id, false, 'the request no longer exists in the service desk'));
        r.failed++;
        continue;
      }
      if (a.kind === 'reopen') {
        if (remote.final && settings.reopen === 'new') {
          // Closed for good: a new request follows the findings. Its marker is new (derived from the old
          // request's id) and stored as an intent first, so a crash here leaves no duplicate either.
          const marker = markerOf(source.id, `${a.key}#after-${id}`);
          await store.tickets.update(
            source.id,
            a.key,
            { marker, requestId: null, state: 'intent', findingIds: [], pending: null },
            entry(
              a,
              'replace',
              id,
              true,
              `request ${id} is ${remote.status} for good; ${a.findingIds.length} finding(s) are back: a new request follows them (${marker})`,
            ),
          );
          r.replaced++;
          await step('replace:after-record', a);
          await create(marker);
          continue;
        }
        await step('reopen:before-call', a);
        const tag = noteTag(a, 'us');
        if (remote.closed) {
          await inFlight('reopen', tag);
          await writer.reopen(id, settings.reopenStatus, opts.signal);
          r.writes++;
        }
        await step('reopen:after-status', a);
        const again = await note(id, 'reopen', changeNote(a, 'us'), tag);
        await step('reopen:after-note', a);
        await store.tickets.update(
          source.id,
          a.key,
          { state: 'open', findingIds: a.findingIds, pending: null },
          entry(
            a,
            'reopen',
            id,
            true,
            `${remote.closed ? `set to ${settings.reopenStatus} from ${remote.status}` : `already ${remote.status}${sentBefore('the reopen')}`}; ${a.added.length} finding(s) back${again}`,
          ),
        );
        r.reopened++;
        await step('reopen:after-record', a);
        continue;
      }
      if (a.kind === 'resolve' && a.reason && a.reason !== 'fixed') {
        await step('close:before-call', a);
        const where = await whereTheyWent(store, source.id, a);
        if (remote.closed) {
          // Closed already (by a person, or by a run that crashed before recording it): recorded, nothing written.
          await store.tickets.update(
            source.id,
            a.key,
            { state: 'resolved', findingIds: [], pending: null },
            entry(a, 'close', id, true, `already ${remote.status}; ${where.summary}${sentBefore('the close')}`),
          );
          r.closed++;
          await step('close:after-record', a);
          continue;
        }
        // A request its findings moved to is not created yet (its create failed): closed by a later run.
        if (where.missing) continue;
        const tag = noteTag(a);
        const again = await note(id, 'close', where.html + `<div>Nothing is left to do here: set to ${settings.movedStatus}. (${tag})</div>`, tag);
        await step('close:after-note', a);
        await inFlight('close', tag);
        await writer.resolve(id, settings.movedStatus, `No finding of this request is left to fix here: ${where.summary}. (${a.marker})`, opts.signal);
        r.writes++;
        await step('close:after-call', a);
        await store.tickets.update(
          source.id,
          a.key,
          { state: 'resolved', findingIds: [], pending: null },
          entry(a, 'close', id, true, `set to ${settings.movedStatus}; ${where.summary}${again}`),
        );
        r.closed++;
        await step('close:after-record', a);
        continue;
      }
      if (a.kind === 'resolve') {
        await step('resolve:before-call', a);
        if (remote.closed) {
          // Closed already (by a person, or by a run that crashed before recording it): recorded, nothing written.
          await store.tickets.update(
            source.id,
            a.key,
            { state: 'resolved', findingIds: [], pending: null },
            entry(a, 'resolve', id, true, `already ${remote.status}; every finding is fixed${sentBefore('the resolution')}`),
          );
          r.resolved++;
          await step('resolve:after-record', a);
          continue;
        }
        const text = `Every finding of this request is fixed, as the scanner confirms: ${list(a.fixed)}. (${a.marker})`;
        await inFlight('resolve', a.marker);
        await writer.resolve(id, settings.resolvedStatus, text, opts.signal);
        r.writes++;
        await step('resolve:after-call', a);
        await store.tickets.update(
          source.id,
          a.key,
          { state: 'resolved', findingIds: [], pending: null },
          entry(a, 'resolve', id, true, `set to ${settings.resolvedStatus}; ${a.fixed.length} finding(s) fixed`),
        );
        r.resolved++;
        await step('resolve:after-record', a);
        continue;
      }
      // A note on a request we follow; one a person closed while its findings are open is flagged, noted once.
      const personClosed = remote.closed;
      const closedBy = personClosed ? 'person' : undefined;
      const action = personClosed ? 'flag-closed' : 'note';
      await step('note:before-call', a);
      const again = await note(id, action, changeNote(a, closedBy), noteTag(a, closedBy));
      await step('note:after-call', a);
      await store.tickets.update(
        source.id,
        a.key,
        { findingIds: a.findingIds, pending: null, ...(personClosed ? { state: 'closed-upstream' as const } : {}) },
        entry(a, action, id, true, `+${a.added.length} added, ${a.fixed.length} fixed, ${a.left.length} no longer ticketed${again}`),
      );
      if (personClosed) r.closedUpstream++;
      r.noted++;
      await step('note:after-record', a);
    } catch (err) {
      r.failed++;
      r.errors.push(`${a.kind} ${a.marker}: ${errorMessage(err)}`);
      await store.tickets.log(entry(a, `${a.kind}-failed`, a.requestId, false, errorMessage(err)));
    } finally {
      await store.tickets.release(source.id, a.key, worker);
    }
  }
  return { ...r, plan };
}
