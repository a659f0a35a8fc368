// The delivery log: one row per message (one rule, one kind, one evaluation), with the body as sent
// (it holds no secret: the signature is computed when sending, the URL is the rule's, sealed), its
// status, attempts, the last HTTP status and error, and its times. A retry reads the body from here.
import { randomUUID } from 'node:crypto';
import type { AlertCause, AlertKind, DeliveryStatus } from '../../core/alerts.ts';
import type { Driver, Row } from '../db/driver.ts';
import { Conditions, nowIso, sqlCount } from '../db/rows.ts';

export interface DeliveryRecord {
  id: string;
  ruleId: string;
  rule: string;
  kind: AlertKind;
  cause: AlertCause;
  runId: string | null;
  status: DeliveryStatus;
  attempts: number;
  httpStatus: number | null;
  lastError: string | null;
  /** Items the message lists, and how many the evaluation found. */
  items: number;
  total: number;
  createdAt: string;
  updatedAt: string;
  deliveredAt: string | null;
  nextAttemptAt: string | null;
}

/** Deliveries kept per rule: older ones are dropped as new ones are written. */
export const DELIVERIES_KEPT = 500;

const toDelivery = (r: Row): DeliveryRecord => ({
  id: String(r.id),
  ruleId: String(r.rule_id),
  rule: String(r.rule_name),
  kind: r.kind as AlertKind,
  cause: r.cause as AlertCause,
  runId: (r.run_id as string | null) ?? null,
  status: r.status as DeliveryStatus,
  attempts: Number(r.attempts),
  httpStatus: r.http_status === null || r.http_status === undefined ? null : Number(r.http_status),
  lastError: (r.last_error as string | null) ?? null,
  items: Number(r.items),
  total: Number(r.total),
  createdAt: String(r.created_at),
  updatedAt: String(r.updated_at),
  deliveredAt: (r.delivered_at as string | null) ?? null,
  nextAttemptAt: (r.next_attempt_at as string | null) ?? null,
});

export interface NewDelivery {
  ruleId: string;
  rule: string;
  kind: AlertKind;
  cause: AlertCause;
  runId: string | null;
  items: number;
  total: number;
  body: string;
}

export async function createDelivery(db: Driver, d: NewDelivery): Promise<DeliveryRecord> {
  const id = randomUUID();
  const now = nowIso();
  await db.run(
    `INSERT INTO "alert_deliveries" ("id", "rule_id", "rule_name", "kind", "cause", "run_id", "status", "attempts", "items", "total", "body", "created_at", "updated_at", "next_attempt_at")
     VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?, ?, ?)`,
    [id, d.ruleId, d.rule, d.kind, d.cause, d.runId, d.items, d.total, d.body, now, now, now],
  );
  // The log keeps the newest DELIVERIES_KEPT of the rule.
  await db.run(
    `DELETE FROM "alert_deliveries" WHERE "rule_id" = ? AND "status" <> 'pending' AND "id" NOT IN
       (SELECT "id" FROM "alert_deliveries" WHERE "rule_id" = ? ORDER BY "created_at" DESC, "id" DESC LIMIT ${DELIVERIES_KEPT})`,
    [d.ruleId, d.ruleId],
  );
  return (await getDelivery(db, id))!;
}

export async function getDelivery(db: Driver, id: string): Promise<DeliveryRecord | null> {
  const rows = await db.all(`SELECT * FROM "alert_deliveries" WHERE "id" = ?`, [id]);
  return rows[0] ? toDelivery(rows[0]) : null;
}

/** The body as sent (for a retry). */
export async function deliveryBody(db: Driver, id: string): Promise<string | null> {
  const rows = await db.all(`SELECT "body" FROM "alert_deliveries" WHERE "id" = ?`, [id]);
  return rows[0] ? String(rows[0].body) : null;
}

/** Newest first: of one rule (by name) and/or one status, at most `limit`. */
export async function listDeliveries(db: Driver, where: { rule?: string; status?: DeliveryStatus; limit?: number } = {}): Promise<DeliveryRecord[]> {
  const c = new Conditions();
  if (where.rule) c.add(`"rule_name" = ?`, where.rule);
  if (where.status) c.add(`"status" = ?`, where.status);
  const rows = await db.all(
    `SELECT * FROM "alert_deliveries"${c.where} ORDER BY "created_at" DESC, "id" DESC LIMIT ${sqlCount(where.limit ?? 100, 'limit', 1000)}`,
    c.params,
  );
  return rows.map(toDelivery);
}

/** Records one attempt's outcome: delivered, failed for good, or pending with the time of the next attempt. */
export async function recordAttempt(
  db: Driver,
  id: string,
  a: { status: DeliveryStatus; attempts: number; httpStatus: number | null; error: string | null; nextAttemptAt: string | null },
): Promise<void> {
  const now = nowIso();
  await db.run(
    `UPDATE "alert_deliveries" SET "status" = ?, "attempts" = ?, "http_status" = ?, "last_error" = ?, "updated_at" = ?, "next_attempt_at" = ?,
       "delivered_at" = CASE WHEN ? = 'delivered' THEN ? ELSE "delivered_at" END WHERE "id" = ?`,
    [a.status, a.attempts, a.httpStatus, a.error, now, a.nextAttemptAt, a.status, now, id],
  );
}

/** The newest delivery of each rule (for `alerts list`). */
export async function lastDeliveries(db: Driver): Promise<Map<string, DeliveryRecord>> {
  const rows = await db.all(
    `SELECT d.* FROM "alert_deliveries" d WHERE NOT EXISTS (SELECT 1 FROM "alert_deliveries" n WHERE n."rule_id" = d."rule_id" AND (n."created_at" > d."created_at" OR (n."created_at" = d."created_at" AND n."id" > d."id")))`,
  );
  return new Map(rows.map((r) => [String(r.rule_id), toDelivery(r)]));
}
