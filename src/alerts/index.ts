// Alerts (issue 31 §4): outgoing webhooks for open findings newly known exploited, newly in the SSVC
// decision Act, newly past due, sync runs that failed or ended partial, and coverage that got worse.
// What the CLI (`tributary alerts`), the API (/api/v1/alerts) and the UI call, and the hooks a sync's
// end and a feed import call. Evaluations and deliveries run in the background, one evaluation at a
// time per store; drainAlerts() (app.close()) waits for them.
import { randomBytes } from 'node:crypto';
import { type AlertFormat, type AlertKind, DEFAULT_MAX_ITEMS, isAlertKind, MAX_ITEMS_LIMIT } from '../core/alerts.ts';
import { errorMessage, InputError } from '../core/errors.ts';
import type { AlertDelivery, AlertView as AlertShown } from '../core/api-shapes-alerts.ts';
import { type AlertRuleRecord, type DeliveryRecord, FINDING_ALERT_KINDS, type Store } from '../store/index.ts';
import type { AlertContext } from './context.ts';
import { deliver } from './deliver.ts';
import { type AlertEvent, evaluateRules, logMessage } from './evaluate.ts';
import { checkWebhookUrl } from './target.ts';

export { verifySignature, signBody } from './payload.ts';
export type { AlertMessage } from './payload.ts';
export { checkWebhookUrl } from './target.ts';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

export interface AlertInput {
  name: string;
  url: string;
  kinds: string[];
  format?: string;
  /** The signing secret; generated (32 random bytes, base64url) when absent. */
  secret?: string;
  maxItems?: number;
  createdBy?: string | null;
}

/** A rule as shown: never its URL's path or its secret. */
export interface AlertView extends AlertRuleRecord {
  lastDelivery: DeliveryRecord | null;
  /** What was already true when it was added is still being recorded: its findings are not evaluated yet. */
  baselinePending: boolean;
}

