// The store's side of what to fix first (docs/priority.md): the configuration (TRIBUTARY_PRIORITY), the
// facts of a finding being written or stored, each host's criticality, and the decisions and priorities
// written again when what they are computed from changes: an asset's criticality (after a run's
// correlation) or the feeds (feeds.ts applies both in one pass).
import { type PriorityConfig, type PriorityFacts, type PriorityResult, parsePriorityConfig, priorityOf } from '../../core/priority.ts';
import type { Driver, Row } from '../db/driver.ts';
import { placeholders } from '../db/sql.ts';
import { ensureSummariesFor, refreshAllSummaries, refreshSummaries } from '../reports/summary-tables-write.ts';

/** Counts the refreshes that changed a host's criticality in this process: a page writer's cache of it is then stale (writes.ts). */
export let criticalityVersion = 0;

let cached: { spec: string | undefined; config: PriorityConfig } | null = null;

/** The priority configuration of TRIBUTARY_PRIORITY (JSON; unset: the defaults), read again when it changes. */
export function priorityConfig(): PriorityConfig {
  const spec = process.env.TRIBUTARY_PRIORITY;
  if (!cached || cached.spec !== spec) cached = { spec, config: parsePriorityConfig(spec) };
  return cached.config;
}

const num = (v: unknown): number | null => (v === null || v === undefined || v === '' ? null : Number.isFinite(Number(v)) ? Number(v) : null);
const flag = (v: unknown): boolean => v === true || v === 1 || v === '1';

/** The facts of a finding as a connector sends it (the feed fields already set, feeds.ts enrich). */
export function factsOfRecord(f: Record<string, unknown>, criticality: number | null): PriorityFacts {
  const kev = f.kevDateAdded !== undefined && f.kevDateAdded !== null;
  return {
    status: f.status,
    severity: f.severity,
    knownExploited: kev || flag(f.scannerKnownExploited),
    epssScore: num(f.epssFeedScore) ?? num(f.scannerEpssScore),
    exploitAvailable: flag(f.exploitAvailable),
    cvssV3BaseScore: num(f.cvssV3BaseScore),
    cvssV2BaseScore: num(f.cvssV2BaseScore),
    cvssV3Vector: f.cvssV3Vector,
    cvssV2Vector: f.cvssV2Vector,
    criticality,
  };
}

/** The columns factsOfRow reads. */
export const FACT_COLUMNS = [
  'status',
  'severity',
  'known_exploited',
  'epss_score',
  'exploit_available',
  'cvss_v3_base_score',
  'cvss_v2_base_score',
  'cvss_v3_vector',
  'cvss_v2_vector',
  'asset_criticality',
  'decision',
  'priority',
]
  .map((c) => `"${c}"`)
  .join(', ');

/** The facts of a stored finding (FACT_COLUMNS), with `criticality` instead of the one it was computed with when given. */
export function factsOfRow(r: Row, criticality?: number | null): PriorityFacts {
  return {
    status: r.status,
    severity: r.severity,
    knownExploited: flag(r.known_exploited),
    epssScore: num(r.epss_score),
    exploitAvailable: flag(r.exploit_available),
    cvssV3BaseScore: num(r.cvss_v3_base_score),
    cvssV2BaseScore: num(r.cvss_v2_base_score),
    cvssV3Vector: r.cvss_v3_vector,
    cvssV2Vector: r.cvss_v2_vector,
    criticality: criticality === undefined ? num(r.asset_criticality) : criticality,
  };
}

/** Whether a stored finding's decision and priority differ from `next`. */
export function priorityDiffers(r: Row, next: PriorityResult, criticality: number | null): boolean {
  return (r.decision ?? null) !== next.decision || num(r.priority) !== next.priority || num(r.asset_criticality) !== criticality;
}

/** A host's criticality 0–10 by the configured sources in order: its ACR, its CMDB record's business impact; null when none has one. */
export function criticalityOf(acr: number | null, businessImpact: number | null, c: PriorityConfig): number | null {
  for (const s of c.criticalitySources) {
    const v = s === 'acr' ? acr : businessImpact;
    if (v !== null) return Math.min(10, Math.max(0, v));
  }
  return null;
}

