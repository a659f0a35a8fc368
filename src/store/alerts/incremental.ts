// An alert rule's later evaluations of its finding kinds (kev, act, sla) read what may have become true
// since its last one instead of every finding (issue 31, speed). A finding newly meets a kind's condition
// only when (a) an update changed a column the condition reads: queued in `alert_touched` by a trigger
// (migration 48); (b) it is new, or its status moved: the change feed's events; (c) `sla` only: its due
// date passed between the two evaluations: a range of first-seen times per severity's days, and of KEV
// due dates, each through an index of its own; (d) `sla` only: an exception that covered it ended
// (expired, revoked, rejected) or a plugin-assets one stopped covering its host. Those candidates are
// checked against the kind's full condition (marks.ts) and the rule's marks, as the full scan does; a rule's
// first evaluation after this migration, or after the SLA policy changed, is the full scan. What a rule
// saw last is kept per kind in alert_state (`cursor:<kind>`): the time, the queue's and the feed's
// positions, the SLA policy. The queue is cut below the lowest position a rule still needs.
// A removed rule's marks are deleted here a batch at a time, after evaluations (rules.ts deleteRule).
import type { Driver } from '../db/driver.ts';
import { nowIso, parseJson, sqlCount } from '../db/rows.ts';
import { slaPolicy } from '../records/sla.ts';
import { placeholders } from '../db/sql.ts';
import { BASELINE, condition, type FindingAlertKind, markFindings } from './marks.ts';

/** Positions in the queue and the findings' change feed below which every row is committed. */
export interface Cursor {
  touched: number;
  changes: number;
}

/** What a rule's kind saw at its last evaluation. */
interface KindState extends Cursor {
  /** Its clock (epoch ms): due dates before it were past then. */
  at: number;
  /** The SLA policy then (JSON): another policy moves every due date, and the next evaluation is a full scan. */
  policy: string;
  /** The latest change of a risk exception then (its updated_at): the exceptions changed since may have ended. */
  exceptions?: string;
}

const stateKind = (kind: FindingAlertKind) => `cursor:${kind}`;
const policyKey = () => JSON.stringify(slaPolicy());
const DAY_MS = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
/** An exception's change committed up to this long after a later one's is still seen (PostgreSQL: another process's transaction). */
const EXCEPTION_MARGIN_MS = 10 * 60_000;

/**
 * The queue's and the change feed's positions below which every row is committed. SQLite has one writer
 * at a time, so the highest row it shows is that. PostgreSQL numbers a row when it is written and shows it
 * when committed: a SHARE lock waits for the writers under way (at most 2 s, a short transaction) so no
 * lower number is still to come. Null when they did not finish by then: the evaluation then reads from its
 * last positions on and keeps them.
 */
export async function readCursor(db: Driver): Promise<Cursor | null> {
  const read = async (d: Driver): Promise<Cursor> => {
    const t = await d.all(`SELECT "seq" FROM "alert_touched" ORDER BY "seq" DESC LIMIT 1`);
    const c = await d.all(`SELECT "seq" FROM "changes" WHERE "model" = 'vulnerabilities' ORDER BY "seq" DESC LIMIT 1`);
    return { touched: Number(t[0]?.seq ?? 0), changes: Number(c[0]?.seq ?? 0) };
  };
  if (db.dialect === 'sqlite') return read(db);
  try {
    return await db.transaction(async (tx) => {
      await tx.exec(`SET LOCAL lock_timeout = '2s'`);
      await tx.exec(`LOCK TABLE "alert_touched", "changes" IN SHARE MODE`);
      return read(tx);
    });
  } catch {
    return null;
  }
}

async function getKindState(db: Driver, ruleId: string, kind: FindingAlertKind): Promise<KindState | null> {
  const rows = await db.all(`SELECT "state" FROM "alert_state" WHERE "rule_id" = ? AND "kind" = ?`, [ruleId, stateKind(kind)]);
  return rows[0] ? parseJson<KindState | null>(rows[0].state, null) : null;
}

