// Reads of the summary tables (summaries.ts): overdue counts per severity, the vulnerabilities-by-plugin
// list, and open findings per severity for a page of hosts.
import { InputError } from '../../core/errors.ts';
import type { Severity, SeverityCounts } from '../../core/models.ts';
import type { Driver } from '../db/driver.ts';
import { anyActiveException, exceptedFindingsClause } from '../exceptions/exceptions.ts';
import { type SlaPolicy, slaFilterClause, slaPolicy } from '../records/sla.ts';
import { ensureSummariesFor, LIVE_OPEN_SQL } from './summary-tables-write.ts';
import { sqlCount } from '../db/rows.ts';
import { placeholders } from '../db/sql.ts';

const DAY_MS = 86_400_000;

/** A plugin with live open findings in one source. */
export interface PluginRow {
  source: string;
  pluginId: string;
  pluginName: string | null;
  /** The worst severity among its open findings. */
  severity: Severity | null;
  /** Hosts with an open finding of this plugin, and the findings (one per port). */
  hosts: number;
  findings: number;
  knownExploited: boolean;
  epssScore: number | null;
  vprScore: number | null;
  cvssV3BaseScore: number | null;
}

export interface PluginSummary {
  items: PluginRow[];
  total: number;
}

/** A host's live open findings per severity. */
export type HostFindingCounts = SeverityCounts & { hostId: string; total: number };
const SEVERITIES: Severity[] = ['info', 'low', 'medium', 'high', 'critical'];

/**
 * Live open findings past their SLA due date, per severity (the `overdue=true` filter, counted): the
 * day buckets of sum_vuln_due settle every finding first seen before or after the deadline's day; the
 * findings first seen on that day are counted from the records (index on first_seen, severity). Findings
 * an approved, unexpired risk exception covers are not counted (read from the records: exceptions are few).
 */
export async function overdueCounts(db: Driver, opts: { sourceIds?: string[]; now?: number; policy?: SlaPolicy } = {}): Promise<Record<string, number>> {
  const now = opts.now ?? Date.now();
  const policy = opts.policy ?? slaPolicy();
  await ensureSummariesFor(db, opts.sourceIds);
  const nowIso = new Date(now).toISOString();
  const out: Record<string, number> = {};
  // Per severity with a policy its deadline: a bucket of an earlier day is overdue, of a later one not,
  // of the deadline's own day counted from the records below (unless a past KEV due date settles it).
  const deadlines = new Map<string, string>();
  for (const sev of SEVERITIES) {
    const days = policy[sev];
    if (days !== undefined) deadlines.set(sev, new Date(now - days * DAY_MS).toISOString());
  }
  // Summed per severity in SQL: a row each, not one per bucket (thousands at a million findings).
  const params: unknown[] = [nowIso];
  const dueDay = deadlines.size === 0 ? 'NULL' : `CASE severity${[...deadlines].map(() => ' WHEN ? THEN CAST(? AS TEXT)').join('')} END`;
  for (const [sev, deadline] of deadlines) params.push(sev, deadline.slice(0, 10));
  if (opts.sourceIds) params.push(...opts.sourceIds);
  const sums = await db.all(
    `SELECT severity, SUM(CASE WHEN kev OR first_day < due_day THEN n ELSE 0 END) AS "n", MAX(CASE WHEN NOT kev AND first_day = due_day THEN 1 ELSE 0 END) AS "boundary"
FROM (SELECT severity, first_day, n, COALESCE(kev_due_date < ?, FALSE) AS kev, ${dueDay} AS due_day FROM sum_vuln_due${
      opts.sourceIds ? ` WHERE source_id IN ${placeholders(opts.sourceIds)}` : ''
    }) b GROUP BY severity`,
    params,
  );
  const boundary: Severity[] = [];
  for (const r of sums) {
    if (Number(r.n) > 0) out[String(r.severity)] = Number(r.n);
    if (Number(r.boundary) === 1) boundary.push(r.severity as Severity);
  }
  // The deadline's own day: those of its findings first seen before the deadline (and not already
  // counted by a KEV date), every severity's in one statement.
  if (boundary.length > 0) {
    const bParams: unknown[] = [];
    const arms = boundary.map((sev) => {
      const deadline = deadlines.get(sev)!;
      const day = deadline.slice(0, 10);
      bParams.push(sev, day, new Date(Date.parse(day) + DAY_MS).toISOString().slice(0, 10), deadline, sev, nowIso, ...(opts.sourceIds ?? []));
      return `SELECT CAST(? AS TEXT) AS "severity", COUNT(*) AS "n" FROM "rec_vulnerabilities" WHERE "first_seen" >= ? AND "first_seen" < ? AND "first_seen" < ? AND "severity" = ?
       AND ${LIVE_OPEN_SQL} AND NOT COALESCE("kev_due_date" < ?, FALSE)${opts.sourceIds ? ` AND "source_id" IN ${placeholders(opts.sourceIds)}` : ''}`;
    });
    for (const r of await db.all(arms.join('\nUNION ALL\n'), bParams)) {
      const n = Number(r.n ?? 0);
      if (n > 0) out[String(r.severity)] = (out[String(r.severity)] ?? 0) + n;
    }
  }
  // Less the overdue findings an approved, unexpired risk exception covers (the `overdue=true` filter leaves them out too).
  if (await anyActiveException(db, nowIso)) {
    const params: unknown[] = [];
    const due = slaFilterClause({ field: 'dueAt', op: '<', value: nowIso }, params, now, policy);
    const excepted = exceptedFindingsClause('r', nowIso, params);
    const rows = await db.all(
      `SELECT r."severity" AS "severity", COUNT(*) AS "n" FROM "rec_vulnerabilities" r WHERE r."removed" = 0 AND ${due} AND ${excepted}${
        opts.sourceIds ? ` AND r."source_id" IN ${placeholders(opts.sourceIds)}` : ''
      } GROUP BY r."severity"`,
      [...params, ...(opts.sourceIds ?? [])],
    );
    for (const r of rows) {
      const sev = String(r.severity);
      const left = (out[sev] ?? 0) - Number(r.n);
      if (left > 0) out[sev] = left;
      else delete out[sev];
    }
  }
  return out;
}

