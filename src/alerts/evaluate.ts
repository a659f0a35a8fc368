// Evaluating the rules after a sync run or a feed import: for each rule and each of its kinds, what is
// new since the rule's last evaluation becomes one logged message (a digest of up to maxItems items and
// the total), handed to the background delivery.
//   kev, sla, act: the open findings that meet the kind's condition and the rule never reported
//                  (store/alerts/marks.ts); the findings of every source, so a feed import or a run of
//                  another source that changed nothing here reports nothing twice. Looked for among what
//                  changed since the rule's last evaluation and the due dates passed since (store/alerts/
//                  incremental.ts), not among every finding.
//   sync:          the run just finished, when it failed or ended partial.
//   coverage:      the coverage report's counts against those of the rule's last evaluation; a count
//                  that grew is an item.
// A rule's first evaluation (`baseline`, when it is added) records what is already true and sends nothing.
// It runs beside the caller (index.ts addAlert); until it is done (its pending mark removed in its own
// transaction) other evaluations leave the rule's findings alone, and one that finds it abandoned (its
// process stopped) records it instead.
import { randomUUID } from 'node:crypto';
import type { AlertCause, AlertKind } from '../core/alerts.ts';
import { errorMessage } from '../core/errors.ts';
import { type AlertRuleRecord, COVERAGE_KINDS, type Cursor, FINDING_ALERT_KINDS, type FindingAlertKind, nowIso } from '../store/index.ts';
import type { AlertContext } from './context.ts';
import { type AlertItem, type AlertMessage, type CoverageAlertItem, renderBody, summaryOf } from './payload.ts';

/** What an evaluation follows. */
export interface AlertEvent {
  cause: AlertCause;
  /** The run (cause `sync`). */
  run?: { id: string; source: string; status: string; error: string | null };
}

/** The days of the coverage report a `coverage` rule compares (its default). */
export const COVERAGE_DAYS = 30;

type CoverageCounts = Record<string, number>;

export interface EvaluationResult {
  /** Deliveries logged (each then sent in the background). */
  deliveries: string[];
}

/** A message for a rule and kind, logged as a pending delivery; returns its id. */
export async function logMessage(
  app: AlertContext,
  rule: AlertRuleRecord,
  kind: AlertKind,
  event: AlertEvent,
  items: AlertItem[],
  total: number,
): Promise<string> {
  const head = { alert: rule.name, rule: kind, runId: event.run?.id ?? null, cause: event.cause, source: event.run?.source ?? null, total };
  const message: AlertMessage = { ...head, at: nowIso(), summary: summaryOf(head), truncated: total > items.length, items };
  const d = await app.store.alerts.createDelivery({
    ruleId: rule.id,
    rule: rule.name,
    kind,
    cause: event.cause,
    runId: message.runId,
    items: items.length,
    total,
    body: renderBody(rule.format, message),
  });
  return d.id;
}

let warnedNoDecision = false;

/** A baseline pending this long was abandoned by its process (stopped): the next evaluation records it. */
export const BASELINE_ABANDONED_MS = 5 * 60_000;

const isFindingKind = (k: AlertKind): k is FindingAlertKind => (FINDING_ALERT_KINDS as readonly string[]).includes(k);

/** Records what is already true for a rule's finding kinds (marked, never sent); logs how many and how long. */
async function recordBaseline(
  app: AlertContext,
  rule: AlertRuleRecord,
  kinds: FindingAlertKind[],
  evalId: string,
  now: number,
  cursor: Cursor | null,
): Promise<void> {
  const t0 = Date.now();
  const marked = await app.store.alerts.recordBaseline(rule.id, kinds, evalId, now, cursor);
  if (marked.act === null) {
    // NEEDS the SSVC decision column (issue 31 §1): until then `act` finds nothing.
    if (!warnedNoDecision) app.log.warn({ alert: rule.name }, "the alert kind 'act' waits for the SSVC decisions (not in this store yet)");
    warnedNoDecision = true;
  }
  app.log.info({ alert: rule.name, marked, ms: Date.now() - t0 }, 'alert rule baseline recorded: findings already true are not reported');
}

