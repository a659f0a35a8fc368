// Single reads of records the store's callers ask for besides queries: one record by id, what a run
// stored, a source's known hosts, orphans (the host invariant), and whether a source holds any
// record of a model.
import type { KnownHost } from '../../core/connector.ts';
import { NotFoundError } from '../../core/errors.ts';
import { COMMON_FIELDS, MODEL_FIELDS, type ModelName, type StoredRecord } from '../../core/models.ts';
import type { Driver, Row } from '../db/driver.ts';
import { sqlCount } from '../db/rows.ts';
import { recordColumns, recordFrom, rowToRecord } from './row-mapping.ts';
import { columnOf, fromColumnValue, q, tableOf } from '../db/schema.ts';
import { placeholders } from '../db/sql.ts';
import { recordId } from './upsert.ts';

export async function getRecord(db: Driver, model: ModelName, id: string): Promise<StoredRecord> {
  const rows = await db.all(`SELECT ${recordColumns(model)} FROM ${recordFrom(model)} WHERE r."id" = ?`, [id]);
  if (!rows[0]) throw new NotFoundError(`no ${model} record with id '${id}'`);
  return rowToRecord(model, rows[0]);
}

/** Distinct records of a model that this run stored (a record written twice counts once). */
export async function countStamped(db: Driver, sourceId: string, model: ModelName, runId: string): Promise<number> {
  const rows = await db.all(`SELECT COUNT(*) AS "n" FROM ${q(tableOf(model))} WHERE "source_id" = ? AND "seen_run" = ?`, [sourceId, runId]);
  return Number(rows[0]?.n ?? 0);
}

/** Distinct records of a model that the runs of one generation stored (a run and the attempts it resumed). */
export async function countStampedByGeneration(db: Driver, sourceId: string, model: ModelName, generation: string): Promise<number> {
  const rows = await db.all(
    `SELECT COUNT(*) AS "n" FROM ${q(tableOf(model))} WHERE "source_id" = ? AND "seen_run" IN (SELECT "id" FROM "sync_runs" WHERE "source_id" = ? AND "generation" = ?)`,
    [sourceId, sourceId, generation],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Every host of a source (removed ones too) as natural key and fields: what identity resolution starts from. */
export async function knownHosts(db: Driver, sourceId: string): Promise<KnownHost[]> {
  const rows = await db.all(`SELECT * FROM "rec_hosts" WHERE "source_id" = ?`, [sourceId]);
  return rows.map((r) => ({ key: String(r.natural_key), fields: rowToRecord('hosts', r) }));
}

/** Hosts read per query by knownHostPages. */
export const KNOWN_HOST_PAGE = 2000;

/**
 * The same hosts in pages of at most `pageSize`, in id order, with only `fields` (host fields stored
 * as columns; the others are left out): a caller that seeds an index from them never holds every
 * host, nor every column of one, at once (a console's hosts grow with it; issue 30's flat memory).
 */
export async function* knownHostPages(db: Driver, sourceId: string, fields: readonly string[], pageSize = KNOWN_HOST_PAGE): AsyncGenerator<KnownHost[]> {
  const defs = [...COMMON_FIELDS, ...MODEL_FIELDS.hosts].filter((f) => f.name !== 'id' && f.name !== 'source' && fields.includes(f.name));
  const columns = ['id', 'natural_key', ...defs.map((f) => columnOf(f.name))].map((c) => q(c)).join(', ');
  const limit = ` ORDER BY "id" LIMIT ${sqlCount(Math.max(1, Math.floor(pageSize)), 'page size')}`;
  let last: string | null = null;
  for (;;) {
    const rows: Row[] =
      last === null
        ? await db.all(`SELECT ${columns} FROM "rec_hosts" WHERE "source_id" = ?${limit}`, [sourceId])
        : await db.all(`SELECT ${columns} FROM "rec_hosts" WHERE "source_id" = ? AND "id" > ?${limit}`, [sourceId, last]);
    if (rows.length === 0) return;
    const page = new Array<KnownHost>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      const out: Record<string, unknown> = {};
      for (const f of defs) out[f.name] = fromColumnValue(f, r[columnOf(f.name)]);
      page[i] = { key: String(r.natural_key), fields: out };
    }
    last = String(rows[rows.length - 1]!.id);
    yield page;
    if (rows.length < pageSize) return;
  }
}

/** The hosts of a source with these natural keys (those stored, removed ones too), found by their ids. */
export async function knownHostsByKey(db: Driver, sourceId: string, sourceName: string, keys: string[]): Promise<KnownHost[]> {
  const out: KnownHost[] = [];
  const ids = keys.map((k) => recordId(sourceName, 'hosts', k));
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    for (const r of await db.all(`SELECT * FROM "rec_hosts" WHERE "id" IN ${placeholders(chunk)} AND "source_id" = ?`, [...chunk, sourceId]))
      out.push({ key: String(r.natural_key), fields: rowToRecord('hosts', r) });
  }
  return out;
}

/** Records of host-bound models whose host does not exist (the invariant says: none). */
export async function orphans(db: Driver, model: ModelName, sourceId?: string): Promise<number> {
  const t = q(tableOf(model));
  const rows = await db.all(
    `SELECT COUNT(*) AS "n" FROM ${t} r WHERE NOT EXISTS (SELECT 1 FROM "rec_hosts" h WHERE h."id" = r."host_id")${sourceId ? ` AND r."source_id" = ?` : ''}`,
    sourceId ? [sourceId] : [],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Whether the source holds any record of the model (removed ones too). */
export async function sourceHasRecords(db: Driver, model: ModelName, sourceId: string): Promise<boolean> {
  return (await db.all(`SELECT 1 AS "x" FROM ${q(tableOf(model))} WHERE "source_id" = ? LIMIT 1`, [sourceId])).length > 0;
}

/** Hostname and addresses of hosts by id (for labels next to per-host summaries). */
export async function hostLabels(db: Driver, ids: string[]): Promise<{ id: string; hostname: string | null; ipAddresses: string[] }[]> {
  const out: { id: string; hostname: string | null; ipAddresses: string[] }[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await db.all(`SELECT "id", "hostname", "ip_addresses" FROM "rec_hosts" WHERE "id" IN ${placeholders(chunk)}`, chunk);
    for (const r of rows) {
      let ips: string[] = [];
      try {
        ips = r.ip_addresses ? JSON.parse(String(r.ip_addresses)) : [];
      } catch {
        ips = [];
      }
      out.push({ id: String(r.id), hostname: (r.hostname as string | null) ?? null, ipAddresses: ips });
    }
  }
  return out;
}

/** Records of a model by id (any order; unknown ids are left out). */
export async function recordsByIds(db: Driver, model: ModelName, ids: string[]): Promise<StoredRecord[]> {
  const out: StoredRecord[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await db.all(
      `SELECT r.*, s."name" AS "source_name" FROM ${q(tableOf(model))} r JOIN "sources" s ON s."id" = r."source_id" WHERE r."id" IN ${placeholders(chunk)}`,
      chunk,
    );
    for (const row of rows) out.push(rowToRecord(model, row));
  }
  return out;
}
