// The full correlation pass, streamed so its memory stays flat as the estate grows: the CMDB side is
// held (the index every host is matched against), hosts are read and matched a page at a time, and
// links and identifiers are written in batches as they come; assets are then built a few thousand
// records at a time from the stored links, members grouped through integer ids (typed-array
// union-find) and re-read by id. Same outcome as matching the whole estate at once (engine.matchAll).
import { buildAsset, type Rec, type StoredLink, linksOf, ownerOf } from '../../correlate/assets.ts';
import { CompactContext } from '../../correlate/compact.ts';
import { type HostMatch, matchFirst, matchSecond } from '../../correlate/engine.ts';
import { cmdbIdentifiers, hostIdentifiers, type Identifiers } from '../../correlate/normalize.ts';
import {
  CHUNK,
  ASSET_COLS,
  assetRow,
  bulkInsert,
  CMDB_COLS,
  type CorrelationResult,
  hostColumns,
  identRows,
  insertLinks,
  interner,
  loadByIds,
  loadOverrides,
  manualNotes,
  openFindingsOfAllHosts,
  slim,
  toRec,
  updateFromScratch,
  usersLookup,
} from './shared.ts';
import type { Driver, Row } from '../db/driver.ts';
import { paddedInList, placeholders } from '../db/sql.ts';
import { q } from '../db/schema.ts';
import { syncPlacementSql } from '../reports/summary-tables-write.ts';
import { applyOwnerMoves, ownersLost, stagedOwnerMoves } from '../reports/plugin-owners.ts';
import { beginPlacementWrite, placementWritten } from '../reports/summary-tables-guard.ts';

/** Rows read per page, rows written per batch, records per assembly batch. */
const PAGE = 5000;
const BATCH = 10_000;
const MEMBERS = 4000;

/** Live rows of a table, a page at a time in id order. */
async function* pages(db: Driver, table: string, cols: string[]): AsyncGenerator<Row[]> {
  let after = '';
  for (;;) {
    const rows = await db.all(`SELECT ${cols.map(q).join(',')} FROM ${q(table)} WHERE "removed" = 0 AND "id" > ? ORDER BY "id" LIMIT ${PAGE}`, [after]);
    if (rows.length > 0) yield rows;
    if (rows.length < PAGE) return;
    after = String(rows[rows.length - 1]!.id);
  }
}