const PLUGIN_SORTS: Record<string, string> = {
  hosts: 'p.hosts',
  findings: 'p.findings',
  severity: 'p.severity_rank',
  pluginName: 'p.plugin_name',
  pluginId: 'p.plugin_id',
  knownExploited: 'p.known_exploited',
  epssScore: 'p.epss_score',
  vprScore: 'p.vpr_score',
  cvssV3BaseScore: 'p.cvss_v3_base_score',
  source: 's.name',
};

/** Plugins with live open findings: one row per source and plugin, sorted, paged by offset, with the total. */
export async function pluginSummary(
  db: Driver,
  opts: { sourceIds?: string[]; search?: string; minSeverity?: Severity; knownExploited?: boolean; sort?: string; limit?: number; offset?: number } = {},
): Promise<PluginSummary> {
  await ensureSummariesFor(db, opts.sourceIds);
  const where: string[] = [];
  const params: unknown[] = [];
  if (opts.sourceIds) {
    where.push(`p.source_id IN ${placeholders(opts.sourceIds)}`);
    params.push(...opts.sourceIds);
  }
  if (opts.search) {
    where.push(`(LOWER(p.plugin_name) LIKE ? ESCAPE '\\' OR p.plugin_id = ?)`);
    params.push(`%${opts.search.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`, opts.search.trim());
  }
  if (opts.minSeverity) {
    where.push(`p.severity_rank >= ?`);
    params.push(SEVERITIES.indexOf(opts.minSeverity));
  }
  if (opts.knownExploited !== undefined) where.push(opts.knownExploited ? `p.known_exploited = 1` : `COALESCE(p.known_exploited, 0) = 0`);
  const sort = opts.sort ?? '-hosts';
  const m = /^(-?)(\w+)$/.exec(sort);
  const col = m ? PLUGIN_SORTS[m[2]] : undefined;
  if (!m || !col) throw new InputError(`cannot sort plugins by '${sort}'; sortable: ${Object.keys(PLUGIN_SORTS).join(', ')} (prefix - for descending)`, 'sort');
  const dir = m[1] === '-' ? 'DESC' : 'ASC';
  const w = where.length ? ` WHERE ${where.join(' AND ')}` : '';
  const from = `FROM sum_plugins p JOIN "sources" s ON s."id" = p.source_id`;
  const limit = sqlCount(Math.max(1, Math.min(Math.floor(opts.limit ?? 50), 1000)), 'limit');
  const offset = sqlCount(Math.max(0, Math.floor(opts.offset ?? 0)), 'offset');
  const rows = await db.all(
    `SELECT p.*, s."name" AS source_name ${from}${w} ORDER BY ${col} ${dir} NULLS LAST, p.hosts DESC, p.source_id, p.plugin_id LIMIT ${limit} OFFSET ${offset}`,
    params,
  );
  const total = Number((await db.all(`SELECT COUNT(*) AS n ${from}${w}`, params))[0]?.n ?? 0);
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  const items = rows.map((r) => ({
    source: String(r.source_name),
    pluginId: String(r.plugin_id),
    pluginName: (r.plugin_name as string | null) ?? null,
    severity: r.severity_rank === null ? null : (SEVERITIES[Number(r.severity_rank)] ?? null),
    hosts: Number(r.hosts),
    findings: Number(r.findings),
    knownExploited: Number(r.known_exploited) === 1,
    epssScore: num(r.epss_score),
    vprScore: num(r.vpr_score),
    cvssV3BaseScore: num(r.cvss_v3_base_score),
  }));
  return { items, total };
}

