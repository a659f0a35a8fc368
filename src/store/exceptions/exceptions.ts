// Risk exceptions (interfaces.md §7.3, issue 31 §3): an accepted or deferred risk for one finding, a
// plugin on chosen assets, or a plugin everywhere, with a reason, an expiry, its requester and approver.
// An approved exception whose expiry has not passed takes its findings out of the overdue counts and
// filter, coverage's urgent list and (after the priority work) the Act count: exceptedFindingsClause is
// that one test, in SQL. Expiry is read against the clock: nothing flips a stored state when it passes,
// an exception proposed or approved whose date is past reads `expired`. Every change is a row of
// `exception_history` (who, when, from, to).
import { randomUUID } from 'node:crypto';
import type { ExceptionAction, ExceptionScope, ExceptionState } from '../../core/models.ts';
import { ConflictError, ForbiddenError, InputError, NotFoundError } from '../../core/errors.ts';
import type { Driver, Row } from '../db/driver.ts';
import { nowIso, parseJson } from '../db/rows.ts';
import { placeholders } from '../db/sql.ts';

/** Migration 28: the exceptions, the assets a plugin-assets one covers, and every change of one. */
export const EXCEPTIONS_MIGRATION = `
CREATE TABLE exceptions (
  id TEXT PRIMARY KEY,
  scope TEXT NOT NULL,
  finding_id TEXT,
  plugin_id TEXT,
  asset_ids TEXT NOT NULL DEFAULT '[]',
  reason TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  requested_by TEXT NOT NULL,
  approved_by TEXT,
  decided_at TEXT,
  state TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX exceptions_finding ON exceptions (finding_id, state);
CREATE INDEX exceptions_plugin ON exceptions (plugin_id, state);
CREATE INDEX exceptions_state ON exceptions (state, expires_at);
CREATE TABLE exception_assets (
  exception_id TEXT NOT NULL,
  asset_id TEXT NOT NULL,
  PRIMARY KEY (exception_id, asset_id)
);
CREATE INDEX exception_assets_asset ON exception_assets (asset_id);
CREATE TABLE exception_history (
  exception_id TEXT NOT NULL,
  n INTEGER NOT NULL,
  action TEXT NOT NULL,
  from_state TEXT,
  to_state TEXT NOT NULL,
  by TEXT NOT NULL,
  at TEXT NOT NULL,
  note TEXT,
  PRIMARY KEY (exception_id, n)
);
`;

