// Alert rules: a named webhook, the kinds of event it reports and its payload format. The URL and the
// signing secret are sealed with the master key as a source's secret fields are (sources/sources.ts);
// what leaves the store for display is `urlShown` (scheme, host and port) and never the secret.
import { randomUUID } from 'node:crypto';
import type { AlertFormat, AlertKind } from '../../core/alerts.ts';
import { ConflictError, NotFoundError } from '../../core/errors.ts';
import type { SecretBox } from '../../core/secrets.ts';
import type { Driver, Row } from '../db/driver.ts';
import { nowIso, parseJson } from '../db/rows.ts';
import { FINDING_ALERT_KINDS, markBaselinePending } from './marks.ts';

export interface AlertRuleRecord {
  id: string;
  name: string;
  kinds: AlertKind[];
  format: AlertFormat;
  /** The URL without its path, query or credentials: `https://hooks.example.com/…`. */
  urlShown: string;
  maxItems: number;
  createdAt: string;
  createdBy: string | null;
}

/** A rule with its URL and secret opened: for delivery only, never for display. */
export interface AlertRuleTarget extends AlertRuleRecord {
  url: string;
  secret: string;
}

export interface NewAlertRule {
  name: string;
  kinds: AlertKind[];
  format: AlertFormat;
  url: string;
  secret: string;
  maxItems: number;
  createdBy: string | null;
}

/** `scheme://host[:port]/…`: enough to recognise the receiver, nothing of a token in the path or query. */
export function shownUrl(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname === '/' && !u.search ? '/' : '/…'}`;
}

const toRule = (r: Row): AlertRuleRecord => ({
  id: String(r.id),
  name: String(r.name),
  kinds: parseJson<AlertKind[]>(r.kinds, []),
  format: r.format as AlertFormat,
  urlShown: String(r.url_shown),
  maxItems: Number(r.max_items),
  createdAt: String(r.created_at),
  createdBy: (r.created_by as string | null) ?? null,
});

/**
 * Adds a rule. One with a finding kind (kev, sla, act) is written with its baseline pending (marks.ts
 * BASELINE), in the same transaction: no evaluation reports its findings before what is already true
 * has been recorded.
 */
export async function createRule(db: Driver, box: SecretBox, rule: NewAlertRule): Promise<AlertRuleRecord> {
  if ((await db.all(`SELECT "id" FROM "alert_rules" WHERE "name" = ?`, [rule.name])).length)
    throw new ConflictError(`an alert named '${rule.name}' exists already`);
  const id = randomUUID();
  const at = nowIso();
  await db.transaction(async (tx) => {
    await tx.run(
      `INSERT INTO "alert_rules" ("id", "name", "kinds", "format", "url", "url_shown", "secret", "max_items", "created_at", "created_by") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        rule.name,
        JSON.stringify(rule.kinds),
        rule.format,
        box.encrypt(rule.url),
        shownUrl(rule.url),
        box.encrypt(rule.secret),
        rule.maxItems,
        at,
        rule.createdBy,
      ],
    );
    if (rule.kinds.some((k) => (FINDING_ALERT_KINDS as readonly string[]).includes(k))) await markBaselinePending(tx, id, at);
  });
  return getRule(db, rule.name);
}

export async function getRule(db: Driver, name: string): Promise<AlertRuleRecord> {
  const rows = await db.all(`SELECT * FROM "alert_rules" WHERE "name" = ?`, [name]);
  if (!rows[0]) throw new NotFoundError(`no alert named '${name}'`);
  return toRule(rows[0]);
}

export async function listRules(db: Driver): Promise<AlertRuleRecord[]> {
  return (await db.all(`SELECT * FROM "alert_rules" ORDER BY "name"`)).map(toRule);
}

/** A rule with its URL and secret opened (the box registers both with the log scrubber as it opens them). */
export async function ruleTarget(db: Driver, box: SecretBox, id: string): Promise<AlertRuleTarget | null> {
  const rows = await db.all(`SELECT * FROM "alert_rules" WHERE "id" = ?`, [id]);
  if (!rows[0]) return null;
  return { ...toRule(rows[0]), url: box.decrypt(String(rows[0].url)), secret: box.decrypt(String(rows[0].secret)) };
}

/**
 * Removes a rule with its state; its marks (one per finding it matched: 482,620 at a million findings,
 * 7 s to delete) are listed for deletion a batch at a time after evaluations (incremental.ts
 * purgeRemovedMarks). A rule's id is never reused, so they mean nothing meanwhile. Its delivery log
 * stays (it names the rule).
 */
export async function deleteRule(db: Driver, name: string): Promise<void> {
  const r = await getRule(db, name);
  await db.transaction(async (tx) => {
    // The rule first: a baseline under way holds it (incremental.ts recordBaseline), so this waits for its
    // marks to be in, and they go with the rest.
    await tx.run(`DELETE FROM "alert_rules" WHERE "id" = ?`, [r.id]);
    await tx.run(`INSERT INTO "alert_removed" ("rule_id", "at") VALUES (?, ?) ON CONFLICT DO NOTHING`, [r.id, nowIso()]);
    await tx.run(`DELETE FROM "alert_state" WHERE "rule_id" = ?`, [r.id]);
  });
}
