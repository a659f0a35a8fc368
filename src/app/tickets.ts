// Remediation tickets of a ticketing source (issue 32), for the CLI and the API: its connector's settings
// and write client, the plan from the store, applying it, and the audit log.
import { ConflictError, InputError } from '../core/errors.ts';
import { configError } from '../core/config.ts';
import type { RemediationTicketsConfig, TicketWriter } from '../core/tickets.ts';
import { type TicketLogEntry, unreadableSecretsError } from '../store/index.ts';
import { type ApplyOptions, type ApplyResult, applyTickets, type TicketAction, type TicketPlan, ticketPlan } from '../tickets/index.ts';
import type { AppContext } from './context.ts';
import { connectorContext } from './sources.ts';

interface Ticketing {
  source: { id: string; name: string };
  settings: RemediationTicketsConfig;
  writer: () => TicketWriter;
}

async function ticketing(app: AppContext, name: string): Promise<Ticketing> {
  const source = await app.store.sources.get(name);
  const connector = app.registry.get(source.type);
  if (!connector.tickets)
    throw new InputError(`source '${name}' (${connector.shortName}) cannot take remediation tickets; only a service desk source can`, 'name');
  if (source.unreadableSecrets.length) throw unreadableSecretsError(source);
  const parsed = connector.configSchema.safeParse(source.config);
  if (!parsed.success) throw configError(parsed.error);
  const tickets = connector.tickets;
  return {
    source: { id: source.id, name: source.name },
    settings: tickets.settings(parsed.data),
    writer: () => tickets.writer(parsed.data, connectorContext(app, source)),
  };
}

export interface TicketPlanView {
  source: string;
  enabled: boolean;
  grouping: string;
  findings: number;
  groups: number;
  counts: TicketPlan['counts'];
  actions: {
    kind: TicketAction['kind'];
    key: string;
    marker: string;
    requestId: string | null;
    title: string;
    severity: string;
    findingIds: string[];
    added: string[];
    fixed: string[];
    left: string[];
    reason?: TicketAction['reason'];
    movedTo?: TicketAction['movedTo'];
    exceptions?: TicketAction['exceptions'];
    deferred: boolean;
    recover: boolean;
  }[];
  create: TicketPlanView['actions'];
  update: TicketPlanView['actions'];
  resolve: TicketPlanView['actions'];
  reopen: TicketPlanView['actions'];
}

/** What the next run would create, note and resolve, with the findings behind each (nothing is written). */
export async function planSourceTickets(app: AppContext, name: string): Promise<TicketPlanView> {
  const t = await ticketing(app, name);
  const plan = await ticketPlan(app.store, t.source, t.settings);
  const actions = plan.actions.map(({ draft: _d, ...a }) => a);
  return {
    source: t.source.name,
    enabled: t.settings.enabled,
    grouping: plan.grouping,
    findings: plan.findings,
    groups: plan.groups,
    counts: plan.counts,
    actions,
    // The contract's buckets (interfaces.md §7.4): notes are `update`; deferred creates stay in `create`, flagged.
    create: actions.filter((a) => a.kind === 'create'),
    update: actions.filter((a) => a.kind === 'note'),
    resolve: actions.filter((a) => a.kind === 'resolve'),
    reopen: actions.filter((a) => a.kind === 'reopen'),
  };
}

export type TicketApplyView = ApplyResult & { source: string };

/** Applies the plan; refused while the source's remediation tickets are off. */
export async function applySourceTickets(app: AppContext, name: string, opts: ApplyOptions = {}): Promise<TicketApplyView> {
  const t = await ticketing(app, name);
  if (!t.settings.enabled)
    throw new ConflictError(
      `remediation tickets are off for source '${name}': set remediationTickets.enabled to true in its configuration (and check it with \`tributary sources check ${name}\`)`,
    );
  const writer = t.writer();
  try {
    const { plan: _plan, ...r } = await applyTickets(app.store, t.source, t.settings, writer, opts);
    app.log.info(
      { source: name, runId: r.runId, created: r.created, noted: r.noted, resolved: r.resolved, closed: r.closed, failed: r.failed },
      'remediation tickets applied',
    );
    return { source: name, ...r };
  } finally {
    await writer.close();
  }
}

/** The audit log of one source, or of every source when `name` is not given (newest first). */
export async function ticketLog(app: AppContext, name: string | undefined, limit = 100): Promise<TicketLogEntry[]> {
  if (name === undefined) return app.store.tickets.logEntries(null, limit);
  const t = await ticketing(app, name);
  return app.store.tickets.logEntries(t.source.id, limit);
}
