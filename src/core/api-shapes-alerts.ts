// The /api/v1/alerts request and answer shapes (issue 31 §4): rules as shown (never their URL's path
// or their secret), the answer to adding one (its signing secret, shown once), and the delivery log.
// Only zod and core here: the browser imports this file for its types alone.
import { z } from 'zod';
import { ALERT_FORMATS, ALERT_KINDS, DELIVERY_STATUSES, MAX_ITEMS_LIMIT } from './alerts.ts';

const nullableString = z.string().nullable();

export const alertKind = z.enum(ALERT_KINDS);
export const deliveryStatus = z.enum(DELIVERY_STATUSES);

export const alertDelivery = z.object({
  id: z.string(),
  alert: z.string(),
  kind: alertKind,
  cause: z.enum(['sync', 'feed-import', 'test']),
  runId: nullableString,
  status: deliveryStatus,
  attempts: z.int(),
  httpStatus: z.int().nullable().describe("the receiver's last HTTP status (null: no answer)"),
  lastError: nullableString.describe('the last failure, kept once a later attempt delivers'),
  items: z.int().describe('items the message lists'),
  total: z.int().describe('items the evaluation found'),
  createdAt: z.string(),
  updatedAt: z.string(),
  deliveredAt: nullableString,
  nextAttemptAt: nullableString,
});
export type AlertDelivery = z.infer<typeof alertDelivery>;
export const alertDeliveryList = z.object({ items: z.array(alertDelivery) });

export const alertView = z.object({
  name: z.string(),
  on: z.array(alertKind),
  format: z.enum(ALERT_FORMATS),
  url: z.string().describe('scheme, host and port only: the path and query may hold a token'),
  maxItems: z.int(),
  createdAt: z.string(),
  createdBy: nullableString,
  lastDelivery: alertDelivery.nullable(),
  baselinePending: z
    .boolean()
    .describe('what was already true when the rule was added is still being recorded (in the background): its findings are evaluated once it is done'),
});
export type AlertView = z.infer<typeof alertView>;
export const alertList = z.object({ items: z.array(alertView) });

export const alertCreated = z.object({
  alert: alertView,
  secret: z.string().describe('the HMAC-SHA256 key of X-Tributary-Signature; shown this once, sealed at rest'),
});
export type AlertCreated = z.infer<typeof alertCreated>;
export const alertRemoved = z.object({ removed: z.string() });

export const alertBody = z.strictObject({
  name: z.string().min(1).max(63),
  url: z.string().min(1).max(2048).describe('http:// or https://; private addresses allowed; never an intake path of this service'),
  on: z.array(alertKind).min(1).describe('kev, act (needs the SSVC decisions), sla, sync, coverage'),
  format: z.enum(ALERT_FORMATS).optional().describe('json (default, signed), slack ({"text"}), teams (Adaptive Card)'),
  secret: z.string().min(16).max(256).optional().describe('the signing secret; generated when left out'),
  maxItems: z.int().min(1).max(MAX_ITEMS_LIMIT).optional().describe('items listed per message (default 20); the total is always given'),
});
export type AlertBody = z.input<typeof alertBody>;

export const deliveriesQuery = z.strictObject({
  alert: z.string().optional().describe('only this alert'),
  status: deliveryStatus.optional(),
  limit: z.int().min(1).max(1000).default(100),
});
