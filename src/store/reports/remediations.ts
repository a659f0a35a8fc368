// Top remediations (issue 31 §2, docs/priority.md): the open findings grouped by the fix that closes
// them, one row per fix with its hosts, findings, the decisions it clears, owners and the share of the
// total priority it removes, largest share first. A fix is its plugin's solution text normalised
// (fixOf); upgrades of one product to successive versions are one fix, the newest version's.
import type { Decision } from '../../core/priority.ts';
import type { Driver } from '../db/driver.ts';
import { placeholders } from '../db/sql.ts';
import { ensureSummariesFor } from './summary-tables-write.ts';
import { anyActiveException, exceptedFindingsClause } from '../exceptions/exceptions.ts';
import { nowIso } from '../db/rows.ts';

export interface FixOf {
  /** What groups findings: the same key, the same fix. */
  key: string;
  /** The fix as shown (for an upgrade, the newest version's text wins). */
  text: string;
  /** An upgrade's product and version, compared to keep the newest. */
  version?: number[];
}

const UPGRADE_TO = /^upgrade (.+?) to (?:version )?v?(\d[\w.-]*) or later$/i;
const PRODUCT_IN_NAME = /^(.+?) < v?\d/;
const UPGRADE_TO_PRODUCT = /^upgrade to (.+?) (?:version )?v?(\d[\w.-]*) or later$/i;

/**
 * A plugin's fix: its solution with runs of whitespace as one space and no trailing period; matched
 * case-insensitively. "Upgrade X to V or later" and "Upgrade to X V or later" are one fix per product
 * whatever V (the plugins of a product's successive advisories ask for ever newer versions, and the
 * newest one closes them all); the product is the plugin name's part before " < " where it has one
 * ("Google Chrome < 120.0.2 Multiple Vulnerabilities"), else the solution's X. A plugin without a solution ("n/a", empty) is a fix of its own.
 */
export function fixOf(solution: unknown, plugin: { source: string; pluginId: string; name: unknown }): FixOf {
  const text = typeof solution === 'string' ? solution.replace(/\s+/g, ' ').trim().replace(/\.+$/, '') : '';
  if (text === '' || /^n\/?a$/i.test(text)) {
    const name = typeof plugin.name === 'string' && plugin.name !== '' ? plugin.name : `plugin ${plugin.pluginId}`;
    return { key: `plugin:${plugin.source}:${plugin.pluginId}`, text: `(no solution given) ${name}` };
  }
  const m = UPGRADE_TO.exec(text) ?? UPGRADE_TO_PRODUCT.exec(text);
  if (m) {
    // The product as the plugin names it ("Apache Tomcat 9.0.x < 9.0.83 …") where its name has that form
    // (two products' solutions may both say "Upgrade to Apache …"), else as the solution does.
    const named = typeof plugin.name === 'string' ? PRODUCT_IN_NAME.exec(plugin.name)?.[1] : undefined;
    const product = (named ?? m[1]!.replace(/\s+\d+(\.x)?$/i, '')).replace(/\s+/g, ' ').trim();
    return { key: `upgrade:${product.toLowerCase()}`, text: `${text}.`, version: versionOf(m[2]!) };
  }
  return { key: text.toLowerCase(), text: `${text}.` };
}

function versionOf(v: string): number[] {
  return v.split(/[.-]/).map((p) => Number.parseInt(p, 10) || 0);
}

function newer(a: number[], b: number[]): boolean {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return false;
}

export interface RemediationFix {
  key: string;
  fix: string;
  hosts: number;
  /** False: `hosts` is the sum over the fix's plugins (a host with two of them counted twice); the drill-down lists each once. */
  hostsExact: boolean;
  findings: number;
  /** The open findings it closes, by decision. */
  decisions: Record<Decision, number>;
  owners: string[];
  /** Priority summed over its findings. */
  priority: number;
  /** Its priority as a share of every open finding's (0–1). */
  share: number;
  plugins: { source: string; pluginId: string; name: string | null }[];
}

export interface RemediationsReport {
  items: RemediationFix[];
  total: { fixes: number; findings: number; priority: number };
}

export interface RemediationsOptions {
  sourceIds?: string[];
  limit?: number;
  /** Only the fix with this key (a drill-down). */
  key?: string;
}

