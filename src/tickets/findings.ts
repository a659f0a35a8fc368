// The findings a ticket plan reads from the store: every open finding (not fixed, not removed) with its
// asset, owner and solution, and the findings known requests list that are no longer open (fixed by the
// scanner's patched set, or gone), so the plan tells fixed from no longer ticketed.
import type { Severity, StoredRecord } from '../core/models.ts';
import { parseFilter, type Store } from '../store/index.ts';
import type { KnownTicket, TicketFinding } from './plan.ts';

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function findingOf(r: StoredRecord, hosts: Map<string, string>): TicketFinding {
  const hostId = String(r.hostId ?? '');
  return {
    id: r.id,
    sourceId: r.source,
    hostId,
    pluginId: String(r.pluginId ?? ''),
    pluginName: str(r.pluginName),
    severity: (str(r.severity) ?? 'info') as Severity,
    knownExploited: r.knownExploited === true,
    status: (str(r.status) ?? 'open') as TicketFinding['status'],
    removed: r.removed === true,
    assetId: str(r.assetId),
    department: str(r.department),
    owner: str(r.owner),
    site: str(r.site),
    solution: str(r.solution),
    cves: Array.isArray(r.cves) ? r.cves.map(String) : [],
    dueAt: str(r.dueAt),
    hostLabel: hosts.get(hostId) ?? null,
  };
}

async function labels(store: Store, rows: StoredRecord[]): Promise<Map<string, string>> {
  const ids = [...new Set(rows.map((r) => String(r.hostId ?? '')).filter(Boolean))];
  const out = new Map<string, string>();
  for (const h of await store.records.hostLabels(ids)) {
    const label = h.hostname ?? h.ipAddresses[0];
    if (label) out.set(h.id, label);
  }
  return out;
}

/** Open findings, and those of `known` requests that are not open any more. */
export async function loadTicketFindings(store: Store, known: KnownTicket[]): Promise<TicketFinding[]> {
  const rows: StoredRecord[] = [];
  const filters = [parseFilter('status!=fixed'), parseFilter('removed=false')];
  let cursor: string | null = null;
  do {
    const page = await store.records.query('vulnerabilities', { filters, limit: 10_000, cursor });
    rows.push(...page.records);
    cursor = page.nextCursor;
  } while (cursor);
  const seen = new Set(rows.map((r) => r.id));
  const missing = [...new Set(known.flatMap((k) => k.findingIds))].filter((id) => !seen.has(id));
  if (missing.length) rows.push(...(await store.records.getMany('vulnerabilities', missing)));
  const hosts = await labels(store, rows);
  return rows.map((r) => findingOf(r, hosts));
}