/** A CMDB business impact as a criticality (TRIBUTARY_PRIORITY businessImpact), null when unknown. */
export function businessImpactScore(v: unknown, c: PriorityConfig): number | null {
  if (typeof v !== 'string') return null;
  const s = c.businessImpact[v.trim().toLowerCase()];
  return s === undefined ? null : s;
}

/** Writes (decision, priority, asset_criticality) of findings by id: per row on SQLite, 1000 rows a statement on PostgreSQL. */
export async function writePriorities(db: Driver, updates: [string | null, number | null, number | null, string][]): Promise<void> {
  if (updates.length === 0) return;
  await db.transaction(async (tx) => {
    if (tx.dialect === 'sqlite') {
      for (const u of updates) await tx.run(`UPDATE "rec_vulnerabilities" SET "decision" = ?, "priority" = ?, "asset_criticality" = ? WHERE "id" = ?`, u);
      return;
    }
    for (let i = 0; i < updates.length; i += 1000) {
      const chunk = updates.slice(i, i + 1000);
      const values = chunk.map(() => '(?::text, ?::double precision, ?::double precision, ?::text)').join(', ');
      await tx.run(
        `UPDATE "rec_vulnerabilities" r SET "decision" = v.d, "priority" = v.p, "asset_criticality" = v.c FROM (VALUES ${values}) AS v (d, p, c, id) WHERE r."id" = v.id`,
        chunk.flat(),
      );
    }
  });
}

/**
 * Sets every host's criticality from its ACR and its asset's CMDB records (the highest business impact
 * of them) and returns the hosts whose criticality changed, with the new value.
 */
export async function refreshCriticality(db: Driver, c = priorityConfig()): Promise<Map<string, number | null>> {
  const impact = new Map<string, number>();
  for (const r of await db.all(
    `SELECT "asset_id", "business_impact" FROM "rec_cmdb_assets" WHERE "removed" = 0 AND "asset_id" IS NOT NULL AND "business_impact" IS NOT NULL`,
  )) {
    const s = businessImpactScore(r.business_impact, c);
    const a = String(r.asset_id);
    if (s !== null && s > (impact.get(a) ?? -1)) impact.set(a, s);
  }
  const changed = new Map<string, number | null>();
  for (const r of await db.all(`SELECT "id", "asset_id", "acr_score", "criticality" FROM "rec_hosts" WHERE "removed" = 0`)) {
    const next = criticalityOf(num(r.acr_score), r.asset_id === null ? null : (impact.get(String(r.asset_id)) ?? null), c);
    if (next !== num(r.criticality)) changed.set(String(r.id), next);
  }
  const list = [...changed];
  if (list.length > 0) criticalityVersion++;
  await db.transaction(async (tx) => {
    if (tx.dialect === 'sqlite') {
      for (const [id, v] of list) await tx.run(`UPDATE "rec_hosts" SET "criticality" = ? WHERE "id" = ?`, [v, id]);
      return;
    }
    for (let i = 0; i < list.length; i += 1000) {
      const chunk = list.slice(i, i + 1000);
      const values = chunk.map(() => '(?::double precision, ?::text)').join(', ');
      await tx.run(
        `UPDATE "rec_hosts" h SET "criticality" = v.c FROM (VALUES ${values}) AS v (c, id) WHERE h."id" = v.id`,
        chunk.flatMap(([id, v]) => [v, id]),
      );
    }
  });
  return changed;
}

/** Recomputes the open findings of these hosts with their new criticality; returns how many changed. */
async function recomputeHosts(db: Driver, hosts: Map<string, number | null>, c: PriorityConfig, sources: Set<string>): Promise<number> {
  const ids = [...hosts.keys()];
  let changed = 0;
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await db.all(
      `SELECT "id", "host_id", "source_id", ${FACT_COLUMNS} FROM "rec_vulnerabilities" WHERE "host_id" IN ${placeholders(chunk)} AND "status" <> 'fixed' AND "removed" = 0`,
      chunk,
    );
    const updates: [string | null, number | null, number | null, string][] = [];
    for (const r of rows) {
      const crit = hosts.get(String(r.host_id)) ?? null;
      const next = priorityOf(factsOfRow(r, crit), c);
      if (priorityDiffers(r, next, crit)) {
        updates.push([next.decision, next.priority, crit, String(r.id)]);
        sources.add(String(r.source_id));
      }
    }
    await writePriorities(db, updates);
    changed += updates.length;
  }
  return changed;
}

