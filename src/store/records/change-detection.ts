// The change feed: one row per lifecycle event of a record (new, fixed, reopened, removed, updated),
// detected in bulk in SQL in the transaction that changes the record: a page's rows are compared with
// what the table holds before the page is upserted (one statement per model and page), a sweep's with
// the rows it is about to mark. The event and the change are committed together, so a resumed run
// finds the change made and writes no second event; a run that changes nothing writes none. Rows are
// numbered as written (`seq`, the feed's order); an event's id (changes-feed.ts) is its record's, run's and change's.
import type { ModelName } from '../../core/models.ts';
import type { Driver } from '../db/driver.ts';
import { columnOf, q, tableOf } from '../db/names.ts';
import { keepPreImages } from '../reports/summary-tables-delta.ts';

/** The field whose values an event's `from` and `to` carry, for the models that have one. */
export const STATUS_FIELD: Partial<Record<ModelName, string>> = {
  vulnerabilities: 'status',
  compliance: 'result',
  tickets: 'status',
  'cmdb-assets': 'state',
  users: 'status',
  services: 'status',
};

/** Who writes a page's events, and when. */
export interface ChangeStamp {
  sourceId: string;
  runId: string;
  at: string;
}

/** Findings' times of their last fix and reopening: set when first stored (findingTime), then by the feed. */
export const FINDING_TIMES = ['fixedAt', 'reopenedAt'];

/** fixedAt / reopenedAt of a finding stored for the first time with `status` (undefined: status not sent). */
export function findingTime(status: unknown, when: 'fixed' | 'reopened', now: string): string | null | undefined {
  return status === undefined ? undefined : status === when ? now : null;
}

/** Which column of an upsert group's rows holds the record's status (-1: the group leaves it untouched). */
export function statusColumnAt(model: ModelName, fieldNames: string[], leading: number): number {
  const field = STATUS_FIELD[model];
  const i = field === undefined ? -1 : fieldNames.indexOf(field);
  return i < 0 ? -1 : leading + i;
}

const COLUMNS = ['at', 'record_id', 'change', 'source_id', 'model', 'external_id', 'from', 'to', 'run_id'].map(q).join(', ');
const text = 'CAST(? AS TEXT)';

/**
 * The page's (id, external id, status) rows as a relation `p`, left-joined to the stored rows `t`.
 * PostgreSQL is handed the page's ids to look up (by the primary key) first: left to itself it joins
 * the unnested arrays by hashing the whole table.
 */
function pageJoin(db: Driver, table: string): string {
  return db.dialect === 'postgres'
    ? `unnest(CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[])) AS p("id", "ext", "st") LEFT JOIN (SELECT * FROM ${table} WHERE "id" = ANY(CAST(? AS TEXT[]))) t ON t."id" = p."id"`
    : `(SELECT j.value ->> 0 AS "id", j.value ->> 1 AS "ext", j.value ->> 2 AS "st" FROM json_each(?) j) p LEFT JOIN ${table} t ON t."id" = p."id"`;
}

function pageParams(db: Driver, rows: unknown[][], statusAt: number): unknown[] {
  const st = (r: unknown[]) => (statusAt >= 0 ? ((r[statusAt] as string | null) ?? null) : null);
  if (db.dialect === 'postgres') {
    const ids = rows.map((r) => r[0]);
    return [ids, rows.map((r) => r[3] ?? null), rows.map(st), ids];
  }
  return [JSON.stringify(rows.map((r) => [r[0], r[3] ?? null, st(r)]))];
}

/**
 * The change, from and to of an incoming row `p` against the stored row `t` (NULL when new). For
 * findings the stored status follows the upsert's rule (seen open after fixed → reopened), and
 * coming back after a sweep is told by the status alone; other records that come back are new again.
 */
