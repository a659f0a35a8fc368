// Top remediations (issue 31 §2, docs/priority.md): the open findings grouped by the fix that closes
// them, one row per fix with its hosts, findings, the decisions it clears, owners and the share of the
// total priority it removes, largest share first. A fix is its plugin's solution text normalised
// (fixOf); upgrades of one product to successive versions are one fix, the newest version's.
import type { Decision } from '../../core/priority.ts';
import type { Driver } from '../db/driver.ts';
import { placeholders, sqlRound1 } from '../db/sql.ts';
import { ensureSummariesFor } from './summary-tables-write.ts';

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
  /** The source id of each of `plugins`, by index. */
  pluginSources: string[];
}

/**
 * The fixes (with `key`: that fix alone, the others only counted) from the plugin summaries; the
 * priority and findings of every fix in `totalPriority` and `totalFindings`, and their number in `fixes`.
 */
async function groups(
  db: Driver,
  opts: RemediationsOptions,
): Promise<{ groups: Map<string, Group>; totalPriority: number; totalFindings: number; fixes: number }> {
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
  const out = new Map<string, Group>();
  const keys = new Set<string>();
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
    keys.add(fix.key);
    if (opts.key !== undefined && fix.key !== opts.key) continue;
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
        pluginSources: [],
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
    g.plugins.push({ source: String(r.source), pluginId, name });
    g.pluginSources.push(String(r.source_id));
  }
  await addOwners(db, out, opts.key === undefined ? { where, params } : null);
  return { groups: out, totalPriority, totalFindings, fixes: keys.size };
}

/** Each fix's owners, from the per-plugin owners (`all`: every plugin's, read at once; null: only the fixes' plugins'). */
async function addOwners(db: Driver, fixes: Map<string, Group>, all: { where: string; params: unknown[] } | null): Promise<void> {
  const owners = new Map<string, string[]>();
  const add = (o: Record<string, unknown>) => {
    const k = `${o.source_id}\u0000${o.plugin_id}`;
    owners.set(k, [...(owners.get(k) ?? []), String(o.owner)]);
  };
  if (all) for (const o of await db.all(`SELECT sp."source_id", sp."plugin_id", sp."owner" FROM "sum_plugin_owners" sp${all.where}`, all.params)) add(o);
  else
    for (const [sourceId, ids] of pluginsBySource([...fixes.values()]))
      for (let i = 0; i < ids.length; i += 400) {
        const chunk = ids.slice(i, i + 400);
        for (const o of await db.all(
          `SELECT sp."source_id", sp."plugin_id", sp."owner" FROM "sum_plugin_owners" sp WHERE sp."source_id" = ? AND sp."plugin_id" IN ${placeholders(chunk)}`,
          [sourceId, ...chunk],
        ))
          add(o);
      }
  for (const g of fixes.values())
    g.plugins.forEach((p, i) => {
      for (const o of owners.get(`${g.pluginSources[i]}\u0000${p.pluginId}`) ?? []) if (!g.owners.includes(o)) g.owners.push(o);
    });
}

/** The plugin ids of fixes by source id. */
function pluginsBySource(fixes: Group[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const g of fixes)
    g.plugins.forEach((p, i) => {
      const sourceId = g.pluginSources[i]!;
      out.set(sourceId, [...(out.get(sourceId) ?? []), p.pluginId]);
    });
  return out;
}

/** Distinct hosts of a fix's findings (a fix of several plugins may have a host once per plugin in the summaries). */
async function hostsOf(db: Driver, g: Group): Promise<number> {
  const hosts = new Set<string>();
  for (const [sourceId, ids] of pluginsBySource([g]))
    for (let i = 0; i < ids.length; i += 400) {
      const chunk = ids.slice(i, i + 400);
      for (const r of await db.all(
        `SELECT DISTINCT r."host_id" FROM "rec_vulnerabilities" r WHERE ${byPlugin(db)} IN ${placeholders(chunk)} AND ${LIVE_OPEN_NOT_INDEXED(db)}`,
        [sourceId, ...chunk],
      ))
        hosts.add(String(r.host_id));
    }
  return hosts.size;
}

/** A fix as the report shows it, with its `hosts` (exactly, or the sum over its plugins). */
function itemOf(g: Group, hosts: number, hostsExact: boolean, totalPriority: number): RemediationFix {
  return {
    key: g.key,
    fix: g.fix,
    hosts,
    hostsExact,
    findings: g.findings,
    decisions: g.decisions,
    owners: g.owners.sort(),
    priority: Math.round(g.priority * 10) / 10,
    share: totalPriority > 0 ? Math.round((g.priority / totalPriority) * 10000) / 10000 : 0,
    plugins: g.plugins,
  };
}

