// The coverage report (interfaces.md §6.3): CMDB assets not scanned in N days (or never), scanned
// hosts absent from the CMDB, open critical or known-exploited findings no ticket is linked to, and
// open tickets whose linked findings are all fixed. Only covering links count (ticket-links.ts): a
// ticket covers a finding its findingIds hold, and every finding of an asset its link `covers`. The report's numbers are counted
// without reading the records behind them: the urgent findings from the summaries (summaries.ts,
// as of the last run's epilogue), less those a ticket covers; its lists read the records. An urgent finding
// an approved, unexpired risk exception covers is not in the urgent list (store/exceptions/).
import { MAX_COVERAGE_DAYS } from '../../core/api-requests.ts';
import { InputError } from '../../core/errors.ts';
import { COVERAGE_KINDS, type CoverageKind, type ModelName, type StoredRecord } from '../../core/models.ts';
import type { Driver, Row } from '../db/driver.ts';
import { recordColumns, recordFrom, rowToRecord } from '../records/row-mapping.ts';
import { ensureSummariesFor } from './summary-tables-write.ts';
import { marks, placeholders } from '../db/sql.ts';
import { nowIso } from '../db/rows.ts';
import { anyActiveException, exceptedFindingsClause } from '../exceptions/exceptions.ts';

export { COVERAGE_KINDS, type CoverageKind };

/** The four numbers and the window. */
export type CoverageReport = Record<CoverageKind, number> & { days: number };

export const MODEL_OF_KIND: Record<CoverageKind, ModelName> = {
  cmdbNotScanned: 'cmdb-assets',
  scannedNotInCmdb: 'hosts',
  findingsWithoutTicket: 'vulnerabilities',
  ticketsForFixedFindings: 'tickets',
};

/** Ticket states that are done with (a service desk's default states and their usual renames). */
const CLOSED = /^(closed|resolved|cancel+ed|completed|rejected|done)$/i;
/** CMDB records nobody expects on the network: gone, or never networked (no address, no MAC, no host linked). */
const RETIRED = /dispos|retire|expired|scrap/i;

const parse = (v: unknown): string[] => (typeof v === 'string' && v !== '' ? (JSON.parse(v) as string[]) : []);

/** `columns`: what to read of each CMDB record (all of it for the list; what the filter needs for the count). */
async function cmdbNotScanned(db: Driver, days: number, columns = 'c.*, s."name" AS "source_name"'): Promise<Row[]> {
  const since = new Date(Date.now() - days * 86_400_000).toISOString();
  const rows = await db.all(
    `SELECT ${columns}, a."last_scanned" AS "asset_last_scanned", a."host_ids" AS "asset_host_ids" FROM "rec_cmdb_assets" c JOIN "sources" s ON s."id" = c."source_id" LEFT JOIN "rec_assets" a ON a."id" = c."asset_id" WHERE c."removed" = 0 AND (a."last_scanned" IS NULL OR a."last_scanned" < ?) ORDER BY c."id"`,
    [since],
  );
  return rows.filter((r) => {
    if (typeof r.state === 'string' && RETIRED.test(r.state)) return false;
    return parse(r.ip_addresses).length > 0 || parse(r.mac_addresses).length > 0 || parse(r.asset_host_ids).length > 0;
  });
}

const NOT_IN_CMDB = `h."removed" = 0 AND NOT EXISTS (SELECT 1 FROM "asset_links" l WHERE l."host_id" = h."id" AND l."cmdb_asset_id" <> '')`;

async function scannedNotInCmdb(db: Driver): Promise<Row[]> {
  return db.all(`SELECT h.*, s."name" AS "source_name" FROM "rec_hosts" h JOIN "sources" s ON s."id" = h."source_id" WHERE ${NOT_IN_CMDB} ORDER BY h."id"`);
}

async function scannedNotInCmdbCount(db: Driver): Promise<number> {
  const rows = await db.all(`SELECT COUNT(*) AS "n" FROM "rec_hosts" h JOIN "sources" s ON s."id" = h."source_id" WHERE ${NOT_IN_CMDB}`);
  return Number(rows[0]?.n ?? 0);
}

