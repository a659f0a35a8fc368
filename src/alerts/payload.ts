// The messages a rule sends: one per rule, kind and evaluation (a digest listing up to the rule's
// maxItems items and the total), as the signed JSON document, Slack's incoming-webhook text or a Teams
// Adaptive Card. Nothing in a message is secret: items are findings, runs and counts by id and name,
// and a run's error was scrubbed of secrets when it was stored.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { type AlertCause, type AlertFormat, type AlertKind, KIND_LABELS } from '../core/alerts.ts';
import type { FindingAlertItem } from '../store/index.ts';

/** A failed or partial run, as a `sync` item. */
export interface RunAlertItem {
  id: string;
  source: string;
  status: string;
  error: string | null;
}

/** A coverage count that grew, as a `coverage` item (named by its count). */
export interface CoverageAlertItem {
  id: string;
  from: number;
  to: number;
}

export type AlertItem = FindingAlertItem | RunAlertItem | CoverageAlertItem;

/** The JSON document (format `json`); Slack and Teams get text made from it. */
export interface AlertMessage {
  alert: string;
  rule: AlertKind;
  runId: string | null;
  at: string;
  cause: AlertCause;
  /** The source of the run that caused it (null after a feed import or a test). */
  source: string | null;
  summary: string;
  /** How many items the evaluation found; `items` lists the first of them. */
  total: number;
  truncated: boolean;
  items: AlertItem[];
}

const COVERAGE_LABELS: Record<string, string> = {
  cmdbNotScanned: 'CMDB assets not scanned',
  scannedNotInCmdb: 'scanned hosts not in the CMDB',
  findingsWithoutTicket: 'open critical or known-exploited findings without a ticket',
  ticketsForFixedFindings: 'open tickets for fixed findings',
};

export function summaryOf(m: Pick<AlertMessage, 'alert' | 'rule' | 'total' | 'cause' | 'source' | 'runId'>): string {
  if (m.cause === 'test') return `Test message of the alert '${m.alert}' from Tributary`;
  const after = m.cause === 'sync' ? ` after a sync of ${m.source ?? 'a source'}` : ' after a feed import';
  return `${m.total} ${KIND_LABELS[m.rule]}${after}`;
}

const shortDate = (iso: string | null) => (iso ? iso.slice(0, 10) : null);

/** One line of text per item (Slack, Teams). */
export function itemLine(kind: AlertKind, item: AlertItem): string {
  if (kind === 'sync') {
    const r = item as RunAlertItem;
    const error = r.error ? `: ${r.error.length > 300 ? `${r.error.slice(0, 299)}…` : r.error}` : '';
    return `${r.source}: run ${r.id} ${r.status}${error}`;
  }
  if (kind === 'coverage') {
    const c = item as CoverageAlertItem;
    return `${COVERAGE_LABELS[c.id] ?? c.id}: ${c.from} → ${c.to}`;
  }
  const f = item as FindingAlertItem;
  const cves = f.cves.length ? ` ${f.cves.slice(0, 3).join(', ')}${f.cves.length > 3 ? ` (+${f.cves.length - 3})` : ''}` : '';
  const due = kind === 'sla' && f.dueAt ? `, due ${shortDate(f.dueAt)}` : '';
  const by = kind === 'kev' && f.knownExploitedBy ? `, known exploited by ${f.knownExploitedBy}` : '';
  return `${f.severity ?? 'unknown'}${cves} ${f.pluginName ?? `plugin ${f.pluginId ?? '?'}`} on ${f.hostname ?? f.hostId ?? '?'} (${f.source})${due}${by} [${f.id}]`;
}

/** Slack's mrkdwn escapes: &, < and > (Slack's "Formatting text for app surfaces"). */
const slackEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function lines(m: AlertMessage): string[] {
  const out = m.items.map((i) => itemLine(m.rule, i));
  if (m.truncated) out.push(`…and ${m.total - m.items.length} more`);
  return out;
}

function heading(m: AlertMessage): string {
  return `Tributary alert '${m.alert}': ${m.summary}${m.runId ? ` (run ${m.runId})` : ''}`;
}

/** The body as sent, in the rule's format. */
export function renderBody(format: AlertFormat, m: AlertMessage): string {
  if (format === 'json') return JSON.stringify(m);
  if (format === 'slack') {
    const body = lines(m)
      .map((l) => `• ${slackEscape(l)}`)
      .join('\n');
    return JSON.stringify({ text: `*${slackEscape(heading(m))}*${body ? `\n${body}` : ''}` });
  }
  // Teams: an Adaptive Card in a message, as Teams Workflows webhooks (and the older incoming webhooks) take it.
  const card = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body: [
      { type: 'TextBlock', text: heading(m), weight: 'Bolder', size: 'Medium', wrap: true },
      ...lines(m).map((l) => ({ type: 'TextBlock', text: l, wrap: true, spacing: 'Small' })),
    ],
  };
  return JSON.stringify({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }] });
}

/** `sha256=<hex HMAC-SHA256 of the body with the rule's secret>`: the value of X-Tributary-Signature. */
export function signBody(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Whether a signature header matches the body (what a receiver does; compared in constant time). */
export function verifySignature(secret: string, body: string | Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const want = Buffer.from(signBody(secret, body));
  const got = Buffer.from(header.trim());
  return want.length === got.length && timingSafeEqual(want, got);
}
