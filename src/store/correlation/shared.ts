// Correlation in the store: the helpers the full pass (correlation-full.ts) and the incremental pass
// (correlation-incremental.ts) share. Both write the links, the assets, and each host's and CMDB
// record's assetId / owner / department / site (a finding reads its host's), changing only rows that differ.
import { buildAsset, components, type ManualNote, ownerOf, type Rec, type StoredLink } from '../../correlate/assets.ts';
import { IDENT_KINDS } from '../../correlate/engine.ts';
import type { Identifiers } from '../../correlate/normalize.ts';
import { type FieldDef, MODEL_FIELDS } from '../../core/models.ts';
import type { Driver, InsertSql, Row } from '../db/driver.ts';
import { columnOf, q, toColumnValue } from '../db/schema.ts';
import { paddedInList, placeholders } from '../db/sql.ts';
import { HOST_PLACEMENT } from '../reports/summary-tables-write.ts';
import { applyOwnerMoves, type OwnerMove, stagedOwnerMoves } from '../reports/plugin-owners.ts';
import { placementWritten } from '../reports/summary-tables-guard.ts';

// Ids and values per IN list: few round trips (PostgreSQL) and far below either store's parameter limit.
export const CHUNK = 5000;

export interface CorrelationResult {
  mode: 'full' | 'incremental';
  hosts: number;
  cmdbAssets: number;
  assets: number;
  linked: number;
  ambiguous: number;
  /** Asset ids the pass deleted (an incremental pass rebuilds assets; tickets pointing at these are linked again). */
  replacedAssetIds: Set<string>;
}

export const HOST_COLS = [
  'id',
  'first_seen',
  'last_seen',
  'ip_addresses',
  'mac_addresses',
  'hostname',
  'fqdn',
  'netbios_name',
  'serial_number',
  'repository',
  'scanner_last_seen',
  'asset_id',
  'owner',
  'department',
  'site',
];
export const CMDB_COLS = [
  'id',
  'first_seen',
  'last_seen',
  'name',
  'serial_number',
  'bios_uuid',
  'fqdn',
  'mac_addresses',
  'ip_addresses',
  'site',
  'owner',
  'assigned_user',
  'department',
  'asset_id',
];

/** Row → record converters, the column of each field computed once. */
const converters = new Map<string, [string, string, FieldDef][]>();
export function toRec(model: 'hosts' | 'cmdb-assets', row: Row): Rec {
  let conv = converters.get(model);
  if (!conv) {
    conv = MODEL_FIELDS[model].map((f) => [f.name, columnOf(f.name), f] as [string, string, FieldDef]);
    converters.set(model, conv);
  }
  const out: Rec = { id: String(row.id), firstSeen: row.first_seen ?? null, lastSeen: row.last_seen ?? null };
  for (const [name, c, f] of conv) {
    const v = row[c];
    if (v !== undefined) out[name] = v === null ? null : f.kind === 'json' ? JSON.parse(String(v)) : v;
  }
  if ('bios_uuid' in row) out.biosUuid = row.bios_uuid ?? null;
  return out;
}

/** Columns read from hosts: the identity branch's `bios_uuid` when this database has it. */
export async function hostColumns(db: Driver): Promise<string[]> {
  try {
    await db.all(`SELECT "bios_uuid" FROM "rec_hosts" WHERE 1 = 0`);
    return [...HOST_COLS, 'bios_uuid'];
  } catch {
    return HOST_COLS;
  }
}

/**
 * What the full pass's assets take of a host or CMDB record besides its identifiers (names, serials
 * and addresses come from those); repeated values (times of one run, sites, departments, owners) are
 * one string each.
 */
export function slim(model: 'hosts' | 'cmdb-assets', r: Rec, intern: (v: unknown) => unknown): Rec {
  if (model === 'hosts') return { id: r.id, firstSeen: intern(r.firstSeen), lastSeen: intern(r.lastSeen), scannerLastSeen: intern(r.scannerLastSeen ?? null) };
  return {
    id: r.id,
    firstSeen: intern(r.firstSeen),
    lastSeen: intern(r.lastSeen),
    name: r.name ?? null,
    owner: intern(r.owner ?? null),
    assignedUser: intern(r.assignedUser ?? null),
    department: intern(r.department ?? null),
    site: intern(r.site ?? null),
  };
}