/** Rows for one table, written whenever a batch fills. */
class Batcher<T> {
  #rows: T[] = [];
  readonly #write: (rows: T[]) => Promise<void>;
  constructor(write: (rows: T[]) => Promise<void>) {
    this.#write = write;
  }
  async add(row: T): Promise<void> {
    this.#rows.push(row);
    if (this.#rows.length >= BATCH) await this.flush();
  }
  async flush(): Promise<void> {
    if (this.#rows.length === 0) return;
    const rows = this.#rows;
    this.#rows = [];
    await this.#write(rows);
  }
}

/** Roots of 0…n-1 joined by the edges a[i]–(offset + b[i]) (hosts first, then CMDB records from `offset`). */
function unionFind(n: number, a: number[], b: number[], offset: number): Int32Array {
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  const find = (x: number): number => {
    let r = x;
    while (parent[r] !== r) r = parent[r]!;
    while (parent[x] !== r) {
      const next = parent[x]!;
      parent[x] = r;
      x = next;
    }
    return r;
  };
  for (let i = 0; i < a.length; i++) {
    const ra = find(a[i]!);
    const rb = find(offset + b[i]!);
    if (ra !== rb) parent[ra] = rb;
  }
  for (let i = 0; i < n; i++) parent[i] = find(i);
  return parent;
}

/**
 * Components in the order of their first member (hosts in id order, then CMDB records), each a
 * run of member indexes in `members` from `start[g]` to `start[g + 1]`.
 */
function groups(root: Int32Array): { start: Int32Array; members: Int32Array } {
  const n = root.length;
  const gidOfRoot = new Int32Array(n).fill(-1);
  const gid = new Int32Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const r = root[i]!;
    if (gidOfRoot[r] === -1) gidOfRoot[r] = count++;
    gid[i] = gidOfRoot[r]!;
  }
  const start = new Int32Array(count + 1);
  for (let i = 0; i < n; i++) start[gid[i]! + 1]!++;
  for (let g = 0; g < count; g++) start[g + 1]! += start[g]!;
  const fill = start.slice(0, count);
  const members = new Int32Array(n);
  for (let i = 0; i < n; i++) members[fill[gid[i]!]!++] = i;
  return { start, members };
}

/** Every host against every CMDB record; rewrites links, identifiers and assets. */
export async function correlateAll(db: Driver): Promise<CorrelationResult> {
  const hcols = await hostColumns(db);
  return db.transaction(async (tx) => {
    await beginPlacementWrite(tx);
    await tx.run(`DELETE FROM "asset_links"`);
    await tx.run(`DROP INDEX "asset_idents_value"`);
    await tx.run(`DROP INDEX "asset_idents_record"`);
    await tx.run(`DELETE FROM "asset_idents"`);
    const idents = new Batcher<unknown[]>((rows) => bulkInsert(tx, 'asset_idents', ['record_id', 'side', 'kind', 'value', 'scope'], rows));
    let linked = 0;
    let ambiguous = 0;
    const links = new Batcher<StoredLink>((rows) => insertLinks(tx, rows));
    const intern = interner();

    // The CMDB side, indexed by every identifier value; its records get integer ids after the hosts'.
    const cmdbIds: string[] = [];
    const overrides = await loadOverrides(tx, null);
    const manual = manualNotes(overrides);
    let ctx = new CompactContext(overrides);
    for await (const rows of pages(tx, 'rec_cmdb_assets', CMDB_COLS)) {
      for (const row of rows) {
        const x = cmdbIdentifiers(toRec('cmdb-assets', row));
        cmdbIds.push(x.id);
        ctx.addCmdb(x);
        for (const r of identRows('c', x)) await idents.add(r);
      }
    }

    // Hosts a page at a time: every rule but IP now (links claim their records), IP once all are read.
    const hostIds: string[] = [];
    const edgeHost: number[] = [];
    const edgeCmdb: number[] = [];
    const record = async (idx: number, id: string, m: HostMatch) => {
      for (const l of linksOf(id, m, manual)) {
        if (l.cmdbAssetId !== '') {
          linked++;
          edgeHost.push(idx);
          edgeCmdb.push(ctx.indexOf(l.cmdbAssetId)!);
        } else if (l.rule === 'ambiguous') ambiguous++;
        await links.add(l);
      }
    };
    const later: { idx: number; x: Identifiers; first: HostMatch }[] = [];
    for await (const rows of pages(tx, 'rec_hosts', hcols)) {
      for (const row of rows) {
        const x = hostIdentifiers(toRec('hosts', row));
        if (x.scope !== null) x.scope = intern(x.scope) as string;
        const idx = hostIds.length;
        hostIds.push(x.id);
        ctx.addHost(x);
        for (const r of identRows('h', x)) await idents.add(r);
        const first = matchFirst(x, ctx);
        if (first.kind === 'none') later.push({ idx, x, first });
        else await record(idx, x.id, first);
      }
    }
    for (const l of later) await record(l.idx, l.x.id, matchSecond(l.x, l.first, ctx));
    later.length = 0;
    ctx = new CompactContext();
    await links.flush();
    await idents.flush();
    await tx.run(`CREATE INDEX "asset_idents_value" ON "asset_idents" ("kind", "value")`);
    await tx.run(`CREATE INDEX "asset_idents_record" ON "asset_idents" ("record_id")`);

    // Machines: the components of the link graph, built and placed a few thousand records at a time.
    const H = hostIds.length;
    const { start, members } = groups(unionFind(H + cmdbIds.length, edgeHost, edgeCmdb, H));
    edgeHost.length = 0;
    edgeCmdb.length = 0;
    await tx.run(`DELETE FROM "rec_assets"`);
    await tx.run(`DELETE FROM "asset_scratch"`);
    const users = await usersLookup(tx);
    const groupCount = start.length - 1;
    // Every host's open findings by severity from the summaries (a map of hosts × severities, ~150 bytes a
    // host), not the findings: asked a page of hosts at a time, they would be found through the host
    // index, a random read each, and a grouped scan of them reads every finding.
    const findings = await openFindingsOfAllHosts(tx);
    let assets = 0;
    for (let g0 = 0; g0 < groupCount; ) {
      let g1 = g0;
      while (g1 < groupCount && start[g1]! - start[g0]! < MEMBERS) g1++;
      const hIds: string[] = [];
      const cIds: string[] = [];
      for (let k = start[g0]!; k < start[g1]!; k++) {
        const i = members[k]!;
        if (i < H) hIds.push(hostIds[i]!);
        else cIds.push(cmdbIds[i - H]!);
      }
      const recs = new Map<string, Rec>();
      const identOf = new Map<string, Identifiers>();
      for (const row of await loadByIds(tx, 'rec_hosts', hcols, paddedInList(tx, hIds, CHUNK))) {
        const r = toRec('hosts', row);
        identOf.set(r.id, hostIdentifiers(r));
        recs.set(r.id, slim('hosts', r, intern));
      }
      for (const row of await loadByIds(tx, 'rec_cmdb_assets', CMDB_COLS, paddedInList(tx, cIds, CHUNK))) {
        const r = toRec('cmdb-assets', row);
        identOf.set(r.id, cmdbIdentifiers(r));
        recs.set(r.id, slim('cmdb-assets', r, intern));
      }
      const linksOfHost = await storedLinks(tx, paddedInList(tx, hIds, CHUNK));
      const built: ReturnType<typeof buildAsset>[] = [];
      const placed: unknown[][] = [];
      for (let g = g0; g < g1; g++) {
        const gh: string[] = [];
        const gc: string[] = [];
        for (let k = start[g]!; k < start[g + 1]!; k++) {
          const i = members[k]!;
          if (i < H) gh.push(hostIds[i]!);
          else gc.push(cmdbIds[i - H]!);
        }
        gh.sort();
        gc.sort();
        const cmdb = gc.map((id) => recs.get(id)!);
        const a = buildAsset(
          gh.map((id) => recs.get(id)!),
          cmdb,
          gh.flatMap((id) => linksOfHost.get(id) ?? []),
          users,
          (id) => findings.get(id),
          (id) => identOf.get(id),
        );
        built.push(a);
        const owner = ownerOf(cmdb[0], users);
        for (const id of gh) placed.push([id, a.id, owner.owner, owner.department, owner.site]);
        for (const id of gc) placed.push([id, a.id, null, null, null]);
      }
      await bulkInsert(tx, 'rec_assets', ASSET_COLS, built.map(assetRow));
      await bulkInsert(tx, 'asset_scratch', ['id', 'asset_id', 'owner', 'department', 'site'], placed);
      assets += built.length;
      g0 = g1;
    }
    // Hosts and CMDB records that left every asset (removed) lose their placement (and so their findings).
    const moves = await ownersLost(tx, null);
    await tx.run(`UPDATE "rec_hosts" SET "asset_id" = NULL, "owner" = NULL, "department" = NULL, "site" = NULL WHERE "removed" = 1 AND "asset_id" IS NOT NULL`);
    await tx.run(`UPDATE "rec_cmdb_assets" SET "asset_id" = NULL WHERE "removed" = 1 AND "asset_id" IS NOT NULL`);
    // Every placement is staged (hosts' and CMDB records' ids never meet); the updates write only rows whose values differ.
    if (tx.dialect === 'postgres') await tx.run(`ANALYZE "asset_scratch"`);
    const fields = ['asset_id', 'owner', 'department', 'site'];
    moves.push(...(await stagedOwnerMoves(tx)));
    await updateFromScratch(tx, 'rec_hosts', 'id', fields);
    await updateFromScratch(tx, 'rec_cmdb_assets', 'id', ['asset_id']);
    // The host summaries carry the placement (the decisions per owner read them alone): copied where it changed.
    await tx.run(syncPlacementSql());
    await tx.run(`DELETE FROM "asset_scratch"`);
    // And the owners per plugin (the top remediations' owners), for the hosts whose owner changed.
    await applyOwnerMoves(tx, moves);
    await placementWritten(tx);
    // The tables were rewritten whole: PostgreSQL plans the next incremental pass's lookups (IN lists on
    // their indexes) from statistics, which until autovacuum comes by would describe the old rows.
    if (tx.dialect === 'postgres') for (const t of ['asset_idents', 'asset_links', 'rec_assets']) await tx.run(`ANALYZE "${t}"`);
    return { mode: 'full', hosts: H, cmdbAssets: cmdbIds.length, assets, linked, ambiguous, replacedAssetIds: new Set<string>() };
  });
}

/** The stored links of some hosts, each host's in CMDB record order (as linksOf made them). */
async function storedLinks(db: Driver, hostIds: string[]): Promise<Map<string, StoredLink[]>> {
  const out = new Map<string, StoredLink[]>();
  const rows = await loadLinks(db, hostIds);
  rows.sort((x, y) => (x.cmdbAssetId < y.cmdbAssetId ? -1 : x.cmdbAssetId > y.cmdbAssetId ? 1 : 0));
  for (const l of rows) {
    const a = out.get(l.hostId);
    if (a) a.push(l);
    else out.set(l.hostId, [l]);
  }
  return out;
}

async function loadLinks(db: Driver, hostIds: string[]): Promise<StoredLink[]> {
  const out: StoredLink[] = [];
  for (let i = 0; i < hostIds.length; i += PAGE) {
    const chunk = hostIds.slice(i, i + PAGE);
    for (const r of await db.all(`SELECT "host_id", "cmdb_asset_id", "rule", "details" FROM "asset_links" WHERE "host_id" IN ${placeholders(chunk)}`, chunk))
      out.push({ hostId: String(r.host_id), cmdbAssetId: String(r.cmdb_asset_id), rule: r.rule as StoredLink['rule'], details: JSON.parse(String(r.details)) });
  }
  return out;
}
