// Writing and reading normalized records: idempotent batched upserts keyed on our stable id,
// first/last-seen stamping, the vulnerability status rules, the sweep, and filtered queries.
import { createHash } from 'node:crypto';
import { InputError } from '../core/errors.ts';
import { COMMON_FIELDS, type FieldDef, fieldsOf, hasHost, type IncomingRecord, MODEL_FIELDS, type ModelName, type StoredRecord } from '../core/models.ts';
import type { Driver, InsertSql, Row } from './driver.ts';
import { columnOf, fromColumnValue, q, tableOf, toColumnValue } from './schema.ts';

/** Our record id: stable across runs, stores and machines for the same source name and natural key. */
export function recordId(source: string, model: ModelName, key: string): string {
  return createHash('sha256').update(`${source}\u0000${model}\u0000${key}`).digest('hex').slice(0, 32);
}

export interface WriteStamp {
  sourceId: string;
  sourceName: string;
  runId: string;
  generation: string;
  now: string;
}

interface Shape {
  fields: FieldDef[];
  upstreamFirst: boolean;
  upstreamLast: boolean;
}

const insertCache = new Map<string, InsertSql>();

function insertSqlFor(model: ModelName, shape: Shape): InsertSql {
  const cacheKey = `${model}|${shape.fields.map((f) => f.name).join(',')}|${shape.upstreamFirst}|${shape.upstreamLast}`;
  const hit = insertCache.get(cacheKey);
  if (hit) return hit;
  const table = q(tableOf(model));
  const base = ['id', 'source_id', 'natural_key', 'external_id', 'first_seen', 'last_seen', 'removed', 'seen_gen', 'seen_run'];
  const cols = [...base, ...shape.fields.map((f) => columnOf(f.name))];
  const updates = ['external_id', 'removed', 'seen_gen', 'seen_run', 'last_seen'].map((c) => `${q(c)} = excluded.${q(c)}`);
  // A record's first-seen date is the upstream's when it gives one, else when we first saw it.
  if (shape.upstreamFirst) updates.push(`"first_seen" = excluded."first_seen"`);
  for (const f of shape.fields) {
    const c = q(columnOf(f.name));
    if (model === 'vulnerabilities' && f.name === 'status') {
      // Seen open again after it was fixed (or swept) → reopened; reopened stays until fixed.
      updates.push(`${c} = CASE WHEN excluded.${c} = 'open' AND ${table}.${c} IN ('fixed', 'reopened') THEN 'reopened' ELSE excluded.${c} END`);
    } else {
      updates.push(`${c} = excluded.${c}`);
    }
  }
  const sql: InsertSql = {
    head: `INSERT INTO ${table} (${cols.map(q).join(',')})`,
    columns: cols.length,
    tail: ` ON CONFLICT ("id") DO UPDATE SET ${updates.join(', ')}`,
  };
  insertCache.set(cacheKey, sql);
  return sql;
}

/** Upserts one page of records of one model. Runs inside the caller's transaction. */
export async function upsertRecords(db: Driver, model: ModelName, records: IncomingRecord[], stamp: WriteStamp): Promise<number> {
  if (records.length === 0) return 0;
  const known = MODEL_FIELDS[model];
  const withHost = hasHost(model);
  // Group by which fields are present: a field left undefined is not touched on update.
  const groups = new Map<string, { shape: Shape; rows: Map<string, unknown[]> }>();
  for (const r of records) {
    if (typeof r.key !== 'string' || r.key === '') throw new InputError(`a ${model} record has no natural key`);
    const present = known.filter((f) => (f.name === 'hostId' ? withHost : r.fields[f.name] !== undefined));
    const shape: Shape = { fields: present, upstreamFirst: r.firstSeen != null, upstreamLast: r.lastSeen != null };
    const sig = `${present.map((f) => f.name).join(',')}|${shape.upstreamFirst}|${shape.upstreamLast}`;
    let g = groups.get(sig);
    if (!g) {
      g = { shape, rows: new Map() };
      groups.set(sig, g);
    }
    const id = recordId(stamp.sourceName, model, r.key);
    const row: unknown[] = [
      id,
      stamp.sourceId,
      r.key,
      r.externalId ?? null,
      r.firstSeen ?? stamp.now,
      r.lastSeen ?? stamp.now,
      0,
      stamp.generation,
      stamp.runId,
    ];
    for (const f of present) {
      if (f.name === 'hostId') {
        if (!r.hostKey) throw new InputError(`a ${model} record has no host key`);
        row.push(recordId(stamp.sourceName, 'hosts', r.hostKey));
      } else {
        row.push(toColumnValue(f, r.fields[f.name]));
      }
    }
    // The same record twice in a page: the last one wins (PostgreSQL refuses to update a row twice in one statement).
    g.rows.set(id, row);
  }
  for (const { shape, rows } of groups.values()) {
    await db.insertMany(insertSqlFor(model, shape), [...rows.values()]);
  }
  return records.length;
}