export function interner(): (v: unknown) => unknown {
  const seen = new Map<string, string>();
  return (v) => {
    if (typeof v !== 'string') return v;
    const had = seen.get(v);
    if (had !== undefined) return had;
    if (seen.size < 200_000) seen.set(v, v);
    return v;
  };
}

export async function loadByIds(db: Driver, table: string, cols: string[], all: string[]): Promise<Row[]> {
  const ids = paddedInList(db, all, CHUNK);
  const out: Row[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    out.push(...(await db.all(`SELECT ${cols.map(q).join(',')}, "removed" FROM ${q(table)} WHERE "id" IN ${placeholders(chunk)}`, chunk)));
  }
  return out;
}

export async function usersLookup(db: Driver): Promise<(name: string) => Rec | undefined> {
  const rows = await db.all(`SELECT "id", "name", "email", "department" FROM "rec_users" WHERE "removed" = 0 AND "department" IS NOT NULL`);
  const byName = new Map<string, Rec>();
  for (const r of rows) {
    const rec: Rec = { id: String(r.id), department: r.department };
    if (r.name) byName.set(String(r.name).toLowerCase(), rec);
    if (r.email) byName.set(String(r.email).toLowerCase(), rec);
  }
  return (name) => byName.get(name.toLowerCase());
}

/**
 * Every host's open findings by severity, from the summaries (sum_hosts: live open findings per host,
 * kept by each run's epilogue): a row per host and severity instead of a grouped scan of every
 * finding. A severity outside the five is not counted.
 */
export async function openFindingsOfAllHosts(db: Driver): Promise<Map<string, Record<string, number>>> {
  const out = new Map<string, Record<string, number>>();
  for (const r of await db.all(`SELECT "host_id", "critical", "high", "medium", "low", "info" FROM "sum_hosts"`)) {
    const m: Record<string, number> = {};
    for (const sev of ['critical', 'high', 'medium', 'low', 'info']) if (Number(r[sev]) > 0) m[sev] = Number(r[sev]);
    out.set(String(r.host_id), m);
  }
  return out;
}

export async function openFindings(db: Driver, hostIds: string[]): Promise<Map<string, Record<string, number>>> {
  const out = new Map<string, Record<string, number>>();
  const add = (rows: Row[]) => {
    for (const r of rows) {
      const id = String(r.host_id);
      let m = out.get(id);
      if (!m) {
        m = {};
        out.set(id, m);
      }
      m[String(r.severity)] = Number(r.n);
    }
  };
  const base = `SELECT "host_id", "severity", COUNT(*) AS "n" FROM "rec_vulnerabilities" WHERE "removed" = 0 AND "status" IN ('open', 'reopened')`;
  for (let i = 0, ids = paddedInList(db, hostIds, CHUNK); i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    add(await db.all(`${base} AND "host_id" IN ${placeholders(chunk)} GROUP BY "host_id", "severity"`, chunk));
  }
  return out;
}

/** A manual link or unlink as stored: who made it (null: before that was recorded) and when. */
export type Override = { hostId: string; cmdbAssetId: string; action: 'link' | 'unlink'; by: string | null; at: string };

export async function loadOverrides(db: Driver, hostIds: string[] | null): Promise<Override[]> {
  const map = (rows: Row[]) =>
    rows.map((r) => ({
      hostId: String(r.host_id),
      cmdbAssetId: String(r.cmdb_asset_id),
      action: r.action as 'link' | 'unlink',
      by: (r.created_by as string | null) ?? null,
      at: String(r.created_at),
    }));
  if (hostIds === null) return map(await db.all(`SELECT * FROM "asset_overrides"`));
  const out: Override[] = [];
  for (let i = 0, ids = paddedInList(db, hostIds, CHUNK); i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    out.push(...map(await db.all(`SELECT * FROM "asset_overrides" WHERE "host_id" IN ${placeholders(chunk)}`, chunk)));
  }
  return out;
}

