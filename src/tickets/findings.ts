// The findings a ticket plan reads from the store: the open findings the settings may ticket (narrow rows
// with their host's placement and name), and the findings known requests list that are no longer open
// (fixed by the scanner's patched set, or gone), so the plan tells fixed from no longer ticketed. The
// CVEs, solution, SLA due date and host name, which only a new request's text needs, are read for those
// findings alone.
import { SEVERITY_ORDER, type Severity } from '../core/models.ts';
import type { RemediationTicketsConfig } from '../core/tickets.ts';
import type { Store, TicketFindingFilter, TicketFindingRow, TicketGroupCount } from '../store/index.ts';
import { groupKey, type KnownTicket, selected, type TicketFinding } from './plan.ts';

/** Each plugin's fix (its key and text), from the plugins' records. */
type Fixes = Map<string, { fix: string; text: string }>;

async function fixesOf(store: Store, pluginIds: Iterable<string>): Promise<Fixes> {
  const ids = [...new Set(pluginIds)].filter(Boolean);
  return new Map(ids.length ? (await store.tickets.pluginFixes(ids)).map((p) => [p.pluginId, { fix: p.fix, text: p.text }]) : []);
}

function findingOf(r: TicketFindingRow, fixes: Fixes): TicketFinding {
  return {
    id: r.id,
    sourceId: r.sourceId,
    hostId: r.hostId,
    pluginId: r.pluginId,
    pluginName: r.pluginName,
    fix: fixes.get(r.pluginId)?.fix ?? null,
    fixText: fixes.get(r.pluginId)?.text ?? null,
    severity: ((SEVERITY_ORDER as readonly string[]).includes(r.severity) ? r.severity : 'info') as Severity,
    knownExploited: r.knownExploited,
    decision: r.decision,
    status: (r.status === 'fixed' || r.status === 'reopened' ? r.status : 'open') as TicketFinding['status'],
    removed: r.removed,
    assetId: r.assetId,
    department: r.department,
    owner: r.owner,
    site: r.site,
    excepted: r.excepted,
    exception: r.exception ?? null,
    solution: null,
    cves: [],
    dueAt: null,
    hostLabel: null,
  };
}

/** A group count as a finding, for `selected` and `groupKey` (the selection's severity is SQL's). */
const partsOf = (c: TicketGroupCount, fixes: Fixes): TicketFinding => ({
  id: '',
  sourceId: '',
  hostId: c.hostId ?? '',
  pluginId: c.pluginId ?? '',
  pluginName: null,
  fix: fixes.get(c.pluginId ?? '')?.fix ?? null,
  severity: 'critical',
  knownExploited: false,
  decision: null,
  groupOnly: true,
  status: 'open',
  removed: false,
  assetId: c.assetId,
  department: c.department,
  owner: c.owner,
  site: c.site,
  solution: null,
  cves: [],
  dueAt: null,
  hostLabel: null,
});

export interface PlanInputs {
  /** The findings of the groups that changed, and those their requests list that are no longer among them. */
  findings: TicketFinding[];
  /** The stored rows a plan must look at: those of changed groups, and those without a group now. */
  known: KnownTicket[];
  /** Ticketed findings and groups in all (changed or not). */
  selected: number;
  groups: number;
}

/**
 * What a plan reads, grouped in SQL (issue 32, speed): the selected findings are counted per group, and
 * with the findings each request was last written with; only the groups whose count or membership
 * changed (or whose request is new, resolved, or closed by a person) are read finding by finding.
 */
