// The alerts' vocabulary (issue 31 §4), shared by the store, the evaluation, the API and the UI: the
// kinds of event a rule reports, the payload formats, and the delivery statuses.

/**
 * `kev`: an open finding became known exploited (scanner or KEV feed); `act`: an open finding is newly in
 * the SSVC decision Act (needs the decision column of issue 31 §1); `sla`: an open finding is newly past
 * its due date; `sync`: a sync run failed or ended partial; `coverage`: a coverage count grew.
 */
export const ALERT_KINDS = ['kev', 'act', 'sla', 'sync', 'coverage'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** `json`: the signed JSON document; `slack`: Slack's incoming-webhook `{"text"}`; `teams`: an Adaptive Card message (Teams Workflows / incoming webhook). */
export const ALERT_FORMATS = ['json', 'slack', 'teams'] as const;
export type AlertFormat = (typeof ALERT_FORMATS)[number];

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** What made an evaluation: a sync run's end, a feed import, or `alerts test`. */
export type AlertCause = 'sync' | 'feed-import' | 'test';

/** The header with the HMAC-SHA256 of the body, as `sha256=<hex>`. */
export const SIGNATURE_HEADER = 'X-Tributary-Signature';

/** Items listed in one message unless a rule says otherwise (the total is always given). */
export const DEFAULT_MAX_ITEMS = 20;
export const MAX_ITEMS_LIMIT = 200;

export const KIND_LABELS: Record<AlertKind, string> = {
  kev: 'open findings newly known exploited',
  act: 'open findings newly in the SSVC decision Act',
  sla: 'open findings newly past their due date',
  sync: 'sync runs that failed or ended partial',
  coverage: 'coverage counts that grew',
};

export function isAlertKind(s: string): s is AlertKind {
  return (ALERT_KINDS as readonly string[]).includes(s);
}
