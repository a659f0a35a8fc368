// The findings a remediation-ticket plan reads, narrow: only the columns grouping needs (the finding's
// host, plugin, severity, known-exploited answer, status, and its host's placement), in
// pages by id, so a plan over a million findings reads them in seconds (the general record query reads
// every column and computes SLA dates).
import type { Driver, Row } from '../db/driver.ts';
import { placeholders } from '../db/sql.ts';

export interface TicketFindingRow {
  id: string;
  sourceId: string;
  hostId: string;
  pluginId: string;
  pluginName: string | null;
  severity: string;
  knownExploited: boolean;
  status: string;
  removed: boolean;
  assetId: string | null;
  owner: string | null;
  department: string | null;
  site: string | null;
}

const COLUMNS = `r."id", r."source_id", r."host_id", r."plugin_id", r."plugin_name", r."severity", r."known_exploited", r."status", r."removed",
  h."asset_id", h."owner", h."department", h."site"`;
const FROM = `"rec_vulnerabilities" r LEFT JOIN "rec_hosts" h ON h."id" = r."host_id"`;

const text = (v: unknown): string | null => (v === null || v === undefined || v === '' ? null : String(v));

function rowOf(r: Row): TicketFindingRow {
  return {
    id: String(r.id),
    sourceId: String(r.source_id),
    hostId: String(r.host_id ?? ''),
    pluginId: String(r.plugin_id ?? ''),
    pluginName: text(r.plugin_name),
    severity: String(r.severity ?? 'info'),
    knownExploited: Number(r.known_exploited) === 1 || r.known_exploited === true,
    status: String(r.status ?? 'open'),
    removed: Number(r.removed) === 1 || r.removed === true,
    assetId: text(r.asset_id),
    owner: text(r.owner),
    department: text(r.department),
    site: text(r.site),
  };
}

/**
 * Open findings (not fixed, not removed) of these severities, or known exploited when `knownExploited`,
 * in pages of `pageSize` by id.
 */
export async function openTicketFindings(db: Driver, o: { severities: string[]; knownExploited: boolean; pageSize?: number }): Promise<TicketFindingRow[]> {
  const out: TicketFindingRow[] = [];
  const size = Math.max(1, Math.min(100_000, Math.floor(o.pageSize ?? 50_000)));
  const which = [...(o.severities.length ? [`r."severity" IN ${placeholders(o.severities)}`] : []), ...(o.knownExploited ? [`r."known_exploited" = 1`] : [])];
  if (!which.length) return out;
  let after = '';
  for (;;) {
    const rows = await db.all(
      `SELECT ${COLUMNS} FROM ${FROM} WHERE r."status" <> 'fixed' AND r."removed" = 0 AND (${which.join(' OR ')}) AND r."id" > ? ORDER BY r."id" LIMIT ${size}`,
      [...o.severities, after],
    );
    for (const r of rows) out.push(rowOf(r));
    if (rows.length < size) return out;
    after = String(rows[rows.length - 1]!.id);
  }
}

/** Findings by id, whatever their status (ids not found are left out). */
export async function ticketFindingsByIds(db: Driver, ids: string[]): Promise<TicketFindingRow[]> {
  const out: TicketFindingRow[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    for (const r of await db.all(`SELECT ${COLUMNS} FROM ${FROM} WHERE r."id" IN ${placeholders(chunk)}`, chunk)) out.push(rowOf(r));
  }
  return out;
}
