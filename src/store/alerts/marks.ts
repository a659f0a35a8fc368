// What alert rules have reported. Each finding rule (kev, sla, act) is a condition on the open findings;
// an evaluation marks, in one INSERT … SELECT, every finding that meets it and the rule has not marked
// before, under the evaluation's id: those are the rule's new items, read back a page at a time for the
// digest (up to N and the total), never held in memory all at once. Two evaluations at once (two syncs
// ending together, a feed import) cannot both report an item: the mark's primary key decides. The first
// evaluation of a rule (when it is added) marks what is already true without reporting it.
import type { AlertKind } from '../../core/alerts.ts';
import type { Driver, Row } from '../db/driver.ts';
import { nowIso, parseJson, sqlCount } from '../db/rows.ts';
import { dueAtOf, slaFilterClause } from '../records/sla.ts';

export type FindingAlertKind = Extract<AlertKind, 'kev' | 'sla' | 'act'>;
export const FINDING_ALERT_KINDS: readonly FindingAlertKind[] = ['kev', 'sla', 'act'];

const OPEN = `r."status" IN ('open', 'reopened') AND r."removed" = 0`;

/** One finding of a digest: what a receiver needs to recognise it, named by its record id. */
export interface FindingAlertItem {
  id: string;
  source: string;
  hostId: string | null;
  hostname: string | null;
  pluginId: string | null;
  pluginName: string | null;
  severity: string | null;
  cves: string[];
  status: string;
  firstSeen: string | null;
  knownExploitedBy: string | null;
  kevDateAdded: string | null;
  dueAt: string | null;
}

const decisionColumn = new WeakMap<Driver, boolean>();

/**
 * Whether the findings have the SSVC `decision` column (issue 31 §1, branch i31-priority). Until it
 * exists the `act` kind finds nothing; once a migration adds it, the rule works with no change here.
 * NEEDS the decision column: `rec_vulnerabilities.decision` with the value 'act'.
 */
export async function hasDecisionColumn(db: Driver): Promise<boolean> {
  const known = decisionColumn.get(db);
  if (known !== undefined) return known;
  const rows =
    db.dialect === 'sqlite'
      ? await db.all(`SELECT 1 AS "x" FROM pragma_table_info('rec_vulnerabilities') WHERE "name" = 'decision'`)
      : await db.all(
          `SELECT 1 AS "x" FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'rec_vulnerabilities' AND column_name = 'decision'`,
        );
  // Only a found column is remembered: a migration may add it while this process runs.
  if (rows.length > 0) decisionColumn.set(db, true);
  return rows.length > 0;
}

/** The WHERE condition (alias `r`) of the findings a kind reports, or null when the store cannot answer it yet. */
export async function condition(db: Driver, kind: FindingAlertKind, params: unknown[], now: number): Promise<string | null> {
  if (kind === 'kev') return `${OPEN} AND r."known_exploited" = 1`;
  if (kind === 'sla') return `r."removed" = 0 AND ${slaFilterClause({ field: 'overdue', op: '=', value: 'true' }, params, now)}`;
  // kind === 'act': NEEDS the SSVC decision column (see hasDecisionColumn).
  if (!(await hasDecisionColumn(db))) return null;
  return `${OPEN} AND r."decision" = 'act'`;
}

/**
 * Marks the findings that meet the kind's condition and the rule has not marked, under `evalId`;
 * returns how many, or null when the store cannot answer the kind yet (`act` before the decision column).
 */
export async function markFindings(
  db: Driver,
  ruleId: string,
  kind: FindingAlertKind,
  evalId: string,
  now = Date.now(),
  opts: { first?: boolean } = {},
): Promise<number | null> {
  const params: unknown[] = [ruleId, kind, evalId, nowIso()];
  const cond = await condition(db, kind, params, now);
  if (cond === null) return null;
  // A rule's baseline (`first`): it has no marks yet and no other evaluation writes any meanwhile (its
  // pending mark), so a plain INSERT: PostgreSQL's ON CONFLICT writes a confirmation record per row
  // (28.1 → 24.2 s for 482,620 findings). A second baseline at once fails on the key and is retried.
  if (opts.first)
    return db.run(
      `INSERT INTO "alert_marks" ("rule_id", "kind", "item_id", "eval_id", "at") SELECT ?, ?, r."id", ?, ? FROM "rec_vulnerabilities" r WHERE ${cond}`,
      params,
    );
  params.push(ruleId, kind);
  return db.run(
    `INSERT INTO "alert_marks" ("rule_id", "kind", "item_id", "eval_id", "at")
     SELECT ?, ?, r."id", ?, ? FROM "rec_vulnerabilities" r
     WHERE ${cond} AND NOT EXISTS (SELECT 1 FROM "alert_marks" m WHERE m."rule_id" = ? AND m."kind" = ? AND m."item_id" = r."id")
     ON CONFLICT DO NOTHING`,
    params,
  );
}