/** Open findings without a decision (stored before migration 27, or written without their status): computed with their host's criticality. */
async function fillMissing(db: Driver, c: PriorityConfig, sources: Set<string>): Promise<number> {
  // The summaries (a run's epilogue rebuilds its source's before this) say whether any is left: the
  // findings without a decision are mostly fixed ones, which a scan for open ones would read every run.
  await ensureSummariesFor(db);
  const left = await db.all(
    `SELECT 1 AS "x" FROM "sum_vuln_counts" WHERE "decision" IS NULL AND "status" IN ('open', 'reopened') AND "removed" = 0 AND "n" > 0 LIMIT 1`,
  );
  if (left.length === 0) return 0;
  let changed = 0;
  let after = '';
  for (;;) {
    const rows = await db.all(
      `SELECT r."id", r."source_id", h."criticality" AS "host_criticality", ${FACT_COLUMNS.replace(/"(\w+)"/g, 'r."$1"')} FROM "rec_vulnerabilities" r LEFT JOIN "rec_hosts" h ON h."id" = r."host_id"
       WHERE r."status" IN ('open', 'reopened') AND r."decision" IS NULL AND r."id" > ? ORDER BY r."id" LIMIT 5000`,
      [after],
    );
    if (rows.length === 0) return changed;
    after = String(rows[rows.length - 1]!.id);
    const updates: [string | null, number | null, number | null, string][] = [];
    for (const r of rows) {
      const crit = num(r.host_criticality);
      const next = priorityOf(factsOfRow(r, crit), c);
      updates.push([next.decision, next.priority, crit, String(r.id)]);
      sources.add(String(r.source_id));
    }
    await writePriorities(db, updates);
    changed += updates.length;
  }
}

/**
 * After a run's correlation: hosts' criticality from their ACR and CMDB records, and the open findings
 * of the hosts whose criticality changed, or that have no decision yet, recomputed. Returns what changed.
 */
export async function refreshPriorities(db: Driver): Promise<{ hosts: number; findings: number; sourceIds: string[] }> {
  const c = priorityConfig();
  const hosts = await refreshCriticality(db, c);
  const sources = new Set<string>();
  const findings = (await recomputeHosts(db, hosts, c, sources)) + (await fillMissing(db, c, sources));
  // The summaries count findings by decision: those of the sources whose findings changed are rebuilt.
  for (const id of sources) await refreshSummaries(db, id);
  return { hosts: hosts.size, findings, sourceIds: [...sources] };
}

/** Every open finding recomputed (after TRIBUTARY_PRIORITY changed): returns how many changed. */
export async function recomputeAllPriorities(db: Driver): Promise<number> {
  const c = priorityConfig();
  await refreshCriticality(db, c);
  let changed = 0;
  let after = '';
  for (;;) {
    const rows = await db.all(
      `SELECT r."id", h."criticality" AS "host_criticality", ${FACT_COLUMNS.replace(/"(\w+)"/g, 'r."$1"')} FROM "rec_vulnerabilities" r LEFT JOIN "rec_hosts" h ON h."id" = r."host_id"
       WHERE r."status" IN ('open', 'reopened') AND r."id" > ? ORDER BY r."id" LIMIT 5000`,
      [after],
    );
    if (rows.length === 0) {
      if (changed > 0) await refreshAllSummaries(db);
      return changed;
    }
    after = String(rows[rows.length - 1]!.id);
    const updates: [string | null, number | null, number | null, string][] = [];
    for (const r of rows) {
      const crit = num(r.host_criticality);
      const next = priorityOf(factsOfRow(r, crit), c);
      if (priorityDiffers(r, next, crit)) updates.push([next.decision, next.priority, crit, String(r.id)]);
    }
    await writePriorities(db, updates);
    changed += updates.length;
  }
}

/** Stored criticality of hosts, for a page of findings about to be written (writes.ts). */
export async function hostCriticality(db: Driver, ids: string[]): Promise<Map<string, number | null>> {
  const out = new Map<string, number | null>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    for (const r of await db.all(`SELECT "id", "criticality" FROM "rec_hosts" WHERE "id" IN ${placeholders(chunk)}`, chunk))
      out.set(String(r.id), num(r.criticality));
  }
  return out;
}