export async function planInputs(store: Store, sourceId: string, settings: RemediationTicketsConfig, known: KnownTicket[]): Promise<PlanInputs> {
  const severities = SEVERITY_ORDER.slice(SEVERITY_ORDER.indexOf(settings.minSeverity));
  const byAsset = settings.grouping === 'asset';
  const counts = await store.tickets.groupCounts({
    sourceId,
    severities: [...severities],
    knownExploited: settings.knownExploited,
    ...(settings.decisions ? { decisions: settings.decisions } : {}),
    byPlugin: !byAsset,
    byAsset,
  });
  // Grouped per fix (not per plugin): each plugin's fix read once for the plugins counted.
  const fixes = byAsset
    ? new Map()
    : await fixesOf(
        store,
        [...counts.totals, ...counts.stored].map((c) => c.pluginId ?? ''),
      );
  const total = new Map<string, number>();
  const parts = new Map<string, TicketGroupCount[]>();
  let count = 0;
  for (const c of counts.totals) {
    const f = partsOf(c, fixes);
    if (!selected(settings, f)) continue;
    const key = groupKey(settings.grouping, f);
    total.set(key, (total.get(key) ?? 0) + c.n);
    count += c.n;
    const list = parts.get(key);
    if (list) list.push(c);
    else parts.set(key, [c]);
  }
  const matched = new Map<string, number>();
  for (const c of counts.stored) {
    const f = partsOf(c, fixes);
    if (!selected(settings, f)) continue;
    const key = groupKey(settings.grouping, f);
    if (key === c.storedKey) matched.set(key, (matched.get(key) ?? 0) + c.n);
  }
  const knownByKey = new Map(known.map((k) => [k.key, k]));
  const changed = new Set<string>();
  for (const [key, n] of total) {
    const k = knownByKey.get(key);
    // A request a person closed is left alone whatever its group does.
    if (k?.state === 'closed-upstream') continue;
    const same = k && k.state === 'open' && !k.closedRemotely && n === k.findingIds.length && matched.get(key) === k.findingIds.length;
    if (!same) changed.add(key);
  }
  const filter: TicketFindingFilter = {};
  const only = [...changed].flatMap((key) => parts.get(key)!);
  if (byAsset) {
    filter.assetIds = [...new Set(only.map((c) => c.assetId).filter((x): x is string => !!x))];
    filter.hostIds = [...new Set(only.map((c) => c.hostId).filter((x): x is string => !!x))];
  } else filter.pluginIds = [...new Set(only.map((c) => c.pluginId ?? ''))];
  const rows = only.length
    ? await store.tickets.openFindings({
        severities: [...severities],
        knownExploited: settings.knownExploited,
        ...(settings.decisions ? { decisions: settings.decisions } : {}),
        only: filter,
      })
    : [];
  const findings = rows.map((r) => findingOf(r, fixes)).filter((f) => !selected(settings, f) || changed.has(groupKey(settings.grouping, f)));
  // The stored rows to plan: changed groups', and those whose group is gone (resolved or noted).
  const relevant = known.filter((k) => changed.has(k.key) || !total.has(k.key));
  const seen = new Set(findings.map((f) => f.id));
  const missing = [...new Set(relevant.filter((k) => k.state === 'open').flatMap((k) => k.findingIds))].filter((id) => !seen.has(id));
  if (missing.length) {
    const gone = await store.tickets.findingsByIds(missing);
    const more = await fixesOf(
      store,
      gone.map((r) => r.pluginId).filter((id) => !fixes.has(id)),
    );
    findings.push(...gone.map((r) => findingOf(r, new Map([...fixes, ...more]))));
  }
  return { findings, known: relevant, selected: count, groups: total.size };
}

/** Open findings the settings may ticket, and those of `known` requests that are not among them. */
export async function loadTicketFindings(store: Store, settings: RemediationTicketsConfig, known: KnownTicket[]): Promise<TicketFinding[]> {
  const severities = SEVERITY_ORDER.slice(SEVERITY_ORDER.indexOf(settings.minSeverity));
  const rows = await store.tickets.openFindings({
    severities: [...severities],
    knownExploited: settings.knownExploited,
    ...(settings.decisions ? { decisions: settings.decisions } : {}),
  });
  const seen = new Set(rows.map((r) => r.id));
  const missing = [...new Set(known.flatMap((k) => k.findingIds))].filter((id) => !seen.has(id));
  if (missing.length) rows.push(...(await store.tickets.findingsByIds(missing)));
  const fixes =
    settings.grouping === 'asset'
      ? new Map()
      : await fixesOf(
          store,
          rows.map((r) => r.pluginId),
        );
  return rows.map((r) => findingOf(r, fixes));
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
