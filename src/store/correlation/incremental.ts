// The incremental correlation pass after a sync: only the records it touched and those that share an
// identifier with them (found through the asset_idents index), and the assets all of these sit in.
import { type StoredLink, linksOf, type Rec } from '../../correlate/assets.ts';
import { IDENT_KINDS, type IdentKind, matchAll, MemoryContext } from '../../correlate/engine.ts';
import { cmdbIdentifiers, hostIdentifiers, type Identifiers } from '../../correlate/normalize.ts';
import {
  ASSET_COLS,
  assemble,
  assetRow,
  bulkInsert,
  CHUNK,
  CMDB_COLS,
  type CorrelationResult,
  hostColumns,
  identRows,
  insertLinks,
  loadByIds,
  loadOverrides,
  manualNotes,
  openFindings,
  place,
  summary,
  toRec,
} from './shared.ts';
import type { Driver, Row } from '../db/driver.ts';
import { allInChunks, paddedInList, placeholders } from '../db/sql.ts';
import { HOST_PLACEMENT } from '../reports/summary-tables-write.ts';
import { ownersLost } from '../reports/plugin-owners.ts';
import { beginPlacementWrite } from '../reports/summary-tables-guard.ts';

export interface Touched {
  hostIds: string[];
  cmdbIds: string[];
}

async function idsSharing(db: Driver, side: 'h' | 'c', pairs: Map<IdentKind, Set<string>>): Promise<Row[]> {
  const out: Row[] = [];
  for (const [kind, values] of pairs) {
    const list = paddedInList(db, [...values], CHUNK);
    for (let i = 0; i < list.length; i += CHUNK) {
      const chunk = list.slice(i, i + CHUNK);
      out.push(
        ...(await db.all(`SELECT "record_id", "value", "scope" FROM "asset_idents" WHERE "kind" = ? AND "side" = ? AND "value" IN ${placeholders(chunk)}`, [
          kind,
          side,
          ...chunk,
        ])),
      );
    }
  }
  return out;
}

function addValues(into: Map<IdentKind, Set<string>>, x: Identifiers, kinds: readonly IdentKind[] = IDENT_KINDS): void {
  for (const k of kinds) {
    let s = into.get(k);
    if (!s) {
      s = new Set();
      into.set(k, s);
    }
    for (const v of x[k]) s.add(v);
  }
}

async function oldIdents(db: Driver, all: string[]): Promise<Map<IdentKind, Set<string>>> {
  const ids = paddedInList(db, all, CHUNK);
  const out = new Map<IdentKind, Set<string>>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    for (const r of await db.all(`SELECT "kind", "value" FROM "asset_idents" WHERE "record_id" IN ${placeholders(chunk)}`, chunk)) {
      const k = r.kind as IdentKind;
      let s = out.get(k);
      if (!s) {
        s = new Set();
        out.set(k, s);
      }
      s.add(String(r.value));
    }
  }
  return out;
}

/** Rows of `sql` over `all` in chunks of padded IN lists (sql.ts). */
function inChunks(db: Driver, sql: (ph: string) => string, all: string[], extra: unknown[] = []): Promise<Row[]> {
  return allInChunks(db, sql, paddedInList(db, all, CHUNK), extra, CHUNK);
}