/**
 * Evaluates `rules` (default: every rule) for an event. `baseline`: record the state without sending
 * (a rule's first evaluation). `now`: the clock due dates are compared with (tests move it). Returns
 * the deliveries logged; sending them is the caller's.
 */
export async function evaluateRules(
  app: AlertContext,
  event: AlertEvent,
  opts: { rules?: AlertRuleRecord[]; baseline?: boolean; now?: number } = {},
): Promise<EvaluationResult> {
  const rules = opts.rules ?? (await app.store.alerts.list());
  const out: EvaluationResult = { deliveries: [] };
  if (rules.length === 0) return out;
  const evalId = randomUUID();
  const now = opts.now ?? Date.now();
  // Where the findings' changes stand, read before anything is marked: what is written meanwhile is the next evaluation's.
  const cursor = rules.some((r) => r.kinds.some(isFindingKind)) ? await app.store.alerts.readCursor() : null;
  let coverage: Promise<CoverageCounts> | null = null;
  const coverageNow = () => {
    coverage ??= app.store.reports.coverage(COVERAGE_DAYS).then((r) => Object.fromEntries(COVERAGE_KINDS.map((k) => [k, Number(r[k])])));
    return coverage;
  };
  const pending = await app.store.alerts.pendingBaselines();
  for (const rule of rules) {
    const findingKinds = rule.kinds.filter(isFindingKind);
    const since = pending.get(rule.id);
    // Its findings wait for its baseline: this evaluation's to record (the first, or one abandoned), or another's under way.
    const findingsWait = since !== undefined || opts.baseline;
    if (findingKinds.length > 0 && (opts.baseline || (since !== undefined && Date.now() - Date.parse(since) > BASELINE_ABANDONED_MS))) {
      try {
        await recordBaseline(app, rule, findingKinds, evalId, now, cursor);
      } catch (err) {
        app.log.error({ alert: rule.name, err: errorMessage(err) }, 'alert rule baseline could not be recorded (the next evaluation tries again)');
      }
    }
    for (const kind of rule.kinds) {
      try {
        if (isFindingKind(kind)) {
          if (findingsWait) continue;
          const marked = await app.store.alerts.markNewFindings(rule.id, kind, evalId, cursor, now);
          if (marked === null) {
            // NEEDS the SSVC decision column (issue 31 §1, branch i31-priority): until then `act` finds nothing.
            if (!warnedNoDecision) app.log.warn({ alert: rule.name }, "the alert kind 'act' waits for the SSVC decisions (not in this store yet)");
            warnedNoDecision = true;
            continue;
          }
          if (marked === 0) continue;
          const { items, total } = await app.store.alerts.markedFindings(rule.id, kind, evalId, rule.maxItems);
          out.deliveries.push(await logMessage(app, rule, kind, event, items, total));
        } else if (kind === 'sync') {
          const run = event.run;
          if (opts.baseline || event.cause !== 'sync' || !run || (run.status !== 'failed' && run.status !== 'partial')) continue;
          if (!(await app.store.alerts.markItem(rule.id, 'sync', run.id, evalId))) continue;
          out.deliveries.push(await logMessage(app, rule, kind, event, [{ id: run.id, source: run.source, status: run.status, error: run.error }], 1));
        } else if (kind === 'coverage') {
          const now = await coverageNow();
          const before = (await app.store.alerts.getState(rule.id, 'coverage')) as CoverageCounts | null;
          await app.store.alerts.putState(rule.id, 'coverage', now);
          if (opts.baseline || before === null) continue;
          const worse: CoverageAlertItem[] = COVERAGE_KINDS.filter((k) => typeof before[k] === 'number' && now[k]! > before[k]!).map((k) => ({
            id: k,
            from: before[k]!,
            to: now[k]!,
          }));
          if (worse.length > 0) out.deliveries.push(await logMessage(app, rule, kind, event, worse, worse.length));
        }
      } catch (err) {
        // One rule's failure does not keep the others from being evaluated.
        app.log.error({ alert: rule.name, kind, err: errorMessage(err) }, 'alert rule could not be evaluated');
      }
    }
  }
  return out;
}