/** Who made each manual link and when, for linksOf. */
export function manualNotes(overrides: Override[]): (hostId: string, cmdbAssetId: string) => ManualNote | undefined {
  const notes = new Map(overrides.filter((o) => o.action === 'link').map((o) => [`${o.hostId}\u0000${o.cmdbAssetId}`, { by: o.by, at: o.at }]));
  return (hostId, cmdbAssetId) => notes.get(`${hostId}\u0000${cmdbAssetId}`);
}

const ins = (table: string, cols: string[]): InsertSql => ({ head: `INSERT INTO ${q(table)} (${cols.map(q).join(',')})`, columns: cols.length, tail: '' });

/**
 * Plain inserts of many rows: PostgreSQL COPYs them (insertMany); SQLite takes them as multi-row
 * statements, one call per few hundred rows instead of one per row (the per-call cost dominated).
 */
export async function bulkInsert(db: Driver, table: string, cols: string[], rows: unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  if (db.dialect === 'postgres') return db.insertMany(ins(table, cols), rows);
  // A statement's compiled program grows with its rows (and the driver caches it): a hundred rows per
  // call already amortise the call, the rest go one by one through the driver.
  const per = 100;
  const one = `${placeholders(cols)}`;
  const full = rows.length - (rows.length % per);
  const sql = `INSERT INTO ${q(table)} (${cols.map(q).join(',')}) VALUES ${Array(per).fill(one).join(',')}`;
  for (let i = 0; i < full; i += per) await db.run(sql, rows.slice(i, i + per).flat());
  if (full < rows.length) await db.insertMany(ins(table, cols), rows.slice(full));
}

export function identRows(side: 'h' | 'c', x: Identifiers): unknown[][] {
  const rows: unknown[][] = [];
  for (const kind of IDENT_KINDS) for (const v of x[kind]) rows.push([x.id, side, kind, v, x.scope]);
  return rows;
}

const ASSET_FIELDS = MODEL_FIELDS.assets;
export const ASSET_COLS = ['id', 'source_id', 'natural_key', 'external_id', 'first_seen', 'last_seen', 'removed', ...ASSET_FIELDS.map((f) => columnOf(f.name))];

export function assetRow(a: ReturnType<typeof buildAsset>): unknown[] {
  const rec = a as unknown as Record<string, unknown>;
  return [a.id, '', a.cmdbAssetIds[0] ?? a.hostIds[0], null, a.firstSeen, a.lastSeen, 0, ...ASSET_FIELDS.map((f) => toColumnValue(f, rec[f.name]))];
}

export interface Placement {
  assetId: string | null;
  owner: string | null;
  department: string | null;
  site: string | null;
}

/**
 * Copies columns from the staged rows of asset_scratch onto `table`'s rows whose `key` names one: a
 * row-value SET, only for rows named in the stage (found through the table's own index: an UPDATE …
 * FROM made SQLite scan the whole target table) and only where a value differs.
 */
export function updateFromScratch(db: Driver, table: string, key: string, set: string[]): Promise<number> {
  return db.run(
    `UPDATE "${table}" SET (${set.map((c) => `"${c}"`).join(', ')}) = (SELECT ${set.map((c) => `s."${c}"`).join(', ')} FROM "asset_scratch" s WHERE s."id" = "${table}"."${key}") ` +
      `WHERE "${key}" IN (SELECT "id" FROM "asset_scratch") AND EXISTS (SELECT 1 FROM "asset_scratch" s WHERE s."id" = "${table}"."${key}" AND (${set.map((c) => `"${table}"."${c}" IS DISTINCT FROM s."${c}"`).join(' OR ')}))`,
  );
}

/**
 * Writes assetId / owner / department / site onto hosts, and assetId onto CMDB records, where they differ
 * (findings read their host's); the hosts' summaries and the owners per plugin follow, the latter with
 * `unplaced` (hosts the pass took the owner from before: removed ones).
 */