export async function putKindState(db: Driver, ruleId: string, kind: FindingAlertKind, state: KindState): Promise<void> {
  await db.run(
    `INSERT INTO "alert_state" ("rule_id", "kind", "state", "at") VALUES (?, ?, ?, ?)
     ON CONFLICT ("rule_id", "kind") DO UPDATE SET "state" = excluded."state", "at" = excluded."at"`,
    [ruleId, stateKind(kind), JSON.stringify(state), nowIso()],
  );
}

async function lastExceptionChange(db: Driver): Promise<string> {
  return String((await db.all(`SELECT MAX("updated_at") AS "u" FROM "exceptions"`))[0]?.u ?? '');
}

/** The state a baseline (or a full scan) at `now` leaves: everything before it was looked at. */
const stateAfterScan = async (db: Driver, cursor: Cursor | null, now: number): Promise<KindState> => ({
  at: now,
  touched: cursor?.touched ?? 0,
  changes: cursor?.changes ?? 0,
  policy: policyKey(),
  exceptions: await lastExceptionChange(db),
});

/**
 * Marks, under `evalId`, the findings that meet the kind's condition at `now` and the rule has not
 * marked: from what changed since its last evaluation, or by the full scan when it has none to go from.
 * `cursor`: readCursor's answer, read before. Returns how many (null: the store cannot answer the kind).
 */
export async function markNewFindings(
  db: Driver,
  ruleId: string,
  kind: FindingAlertKind,
  evalId: string,
  cursor: Cursor | null,
  now = Date.now(),
): Promise<number | null> {
  return db.transaction(async (tx) => {
    // The full scan's plan looks costly (the exception subqueries): PostgreSQL's JIT would compile for seconds.
    if (tx.dialect === 'postgres') await tx.exec('SET LOCAL jit = off');
    const prev = await getKindState(tx, ruleId, kind);
    const full = prev === null || (kind === 'sla' && prev.policy !== policyKey());
    // Read before the marks: an exception changed meanwhile is looked at again next time.
    const exceptions = await lastExceptionChange(tx);
    const n = full ? await markFindings(tx, ruleId, kind, evalId, now) : await markCandidates(tx, ruleId, kind, evalId, prev, cursor, now);
    if (n === null) return null;
    const next: KindState = full
      ? await stateAfterScan(tx, cursor, now)
      : { ...prev, at: Math.max(prev.at, now), touched: cursor?.touched ?? prev.touched, changes: cursor?.changes ?? prev.changes, exceptions };
    await putKindState(tx, ruleId, kind, next);
    return n;
  });
}

/**
 * A rule's baseline: marks, under `evalId`, every finding that meets each of `kinds` now (reported as
 * nothing: what is already true), and removes the pending mark, in one transaction. Returns the
 * findings marked per kind (null: the store cannot answer the kind yet). `cursor`: readCursor's answer,
 * read before.
 */
export async function recordBaseline(
  db: Driver,
  ruleId: string,
  kinds: FindingAlertKind[],
  evalId: string,
  now = Date.now(),
  cursor: Cursor | null = null,
): Promise<Partial<Record<FindingAlertKind, number | null>>> {
  return db.transaction(async (tx) => {
    // One scan of every finding: PostgreSQL's JIT compiled it for seconds (the exception subqueries
    // make the plan look costly) to save less than it took (4.2 s of 47 s at 954,000 findings).
    if (tx.dialect === 'postgres') await tx.exec('SET LOCAL jit = off');
    const out: Partial<Record<FindingAlertKind, number | null>> = {};
    // The rule held until the marks are in (SQLite: the write lock from BEGIN IMMEDIATE): one removed
    // meanwhile waits and then removes them too; one removed before is left unmarked.
    const rule = await tx.all(`SELECT "id" FROM "alert_rules" WHERE "id" = ?${tx.dialect === 'postgres' ? ' FOR UPDATE' : ''}`, [ruleId]);
    if (rule.length === 0) return out;
    // A baseline again (one abandoned, or a rule from before pending marks) starts from no marks.
    await tx.run(`DELETE FROM "alert_marks" WHERE "rule_id" = ? AND "kind" IN ${placeholders(kinds)}`, [ruleId, ...kinds]);
    for (const kind of kinds) {
      out[kind] = await markFindings(tx, ruleId, kind, evalId, now, { first: true });
      // Its later evaluations go from here: what changed after `cursor` (read before) and due dates after `now`.
      await putKindState(tx, ruleId, kind, await stateAfterScan(tx, cursor, now));
    }
    await tx.run(`DELETE FROM "alert_state" WHERE "rule_id" = ? AND "kind" = ?`, [ruleId, BASELINE]);
    return out;
  });
}