function checkInput(app: AlertContext, input: AlertInput) {
  if (!NAME.test(input.name))
    throw new InputError(`alert name '${input.name}' must be 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit`, 'name');
  const kinds = [
    ...new Set(
      input.kinds
        .flatMap((k) => k.split(','))
        .map((k) => k.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
  if (kinds.length === 0) throw new InputError('name at least one kind: kev, act, sla, sync, coverage', 'on');
  const unknown = kinds.filter((k) => !isAlertKind(k));
  if (unknown.length) throw new InputError(`unknown alert kind '${unknown[0]}': kev, act, sla, sync or coverage`, 'on');
  const format = (input.format ?? 'json').toLowerCase();
  if (format !== 'json' && format !== 'slack' && format !== 'teams') throw new InputError(`unknown format '${input.format}': json, slack or teams`, 'format');
  const maxItems = input.maxItems ?? DEFAULT_MAX_ITEMS;
  if (!Number.isInteger(maxItems) || maxItems < 1 || maxItems > MAX_ITEMS_LIMIT)
    throw new InputError(`maxItems must be a whole number from 1 to ${MAX_ITEMS_LIMIT}`, 'maxItems');
  if (input.secret !== undefined && (input.secret.length < 16 || input.secret.length > 256))
    throw new InputError('a signing secret must be 16 to 256 characters (leave it out to have one generated)', 'secret');
  return { kinds: kinds as AlertKind[], format: format as AlertFormat, maxItems, url: checkWebhookUrl(app, input.url) };
}

/**
 * Adds a rule and records what is already true for it (nothing already known exploited, overdue or
 * uncovered is reported as new). Returns the rule and its signing secret, shown this once, at once:
 * the record of what is already true (at a million findings, seconds: one INSERT … SELECT of every
 * matching finding) goes on in the background, settled by `baseline`. Evaluations in this process queue
 * behind it; those of another process leave the rule's findings alone until it is done (evaluate.ts).
 */
export async function addAlert(app: AlertContext, input: AlertInput): Promise<{ alert: AlertView; secret: string; baseline: Promise<void> }> {
  const c = checkInput(app, input);
  const secret = input.secret ?? randomBytes(32).toString('base64url');
  const rule = await app.store.alerts.create({
    name: input.name,
    kinds: c.kinds,
    format: c.format,
    url: c.url,
    secret,
    maxItems: c.maxItems,
    createdBy: input.createdBy ?? null,
  });
  const baseline = serially(app.store, () => evaluateRules(app, { cause: 'test' }, { rules: [rule], baseline: true })).then(
    () => {},
    (err) => app.log.error({ alert: rule.name, err: errorMessage(err) }, 'alert rule baseline could not be recorded'),
  );
  track(app.store, baseline);
  const baselinePending = rule.kinds.some((k) => (FINDING_ALERT_KINDS as readonly string[]).includes(k));
  return { alert: { ...rule, lastDelivery: null, baselinePending }, secret, baseline };
}

/** Removes a rule at once; its marks are deleted after the next evaluations, a batch at a time (tidyAlerts). */
export async function removeAlert(app: AlertContext, name: string): Promise<void> {
  await app.store.alerts.remove(name);
}

export async function describeAlerts(app: AlertContext): Promise<AlertView[]> {
  const last = await app.store.alerts.lastDeliveries();
  const pending = await app.store.alerts.pendingBaselines();
  return (await app.store.alerts.list()).map((r) => ({ ...r, lastDelivery: last.get(r.id) ?? null, baselinePending: pending.has(r.id) }));
}

/** Sends a test message of the rule now (one attempt, logged like any delivery) and returns its log entry. */
export async function testAlert(app: AlertContext, name: string): Promise<DeliveryRecord> {
  const rule = await app.store.alerts.get(name);
  const id = await logMessage(app, rule, rule.kinds[0]!, { cause: 'test' }, [], 0);
  const d = await deliver(app, id, { maxAttempts: 1 });
  if (!d) throw new Error(`the test delivery of '${name}' was not recorded`);
  return d;
}

// ---- as the API, the CLI's --json and the UI show them ----

export function deliveryView(d: DeliveryRecord): AlertDelivery {
  const { ruleId: _, rule, ...rest } = d;
  return { ...rest, alert: rule };
}

export function alertView(r: AlertRuleRecord & { lastDelivery: DeliveryRecord | null; baselinePending: boolean }): AlertShown {
  return {
    name: r.name,
    on: r.kinds,
    format: r.format,
    url: r.urlShown,
    maxItems: r.maxItems,
    createdAt: r.createdAt,
    createdBy: r.createdBy,
    lastDelivery: r.lastDelivery ? deliveryView(r.lastDelivery) : null,
    baselinePending: r.baselinePending,
  };
}

// ---- background work: evaluations one at a time per store, deliveries beside them ----

const chains = new WeakMap<Store, Promise<unknown>>();
const pending = new WeakMap<Store, Set<Promise<unknown>>>();

function track(store: Store, p: Promise<unknown>): void {
  let set = pending.get(store);
  if (!set) {
    set = new Set();
    pending.set(store, set);
  }
  set.add(p);
  void p.finally(() => set.delete(p));
}

/** Runs `fn` after the store's evaluations before it (so two never interleave in one process). */
function serially<T>(store: Store, fn: () => Promise<T>): Promise<T> {
  const prev = chains.get(store) ?? Promise.resolve();
  const next = prev.then(fn, fn);
  chains.set(
    store,
    next.catch(() => {}),
  );
  return next;
}

/** Evaluates every rule for an event and sends what it logged, all in the background. Never throws. */
export function alertInBackground(app: AlertContext, event: AlertEvent): void {
  const p = serially(app.store, async () => {
    const rules = await app.store.alerts.list();
    if (rules.length > 0) {
      const { deliveries } = await evaluateRules(app, event, { rules });
      for (const id of deliveries) track(app.store, deliver(app, id));
    }
    await tidyAlerts(app);
  }).catch((err) => app.log.error({ err: errorMessage(err) }, 'alert rules could not be evaluated'));
  track(app.store, p);
}

/**
 * After an evaluation: the queue of changed findings is cut below what every rule has read, and the
 * marks of removed rules are deleted, a batch at a time (store/alerts/incremental.ts). Never throws.
 */
export async function tidyAlerts(app: AlertContext): Promise<void> {
  try {
    await app.store.alerts.pruneTouched();
    const t0 = Date.now();
    const purged = await app.store.alerts.purgeRemovedMarks();
    if (purged > 0) app.log.info({ marks: purged, ms: Date.now() - t0 }, 'the marks of removed alert rules were deleted');
  } catch (err) {
    app.log.error({ err: errorMessage(err) }, 'alert bookkeeping could not be tidied (the next evaluation tries again)');
  }
}

/** After a sync run ends (whatever its status): the rules are evaluated beside the caller, who goes on. */
export function alertAfterSync(app: AlertContext, run: { id: string; source: string; status: string; error: string | null }): void {
  alertInBackground(app, { cause: 'sync', run });
}

/** After a feed import that changed a feed: findings it made known exploited or overdue are reported. */
export function alertAfterFeedImport(app: AlertContext): void {
  alertInBackground(app, { cause: 'feed-import' });
}

/** A delivery left pending this long was abandoned by its process (killed): a server resumes it. */
const ABANDONED_MS = 5 * 60_000;

/** Resumes deliveries a stopped process left pending (at `serve` and `worker` start). Never throws. */
export async function resumeDeliveries(app: AlertContext, now = Date.now()): Promise<number> {
  try {
    const stale = (await app.store.alerts.deliveries({ status: 'pending', limit: 1000 })).filter((d) => now - Date.parse(d.updatedAt) > ABANDONED_MS);
    for (const d of stale) track(app.store, deliver(app, d.id));
    return stale.length;
  } catch (err) {
    app.log.error({ err: errorMessage(err) }, 'pending alert deliveries could not be resumed');
    return 0;
  }
}

/** Waits for the evaluations and deliveries started on this store (before it closes). */
export async function drainAlerts(app: { store: Store }): Promise<void> {
  const set = pending.get(app.store);
  while (set && set.size > 0) await Promise.allSettled([...set]);
}
