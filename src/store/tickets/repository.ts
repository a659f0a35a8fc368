// The remediation tickets repository (migration 30): one row per group key of a ticketing source, stored
// as an intent (state `intent`, no request id) before the service desk is asked to create it, so a crash
// between the create call and its record leaves a row whose marker the next run searches for; a claim
// that lets one worker at a time write a key; the write in flight (`pending`, migration 42: set before a
// call, cleared with its record); and the audit log of every write, written in the record's transaction.
import type { Driver, Row } from '../db/driver.ts';
import { nowIso } from '../db/rows.ts';
import { openTicketFindings, ticketFindingsByIds, ticketGroupCounts, ticketPluginFixes } from './findings.ts';

/**
 * `intent`: stored, its request not known to exist; `open`: a request we follow; `resolved`: resolved by
 * us; `closed-upstream`: closed by a person while findings were open (never reopened by us).
 */
export type TicketState = 'intent' | 'open' | 'resolved' | 'closed-upstream';

/** A write sent to the service desk whose answer is not recorded yet (a crash leaves it). */
export interface PendingWrite {
  /** create, note, resolve, reopen… */
  action: string;
  runId: string;
  /** What the write carries that a search finds again: the marker of a create, the tag of a note. */
  tag: string;
  at: string;
}

export interface TicketRow {
  sourceId: string;
  key: string;
  marker: string;
  requestId: string | null;
  state: TicketState;
  title: string;
  /** The findings the request was last written with (sorted ids). */
  findingIds: string[];
  /** A write in flight (its answer not recorded), or null. */
  pending: PendingWrite | null;
  /**
   * Open without a finding since before this version closed emptied requests (migration 49): the next
   * apply closes it unless findings come back to its group. Cleared by any write of its findings or state.
   */
  emptiedEarlier: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface TicketLogEntry {
  seq: number;
  at: string;
  sourceId: string;
  key: string;
  requestId: string | null;
  /** create, adopt, note, resolve, flag-closed, error… */
  action: string;
  runId: string;
  ok: boolean;
  /** The service desk's answer or the error, in words. */
  detail: string | null;
}

const COLS = `"source_id", "group_key", "marker", "request_id", "state", "title", "finding_ids", "created_at", "updated_at"`;
const READ_COLS = `${COLS}, "pending", "emptied_earlier"`;

function rowOf(r: Row): TicketRow {
  return {
    sourceId: String(r.source_id),
    key: String(r.group_key),
    marker: String(r.marker),
    requestId: r.request_id === null || r.request_id === undefined ? null : String(r.request_id),
    state: String(r.state) as TicketState,
    title: String(r.title),
    findingIds: JSON.parse(String(r.finding_ids)) as string[],
    pending: r.pending === null || r.pending === undefined ? null : (JSON.parse(String(r.pending)) as PendingWrite),
    emptiedEarlier: Number(r.emptied_earlier) === 1,
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
  };
}

async function list(db: Driver, sourceId: string): Promise<TicketRow[]> {
  const rows = await db.all(`SELECT ${READ_COLS} FROM "remediation_tickets" WHERE "source_id" = ? ORDER BY "group_key"`, [sourceId]);
  return rows.map(rowOf);
}

async function get(db: Driver, sourceId: string, key: string): Promise<TicketRow | null> {
  const rows = await db.all(`SELECT ${READ_COLS} FROM "remediation_tickets" WHERE "source_id" = ? AND "group_key" = ?`, [sourceId, key]);
  return rows[0] ? rowOf(rows[0]) : null;
}

/** Stores the intent to create a request for `key` (kept as it is when the key has a row already). */
async function recordIntent(db: Driver, t: { sourceId: string; key: string; marker: string; title: string; findingIds: string[] }): Promise<TicketRow> {
  const now = nowIso();
  await db.run(`INSERT INTO "remediation_tickets" (${COLS}) VALUES (?, ?, ?, NULL, 'intent', ?, ?, ?, ?) ON CONFLICT ("source_id", "group_key") DO NOTHING`, [
    t.sourceId,
    t.key,
    t.marker,
    t.title,
    JSON.stringify(t.findingIds),
    now,
    now,
  ]);
  return (await get(db, t.sourceId, t.key))!;
}

/**
 * Takes the key for `worker` until `untilMs` (a crashed worker's claim lapses): true when this worker
 * holds it now, false when another live worker does.
 */
async function claim(db: Driver, sourceId: string, key: string, worker: string, untilMs: number): Promise<boolean> {
  const now = nowIso();
  const changed = await db.run(
    `UPDATE "remediation_tickets" SET "claimed_by" = ?, "claimed_until" = ? WHERE "source_id" = ? AND "group_key" = ? AND ("claimed_by" IS NULL OR "claimed_by" = ? OR "claimed_until" < ?)`,
    [worker, new Date(untilMs).toISOString(), sourceId, key, worker, now],
  );
  return changed === 1;
}

async function release(db: Driver, sourceId: string, key: string, worker: string): Promise<void> {
  await db.run(`UPDATE "remediation_tickets" SET "claimed_by" = NULL, "claimed_until" = NULL WHERE "source_id" = ? AND "group_key" = ? AND "claimed_by" = ?`, [
    sourceId,
    key,
    worker,
  ]);
}

/** Records what a write did: the request id, the state, the findings it was written with, the write in flight. */
export interface TicketPatch {
  requestId?: string | null;
  state?: TicketState;
  findingIds?: string[];
  marker?: string;
  pending?: PendingWrite | null;
}

/**
 * Applies `patch`, and writes `entry` to the audit log in the same transaction: a crash leaves both or
 * neither (the log never misses a write the row records, nor names one it does not).
 */
async function update(db: Driver, sourceId: string, key: string, patch: TicketPatch, entry?: Omit<TicketLogEntry, 'seq' | 'at'>): Promise<void> {
  const sets: string[] = [];
  const params: unknown[] = [];
  const set = (col: string, v: unknown) => {
    sets.push(`"${col}" = ?`);
    params.push(v);
  };
  if (patch.marker !== undefined) set('marker', patch.marker);
  if (patch.requestId !== undefined) set('request_id', patch.requestId);
  if (patch.state !== undefined) set('state', patch.state);
  if (patch.findingIds !== undefined) set('finding_ids', JSON.stringify(patch.findingIds));
  if (patch.pending !== undefined) set('pending', patch.pending === null ? null : JSON.stringify(patch.pending));
  // Written with its findings or a new state: no longer a request an earlier version emptied.
  if (patch.findingIds !== undefined || patch.state !== undefined) set('emptied_earlier', 0);
  set('updated_at', nowIso());
  const ids = patch.findingIds;
  const row = (d: Driver) => d.run(`UPDATE "remediation_tickets" SET ${sets.join(', ')} WHERE "source_id" = ? AND "group_key" = ?`, [...params, sourceId, key]);
  if (ids === undefined && !entry) {
    await row(db);
    return;
  }
  // The findings, one row each too (what a plan counts in SQL), and the log entry, in the same transaction.
  await db.transaction(async (tx) => {
    await row(tx);
    if (entry) await log(tx, entry);
    if (ids === undefined) return;
    await tx.run(`DELETE FROM "remediation_ticket_findings" WHERE "source_id" = ? AND "group_key" = ?`, [sourceId, key]);
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += 300) {
      const chunk = unique.slice(i, i + 300);
      await tx.run(
        // A finding is stored under one key: the last request written with it (another key's row that still
        // lists it is replanned, its count short).
        `INSERT INTO "remediation_ticket_findings" ("source_id", "group_key", "finding_id") VALUES ${chunk.map(() => '(?, ?, ?)').join(', ')} ON CONFLICT ("source_id", "finding_id") DO UPDATE SET "group_key" = excluded."group_key"`,
        chunk.flatMap((id) => [sourceId, key, id]),
      );
    }
  });
}