/**
 * A plugin's findings of a source, found through the plugin index: SQLite (without statistics) would take
 * the (source, removed) index for the two equalities and scan every finding of the source, so its other
 * terms are kept from indexes (a unary + on SQLite). `?` order: source, then the plugin(s).
 */
const byPlugin = (db: Driver) => (db.dialect === 'sqlite' ? `+r."source_id" = ? AND r."plugin_id"` : `r."source_id" = ? AND r."plugin_id"`);
const LIVE_OPEN_NOT_INDEXED = (db: Driver) =>
  db.dialect === 'sqlite' ? `+r."removed" = 0 AND +r."status" IN ('open', 'reopened')` : `r."removed" = 0 AND r."status" IN ('open', 'reopened')`;

interface Group extends RemediationFix {
  version?: number[];
}

async function groups(db: Driver, opts: RemediationsOptions): Promise<{ groups: Map<string, Group>; totalPriority: number; totalFindings: number }> {
  await ensureSummariesFor(db, opts.sourceIds);
  const params: unknown[] = [];
  let where = '';
  if (opts.sourceIds) {
    where = ` WHERE sp."source_id" IN ${placeholders(opts.sourceIds)}`;
    params.push(...opts.sourceIds);
  }
  // Per plugin from the summaries (a run's epilogue keeps them): its open findings, hosts, decisions and priority.
  const rows = await db.all(
    `SELECT sp."source_id", s."name" AS "source", sp."plugin_id", sp."plugin_name", sp."findings", sp."hosts", sp."act", sp."attend", sp."track_star", sp."track",
       sp."priority", p."solution", p."name"
     FROM "sum_plugins" sp JOIN "sources" s ON s."id" = sp."source_id" LEFT JOIN "rec_plugins" p ON p."source_id" = sp."source_id" AND p."plugin_id" = sp."plugin_id"${where}`,
    params,
  );
  const owners = new Map<string, string[]>();
  for (const o of await db.all(`SELECT sp."source_id", sp."plugin_id", sp."owner" FROM "sum_plugin_owners" sp${where}`, params)) {
    const k = `${o.source_id}\u0000${o.plugin_id}`;
    owners.set(k, [...(owners.get(k) ?? []), String(o.owner)]);
  }
  const out = new Map<string, Group>();
  let totalPriority = 0;
  let totalFindings = 0;
  for (const r of rows) {
    const pluginId = String(r.plugin_id);
    const name = (r.name ?? r.plugin_name ?? null) as string | null;
    const fix = fixOf(r.solution, { source: String(r.source), pluginId, name });
    const n = Number(r.findings);
    const pr = Number(r.priority ?? 0);
    totalPriority += pr;
    totalFindings += n;
    let g = out.get(fix.key);
    if (!g) {
      g = {
        key: fix.key,
        fix: fix.text,
        version: fix.version,
        hosts: 0,
        hostsExact: true,
        findings: 0,
        decisions: { act: 0, attend: 0, 'track-star': 0, track: 0 },
        owners: [],
        priority: 0,
        share: 0,
        plugins: [],
      };
      out.set(fix.key, g);
    } else if (fix.version && g.version && newer(fix.version, g.version)) {
      // The newest version's upgrade closes the older advisories' findings too.
      g.fix = fix.text;
      g.version = fix.version;
    }
    g.findings += n;
    g.hosts += Number(r.hosts);
    g.priority += pr;
    g.decisions.act += Number(r.act ?? 0);
    g.decisions.attend += Number(r.attend ?? 0);
    g.decisions['track-star'] += Number(r.track_star ?? 0);
    g.decisions.track += Number(r.track ?? 0);
    for (const o of owners.get(`${r.source_id}\u0000${pluginId}`) ?? []) if (!g.owners.includes(o)) g.owners.push(o);
    g.plugins.push({ source: String(r.source), pluginId, name });
  }
  return { groups: out, totalPriority, totalFindings };
}