/** After a complete full run: records of the source not stamped by its generation are removed; open findings become fixed. */
export async function sweepModel(db: Driver, model: ModelName, sourceId: string, generation: string): Promise<number> {
  const table = q(tableOf(model));
  const extra = model === 'vulnerabilities' ? `, "status" = 'fixed'` : '';
  return db.run(`UPDATE ${table} SET "removed" = 1${extra} WHERE "source_id" = ? AND "removed" = 0 AND ("seen_gen" IS NULL OR "seen_gen" <> ?)`, [sourceId, generation]);
}

export type FilterOp = '=' | '!=' | '>' | '>=' | '<' | '<=' | '~';
export interface Filter {
  field: string;
  op: FilterOp;
  value: string;
}

export interface QueryOptions {
  sourceIds?: string[];
  filters?: Filter[];
  limit?: number;
  /** Opaque cursor from a previous page. */
  cursor?: string | null;
}

export interface QueryPage {
  records: StoredRecord[];
  nextCursor: string | null;
}

function filterClause(model: ModelName, f: Filter, params: unknown[]): string {
  const def = fieldsOf(model).find((d) => d.name === f.field);
  if (!def || f.field === 'source') throw new InputError(`unknown field '${f.field}' for ${model}; fields: ${fieldsOf(model).map((d) => d.name).join(', ')}`, f.field);
  const col = `r.${q(columnOf(def.name))}`;
  if (f.op === '~') {
    params.push(`%${f.value.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`);
    return `LOWER(${col}) LIKE ? ESCAPE '\\'`;
  }
  if (def.kind === 'json') {
    if (f.op !== '=' && f.op !== '!=') throw new InputError(`${f.field} is a list; use ${f.field}=VALUE to match an element`, f.field);
    params.push(`%${JSON.stringify(f.value).replace(/[\\%_]/g, (c) => '\\' + c)}%`);
    return `${f.op === '!=' ? 'NOT ' : ''}COALESCE(${col}, '') LIKE ? ESCAPE '\\'`;
  }
  let v: unknown = f.value;
  if (def.kind === 'bool') {
    const s = f.value.toLowerCase();
    if (s !== 'true' && s !== 'false') throw new InputError(`${f.field} is true or false, got '${f.value}'`, f.field);
    v = s === 'true' ? 1 : 0;
  } else if (def.kind === 'int' || def.kind === 'real') {
    const n = Number(f.value);
    if (f.value.trim() === '' || !Number.isFinite(n)) throw new InputError(`${f.field} is a number, got '${f.value}'`, f.field);
    v = n;
  } else if (f.value.toLowerCase() === 'null' && (f.op === '=' || f.op === '!=')) {
    return `${col} IS ${f.op === '=' ? '' : 'NOT '}NULL`;
  }
  params.push(v);
  const op = f.op === '!=' ? '<>' : f.op;
  return `${col} ${op} ?`;
}

export async function queryRecords(db: Driver, model: ModelName, opts: QueryOptions): Promise<QueryPage> {
  const limit = Math.max(1, Math.min(opts.limit ?? 100, 10_000));
  const params: unknown[] = [];
  const where: string[] = [];
  if (opts.sourceIds) {
    if (opts.sourceIds.length === 0) return { records: [], nextCursor: null };
    where.push(`r."source_id" IN (${opts.sourceIds.map(() => '?').join(',')})`);
    params.push(...opts.sourceIds);
  }
  for (const f of opts.filters ?? []) where.push(filterClause(model, f, params));
  if (opts.cursor) {
    where.push(`r."id" > ?`);
    params.push(decodeCursor(opts.cursor));
  }
  const sql = `SELECT r.*, s."name" AS "source_name" FROM ${q(tableOf(model))} r JOIN "sources" s ON s."id" = r."source_id"${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY r."id" LIMIT ${limit + 1}`;
  const rows = await db.all(sql, params);
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const records = page.map((row) => rowToRecord(model, row));
  return { records, nextCursor: more ? encodeCursor(String(page[page.length - 1].id)) : null };
}

export async function countRecords(db: Driver, model: ModelName, sourceId?: string): Promise<number> {
  const rows = await db.all(`SELECT COUNT(*) AS "n" FROM ${q(tableOf(model))}${sourceId ? ` WHERE "source_id" = ?` : ''}`, sourceId ? [sourceId] : []);
  return Number(rows[0]?.n ?? 0);
}

export function rowToRecord(model: ModelName, row: Row): StoredRecord {
  const out: Record<string, unknown> = {};
  for (const f of COMMON_FIELDS) {
    if (f.name === 'source') out.source = row.source_name;
    else out[f.name] = fromColumnValue(f, row[columnOf(f.name)]);
  }
  for (const f of MODEL_FIELDS[model]) out[f.name] = fromColumnValue(f, row[columnOf(f.name)]);
  return out as StoredRecord;
}

function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

function decodeCursor(c: string): string {
  const id = Buffer.from(c, 'base64url').toString('utf8');
  if (!/^[0-9a-f]{32}$/.test(id)) throw new InputError('invalid cursor', 'cursor');
  return id;
}