export async function place(db: Driver, hosts: Map<string, Placement>, cmdb: Map<string, string | null>, unplaced: OwnerMove[] = []): Promise<void> {
  const cols = ['id', 'asset_id', 'owner', 'department', 'site'];
  const fields = ['asset_id', 'owner', 'department', 'site'];
  const stage = async (rows: unknown[][]) => {
    await db.run(`DELETE FROM "asset_scratch"`);
    await bulkInsert(db, 'asset_scratch', cols, rows);
    // PostgreSQL plans the updates below from the stage's statistics: a few rows after a full pass's
    // hundred thousand must read as few, or it scans the target tables instead of probing their index.
    if (db.dialect === 'postgres') await db.run(`ANALYZE "asset_scratch"`);
  };
  const update = (table: string, key: string, set: string[]) => updateFromScratch(db, table, key, set);
  await stage([...hosts].map(([id, p]) => [id, p.assetId, p.owner, p.department, p.site]));
  const moves = [...unplaced, ...(await stagedOwnerMoves(db))];
  await update('rec_hosts', 'id', fields);
  // Their summaries carry it too (the decisions per owner read them alone).
  await update('sum_hosts', 'host_id', [...HOST_PLACEMENT]);
  await stage([...cmdb].map(([id, assetId]) => [id, assetId, null, null, null]));
  await update('rec_cmdb_assets', 'id', ['asset_id']);
  await db.run(`DELETE FROM "asset_scratch"`);
  await applyOwnerMoves(db, moves);
  await placementWritten(db);
}

/** One asset per machine from members and links; placements for every member. */
export async function assemble(
  db: Driver,
  hosts: Rec[],
  cmdb: Rec[],
  links: StoredLink[],
  findings: Map<string, Record<string, number>>,
  identifiers?: Map<string, Identifiers>,
  /** Takes the assets as they are built, a few thousand at a time (the full pass writes them at once instead of holding them all). */
  sink?: (assets: ReturnType<typeof buildAsset>[]) => Promise<void>,
) {
  const users = await usersLookup(db);
  const hostById = new Map(hosts.map((h) => [h.id, h]));
  const cmdbById = new Map(cmdb.map((c) => [c.id, c]));
  const linksByHost = new Map<string, StoredLink[]>();
  for (const l of links) {
    const a = linksByHost.get(l.hostId);
    if (a) a.push(l);
    else linksByHost.set(l.hostId, [l]);
  }
  const assets: ReturnType<typeof buildAsset>[] = [];
  let count = 0;
  const hostPlace = new Map<string, Placement>();
  const cmdbPlace = new Map<string, string | null>();
  for (const g of components(hostById.keys(), cmdbById.keys(), links)) {
    const a = buildAsset(
      g.hostIds.map((id) => hostById.get(id)!),
      g.cmdbIds.map((id) => cmdbById.get(id)!),
      g.hostIds.flatMap((id) => linksByHost.get(id) ?? []),
      users,
      (id) => findings.get(id),
      identifiers ? (id) => identifiers.get(id) : undefined,
    );
    assets.push(a);
    count++;
    const owner = ownerOf(g.cmdbIds.length ? cmdbById.get(g.cmdbIds[0]!) : undefined, users);
    for (const id of g.hostIds) hostPlace.set(id, { assetId: a.id, ...owner });
    for (const id of g.cmdbIds) cmdbPlace.set(id, a.id);
    if (sink && assets.length >= 5000) await sink(assets.splice(0));
  }
  if (sink && assets.length > 0) await sink(assets.splice(0));
  return { assets, count, hostPlace, cmdbPlace };
}

export async function insertLinks(db: Driver, links: StoredLink[]): Promise<void> {
  await bulkInsert(
    db,
    'asset_links',
    ['host_id', 'cmdb_asset_id', 'rule', 'details'],
    links.map((l) => [l.hostId, l.cmdbAssetId, l.rule, JSON.stringify(l.details)]),
  );
}

export function summary(
  mode: 'full' | 'incremental',
  hosts: number,
  cmdb: number,
  assets: number,
  links: StoredLink[],
  replacedAssetIds = new Set<string>(),
): CorrelationResult {
  return {
    mode,
    hosts,
    cmdbAssets: cmdb,
    assets,
    linked: links.filter((l) => l.cmdbAssetId !== '').length,
    ambiguous: links.filter((l) => l.rule === 'ambiguous').length,
    replacedAssetIds,
  };
}