/** Distinct hosts of a fix's findings (a fix of several plugins may have a host once per plugin in the summaries). */
async function hostsOf(db: Driver, g: RemediationFix, sources: Map<string, string>, sourceIds?: string[]): Promise<string[]> {
  const hosts = new Set<string>();
  const bySource = new Map<string, string[]>();
  for (const p of g.plugins) {
    const id = sources.get(p.source);
    if (id === undefined || (sourceIds && !sourceIds.includes(id))) continue;
    bySource.set(id, [...(bySource.get(id) ?? []), p.pluginId]);
  }
  for (const [sourceId, ids] of bySource)
    for (let i = 0; i < ids.length; i += 400) {
      const chunk = ids.slice(i, i + 400);
      for (const r of await db.all(
        `SELECT DISTINCT r."host_id" FROM "rec_vulnerabilities" r WHERE ${byPlugin(db)} IN ${placeholders(chunk)} AND ${LIVE_OPEN_NOT_INDEXED(db)}`,
        [sourceId, ...chunk],
      ))
        hosts.add(String(r.host_id));
    }
  return [...hosts];
}

async function sourceIdsByName(db: Driver): Promise<Map<string, string>> {
  return new Map((await db.all(`SELECT "id", "name" FROM "sources"`)).map((r) => [String(r.name), String(r.id)]));
}

export async function remediationsReport(db: Driver, opts: RemediationsOptions = {}): Promise<RemediationsReport> {
  if (opts.sourceIds?.length === 0) return { items: [], total: { fixes: 0, findings: 0, priority: 0 } };
  const { groups: all, totalPriority, totalFindings } = await groups(db, opts);
  const ranked = [...all.values()].sort((a, b) => b.priority - a.priority || b.findings - a.findings || (a.key < b.key ? -1 : 1));
  const chosen = opts.key !== undefined ? ranked.filter((g) => g.key === opts.key) : ranked.slice(0, Math.max(1, Math.min(opts.limit ?? 50, 1000)));
  const sources = opts.key !== undefined ? await sourceIdsByName(db) : new Map<string, string>();
  const items: RemediationFix[] = [];
  for (const g of chosen) {
    // A fix of several plugins: the sum of its plugins' hosts (a host with two of them counted twice),
    // said by hostsExact; its drill-down (or ?key=) counts each once. Reading the findings of 50 fixes
    // to count them exactly took 1.7 s at 190k findings (bench/query-latency).
    const exact = g.plugins.length === 1 || opts.key !== undefined;
    const hosts = g.plugins.length > 1 && exact ? (await hostsOf(db, g, sources, opts.sourceIds)).length : g.hosts;
    items.push({
      key: g.key,
      fix: g.fix,
      hosts,
      hostsExact: exact,
      findings: g.findings,
      decisions: g.decisions,
      owners: g.owners.sort(),
      priority: Math.round(g.priority * 10) / 10,
      share: totalPriority > 0 ? Math.round((g.priority / totalPriority) * 10000) / 10000 : 0,
      plugins: g.plugins,
    });
  }
  return { items, total: { fixes: all.size, findings: totalFindings, priority: Math.round(totalPriority * 10) / 10 } };
}

export interface RemediationHost {
  hostId: string;
  name: string | null;
  owner: string | null;
  department: string | null;
  findings: number;
  /** The highest decision of its findings the fix closes. */
  decision: Decision | null;
  priority: number;
}

/** The hosts a fix closes findings on (the drill-down), most priority first. */
export async function remediationHosts(db: Driver, key: string, sourceIds?: string[]): Promise<{ fix: RemediationFix | null; hosts: RemediationHost[] }> {
  const report = await remediationsReport(db, { key, sourceIds });
  const fix = report.items[0] ?? null;
  if (!fix) return { fix: null, hosts: [] };
  const sources = await sourceIdsByName(db);
  const out = new Map<string, RemediationHost>();
  const rank: Record<string, number> = { track: 0, 'track-star': 1, attend: 2, act: 3 };
  for (const p of fix.plugins) {
    const sourceId = sources.get(p.source);
    if (sourceId === undefined) continue;
    for (const r of await db.all(
      // Grouped per host first, then each host joined once (not once per finding).
      `SELECT g."host_id", h."hostname", h."fqdn", h."owner", h."department", g."n", g."p", g."d" FROM (
         SELECT r."host_id" AS "host_id", COUNT(*) AS "n", SUM(COALESCE(r."priority", 0)) AS "p",
         MAX(CASE r."decision" WHEN 'act' THEN 3 WHEN 'attend' THEN 2 WHEN 'track-star' THEN 1 WHEN 'track' THEN 0 END) AS "d"
         FROM "rec_vulnerabilities" r WHERE ${byPlugin(db)} = ? AND ${LIVE_OPEN_NOT_INDEXED(db)} GROUP BY r."host_id"
       ) g LEFT JOIN "rec_hosts" h ON h."id" = g."host_id"`,
      [sourceId, p.pluginId],
    )) {
      const id = String(r.host_id);
      const h = out.get(id) ?? {
        hostId: id,
        name: (r.fqdn ?? r.hostname ?? null) as string | null,
        owner: (r.owner ?? null) as string | null,
        department: (r.department ?? null) as string | null,
        findings: 0,
        decision: null,
        priority: 0,
      };
      h.findings += Number(r.n);
      h.priority = Math.round((h.priority + Number(r.p)) * 10) / 10;
      const d = r.d === null ? null : (['track', 'track-star', 'attend', 'act'] as const)[Number(r.d)]!;
      if (d !== null && (h.decision === null || rank[d]! > rank[h.decision]!)) h.decision = d;
      out.set(id, h);
    }
  }
  return { fix, hosts: [...out.values()].sort((a, b) => b.priority - a.priority || (a.hostId < b.hostId ? -1 : 1)) };
}