async function log(db: Driver, e: Omit<TicketLogEntry, 'seq' | 'at'>): Promise<void> {
  await db.run(
    `INSERT INTO "remediation_ticket_log" ("at", "source_id", "group_key", "request_id", "action", "run_id", "ok", "detail") VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [nowIso(), e.sourceId, e.key, e.requestId, e.action, e.runId, e.ok ? 1 : 0, e.detail],
  );
}

/** The newest `limit` log entries of a source, newest first. */
async function logEntries(db: Driver, sourceId: string | null, limit = 100): Promise<TicketLogEntry[]> {
  const n = Math.max(1, Math.min(10_000, Math.floor(limit)));
  const rows = await db.all(
    `SELECT "seq", "at", "source_id", "group_key", "request_id", "action", "run_id", "ok", "detail" FROM "remediation_ticket_log"${sourceId === null ? '' : ' WHERE "source_id" = ?'} ORDER BY "seq" DESC LIMIT ${n}`,
    sourceId === null ? [] : [sourceId],
  );
  return rows.map((r) => ({
    seq: Number(r.seq),
    at: String(r.at),
    sourceId: String(r.source_id),
    key: String(r.group_key),
    requestId: r.request_id === null ? null : String(r.request_id),
    action: String(r.action),
    runId: String(r.run_id),
    ok: Number(r.ok) === 1,
    detail: r.detail === null ? null : String(r.detail),
  }));
}

/**
 * The status the last sync of the ticketing source read of each of its requests that carries a group key
 * (the imported `tickets` records by request id): how a request a person closed is known without a call.
 */
async function requestStatuses(db: Driver, sourceId: string): Promise<Map<string, string>> {
  const rows = await db.all(
    `SELECT t."external_id", t."status" FROM "rec_tickets" t JOIN "remediation_tickets" m ON m."source_id" = t."source_id" AND m."request_id" = t."external_id" WHERE t."source_id" = ? AND t."removed" = 0`,
    [sourceId],
  );
  return new Map(rows.map((r) => [String(r.external_id), String(r.status ?? '')]));
}

export function ticketsRepository(db: Driver) {
  return {
    /** Open findings a plan may ticket (narrow rows, read in pages). */
    openFindings: (o: Parameters<typeof openTicketFindings>[1]) => openTicketFindings(db, o),
    /** Findings by id whatever their status: those known requests list. */
    findingsByIds: (ids: string[]) => ticketFindingsByIds(db, ids),
    /** Selected open findings counted per group-key parts, and per stored key (what changed, without reading findings). */
    groupCounts: (o: Parameters<typeof ticketGroupCounts>[1]) => ticketGroupCounts(db, o),
    /** Each plugin's fix (the top-remediations report's), for grouping per fix. */
    pluginFixes: (pluginIds: string[]) => ticketPluginFixes(db, pluginIds),
    list: (sourceId: string) => list(db, sourceId),
    requestStatuses: (sourceId: string) => requestStatuses(db, sourceId),
    get: (sourceId: string, key: string) => get(db, sourceId, key),
    recordIntent: (t: Parameters<typeof recordIntent>[1]) => recordIntent(db, t),
    claim: (sourceId: string, key: string, worker: string, untilMs: number) => claim(db, sourceId, key, worker, untilMs),
    release: (sourceId: string, key: string, worker: string) => release(db, sourceId, key, worker),
    update: (sourceId: string, key: string, patch: TicketPatch, entry?: Omit<TicketLogEntry, 'seq' | 'at'>) => update(db, sourceId, key, patch, entry),
    log: (e: Parameters<typeof log>[1]) => log(db, e),
    logEntries: (sourceId: string | null, limit?: number) => logEntries(db, sourceId, limit),
  };
}

export type TicketsRepository = ReturnType<typeof ticketsRepository>;