export async function remediationsReport(db: Driver, opts: RemediationsOptions = {}): Promise<RemediationsReport> {
  if (opts.sourceIds?.length === 0) return { items: [], total: { fixes: 0, findings: 0, priority: 0 } };
  const { groups: all, totalPriority, totalFindings, fixes } = await groups(db, opts);
  const ranked = [...all.values()].sort((a, b) => b.priority - a.priority || b.findings - a.findings || (a.key < b.key ? -1 : 1));
  const chosen = opts.key !== undefined ? ranked : ranked.slice(0, Math.max(1, Math.min(opts.limit ?? 50, 1000)));
  const items: RemediationFix[] = [];
  for (const g of chosen) {
    // A fix of several plugins: the sum of its plugins' hosts (a host with two of them counted twice),
    // said by hostsExact; its drill-down (or ?key=) counts each once. Reading the findings of 50 fixes
    // to count them exactly took 1.7 s at 190k findings (bench/query-latency).
    const exact = g.plugins.length === 1 || opts.key !== undefined;
    items.push(itemOf(g, g.plugins.length > 1 && exact ? await hostsOf(db, g) : g.hosts, exact, totalPriority));
  }
  return { items, total: { fixes, findings: totalFindings, priority: Math.round(totalPriority * 10) / 10 } };
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

export interface RemediationHostsPage {
  fix: RemediationFix | null;
  /** The page of hosts asked for, most priority first, then by host id. */
  hosts: RemediationHost[];
  /** The fix's hosts before paging (its `hosts`). */
  total: number;
}

const DECISIONS = ['track', 'track-star', 'attend', 'act'] as const;

/**
 * The hosts a fix closes findings on (the drill-down), most priority first, then by host id; a page of
 * them (`limit`, `offset`) and their number. Only the fix's own plugins are read past the summaries
 * (not every fix's), its hosts are ordered and cut in SQL and only the page's hosts are joined: 16,664
 * hosts of one fix at 954k findings took 710 ms as a whole answer.
 */
export async function remediationHosts(
  db: Driver,
  key: string,
  sourceIds?: string[],
  page: { limit?: number; offset?: number } = {},
): Promise<RemediationHostsPage> {
  if (sourceIds?.length === 0) return { fix: null, hosts: [], total: 0 };
  const { groups: one, totalPriority } = await groups(db, { key, sourceIds });
  const g = one.get(key);
  if (!g) return { fix: null, hosts: [], total: 0 };
  // Per host over the fix's plugins of each source (a host with two of its plugins once), priority rounded as shown.
  const params: unknown[] = [];
  const branches: string[] = [];
  for (const [sourceId, ids] of pluginsBySource([g]))
    for (let i = 0; i < ids.length; i += 400) {
      const chunk = ids.slice(i, i + 400);
      branches.push(
        `SELECT r."host_id" AS "host_id", COUNT(*) AS "n", SUM(COALESCE(r."priority", 0)) AS "p",
           MAX(CASE r."decision" WHEN 'act' THEN 3 WHEN 'attend' THEN 2 WHEN 'track-star' THEN 1 WHEN 'track' THEN 0 END) AS "d"
         FROM "rec_vulnerabilities" r WHERE ${byPlugin(db)} IN ${placeholders(chunk)} AND ${LIVE_OPEN_NOT_INDEXED(db)} GROUP BY r."host_id"`,
      );
      params.push(sourceId, ...chunk);
    }
  const perHost = `SELECT u."host_id", SUM(u."n") AS "n", ${sqlRound1(db, 'SUM(u."p")')} AS "p", MAX(u."d") AS "d" FROM (${branches.join(' UNION ALL ')}) u GROUP BY u."host_id"`;
  const offset = page.offset ?? 0;
  // Ordered and cut first, then each host of the page joined once (not every host of the fix).
  const rows = await db.all(
    `SELECT g."host_id", g."n", g."p", g."d", g."total", h."hostname", h."fqdn", h."owner", h."department" FROM (
       SELECT x.*, COUNT(*) OVER () AS "total" FROM (${perHost}) x ORDER BY x."p" DESC, x."host_id" LIMIT ? OFFSET ?
     ) g LEFT JOIN "rec_hosts" h ON h."id" = g."host_id" ORDER BY g."p" DESC, g."host_id"`,
    [...params, page.limit ?? Number.MAX_SAFE_INTEGER, offset],
  );
  const total =
    rows.length > 0 ? Number(rows[0]!.total) : offset === 0 ? 0 : Number((await db.all(`SELECT COUNT(*) AS "n" FROM (${perHost}) x`, params))[0]?.n ?? 0);
  const hosts = rows.map((r) => ({
    hostId: String(r.host_id),
    name: (r.fqdn ?? r.hostname ?? null) as string | null,
    owner: (r.owner ?? null) as string | null,
    department: (r.department ?? null) as string | null,
    findings: Number(r.n),
    decision: r.d === null ? null : DECISIONS[Number(r.d)]!,
    priority: Number(r.p),
  }));
  return { fix: itemOf(g, total, true, totalPriority), hosts, total };
}