function transition(model: ModelName, hasStatus: boolean): { change: string; from: string; to: string } {
  const field = STATUS_FIELD[model];
  // A bare host row (the store's host guarantee: seen_run NULL) was never sent: its first write is `new`.
  if (!field)
    return {
      change: `CASE WHEN t."id" IS NULL OR t."removed" = 1${model === 'hosts' ? ` OR t."seen_run" IS NULL` : ''} THEN 'new' END`,
      from: 'NULL',
      to: 'NULL',
    };
  const old = `t.${q(columnOf(field))}`;
  if (!hasStatus)
    return { change: `CASE WHEN t."id" IS NULL${model === 'vulnerabilities' ? '' : ` OR t."removed" = 1`} THEN 'new' END`, from: 'NULL', to: old };
  if (model === 'vulnerabilities') {
    const eff = `(CASE WHEN p."st" = 'open' AND ${old} IN ('fixed', 'reopened') THEN 'reopened' ELSE p."st" END)`;
    return {
      change: `CASE WHEN t."id" IS NULL THEN 'new' WHEN p."st" IS NULL OR ${eff} = COALESCE(${old}, '') THEN NULL WHEN ${eff} = 'fixed' THEN 'fixed' WHEN ${eff} = 'reopened' THEN 'reopened' ELSE 'updated' END`,
      from: old,
      to: eff,
    };
  }
  return {
    change: `CASE WHEN t."id" IS NULL OR t."removed" = 1 THEN 'new' WHEN p."st" IS NOT NULL AND p."st" <> COALESCE(${old}, '') THEN 'updated' END`,
    from: `CASE WHEN t."id" IS NULL OR t."removed" = 1 THEN NULL ELSE ${old} END`,
    to: `COALESCE(p."st", ${old})`,
  };
}

const detectCache = new Map<string, string>();

/** The page's rows with their stored counterpart (`known`: the stored id) and their change, as `j`. */
function joinedSql(db: Driver, model: ModelName, hasStatus: boolean): string {
  const t = transition(model, hasStatus);
  return `SELECT p."id", p."ext", t."id" AS "known", ${t.change} AS "change", ${t.from} AS "from", ${t.to} AS "to" FROM ${pageJoin(db, q(tableOf(model)))}`;
}

/**
 * One statement per page and model. SQLite: inserts the events. PostgreSQL: also answers which of the
 * page's ids the table holds (the bulk write COPYs the others straight in) and how many findings moved.
 */
function detectSql(db: Driver, model: ModelName, hasStatus: boolean): string {
  const key = `${db.dialect}|${model}|${hasStatus}`;
  let sql = detectCache.get(key);
  if (!sql) {
    const insert = (from: string) => `INSERT INTO "changes" (${COLUMNS})
SELECT ${text}, x."id", x."change", ${text}, ${text}, x."ext", x."from", x."to", ${text}
FROM ${from} x WHERE x."change" IS NOT NULL`;
    sql =
      db.dialect === 'postgres'
        ? `WITH j AS (${joinedSql(db, model, hasStatus)}), ins AS (${insert('j')} RETURNING "change")
SELECT (SELECT COUNT(*) FROM ins WHERE "change" IN ('fixed', 'reopened')) AS "moved", (SELECT array_agg("known") FROM j WHERE "known" IS NOT NULL) AS "known"`
        : insert(`(${joinedSql(db, model, hasStatus)})`);
    detectCache.set(key, sql);
  }
  return sql;
}

export interface Detected {
  /** Findings may have been fixed or reopened by the page: stampFindingMoves once it is upserted. */
  moved: boolean;
  /** PostgreSQL: the page's ids the table holds (the others are new to it). */
  known?: Set<string>;
}

/**
 * Writes the events of one upsert group (rows as prepareUpserts builds them: id first, external id
 * fourth) before it is upserted, comparing each row with the stored one in one statement.
 */
export async function detectChanges(db: Driver, model: ModelName, rows: unknown[][], statusAt: number, stamp: ChangeStamp): Promise<Detected> {
  if (rows.length === 0) return { moved: false };
  // What the summaries counted of the findings before the run changes them (the epilogue's differences).
  if (model === 'vulnerabilities')
    await keepPreImages(
      db,
      rows.map((r) => r[0]),
      stamp.sourceId,
      stamp.runId,
    );
  const sql = detectSql(db, model, statusAt >= 0);
  const values = [stamp.at, stamp.sourceId, model, stamp.runId];
  if (db.dialect === 'postgres') {
    // Placeholders are numbered in the order they appear: the page (in `j`) comes first there.
    const [r] = await db.all<{ moved: string | number; known: string[] | null }>(sql, [...pageParams(db, rows, statusAt), ...values]);
    return { moved: model === 'vulnerabilities' && Number(r?.moved ?? 0) > 0, known: new Set(r?.known ?? []) };
  }
  const inserted = await db.run(sql, [...values, ...pageParams(db, rows, statusAt)]);
  return { moved: model === 'vulnerabilities' && inserted > 0 };
}