interface TicketLinks {
  row: Row;
  /** Assets the ticket covers whole (associated, naming no CVE or plugin). */
  assetIds: string[];
  findingIds: string[];
}

const coveredAssets = (v: unknown): string[] =>
  typeof v === 'string' && v !== '' ? (JSON.parse(v) as { assetId: string; covers?: boolean }[]).filter((l) => l.covers).map((l) => l.assetId) : [];

async function ticketLinks(db: Driver): Promise<TicketLinks[]> {
  const rows = await db.all(
    `SELECT t.*, s."name" AS "source_name" FROM "rec_tickets" t JOIN "sources" s ON s."id" = t."source_id" WHERE t."removed" = 0 AND ((t."asset_ids" IS NOT NULL AND t."asset_ids" <> '[]') OR (t."finding_ids" IS NOT NULL AND t."finding_ids" <> '[]')) ORDER BY t."id"`,
  );
  return rows.map((row) => ({ row, assetIds: coveredAssets(row.asset_links), findingIds: parse(row.finding_ids) }));
}

const URGENT = `v."removed" = 0 AND v."status" IN ('open', 'reopened') AND (v."severity" = 'critical' OR v."known_exploited" = 1)`;

/**
 * How many urgent findings no ticket covers: the urgent ones (sum_vuln_counts), less those of hosts
 * whose asset a ticket covers (sum_hosts.urgent), less the other urgent ones a ticket names by id.
 */
async function findingsWithoutTicketCount(db: Driver, tickets: TicketLinks[]): Promise<number> {
  await ensureSummariesFor(db);
  const urgent = await db.all(
    `SELECT SUM(n) AS "n" FROM sum_vuln_counts WHERE removed = 0 AND status IN ('open', 'reopened') AND (severity = 'critical' OR known_exploited = 1)`,
  );
  let count = Number(urgent[0]?.n ?? 0);
  const assets = [...new Set(tickets.flatMap((t) => t.assetIds))];
  for (let i = 0; i < assets.length; i += 500) {
    const chunk = assets.slice(i, i + 500);
    const covered = await db.all(
      `SELECT SUM(u."urgent") AS "n" FROM sum_hosts u JOIN "rec_hosts" h ON h."id" = u.host_id WHERE h."asset_id" IN ${placeholders(chunk)}`,
      chunk,
    );
    count -= Number(covered[0]?.n ?? 0);
  }
  const assetSet = new Set(assets);
  const named = [...new Set(tickets.flatMap((t) => t.findingIds))];
  for (let i = 0; i < named.length; i += 500) {
    const chunk = named.slice(i, i + 500);
    const rows = await db.all(
      `SELECT v."id", h."asset_id" FROM "rec_vulnerabilities" v LEFT JOIN "rec_hosts" h ON h."id" = v."host_id" WHERE ${URGENT} AND v."id" IN ${placeholders(chunk)}`,
      chunk,
    );
    count -= rows.filter((r) => !(r.asset_id && assetSet.has(String(r.asset_id)))).length;
  }
  // Less the urgent findings no ticket covers that an approved, unexpired risk exception does.
  const now = nowIso();
  if (await anyActiveException(db, now)) {
    const params: unknown[] = [];
    const excepted = exceptedFindingsClause('v', now, params);
    const rows = await db.all(
      `SELECT v."id", h."asset_id" FROM "rec_vulnerabilities" v LEFT JOIN "rec_hosts" h ON h."id" = v."host_id" WHERE ${URGENT} AND ${excepted}`,
      params,
    );
    const namedSet = new Set(named);
    count -= rows.filter((r) => !namedSet.has(String(r.id)) && !(r.asset_id && assetSet.has(String(r.asset_id)))).length;
  }
  // The summaries are as of the last refresh and the tickets as of now: never below none.
  return Math.max(0, count);
}

