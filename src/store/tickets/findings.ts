// The findings a remediation-ticket plan reads, narrow: only the columns grouping needs (the finding's
// host, plugin, severity, known-exploited answer, status, and its host's placement), in
// pages by id, so a plan over a million findings reads them in seconds (the general record query reads
// every column and computes SLA dates).
import type { Driver, Row } from '../db/driver.ts';
import { placeholders } from '../db/sql.ts';
import { nowIso } from '../db/rows.ts';
import { anyActiveException, exceptedFindingsClause, FINDING_EXCEPTION_SQL } from '../exceptions/exceptions.ts';
import { fixOf } from '../reports/remediations.ts';

export interface TicketFindingRow {
  id: string;
  sourceId: string;
  hostId: string;
  pluginId: string;
  pluginName: string | null;
  severity: string;
  knownExploited: boolean;
  /** The SSVC decision (act, attend, track-star, track), null before priorities are computed. */
  decision: string | null;
  status: string;
  removed: boolean;
  assetId: string | null;
  owner: string | null;
  department: string | null;
  site: string | null;
  /** An approved, unexpired risk exception covers it (out of every group). */
  excepted: boolean;
  /** That exception's id and reason (read by id only: a closed request names them). */
  exception?: { id: string; reason: string } | null;
}

const COLUMNS = `r."id", r."source_id", r."host_id", r."plugin_id", r."plugin_name", r."severity", r."known_exploited", r."decision", r."status", r."removed",
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
    decision: text(r.decision),
    status: String(r.status ?? 'open'),
    removed: Number(r.removed) === 1 || r.removed === true,
    assetId: text(r.asset_id),
    owner: text(r.owner),
    department: text(r.department),
    site: text(r.site),
    excepted: Number(r.excepted) === 1 || r.excepted === true,
    exception: exceptionOf(r.exception_info),
  };
}

/** FINDING_EXCEPTION_SQL's `rank|expiresAt|state|id|reason` of an approved exception, as its id and reason. */
function exceptionOf(v: unknown): { id: string; reason: string } | null {
  if (typeof v !== 'string' || !v.startsWith('1|')) return null;
  const parts = v.split('|');
  return { id: parts[3] ?? '', reason: parts.slice(4).join('|') };
}

export interface TicketSelection {
  severities: string[];
  knownExploited: boolean;
  /** When given, the findings of these SSVC decisions are selected instead (severity and known-exploited aside). */
  decisions?: string[];
}

/**
 * The WHERE clause of the findings a plan may ticket: open (not fixed, not removed), of these severities
 * or known exploited, and no approved, unexpired risk exception covers them (out of every group). Null
 * when nothing can be selected.
 */
async function selection(db: Driver, o: TicketSelection): Promise<{ where: string; params: unknown[] } | null> {
  const byDecision = o.decisions !== undefined;
  const which = byDecision
    ? o.decisions!.length
      ? [`r."decision" IN ${placeholders(o.decisions!)}`]
      : []
    : [...(o.severities.length ? [`r."severity" IN ${placeholders(o.severities)}`] : []), ...(o.knownExploited ? [`r."known_exploited" = 1`] : [])];
  if (!which.length) return null;
  const now = nowIso();
  const params: unknown[] = byDecision ? [...o.decisions!] : [...o.severities];
  const notExcepted = (await anyActiveException(db, now)) ? ` AND NOT ${exceptedFindingsClause('r', now, params)}` : '';
  return { where: `r."status" <> 'fixed' AND r."removed" = 0 AND (${which.join(' OR ')})${notExcepted}`, params };
}

/** Only the findings of these plugins, or on these hosts or assets (the groups a plan reads in full). */
export interface TicketFindingFilter {
  pluginIds?: string[];
  hostIds?: string[];
  assetIds?: string[];
}

/**
 * Open findings the selection holds (see `selection`), in pages of `pageSize` by id; with `only`, just
 * those of its plugins, hosts or assets.
 */
export async function openTicketFindings(db: Driver, o: TicketSelection & { pageSize?: number; only?: TicketFindingFilter }): Promise<TicketFindingRow[]> {
  const out: TicketFindingRow[] = [];
  const size = Math.max(1, Math.min(100_000, Math.floor(o.pageSize ?? 50_000)));
  const sel = await selection(db, o);
  if (!sel) return out;
  // With a filter: one pass per 500 of its values.
  const passes: { clause: string; params: unknown[] }[] = [];
  if (!o.only) passes.push({ clause: '', params: [] });
  else {
    const add = (column: string, values: string[] | undefined) => {
      for (let i = 0; values && i < values.length; i += 500) {
        const chunk = values.slice(i, i + 500);
        passes.push({ clause: ` AND ${column} IN ${placeholders(chunk)}`, params: chunk });
      }
    };
    add(`r."plugin_id"`, o.only.pluginIds);
    add(`r."host_id"`, o.only.hostIds);
    add(`h."asset_id"`, o.only.assetIds);
  }
  const seen = new Set<string>();
  for (const pass of passes) {
    let after = '';
    for (;;) {
      const rows = await db.all(`SELECT ${COLUMNS} FROM ${FROM} WHERE ${sel.where}${pass.clause} AND r."id" > ? ORDER BY r."id" LIMIT ${size}`, [
        ...sel.params,
        ...pass.params,
        after,
      ]);
      for (const r of rows) {
        const row = rowOf(r);
        if (passes.length > 1 && seen.has(row.id)) continue;
        if (passes.length > 1) seen.add(row.id);
        out.push(row);
      }
      if (rows.length < size) break;
      after = String(rows[rows.length - 1]!.id);
    }
  }
  return out;
}

/** A count of selected open findings sharing what a group key is made of. */
export interface TicketGroupCount {
  /** Null unless `byPlugin`. */
  pluginId: string | null;
  /** The host's correlated asset, else (null) the host: only with `byAsset`. */
  assetId: string | null;
  hostId: string | null;
  department: string | null;
  owner: string | null;
  site: string | null;
  /** In `stored`: the group key the findings were last written with. */
  storedKey: string | null;
  n: number;
}

/**
 * What a plan needs to tell which groups changed, counted in SQL without reading a finding: the selected
 * open findings counted by what their group key is made of (`totals`), and the same counted by the key of
 * the request of `sourceId` they were last written with (`stored`: only findings some request lists). A
 * group is unchanged when its total and the count stored under its own key both equal its request's
 * finding count.
 */
export async function ticketGroupCounts(
  db: Driver,
  o: TicketSelection & { sourceId: string; byPlugin: boolean; byAsset: boolean },
): Promise<{ totals: TicketGroupCount[]; stored: TicketGroupCount[] }> {
  const sel = await selection(db, o);
  if (!sel) return { totals: [], stored: [] };
  const cols = [
    o.byPlugin ? `r."plugin_id"` : `NULL`,
    o.byAsset ? `NULLIF(h."asset_id", '')` : `NULL`,
    o.byAsset ? `CASE WHEN h."asset_id" IS NULL OR h."asset_id" = '' THEN r."host_id" END` : `NULL`,
    `h."department"`,
    `h."owner"`,
    `h."site"`,
  ];
  const select = `${cols[0]} AS "plugin_id", ${cols[1]} AS "asset_id", ${cols[2]} AS "host_id", ${cols[3]} AS "department", ${cols[4]} AS "owner", ${cols[5]} AS "site"`;
  const groupBy = cols.flatMap((c, i) => (c === 'NULL' ? [] : [String(i + 1)])).join(', ');
  const of = (r: Row, stored: boolean): TicketGroupCount => ({
    pluginId: text(r.plugin_id),
    assetId: text(r.asset_id),
    hostId: text(r.host_id),
    department: text(r.department),
    owner: text(r.owner),
    site: text(r.site),
    storedKey: stored ? text(r.group_key) : null,
    n: Number(r.n),
  });
  // One pass: each finding counted under its parts and the key it was last written with (a finding is
  // stored under one key at most: remediation_ticket_findings' key is the finding).
  const rows = await withLargeCache(db, () =>
    db.all(
      `SELECT ${select}, m."group_key", COUNT(*) AS "n" FROM ${FROM} LEFT JOIN "remediation_ticket_findings" m ON m."source_id" = ? AND m."finding_id" = r."id" WHERE ${sel.where} GROUP BY ${groupBy}, m."group_key"`,
      [o.sourceId, ...sel.params],
    ),
  );
  const totals = new Map<string, TicketGroupCount>();
  const stored: TicketGroupCount[] = [];
  for (const r of rows) {
    const c = of(r, true);
    const id = JSON.stringify([c.pluginId, c.assetId, c.hostId, c.department, c.owner, c.site]);
    const t = totals.get(id);
    if (t) t.n += c.n;
    else totals.set(id, { ...c, storedKey: null });
    if (c.storedKey !== null) stored.push(c);
  }
  return { totals: [...totals.values()], stored };
}

/**
 * SQLite: this one pass joins every selected finding to its host and its stored key by id, which
 * thrashes the default 2 MiB page cache; it gets 128 MiB while it runs, and the connection goes back to
 * the default after, so the memory is not kept by every connection for the process's life.
 */
async function withLargeCache<T>(db: Driver, fn: () => Promise<T>): Promise<T> {
  if (db.dialect !== 'sqlite') return fn();
  await db.exec('PRAGMA cache_size = -131072');
  try {
    return await fn();
  } finally {
    await db.exec('PRAGMA cache_size = -2000');
  }
}

/** Findings by id, whatever their status (ids not found are left out). */
export async function ticketFindingsByIds(db: Driver, ids: string[]): Promise<TicketFindingRow[]> {
  const out: TicketFindingRow[] = [];
  const now = nowIso();
  const any = ids.length > 0 && (await anyActiveException(db, now));
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const params: unknown[] = [];
    const excepted = any
      ? `, CASE WHEN ${exceptedFindingsClause('r', now, params)} THEN 1 ELSE 0 END AS "excepted", ${FINDING_EXCEPTION_SQL} AS "exception_info"`
      : '';
    for (const r of await db.all(`SELECT ${COLUMNS}${excepted} FROM ${FROM} WHERE r."id" IN ${placeholders(chunk)}`, [...params, ...chunk])) out.push(rowOf(r));
  }
  return out;
}

/** A plugin's fix as the top-remediations report reads it (fixOf), for grouping requests per fix. */
export interface TicketPluginFix {
  pluginId: string;
  /** fixOf's key: the same key, the same fix (successive upgrades of one product are one). */
  fix: string;
  /** The fix as shown (the plugin's solution). */
  text: string;
}

/**
 * The fix of each of these plugins (issue 31 §2's fixOf over the plugin's solution and name), from the
 * scanners' plugin records; a plugin known to two sources takes the first source's (by name). Plugins
 * without a record are left out (their findings group by plugin).
 */
export async function ticketPluginFixes(db: Driver, pluginIds: string[]): Promise<TicketPluginFix[]> {
  const out = new Map<string, TicketPluginFix>();
  for (let i = 0; i < pluginIds.length; i += 500) {
    const chunk = pluginIds.slice(i, i + 500);
    const rows = await db.all(
      `SELECT p."plugin_id", p."name", p."solution", s."name" AS "source" FROM "rec_plugins" p JOIN "sources" s ON s."id" = p."source_id"
       WHERE p."plugin_id" IN ${placeholders(chunk)} ORDER BY s."name"`,
      chunk,
    );
    for (const r of rows) {
      const pluginId = String(r.plugin_id);
      if (out.has(pluginId)) continue;
      const f = fixOf(r.solution, { source: String(r.source), pluginId, name: r.name });
      out.set(pluginId, { pluginId, fix: f.key, text: f.text });
    }
  }
  return [...out.values()];
}
