// The findings a ticket plan reads from the store: the open findings the settings may ticket (narrow rows
// with their host's placement and name), and the findings known requests list that are no longer open
// (fixed by the scanner's patched set, or gone), so the plan tells fixed from no longer ticketed. The
// CVEs, solution, SLA due date and host name, which only a new request's text needs, are read for those
// findings alone.
import { SEVERITY_ORDER, type Severity } from '../core/models.ts';
import type { RemediationTicketsConfig } from '../core/tickets.ts';
import type { Store, TicketFindingRow } from '../store/index.ts';
import type { KnownTicket, TicketFinding } from './plan.ts';

function findingOf(r: TicketFindingRow): TicketFinding {
  return {
    id: r.id,
    sourceId: r.sourceId,
    hostId: r.hostId,
    pluginId: r.pluginId,
    pluginName: r.pluginName,
    severity: ((SEVERITY_ORDER as readonly string[]).includes(r.severity) ? r.severity : 'info') as Severity,
    knownExploited: r.knownExploited,
    status: (r.status === 'fixed' || r.status === 'reopened' ? r.status : 'open') as TicketFinding['status'],
    removed: r.removed,
    assetId: r.assetId,
    department: r.department,
    owner: r.owner,
    site: r.site,
    solution: null,
    cves: [],
    dueAt: null,
    hostLabel: null,
  };
}

/** Open findings the settings may ticket, and those of `known` requests that are not among them. */
export async function loadTicketFindings(store: Store, settings: RemediationTicketsConfig, known: KnownTicket[]): Promise<TicketFinding[]> {
  const severities = SEVERITY_ORDER.slice(SEVERITY_ORDER.indexOf(settings.minSeverity));
  const rows = await store.tickets.openFindings({ severities: [...severities], knownExploited: settings.knownExploited });
  const seen = new Set(rows.map((r) => r.id));
  const missing = [...new Set(known.flatMap((k) => k.findingIds))].filter((id) => !seen.has(id));
  if (missing.length) rows.push(...(await store.tickets.findingsByIds(missing)));
  return rows.map(findingOf);
}

/** Fills the CVEs, solution, SLA due date and host name of these findings (for the text of the requests to create). */
export async function withDetails(store: Store, findings: TicketFinding[]): Promise<void> {
  const byId = new Map(findings.map((f) => [f.id, f]));
  for (const r of await store.records.getMany('vulnerabilities', [...byId.keys()])) {
    const f = byId.get(r.id)!;
    f.solution = typeof r.solution === 'string' && r.solution ? r.solution : null;
    f.dueAt = typeof r.dueAt === 'string' && r.dueAt ? r.dueAt : null;
    f.cves = Array.isArray(r.cves) ? r.cves.map(String) : [];
  }
  const labels = await store.records.hostLabels([...new Set(findings.map((f) => f.hostId))]);
  const byHost = new Map(labels.map((h) => [h.id, h.hostname ?? h.ipAddresses[0] ?? null]));
  for (const f of findings) f.hostLabel = byHost.get(f.hostId) ?? null;
}