/**
 * Open findings by decision per host placement (assetId, owner or department), or in all (by null); from
 * the per-host summaries, less the findings an approved risk exception covers (docs/findings.md).
 */
export async function decisionCounts(
  db: Driver,
  by: 'assetId' | 'owner' | 'department' | null,
  sourceIds?: string[],
): Promise<{ group: string | null; act: number; attend: number; trackStar: number; track: number; priority: number }[]> {
  if (sourceIds?.length === 0) return [];
  await ensureSummariesFor(db, sourceIds);
  const params: unknown[] = [];
  let where = '';
  if (sourceIds) {
    where = ` WHERE s."source_id" IN ${placeholders(sourceIds)}`;
    params.push(...sourceIds);
  }
  const column = by === null ? null : { assetId: 'asset_id', owner: 'owner', department: 'department' }[by];
  const col = column && `h."${column}"`;
  // The host summaries carry their host's placement (kept by correlation): no join with the hosts.
  const rows = await db.all(
    `SELECT ${column ? `s."${column}"` : 'NULL'} AS "g", SUM(s."act") AS "act", SUM(s."attend") AS "attend", SUM(s."track_star") AS "track_star", SUM(s."track") AS "track",
       SUM(s."priority") AS "p"
     FROM "sum_hosts" s${where}${column ? ` GROUP BY s."${column}"` : ''}`,
    params,
  );
  const out = rows.map((r) => ({
    group: (r.g ?? null) as string | null,
    act: Number(r.act ?? 0),
    attend: Number(r.attend ?? 0),
    trackStar: Number(r.track_star ?? 0),
    track: Number(r.track ?? 0),
    priority: Number(r.p ?? 0),
  }));
  // Less the open findings an approved, unexpired risk exception covers (as the overdue counts leave them out).
  const now = nowIso();
  if (await anyActiveException(db, now)) {
    const xp: unknown[] = [];
    const excepted = exceptedFindingsClause('r', now, xp);
    const xrows = await db.all(
      `SELECT ${col ?? 'NULL'} AS "g", r."decision" AS "d", COUNT(*) AS "n", SUM(COALESCE(r."priority", 0)) AS "p"
       FROM "rec_vulnerabilities" r${col ? ` LEFT JOIN "rec_hosts" h ON h."id" = r."host_id"` : ''}
       WHERE r."removed" = 0 AND r."status" IN ('open', 'reopened') AND ${excepted}${sourceIds ? ` AND r."source_id" IN ${placeholders(sourceIds)}` : ''} GROUP BY ${col ? `${col}, ` : ''}r."decision"`,
      [...xp, ...(sourceIds ?? [])],
    );
    const key = { act: 'act', attend: 'attend', 'track-star': 'trackStar', track: 'track' } as const;
    for (const x of xrows) {
      const row = out.find((o) => o.group === ((x.g ?? null) as string | null));
      const k = key[String(x.d) as keyof typeof key];
      if (!row || !k) continue;
      row[k] = Math.max(0, row[k] - Number(x.n));
      row.priority = Math.max(0, row.priority - Number(x.p ?? 0));
    }
  }
  return out
    .map((o) => ({ ...o, priority: Math.round(o.priority * 10) / 10 }))
    .filter((o) => o.act + o.attend + o.trackStar + o.track > 0 || col === null)
    .sort((a, b) => b.act - a.act || b.priority - a.priority);
}