/** Recomputes what the touched records can change: their links, the links of records sharing an identifier with them, and the assets of all of these. */
export async function correlateTouched(db: Driver, touched: Touched): Promise<CorrelationResult> {
  const hcols = await hostColumns(db);
  return db.transaction(async (tx) => {
    await beginPlacementWrite(tx);
    const hostRecs = new Map<string, Rec>();
    const cmdbRecs = new Map<string, Rec>();
    const gone = new Set<string>();
    /** Reads the records of `ids` not read yet into `into` (removed ones into `gone`). */
    const loader = (model: 'hosts' | 'cmdb-assets', table: string, cols: string[], into: Map<string, Rec>) => async (ids: string[]) => {
      for (const r of await loadByIds(
        tx,
        table,
        cols,
        ids.filter((id) => !into.has(id) && !gone.has(id)),
      )) {
        if (Number(r.removed) === 1) gone.add(String(r.id));
        else into.set(String(r.id), toRec(model, r));
      }
    };
    const loadHosts = loader('hosts', 'rec_hosts', hcols, hostRecs);
    const loadCmdb = loader('cmdb-assets', 'rec_cmdb_assets', CMDB_COLS, cmdbRecs);
    const touchedHosts = [...new Set(touched.hostIds)];
    const touchedCmdb = [...new Set(touched.cmdbIds)];
    await loadHosts(touchedHosts);
    await loadCmdb(touchedCmdb);
    // Identifiers before and after: records that shared an old value may be freed by the change.
    const oldH = await oldIdents(tx, touchedHosts);
    const oldC = await oldIdents(tx, touchedCmdb);
    await inChunks(tx, (ph) => `DELETE FROM "asset_idents" WHERE "record_id" IN (${ph})`, [...touchedHosts, ...touchedCmdb]);
    const newIdentRows: unknown[][] = [];
    for (const id of touchedHosts) {
      const h = hostRecs.get(id);
      if (h) {
        const x = hostIdentifiers(h);
        newIdentRows.push(...identRows('h', x));
        addValues(oldH, x, ['ip']);
      }
    }
    for (const id of touchedCmdb) {
      const c = cmdbRecs.get(id);
      if (c) {
        const x = cmdbIdentifiers(c);
        newIdentRows.push(...identRows('c', x));
        addValues(oldC, x);
      }
    }
    await bulkInsert(tx, 'asset_idents', ['record_id', 'side', 'kind', 'value', 'scope'], newIdentRows);

    // Hosts to match again: the touched ones, hosts sharing any identifier with a touched CMDB record,
    // hosts sharing an address with a touched host (IP uniqueness), and hosts linked to a touched record.
    const affected = new Set(touchedHosts);
    for (const r of await idsSharing(tx, 'h', oldC)) affected.add(String(r.record_id));
    const ipOnly = new Map([...oldH].filter(([k]) => k === 'ip'));
    for (const r of await idsSharing(tx, 'h', ipOnly)) affected.add(String(r.record_id));
    for (const r of await inChunks(tx, (ph) => `SELECT "host_id" FROM "asset_links" WHERE "cmdb_asset_id" IN (${ph})`, touchedCmdb))
      affected.add(String(r.host_id));
    for (const r of await inChunks(tx, (ph) => `SELECT "host_id" FROM "asset_overrides" WHERE "cmdb_asset_id" IN (${ph})`, touchedCmdb))
      affected.add(String(r.host_id));
    await loadHosts([...affected]);
    const matchHosts = [...affected].filter((id) => hostRecs.has(id)).map((id) => hostIdentifiers(hostRecs.get(id)!));

    // Their candidates: every CMDB record holding one of their values, and their manual links.
    const values = new Map<IdentKind, Set<string>>();
    for (const x of matchHosts) addValues(values, x);
    const overrides = await loadOverrides(tx, [...affected]);
    const candidateIds = new Set((await idsSharing(tx, 'c', values)).map((r) => String(r.record_id)));
    for (const o of overrides) candidateIds.add(o.cmdbAssetId);
    await loadCmdb([...candidateIds]);
    const sharingIp = (await idsSharing(tx, 'h', new Map([['ip' as IdentKind, values.get('ip') ?? new Set<string>()]]))).map((r) => ({
      id: String(r.record_id),
      ip: [String(r.value)],
      scope: (r.scope as string | null) ?? null,
    }));
    const ipHosts = new Map<string, Identifiers>();
    for (const s of sharingIp) {
      const x = ipHosts.get(s.id) ?? { id: s.id, serial: [], biosUuid: [], mac: [], fqdn: [], hostname: [], ip: [], scope: s.scope };
      x.ip.push(...s.ip);
      ipHosts.set(s.id, x);
    }
    const ctx = new MemoryContext(
      [...candidateIds].filter((id) => cmdbRecs.has(id)).map((id) => cmdbIdentifiers(cmdbRecs.get(id)!)),
      ipHosts.values(),
      overrides,
    );
    // Records already held by unaffected hosts through a rule stronger than IP.
    for (const r of await inChunks(
      tx,
      (ph) => `SELECT "host_id", "cmdb_asset_id" FROM "asset_links" WHERE "rule" NOT IN ('ip', 'ambiguous', 'none') AND "cmdb_asset_id" IN (${ph})`,
      [...candidateIds],
    )) {
      if (!affected.has(String(r.host_id))) ctx.claim(String(r.cmdb_asset_id), String(r.host_id));
    }
    const newLinks: StoredLink[] = [];
    const manual = manualNotes(overrides);
    for (const [hostId, m] of matchAll(matchHosts, ctx)) newLinks.push(...linksOf(hostId, m, manual));
    const oldLinks = await inChunks(tx, (ph) => `SELECT "cmdb_asset_id" FROM "asset_links" WHERE "host_id" IN (${ph})`, [...affected]);

    // Assets to rebuild: those any of these records sat in, with all their members.
    const seedCmdb = new Set(
      [...touchedCmdb, ...oldLinks.map((r) => String(r.cmdb_asset_id)), ...newLinks.map((l) => l.cmdbAssetId)].filter((id) => id !== ''),
    );
    await loadCmdb([...seedCmdb]);
    const oldAssetIds = new Set<string>();
    for (const id of affected) {
      const a = hostRecs.get(id)?.assetId;
      if (typeof a === 'string') oldAssetIds.add(a);
    }
    for (const r of await inChunks(tx, (ph) => `SELECT "asset_id" FROM "rec_cmdb_assets" WHERE "asset_id" IS NOT NULL AND "id" IN (${ph})`, [
      ...seedCmdb,
      ...gone,
    ]))
      oldAssetIds.add(String(r.asset_id));
    for (const r of await inChunks(tx, (ph) => `SELECT "asset_id" FROM "rec_hosts" WHERE "asset_id" IS NOT NULL AND "id" IN (${ph})`, [...gone]))
      oldAssetIds.add(String(r.asset_id));
    const memberHosts = new Set([...affected].filter((id) => hostRecs.has(id)));
    const memberCmdb = new Set([...seedCmdb].filter((id) => cmdbRecs.has(id)));
    for (const r of await inChunks(tx, (ph) => `SELECT "host_ids", "cmdb_asset_ids" FROM "rec_assets" WHERE "id" IN (${ph})`, [...oldAssetIds])) {
      for (const id of JSON.parse(String(r.host_ids ?? '[]')) as string[]) memberHosts.add(id);
      for (const id of JSON.parse(String(r.cmdb_asset_ids ?? '[]')) as string[]) memberCmdb.add(id);
    }
    await loadHosts([...memberHosts]);
    await loadCmdb([...memberCmdb]);
    for (const id of gone) {
      memberHosts.delete(id);
      memberCmdb.delete(id);
    }
    const keptLinks = (
      await inChunks(
        tx,
        (ph) => `SELECT * FROM "asset_links" WHERE "host_id" IN (${ph})`,
        [...memberHosts].filter((id) => !affected.has(id)),
      )
    ).map(
      (r): StoredLink => ({
        hostId: String(r.host_id),
        cmdbAssetId: String(r.cmdb_asset_id),
        rule: r.rule as StoredLink['rule'],
        details: JSON.parse(String(r.details)),
      }),
    );
    const links = [...newLinks, ...keptLinks.filter((l) => l.cmdbAssetId === '' || memberCmdb.has(l.cmdbAssetId))];
    const findings = await openFindings(tx, [...memberHosts]);
    const hosts = [...memberHosts].map((id) => hostRecs.get(id)!);
    const { assets, hostPlace, cmdbPlace } = await assemble(
      tx,
      hosts,
      [...memberCmdb].map((id) => cmdbRecs.get(id)!),
      links,
      findings,
    );

    await inChunks(tx, (ph) => `DELETE FROM "asset_links" WHERE "host_id" IN (${ph})`, [...affected, ...gone]);
    await insertLinks(tx, newLinks);
    await inChunks(tx, (ph) => `DELETE FROM "rec_assets" WHERE "id" IN (${ph})`, [...oldAssetIds, ...assets.map((a) => a.id)]);
    await bulkInsert(tx, 'rec_assets', ASSET_COLS, assets.map(assetRow));
    const unplaced = await ownersLost(tx, [...gone]);
    await inChunks(tx, (ph) => `UPDATE "rec_hosts" SET "asset_id" = NULL, "owner" = NULL, "department" = NULL, "site" = NULL WHERE "id" IN (${ph})`, [...gone]);
    await inChunks(tx, (ph) => `UPDATE "sum_hosts" SET ${HOST_PLACEMENT.map((c) => `"${c}" = NULL`).join(', ')} WHERE "host_id" IN (${ph})`, [...gone]);
    await inChunks(tx, (ph) => `UPDATE "rec_cmdb_assets" SET "asset_id" = NULL WHERE "id" IN (${ph})`, [...gone]);
    await place(tx, hostPlace, cmdbPlace, unplaced);
    const kept = new Set(assets.map((a) => a.id));
    return summary('incremental', memberHosts.size, memberCmdb.size, assets.length, newLinks, new Set([...oldAssetIds].filter((id) => !kept.has(id))));
  });
}