async function findingsWithoutTicket(db: Driver, tickets: TicketLinks[]): Promise<Row[]> {
  const assets = new Set(tickets.flatMap((t) => t.assetIds));
  const findings = new Set(tickets.flatMap((t) => t.findingIds));
  const rows: Row[] = [];
  let after = '';
  // Not those an approved, unexpired risk exception covers.
  const exceptedParams: unknown[] = [];
  const notExcepted = `NOT ${exceptedFindingsClause('v', nowIso(), exceptedParams)}`;
  for (;;) {
    const page = await db.all(
      `SELECT v."id", h."asset_id" FROM "rec_vulnerabilities" v LEFT JOIN "rec_hosts" h ON h."id" = v."host_id" WHERE ${URGENT} AND ${notExcepted} AND v."id" > ? ORDER BY v."id" LIMIT 20000`,
      [...exceptedParams, after],
    );
    rows.push(...page.filter((r) => !findings.has(String(r.id)) && !(r.asset_id && assets.has(String(r.asset_id)))));
    if (page.length < 20000) break;
    after = String(page[page.length - 1]!.id);
  }
  const full: Row[] = [];
  for (let i = 0; i < rows.length; i += 500) {
    const ids = rows.slice(i, i + 500).map((r) => String(r.id));
    full.push(
      ...(await db.all(
        `SELECT ${recordColumns('vulnerabilities')} FROM ${recordFrom('vulnerabilities')} WHERE r."id" IN ${placeholders(ids)} ORDER BY r."id"`,
        ids,
      )),
    );
  }
  return full;
}

/** Open tickets with linked findings, all of them fixed: its own findingIds when it names findings, else its assets' findings. */
async function ticketsForFixedFindings(db: Driver, tickets: TicketLinks[]): Promise<Row[]> {
  const out: Row[] = [];
  for (const t of tickets) {
    if (t.row.resolved_at || (typeof t.row.status === 'string' && CLOSED.test(t.row.status))) continue;
    // A finding's asset is its host's.
    const [where, ids] = t.findingIds.length
      ? [(ph: string) => `"id" IN (${ph})`, t.findingIds]
      : [(ph: string) => `"host_id" IN (SELECT "id" FROM "rec_hosts" WHERE "asset_id" IN (${ph}))`, t.assetIds];
    let total = 0;
    let open = 0;
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const r = await db.all(
        `SELECT COUNT(*) AS "n", SUM(CASE WHEN "status" IN ('open', 'reopened') AND "removed" = 0 THEN 1 ELSE 0 END) AS "o" FROM "rec_vulnerabilities" WHERE ${where(marks(chunk))}`,
        chunk,
      );
      total += Number(r[0]?.n ?? 0);
      open += Number(r[0]?.o ?? 0);
    }
    if (total > 0 && open === 0) out.push(t.row);
  }
  return out;
}

export { MAX_COVERAGE_DAYS };

export function checkDays(days: number): number {
  if (!Number.isInteger(days) || days < 0 || days > MAX_COVERAGE_DAYS)
    throw new InputError(`--days must be a whole number of days from 0 to ${MAX_COVERAGE_DAYS}`, 'days');
  return days;
}

export async function coverageReport(db: Driver, days: number): Promise<CoverageReport> {
  checkDays(days);
  const tickets = await ticketLinks(db);
  return {
    cmdbNotScanned: (await cmdbNotScanned(db, days, 'c."state", c."ip_addresses", c."mac_addresses"')).length,
    scannedNotInCmdb: await scannedNotInCmdbCount(db),
    findingsWithoutTicket: await findingsWithoutTicketCount(db, tickets),
    ticketsForFixedFindings: (await ticketsForFixedFindings(db, tickets)).length,
    days,
  };
}

export function isCoverageKind(s: string): s is CoverageKind {
  return (COVERAGE_KINDS as readonly string[]).includes(s);
}

/** The records behind one number of the report. */
export async function coverageList(db: Driver, kind: CoverageKind, days: number): Promise<StoredRecord[]> {
  checkDays(days);
  const model = MODEL_OF_KIND[kind];
  let rows: Row[];
  if (kind === 'cmdbNotScanned') rows = await cmdbNotScanned(db, days);
  else if (kind === 'scannedNotInCmdb') rows = await scannedNotInCmdb(db);
  else if (kind === 'findingsWithoutTicket') rows = await findingsWithoutTicket(db, await ticketLinks(db));
  else rows = await ticketsForFixedFindings(db, await ticketLinks(db));
  return rows.map((r) => rowToRecord(model, r));
}
