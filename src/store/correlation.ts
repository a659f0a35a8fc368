// Correlation in the store: the full pass (every host against every CMDB record, in memory) and the
// helpers it shares with the incremental pass (correlation-incremental.ts). Both write the links, the
// assets, and each host's and CMDB record's assetId / owner / department / site (a finding reads its host's), changing
// only rows that differ.
import { buildAsset, components, linksOf, ownerOf, type Rec, type StoredLink } from '../correlate/assets.ts';
import { IDENT_KINDS, matchAll, MemoryContext } from '../correlate/engine.ts';
import { cmdbIdentifiers, hostIdentifiers, type Identifiers } from '../correlate/normalize.ts';
import { type FieldDef, MODEL_FIELDS } from '../core/models.ts';
import type { Driver, InsertSql, Row } from './driver.ts';
import { columnOf, q, toColumnValue } from './schema.ts';

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
 * What assets need of a host or CMDB record besides its identifiers (names, serials and addresses come
 * from those): a few hundred thousand are held at once, so repeated values (times of one run, sites,
 * departments, owners) are one string each.
 */
function slim(model: 'hosts' | 'cmdb-assets', r: Rec, intern: (v: unknown) => unknown): Rec {
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

function interner(): (v: unknown) => unknown {
  const seen = new Map<string, string>();
  return (v) => {
    if (typeof v !== 'string') return v;
    const had = seen.get(v);
    if (had !== undefined) return had;
    if (seen.size < 200_000) seen.set(v, v);
    return v;
  };
}

/** Every live record of a table with its identifiers, read in pages (rows are garbage once converted). */
async function loadAll(
  db: Driver,
  table: string,
  cols: string[],
  model: 'hosts' | 'cmdb-assets',
  identifiers: Map<string, Identifiers>,
): Promise<{ recs: Rec[]; idents: Identifiers[] }> {
  const recs: Rec[] = [];
  const idents: Identifiers[] = [];
  const intern = interner();
  let after = '';
  for (;;) {
    const rows = await db.all(`SELECT ${cols.map(q).join(',')} FROM ${q(table)} WHERE "removed" = 0 AND "id" > ? ORDER BY "id" LIMIT 10000`, [after]);
    for (const row of rows) {
      const r = toRec(model, row);
      const x = model === 'hosts' ? hostIdentifiers(r) : cmdbIdentifiers(r);
      if (x.scope !== null) x.scope = intern(x.scope) as string;
      identifiers.set(x.id, x);
      idents.push(x);
      recs.push(slim(model, r, intern));
    }
    if (rows.length < 10000) return { recs, idents };
    after = String(rows[rows.length - 1]!.id);
  }
}

export async function loadByIds(db: Driver, table: string, cols: string[], ids: string[]): Promise<Row[]> {
  const out: Row[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    out.push(...(await db.all(`SELECT ${cols.map(q).join(',')}, "removed" FROM ${q(table)} WHERE "id" IN (${chunk.map(() => '?').join(',')})`, chunk)));
  }
  return out;
}

async function usersLookup(db: Driver): Promise<(name: string) => Rec | undefined> {
  const rows = await db.all(`SELECT "id", "name", "email", "department" FROM "rec_users" WHERE "removed" = 0 AND "department" IS NOT NULL`);
  const byName = new Map<string, Rec>();
  for (const r of rows) {
    const rec: Rec = { id: String(r.id), department: r.department };
    if (r.name) byName.set(String(r.name).toLowerCase(), rec);
    if (r.email) byName.set(String(r.email).toLowerCase(), rec);
  }
  return (name) => byName.get(name.toLowerCase());
}

export async function openFindings(db: Driver, hostIds: string[] | null): Promise<Map<string, Record<string, number>>> {
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
  if (hostIds === null) add(await db.all(`${base} GROUP BY "host_id", "severity"`));
  else
    for (let i = 0; i < hostIds.length; i += CHUNK) {
      const chunk = hostIds.slice(i, i + CHUNK);
      add(await db.all(`${base} AND "host_id" IN (${chunk.map(() => '?').join(',')}) GROUP BY "host_id", "severity"`, chunk));
    }
  return out;
}

export async function loadOverrides(db: Driver, hostIds: string[] | null): Promise<{ hostId: string; cmdbAssetId: string; action: 'link' | 'unlink' }[]> {
  const map = (rows: Row[]) => rows.map((r) => ({ hostId: String(r.host_id), cmdbAssetId: String(r.cmdb_asset_id), action: r.action as 'link' | 'unlink' }));
  if (hostIds === null) return map(await db.all(`SELECT * FROM "asset_overrides"`));
  const out: { hostId: string; cmdbAssetId: string; action: 'link' | 'unlink' }[] = [];
  for (let i = 0; i < hostIds.length; i += CHUNK) {
    const chunk = hostIds.slice(i, i + CHUNK);
    out.push(...map(await db.all(`SELECT * FROM "asset_overrides" WHERE "host_id" IN (${chunk.map(() => '?').join(',')})`, chunk)));
  }
  return out;
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
  const one = `(${cols.map(() => '?').join(',')})`;
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

/** Writes assetId / owner / department / site onto hosts, and assetId onto CMDB records, where they differ (findings read their host's). */
export async function place(db: Driver, hosts: Map<string, Placement>, cmdb: Map<string, string | null>): Promise<void> {
  const cols = ['id', 'asset_id', 'owner', 'department', 'site'];
  const fields = ['asset_id', 'owner', 'department', 'site'];
  const stage = async (rows: unknown[][]) => {
    await db.run(`DELETE FROM "asset_scratch"`);
    await bulkInsert(db, 'asset_scratch', cols, rows);
    // PostgreSQL plans the updates below from the stage's statistics: a few rows after a full pass's
    // hundred thousand must read as few, or it scans the target tables instead of probing their index.
    if (db.dialect === 'postgres') await db.run(`ANALYZE "asset_scratch"`);
  };
  // Row-value SET from the staged row, only for rows named in the stage (found through the table's own
  // index: an UPDATE … FROM made SQLite scan the whole target table) and only where a value differs.
  const update = (table: string, key: string, set: string[]) =>
    db.run(
      `UPDATE "${table}" SET (${set.map((c) => `"${c}"`).join(', ')}) = (SELECT ${set.map((c) => `s."${c}"`).join(', ')} FROM "asset_scratch" s WHERE s."id" = "${table}"."${key}") ` +
        `WHERE "${key}" IN (SELECT "id" FROM "asset_scratch") AND EXISTS (SELECT 1 FROM "asset_scratch" s WHERE s."id" = "${table}"."${key}" AND (${set.map((c) => `"${table}"."${c}" IS DISTINCT FROM s."${c}"`).join(' OR ')}))`,
    );
  await stage([...hosts].map(([id, p]) => [id, p.assetId, p.owner, p.department, p.site]));
  await update('rec_hosts', 'id', fields);
  await stage([...cmdb].map(([id, assetId]) => [id, assetId, null, null, null]));
  await update('rec_cmdb_assets', 'id', ['asset_id']);
  await db.run(`DELETE FROM "asset_scratch"`);
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

/** Every host against every CMDB record; rewrites links, identifiers and assets. */
export async function correlateAll(db: Driver): Promise<CorrelationResult> {
  const hcols = await hostColumns(db);
  return db.transaction(async (tx) => {
    if (tx.dialect === 'postgres') await tx.run(`SELECT pg_advisory_xact_lock(7215)`);
    const identifiers = new Map<string, Identifiers>();
    const { recs: hosts, idents: hIdent } = await loadAll(tx, 'rec_hosts', hcols, 'hosts', identifiers);
    const { recs: cmdb, idents: cIdent } = await loadAll(tx, 'rec_cmdb_assets', CMDB_COLS, 'cmdb-assets', identifiers);
    const links: StoredLink[] = [];
    {
      const ctx = new MemoryContext(cIdent, hIdent, await loadOverrides(tx, null));
      for (const [hostId, m] of matchAll(hIdent, ctx)) for (const l of linksOf(hostId, m)) links.push(l);
    }
    await tx.run(`DELETE FROM "asset_links"`);
    await insertLinks(tx, links);
    await tx.run(`DROP INDEX "asset_idents_value"`);
    await tx.run(`DROP INDEX "asset_idents_record"`);
    await tx.run(`DELETE FROM "asset_idents"`);
    const identCols = ['record_id', 'side', 'kind', 'value', 'scope'];
    let batch: unknown[][] = [];
    const flush = async () => {
      await bulkInsert(tx, 'asset_idents', identCols, batch);
      batch = [];
    };
    for (const x of hIdent) {
      for (const row of identRows('h', x)) batch.push(row);
      if (batch.length >= 20_000) await flush();
    }
    for (const x of cIdent) {
      for (const row of identRows('c', x)) batch.push(row);
      if (batch.length >= 20_000) await flush();
    }
    await flush();
    await tx.run(`CREATE INDEX "asset_idents_value" ON "asset_idents" ("kind", "value")`);
    await tx.run(`CREATE INDEX "asset_idents_record" ON "asset_idents" ("record_id")`);
    await tx.run(`DELETE FROM "rec_assets"`);
    const findings = await openFindings(tx, null);
    const { count, hostPlace, cmdbPlace } = await assemble(tx, hosts, cmdb, links, findings, identifiers, (assets) =>
      bulkInsert(tx, 'rec_assets', ASSET_COLS, assets.map(assetRow)),
    );
    // Hosts and CMDB records that left every asset (removed) lose their placement (and so their findings).
    await tx.run(`UPDATE "rec_hosts" SET "asset_id" = NULL, "owner" = NULL, "department" = NULL, "site" = NULL WHERE "removed" = 1 AND "asset_id" IS NOT NULL`);
    await tx.run(`UPDATE "rec_cmdb_assets" SET "asset_id" = NULL WHERE "removed" = 1 AND "asset_id" IS NOT NULL`);
    // Every placement is staged; the updates write only rows whose values differ.
    await place(tx, hostPlace, cmdbPlace);
    return summary('full', hosts.length, cmdb.length, count, links);
  });
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