/** Live open findings per severity for hosts by id (a host with none has zeros). */
export async function hostFindingCounts(db: Driver, ids: string[]): Promise<HostFindingCounts[]> {
  await ensureSummariesFor(db);
  const found = new Map<string, HostFindingCounts>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    for (const r of await db.all(`SELECT * FROM sum_hosts WHERE host_id IN ${placeholders(chunk)}`, chunk)) {
      found.set(String(r.host_id), {
        hostId: String(r.host_id),
        critical: Number(r.critical),
        high: Number(r.high),
        medium: Number(r.medium),
        low: Number(r.low),
        info: Number(r.info),
        total: Number(r.total),
      });
    }
  }
  return ids.map((id) => found.get(id) ?? { hostId: id, critical: 0, high: 0, medium: 0, low: 0, info: 0, total: 0 });
}

export interface ComplianceRow {
  hostId: string | null;
  source: string;
  benchmark: string;
  passed: number;
  failed: number;
  warning: number;
  error: number;
  total: number;
}

/**
 * Live compliance results per host and benchmark, most failures first (then by host id and
 * benchmark): the first `limit` rows, from sum_compliance.
 */
export async function complianceSummary(db: Driver, opts: { sourceIds?: string[]; hostId?: string; limit: number }): Promise<ComplianceRow[]> {
  await ensureSummariesFor(db, opts.sourceIds);
  const where: string[] = [];
  const params: unknown[] = [];
  if (opts.sourceIds) {
    if (opts.sourceIds.length === 0) return [];
    where.push(`c.source_id IN ${placeholders(opts.sourceIds)}`);
    params.push(...opts.sourceIds);
  }
  if (opts.hostId) {
    where.push(`c.host_id = ?`);
    params.push(opts.hostId);
  }
  const limit = sqlCount(Math.max(1, Math.min(Math.floor(opts.limit), 10_000)), 'limit');
  const rows = await db.all(
    `SELECT c.*, s."name" AS source_name FROM sum_compliance c JOIN "sources" s ON s."id" = c.source_id${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
     ORDER BY c.failed DESC, COALESCE(c.host_id, ''), c.benchmark LIMIT ${limit}`,
    params,
  );
  return rows.map((r) => ({
    hostId: (r.host_id as string | null) ?? null,
    source: String(r.source_name),
    benchmark: String(r.benchmark),
    passed: Number(r.passed),
    failed: Number(r.failed),
    warning: Number(r.warning),
    error: Number(r.error),
    total: Number(r.total),
  }));
}