/**
 * The candidate sets of a later evaluation: each a FROM (joining `r`, the finding) and its WHERE. The
 * small side leads (SQLite keeps a CROSS JOIN's order; PostgreSQL plans it as any join).
 */
function candidates(
  kind: FindingAlertKind,
  prev: KindState,
  cursor: Cursor | null,
  now: number,
  ended: { findings: string[]; plugins: string[] },
): { from: string; where: string; params: unknown[] }[] {
  // Up to the positions read before (what comes after is the next evaluation's); from the last ones on without them.
  const range = (col: string, lo: number, hi: number | undefined): { sql: string; params: unknown[] } =>
    hi === undefined ? { sql: `${col} > ?`, params: [lo] } : { sql: `${col} > ? AND ${col} <= ?`, params: [lo, hi] };
  const touched = range('t."seq"', prev.touched, cursor?.touched);
  const changed = range('c."seq"', prev.changes, cursor?.changes);
  const out: { from: string; where: string; params: unknown[] }[] = [
    { from: `"alert_touched" t CROSS JOIN "rec_vulnerabilities" r`, where: `r."id" = t."finding_id" AND ${touched.sql}`, params: touched.params },
    {
      from: `"changes" c CROSS JOIN "rec_vulnerabilities" r`,
      where: `r."id" = c."record_id" AND c."model" = 'vulnerabilities' AND ${changed.sql} AND c."change" NOT IN ('fixed', 'removed')`,
      params: changed.params,
    },
  ];
  if (kind !== 'sla') return out;
  const t0 = prev.at;
  if (now > t0) {
    // Overdue at t: first_seen < t - days (or the KEV due date < t), compared as text as the full condition does.
    const days = [...new Set(Object.values(slaPolicy()))];
    for (const d of days)
      out.push({
        from: `"rec_vulnerabilities" r`,
        where: `(r."first_seen" || '') >= ? AND (r."first_seen" || '') < ?`,
        params: [iso(t0 - d * DAY_MS), iso(now - d * DAY_MS)],
      });
    out.push({
      from: `"rec_vulnerabilities" r`,
      where: `r."kev_due_date" IS NOT NULL AND (r."kev_due_date" || '') >= ? AND (r."kev_due_date" || '') < ?`,
      params: [iso(t0), iso(now)],
    });
  }
  // The findings and plugins of the exceptions that may have stopped covering a finding (endedExceptions).
  for (let i = 0; i < ended.findings.length; i += 500) {
    const ids = ended.findings.slice(i, i + 500);
    out.push({ from: `"rec_vulnerabilities" r`, where: `r."id" IN ${placeholders(ids)}`, params: ids });
  }
  for (let i = 0; i < ended.plugins.length; i += 500) {
    const ids = ended.plugins.slice(i, i + 500);
    out.push({ from: `"rec_vulnerabilities" r`, where: `r."plugin_id" IN ${placeholders(ids)}`, params: ids });
  }
  return out;
}

/**
 * The exceptions that may have stopped covering a finding since `prev`: expired meanwhile, changed since
 * the last change seen then (revoked, rejected), or plugin-assets ones live then (a host moved to another
 * asset leaves one). Read first, as lists (a handful): a join with the findings was planned as a scan of
 * every finding (PostgreSQL, hashing the exceptions) or led by the findings (SQLite).
 */