const NEW_EVENTS = { head: `INSERT INTO "changes" (${COLUMNS})`, columns: 9, tail: '' };

/**
 * The events of an upsert group none of whose rows is stored yet (writes.ts decides: the source held no
 * record of the model when the run began, and the run has not stored these ids): each is `new`, with
 * the status it arrives in, written as plain rows (PostgreSQL COPYs them) instead of compared with the
 * table — on a first import there is nothing to compare with, and the comparison's INSERT … SELECT
 * would cost PostgreSQL about as much as writing the findings themselves.
 */
export async function recordNewChanges(db: Driver, model: ModelName, rows: unknown[][], statusAt: number, stamp: ChangeStamp): Promise<Detected> {
  const events = rows.map((r) => [stamp.at, r[0], 'new', stamp.sourceId, model, r[3] ?? null, null, statusAt >= 0 ? (r[statusAt] ?? null) : null, stamp.runId]);
  await db.insertMany(NEW_EVENTS, events);
  // None of the ids is stored (writes.ts checked the source, the run and the page), so PostgreSQL COPYs
  // the rows straight in without looking each up; were one stored after all, the COPY would fail the
  // page on its key rather than write it twice.
  return { moved: false, known: new Set() };
}

/**
 * fixedAt / reopenedAt of the findings the page fixed or reopened: the time of their event (found by
 * the page's time and run, one range of the feed's key). A finding first stored fixed or reopened
 * got its time in the upsert itself (records.ts).
 */
export async function stampFindingMoves(db: Driver, stamp: ChangeStamp): Promise<void> {
  await db.run(
    `UPDATE "rec_vulnerabilities" SET "fixed_at" = CASE WHEN "status" = 'fixed' THEN ? ELSE "fixed_at" END, "reopened_at" = CASE WHEN "status" = 'reopened' THEN ? ELSE "reopened_at" END
WHERE "id" IN (SELECT "record_id" FROM "changes" WHERE "at" = ? AND "run_id" = ? AND "model" = 'vulnerabilities' AND "change" IN ('fixed', 'reopened'))`,
    [stamp.at, stamp.at, stamp.at, stamp.runId],
  );
}

/**
 * The events of a sweep, written before it marks the records: open findings become fixed, every other
 * record the sweep marks is removed. `unseen` is the sweep's own WHERE (records.ts: source, generation,
 * scope). A bare host row (never sent by upstream, so never `new`) goes without an event.
 */
export async function recordSweepChanges(
  db: Driver,
  model: ModelName,
  unseen: { where: string; params: unknown[] },
  stamp: { runId: string; at: string },
): Promise<void> {
  const field = STATUS_FIELD[model];
  const old = field ? `t.${q(columnOf(field))}` : 'NULL';
  const change = model === 'vulnerabilities' ? `(CASE WHEN COALESCE(${old}, '') <> 'fixed' THEN 'fixed' ELSE 'removed' END)` : `'removed'`;
  const to = model === 'vulnerabilities' ? `(CASE WHEN COALESCE(${old}, '') <> 'fixed' THEN 'fixed' END)` : 'NULL';
  const bare = model === 'hosts' ? ` AND t."seen_run" IS NOT NULL` : '';
  await db.run(
    `INSERT INTO "changes" (${COLUMNS})
SELECT ${text}, t."id", ${change}, t."source_id", ${text}, t."external_id", ${old}, ${to}, ${text}
FROM ${q(tableOf(model))} t WHERE ${unseen.where}${bare}`,
    [stamp.at, model, stamp.runId, ...unseen.params],
  );
}

/** What the sweep's UPDATE of findings also sets: the fix time of those it fixes. */
export function sweepFixedAt(at: string): { set: string; params: unknown[] } {
  return { set: `, "fixed_at" = CASE WHEN COALESCE("status", '') <> 'fixed' THEN ? ELSE "fixed_at" END`, params: [at] };
}