/** A risk exception as read now (its state expired once past its date). */
export interface RiskException {
  id: string;
  scope: ExceptionScope;
  findingId: string | null;
  pluginId: string | null;
  /** plugin-assets: the assets (or scanner hosts) whose findings of the plugin it covers. */
  assetIds: string[];
  reason: string;
  expiresAt: string;
  requestedBy: string;
  /** Who approved, rejected or revoked it last. */
  approvedBy: string | null;
  decidedAt: string | null;
  state: ExceptionState;
  /** Approved and unexpired: its findings are out of the overdue counts and coverage's urgent list now. */
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

/** One change of an exception: 1 for the proposal, then one more per change. */
export interface ExceptionChange {
  n: number;
  action: ExceptionAction;
  from: ExceptionState | null;
  to: ExceptionState;
  by: string;
  at: string;
  note: string | null;
}

export interface RiskExceptionDetail extends RiskException {
  history: ExceptionChange[];
}

/** What a proposal names; its scope follows from what it names when not given. */
export interface ExceptionProposal {
  scope?: ExceptionScope;
  findingId?: string;
  pluginId?: string;
  assetIds?: string[];
  reason: string;
  /** A date (valid through its end, UTC) or an ISO-8601 time; in the future. */
  expiresAt: string;
}

export interface ExceptionListQuery {
  state?: ExceptionState;
  findingId?: string;
  pluginId?: string;
}

/** States stored (expired is read, never stored) in which an exception still matters to its findings. */
const LIVE_STATES = `('proposed', 'approved')`;

/**
 * The SQL test that a finding (the findings table under `alias`, e.g. `r`) is covered now by an approved
 * exception whose expiry is after `now`: by its id, by its plugin everywhere, or by its plugin on its
 * scanner host or its correlated asset. Pushes its parameters onto `params` in order. Each part is an
 * uncorrelated IN list (both stores read the small exceptions table once per statement), but for the
 * assets of a plugin-assets exception. The hook for every count that leaves excepted findings out: the
 * overdue counts and filter, coverage's urgent list, and the priority work's Act count.
 */
export function exceptedFindingsClause(alias: string, now: string, params: unknown[]): string {
  const a = alias;
  params.push(now, now, now);
  const active = `x."state" = 'approved' AND x."expires_at" > ?`;
  // Never null (a finding without a plugin id): NOT of it is safe.
  return `COALESCE((${a}."id" IN (SELECT x."finding_id" FROM "exceptions" x WHERE x."scope" = 'finding' AND ${active})
 OR ${a}."plugin_id" IN (SELECT x."plugin_id" FROM "exceptions" x WHERE x."scope" = 'plugin' AND ${active})
 OR EXISTS (SELECT 1 FROM "exceptions" x JOIN "exception_assets" xa ON xa."exception_id" = x."id" WHERE x."scope" = 'plugin-assets' AND ${active}
   AND x."plugin_id" = ${a}."plugin_id" AND (xa."asset_id" = ${a}."host_id" OR xa."asset_id" = (SELECT hx."asset_id" FROM "rec_hosts" hx WHERE hx."id" = ${a}."host_id")))), FALSE)`;
}

/**
 * The findings an approved, unexpired exception may cover, by index: its finding, or its plugin's
 * findings (a plugin or plugin-assets exception). Put before exceptedFindingsClause where the excepted
 * findings are asked for, so a read starts from them instead of testing every finding in a sort's order
 * (33 s at 954,240 findings for `excepted=true&sort=-priority`). Pushes its parameters onto `params`.
 */
export function exceptedCandidatesClause(alias: string, now: string, params: unknown[]): string {
  params.push(now, now);
  const active = `x."state" = 'approved' AND x."expires_at" > ?`;
  // One IN of a subquery (not an OR of two): both stores drive the read from it by the findings' key.
  return `${alias}."id" IN (SELECT x."finding_id" FROM "exceptions" x WHERE x."scope" = 'finding' AND ${active}
 UNION ALL SELECT v."id" FROM "rec_vulnerabilities" v WHERE v."plugin_id" IN (SELECT x."plugin_id" FROM "exceptions" x WHERE x."scope" IN ('plugin', 'plugin-assets') AND ${active}))`;
}

/** Whether some exception is proposed or approved (lets a read of many findings skip FINDING_EXCEPTION_SQL when none is). */
export async function anyLiveException(db: Driver): Promise<boolean> {
  const rows = await db.all(`SELECT 1 AS "one" FROM "exceptions" WHERE "state" IN ${LIVE_STATES} LIMIT 1`);
  return rows.length > 0;
}

/** Whether some exception is approved and unexpired at `now` (lets a count skip its excepted part when none is). */
export async function anyActiveException(db: Driver, now: string): Promise<boolean> {
  const rows = await db.all(`SELECT 1 AS "one" FROM "exceptions" WHERE "state" = 'approved' AND "expires_at" > ? LIMIT 1`, [now]);
  return rows.length > 0;
}

/**
 * What a finding's row carries of the exception that matters most to it (a correlated subquery over `r`
 * and its host `h`, read beside the record): an approved one before a proposed one, the latest expiry
 * first, as `rank|expiresAt|state|id|reason` (the greatest such text: no sort step per row). Rejected and
 * revoked ones are history, not shown on the finding.
 */
export const FINDING_EXCEPTION_SQL = `(SELECT MAX(CASE x."state" WHEN 'approved' THEN '1' ELSE '0' END || '|' || x."expires_at" || '|' || x."state" || '|' || x."id" || '|' || x."reason") FROM "exceptions" x
 WHERE x."state" IN ${LIVE_STATES} AND (x."finding_id" = r."id" OR (x."scope" <> 'finding' AND x."plugin_id" = r."plugin_id" AND (x."scope" = 'plugin'
   OR EXISTS (SELECT 1 FROM "exception_assets" xa WHERE xa."exception_id" = x."id" AND (xa."asset_id" = r."host_id" OR xa."asset_id" = h."asset_id"))))))`;

/**
 * FINDING_EXCEPTION_SQL worked out in memory for many findings (an export): the proposed and approved
 * exceptions, read once, by finding, by plugin, and by plugin and asset; the same value for a finding's
 * id, plugin, host and host's asset as the subquery gives.
 */
export async function findingExceptionMatcher(db: Driver): Promise<(id: unknown, pluginId: unknown, hostId: unknown, assetId: unknown) => string | null> {
  const rows = await db.all(
    `SELECT x.*, xa."asset_id" AS "on_asset" FROM "exceptions" x LEFT JOIN "exception_assets" xa ON xa."exception_id" = x."id" WHERE x."state" IN ${LIVE_STATES}`,
  );
  const byFinding = new Map<string, string[]>();
  const byPlugin = new Map<string, string[]>();
  const byPluginAsset = new Map<string, string[]>();
  const add = (m: Map<string, string[]>, k: string, v: string) => {
    const l = m.get(k);
    if (l) l.push(v);
    else m.set(k, [v]);
  };
  for (const r of rows) {
    const v = `${r.state === 'approved' ? '1' : '0'}|${r.expires_at}|${r.state}|${r.id}|${r.reason}`;
    if (r.finding_id !== null && r.finding_id !== undefined) add(byFinding, String(r.finding_id), v);
    if (r.scope === 'plugin') add(byPlugin, String(r.plugin_id), v);
    else if (r.scope === 'plugin-assets' && typeof r.on_asset === 'string') add(byPluginAsset, `${r.plugin_id}\u0000${r.on_asset}`, v);
  }
  return (id, pluginId, hostId, assetId) => {
    let best: string | null = null;
    const consider = (l: string[] | undefined) => {
      if (l) for (const v of l) if (best === null || v > best) best = v;
    };
    consider(byFinding.get(String(id)));
    if (pluginId !== null && pluginId !== undefined) {
      consider(byPlugin.get(String(pluginId)));
      if (typeof hostId === 'string') consider(byPluginAsset.get(`${pluginId}\u0000${hostId}`));
      if (typeof assetId === 'string' && assetId !== hostId) consider(byPluginAsset.get(`${pluginId}\u0000${assetId}`));
    }
    return best;
  };
}

/** The state an exception reads at `now`: proposed or approved past its expiry is expired. */
export function effectiveState(stored: string, expiresAt: string, now: string): ExceptionState {
  if ((stored === 'proposed' || stored === 'approved') && expiresAt <= now) return 'expired';
  return stored as ExceptionState;
}

/**
 * A finding's exception fields from its row's FINDING_EXCEPTION_SQL value: `excepted` (approved and
 * unexpired), `exceptionId`, `exceptionState`, `exceptionReason`, `exceptionExpiresAt`.
 */
export function withException(out: Record<string, unknown>, value: unknown, now: string): void {
  if (typeof value !== 'string' || value === '') {
    out.excepted = false;
    out.exceptionId = null;
    out.exceptionState = null;
    out.exceptionReason = null;
    out.exceptionExpiresAt = null;
    return;
  }
  // rank|expiresAt|state|id|reason (FINDING_EXCEPTION_SQL); only the reason may hold a '|'.
  const a = value.indexOf('|');
  const b = value.indexOf('|', a + 1);
  const c = value.indexOf('|', b + 1);
  const d = value.indexOf('|', c + 1);
  const expiresAt = value.slice(a + 1, b);
  const state = effectiveState(value.slice(b + 1, c), expiresAt, now);
  out.excepted = state === 'approved';
  out.exceptionId = value.slice(c + 1, d);
  out.exceptionState = state;
  out.exceptionReason = value.slice(d + 1);
  out.exceptionExpiresAt = expiresAt;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** An expiry as stored: a date means through its end (UTC); a time is kept as an instant. Refused unless after `now`. */
export function parseExpiry(input: string, now: string): string {
  const s = input.trim();
  let t: number;
  if (DATE_ONLY.test(s)) t = Date.parse(`${s}T00:00:00.000Z`) + 86_400_000 - 1;
  else if (/^\d{4}-\d{2}-\d{2}T/.test(s)) t = Date.parse(s);
  else t = Number.NaN;
  if (!Number.isFinite(t)) throw new InputError(`expiry '${input}' is not a date (2027-03-31) or an ISO-8601 time`, 'expiresAt');
  const iso = new Date(t).toISOString();
  if (iso <= now) throw new InputError(`expiry ${iso.slice(0, 10)} is in the past: an exception needs a date to end`, 'expiresAt');
  return iso;
}

function toException(r: Row, now: string): RiskException {
  const state = effectiveState(String(r.state), String(r.expires_at), now);
  return {
    id: String(r.id),
    scope: r.scope as ExceptionScope,
    findingId: (r.finding_id as string | null) ?? null,
    pluginId: (r.plugin_id as string | null) ?? null,
    assetIds: parseJson<string[]>(r.asset_ids, []),
    reason: String(r.reason),
    expiresAt: String(r.expires_at),
    requestedBy: String(r.requested_by),
    approvedBy: (r.approved_by as string | null) ?? null,
    decidedAt: (r.decided_at as string | null) ?? null,
    state,
    active: state === 'approved',
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
  };
}

function toChange(r: Row): ExceptionChange {
  return {
    n: Number(r.n),
    action: r.action as ExceptionAction,
    from: (r.from_state as ExceptionState | null) ?? null,
    to: r.to_state as ExceptionState,
    by: String(r.by),
    at: String(r.at),
    note: (r.note as string | null) ?? null,
  };
}

async function addChange(tx: Driver, id: string, change: Omit<ExceptionChange, 'n'>): Promise<void> {
  const rows = await tx.all(`SELECT COALESCE(MAX("n"), 0) AS "n" FROM "exception_history" WHERE "exception_id" = ?`, [id]);
  await tx.run(
    `INSERT INTO "exception_history" ("exception_id", "n", "action", "from_state", "to_state", "by", "at", "note") VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [id, Number(rows[0]?.n ?? 0) + 1, change.action, change.from, change.to, change.by, change.at, change.note],
  );
}

export interface ClockOption {
  /** The time to read expiry against (ISO-8601); default now. For tests. */
  now?: string;
}

/** Proposes an exception; its scope follows from what it names when not given. Refuses an expiry not in the future. */
export async function proposeException(db: Driver, p: ExceptionProposal, requestedBy: string, opts: ClockOption = {}): Promise<RiskExceptionDetail> {
  const now = opts.now ?? nowIso();
  const assetIds = [...new Set((p.assetIds ?? []).map((a) => a.trim()).filter(Boolean))];
  const scope: ExceptionScope = p.scope ?? (p.findingId ? 'finding' : assetIds.length ? 'plugin-assets' : 'plugin');
  const reason = p.reason.trim();
  if (!reason) throw new InputError('an exception needs a reason', 'reason');
  if (!requestedBy.trim()) throw new InputError('an exception needs a requester', 'requestedBy');
  const expiresAt = parseExpiry(p.expiresAt, now);
  let findingId: string | null = null;
  let pluginId: string | null = p.pluginId?.trim() || null;
  if (scope === 'finding') {
    if (!p.findingId) throw new InputError('a finding exception names its finding (findingId)', 'findingId');
    if (assetIds.length) throw new InputError('a finding exception names no assets', 'assetIds');
    const f = await db.all(`SELECT "id", "plugin_id" FROM "rec_vulnerabilities" WHERE "id" = ?`, [p.findingId]);
    if (!f[0]) throw new NotFoundError(`no finding ${p.findingId}`);
    findingId = String(f[0].id);
    pluginId = (f[0].plugin_id as string | null) ?? null;
  } else {
    if (p.findingId) throw new InputError(`a ${scope} exception names a plugin, not a finding`, 'findingId');
    if (!pluginId) throw new InputError(`a ${scope} exception names its plugin (pluginId)`, 'pluginId');
    if (scope === 'plugin' && assetIds.length)
      throw new InputError('a plugin exception covers every asset; use scope plugin-assets for chosen ones', 'assetIds');
    if (scope === 'plugin-assets') {
      if (!assetIds.length) throw new InputError('a plugin-assets exception names at least one asset (assetIds)', 'assetIds');
      const known = new Set<string>();
      for (const table of ['rec_assets', 'rec_hosts']) {
        const rows = await db.all(`SELECT "id" FROM "${table}" WHERE "id" IN ${placeholders(assetIds)}`, assetIds);
        for (const r of rows) known.add(String(r.id));
      }
      const unknown = assetIds.filter((a) => !known.has(a));
      if (unknown.length) throw new InputError(`no asset or host ${unknown.slice(0, 3).join(', ')}`, 'assetIds');
    }
  }
  const id = randomUUID();
  await db.transaction(async (tx) => {
    await tx.run(
      `INSERT INTO "exceptions" ("id", "scope", "finding_id", "plugin_id", "asset_ids", "reason", "expires_at", "requested_by", "state", "created_at", "updated_at")
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'proposed', ?, ?)`,
      [id, scope, findingId, pluginId, JSON.stringify(assetIds), reason, expiresAt, requestedBy, now, now],
    );
    for (const a of assetIds) await tx.run(`INSERT INTO "exception_assets" ("exception_id", "asset_id") VALUES (?, ?)`, [id, a]);
    await addChange(tx, id, { action: 'propose', from: null, to: 'proposed', by: requestedBy, at: now, note: null });
  });
  return getException(db, id, opts);
}

export interface DecisionOptions extends ClockOption {
  /** Approval and rejection need a user other than the requester (default true). */
  requireOtherApprover?: boolean;
  note?: string | null;
}

/**
 * Approves, rejects or revokes an exception. Approve and reject take a proposed, unexpired one (by a
 * user other than its requester unless the policy allows self-approval); revoke ends a proposed or
 * approved one, expired or not (its requester may withdraw it).
 */
export async function decideException(
  db: Driver,
  id: string,
  action: 'approve' | 'reject' | 'revoke',
  by: string,
  opts: DecisionOptions = {},
): Promise<RiskExceptionDetail> {
  const now = opts.now ?? nowIso();
  await db.transaction(async (tx) => {
    const rows = await tx.all(`SELECT * FROM "exceptions" WHERE "id" = ?`, [id]);
    if (!rows[0]) throw new NotFoundError(`no exception ${id}`);
    const ex = toException(rows[0], now);
    const stored = String(rows[0].state) as ExceptionState;
    let to: ExceptionState;
    if (action === 'revoke') {
      if (stored !== 'proposed' && stored !== 'approved')
        throw new ConflictError(`exception ${id} is ${stored}: only a proposed or approved one can be revoked`);
      to = 'revoked';
    } else {
      if (ex.state !== 'proposed') throw new ConflictError(`exception ${id} is ${ex.state}: only a proposed, unexpired one can be ${action}d`);
      if ((opts.requireOtherApprover ?? true) && by === ex.requestedBy)
        throw new ForbiddenError(`${by} requested exception ${id}; another user must ${action} it`, 'by');
      to = action === 'approve' ? 'approved' : 'rejected';
    }
    // Only if still in the state read: two approvers at once change it once.
    const changed = await tx.run(`UPDATE "exceptions" SET "state" = ?, "approved_by" = ?, "decided_at" = ?, "updated_at" = ? WHERE "id" = ? AND "state" = ?`, [
      to,
      by,
      now,
      now,
      id,
      stored,
    ]);
    if (changed !== 1) throw new ConflictError(`exception ${id} changed meanwhile; read it again`);
    await addChange(tx, id, { action, from: ex.state, to, by, at: now, note: opts.note?.trim() || null });
  });
  return getException(db, id, opts);
}

export async function getException(db: Driver, id: string, opts: ClockOption = {}): Promise<RiskExceptionDetail> {
  const now = opts.now ?? nowIso();
  const rows = await db.all(`SELECT * FROM "exceptions" WHERE "id" = ?`, [id]);
  if (!rows[0]) throw new NotFoundError(`no exception ${id}`);
  const history = await db.all(`SELECT * FROM "exception_history" WHERE "exception_id" = ? ORDER BY "n"`, [id]);
  return { ...toException(rows[0], now), history: history.map(toChange) };
}

/** Exceptions, newest first: by state as read now (expired included), by plugin, or those that cover a finding. */
export async function listExceptions(db: Driver, q: ExceptionListQuery = {}, opts: ClockOption & { limit?: number } = {}): Promise<RiskException[]> {
  const now = opts.now ?? nowIso();
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.state === 'expired') {
    where.push(`x."state" IN ${LIVE_STATES} AND x."expires_at" <= ?`);
    params.push(now);
  } else if (q.state === 'proposed' || q.state === 'approved') {
    where.push(`x."state" = ? AND x."expires_at" > ?`);
    params.push(q.state, now);
  } else if (q.state) {
    where.push(`x."state" = ?`);
    params.push(q.state);
  }
  if (q.pluginId) {
    where.push(`x."plugin_id" = ?`);
    params.push(q.pluginId);
  }
  if (q.findingId) {
    const f = await db.all(
      `SELECT v."id", v."plugin_id", v."host_id", h."asset_id" FROM "rec_vulnerabilities" v LEFT JOIN "rec_hosts" h ON h."id" = v."host_id" WHERE v."id" = ?`,
      [q.findingId],
    );
    if (!f[0]) throw new NotFoundError(`no finding ${q.findingId}`);
    const on = [f[0].host_id, f[0].asset_id].filter((v): v is string => typeof v === 'string');
    where.push(
      `(x."finding_id" = ? OR (x."scope" = 'plugin' AND x."plugin_id" = ?) OR (x."scope" = 'plugin-assets' AND x."plugin_id" = ?${
        on.length ? ` AND EXISTS (SELECT 1 FROM "exception_assets" xa WHERE xa."exception_id" = x."id" AND xa."asset_id" IN ${placeholders(on)})` : ' AND 1 = 0'
      }))`,
    );
    params.push(f[0].id, f[0].plugin_id, f[0].plugin_id, ...on);
  }
  const limit = Math.max(1, Math.min(Math.floor(opts.limit ?? 1000), 10_000));
  const rows = await db.all(
    `SELECT x.* FROM "exceptions" x${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY x."created_at" DESC, x."id" LIMIT ${limit}`,
    params,
  );
  return rows.map((r) => toException(r, now));
}