async function endedExceptions(db: Driver, prev: KindState, now: number): Promise<{ findings: string[]; plugins: string[] }> {
  const seen = prev.exceptions ? Date.parse(prev.exceptions) : Number.NaN;
  const rows = await db.all(
    `SELECT "scope", "finding_id", "plugin_id" FROM "exceptions" x
     WHERE (x."expires_at" > ? AND x."expires_at" <= ?) OR x."updated_at" >= ? OR (x."scope" = 'plugin-assets' AND x."state" = 'approved' AND x."expires_at" > ?)`,
    [iso(prev.at), iso(now), Number.isFinite(seen) ? iso(seen - EXCEPTION_MARGIN_MS) : '', iso(prev.at)],
  );
  const findings = new Set<string>();
  const plugins = new Set<string>();
  for (const r of rows) {
    if (r.scope === 'finding' && r.finding_id) findings.add(String(r.finding_id));
    else if (r.scope !== 'finding' && r.plugin_id) plugins.add(String(r.plugin_id));
  }
  return { findings: [...findings], plugins: [...plugins] };
}

async function markCandidates(
  db: Driver,
  ruleId: string,
  kind: FindingAlertKind,
  evalId: string,
  prev: KindState,
  cursor: Cursor | null,
  now: number,
): Promise<number | null> {
  let n = 0;
  const at = nowIso();
  const ended = kind === 'sla' ? await endedExceptions(db, prev, now) : { findings: [], plugins: [] };
  for (const c of candidates(kind, prev, cursor, now, ended)) {
    const params: unknown[] = [ruleId, kind, evalId, at, ...c.params];
    const cond = await condition(db, kind, params, now);
    if (cond === null) return null;
    // A finding the rule marked before (or in another candidate set, or twice in one) is left by the key,
    // one probe of it per candidate: an anti-join with the rule's marks was planned (PostgreSQL, from
    // stale statistics) as a comparison of each candidate with every mark (20 s for 5,000 candidates).
    n += await db.run(
      `INSERT INTO "alert_marks" ("rule_id", "kind", "item_id", "eval_id", "at")
       SELECT ?, ?, r."id", ?, ? FROM ${c.from} WHERE ${c.where} AND ${cond}
       ON CONFLICT DO NOTHING`,
      params,
    );
  }
  return n;
}

/**
 * Cuts the queue below the lowest position a rule's kind still reads from (all of it when no rule has
 * one). Not while a baseline is pending: it reads its position before its scan, and what changed after
 * the scan began is still to be read.
 */
export async function pruneTouched(db: Driver): Promise<number> {
  if ((await db.all(`SELECT 1 AS "x" FROM "alert_state" WHERE "kind" = ? LIMIT 1`, [BASELINE])).length > 0) return 0;
  const states = (await db.all(`SELECT "state" FROM "alert_state" WHERE "kind" LIKE 'cursor:%'`)).map((r) => parseJson<KindState | null>(r.state, null));
  const lowest = states.reduce((m, s) => Math.min(m, s?.touched ?? 0), Number.POSITIVE_INFINITY);
  if (lowest === Number.POSITIVE_INFINITY) return db.run(`DELETE FROM "alert_touched"`);
  return db.run(`DELETE FROM "alert_touched" WHERE "seq" <= ?`, [lowest]);
}

/** Deletes the marks of removed rules, `batch` rows a transaction; returns how many. */
export async function purgeRemovedMarks(db: Driver, batch = 20_000): Promise<number> {
  let total = 0;
  const size = sqlCount(batch, 'batch');
  // By row address: a delete by key would walk the rule's remaining marks again for each batch.
  const byAddress =
    db.dialect === 'sqlite'
      ? `DELETE FROM "alert_marks" WHERE rowid IN (SELECT rowid FROM "alert_marks" WHERE "rule_id" = ? LIMIT ${size})`
      : `DELETE FROM "alert_marks" WHERE ctid = ANY(ARRAY(SELECT ctid FROM "alert_marks" WHERE "rule_id" = ? LIMIT ${size}))`;
  for (const r of await db.all(`SELECT "rule_id" FROM "alert_removed"`)) {
    const id = String(r.rule_id);
    for (;;) {
      const n = await db.run(byAddress, [id]);
      total += n;
      if (n < batch) break;
      // Between batches, let what else runs in this process go on.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await db.run(`DELETE FROM "alert_removed" WHERE "rule_id" = ?`, [id]);
  }
  return total;
}