const SEVERITY_RANK = `CASE r."severity" WHEN 'critical' THEN 4 WHEN 'high' THEN 3 WHEN 'medium' THEN 2 WHEN 'low' THEN 1 ELSE 0 END`;

const toItem = (r: Row): FindingAlertItem => {
  const item: FindingAlertItem = {
    id: String(r.id),
    source: String(r.source_name ?? ''),
    hostId: (r.host_id as string | null) ?? null,
    hostname: (r.hostname as string | null) ?? null,
    pluginId: (r.plugin_id as string | null) ?? null,
    pluginName: (r.plugin_name as string | null) ?? null,
    severity: (r.severity as string | null) ?? null,
    cves: parseJson<string[]>(r.cves, []),
    status: String(r.status),
    firstSeen: (r.first_seen as string | null) ?? null,
    knownExploitedBy: (r.known_exploited_by as string | null) ?? null,
    kevDateAdded: (r.kev_date_added as string | null) ?? null,
    dueAt: null,
  };
  item.dueAt = dueAtOf({ status: item.status, severity: item.severity, firstSeen: item.firstSeen, kevDueDate: r.kev_due_date });
  return item;
};

/** The first `limit` findings an evaluation marked for a rule (most severe first) and how many it marked. */
export async function markedFindings(
  db: Driver,
  ruleId: string,
  kind: FindingAlertKind,
  evalId: string,
  limit: number,
): Promise<{ items: FindingAlertItem[]; total: number }> {
  const rows = await db.all(
    `SELECT r."id", r."host_id", r."plugin_id", r."plugin_name", r."severity", r."cves", r."status", r."first_seen", r."known_exploited_by",
       r."kev_date_added", r."kev_due_date", s."name" AS "source_name", h."hostname"
     FROM "alert_marks" m JOIN "rec_vulnerabilities" r ON r."id" = m."item_id"
     LEFT JOIN "sources" s ON s."id" = r."source_id" LEFT JOIN "rec_hosts" h ON h."id" = r."host_id"
     WHERE m."eval_id" = ? AND m."rule_id" = ? AND m."kind" = ?
     ORDER BY ${SEVERITY_RANK} DESC, r."id" LIMIT ${sqlCount(limit, 'limit')}`,
    [evalId, ruleId, kind],
  );
  const count = await db.all(`SELECT COUNT(*) AS "n" FROM "alert_marks" WHERE "eval_id" = ? AND "rule_id" = ? AND "kind" = ?`, [evalId, ruleId, kind]);
  return { items: rows.map(toItem), total: Number(count[0]?.n ?? 0) };
}

/**
 * The alert_state row (kind `baseline`) of a rule whose finding kinds have not yet recorded what was
 * already true when it was added; its state is when that began to wait. Written with the rule, removed
 * by the baseline's own transaction: an evaluation that sees it leaves the rule's findings alone (a
 * baseline under way elsewhere) or, once it is abandoned (its process stopped), records the baseline itself.
 */
export const BASELINE = 'baseline';

export async function markBaselinePending(db: Driver, ruleId: string, since: string): Promise<void> {
  await db.run(
    `INSERT INTO "alert_state" ("rule_id", "kind", "state", "at") VALUES (?, ?, ?, ?)
     ON CONFLICT ("rule_id", "kind") DO UPDATE SET "state" = excluded."state", "at" = excluded."at"`,
    [ruleId, BASELINE, JSON.stringify(since), since],
  );
}

/** The rules whose baseline is pending, each with when it began to wait. */
export async function pendingBaselines(db: Driver): Promise<Map<string, string>> {
  const rows = await db.all(`SELECT "rule_id", "at" FROM "alert_state" WHERE "kind" = ?`, [BASELINE]);
  return new Map(rows.map((r) => [String(r.rule_id), String(r.at)]));
}

/** Marks one item (a run); false when the rule had marked it already. */
export async function markItem(db: Driver, ruleId: string, kind: AlertKind, itemId: string, evalId: string): Promise<boolean> {
  const n = await db.run(`INSERT INTO "alert_marks" ("rule_id", "kind", "item_id", "eval_id", "at") VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, [
    ruleId,
    kind,
    itemId,
    evalId,
    nowIso(),
  ]);
  return n > 0;
}

/** What a rule keeps for its next evaluation of a kind (the coverage counts), or null before its first. */
export async function getState<T>(db: Driver, ruleId: string, kind: AlertKind): Promise<T | null> {
  const rows = await db.all(`SELECT "state" FROM "alert_state" WHERE "rule_id" = ? AND "kind" = ?`, [ruleId, kind]);
  return rows[0] ? parseJson<T | null>(rows[0].state, null) : null;
}

export async function putState(db: Driver, ruleId: string, kind: AlertKind, state: unknown): Promise<void> {
  await db.run(
    `INSERT INTO "alert_state" ("rule_id", "kind", "state", "at") VALUES (?, ?, ?, ?)
     ON CONFLICT ("rule_id", "kind") DO UPDATE SET "state" = excluded."state", "at" = excluded."at"`,
    [ruleId, kind, JSON.stringify(state), nowIso()],
  );
}
