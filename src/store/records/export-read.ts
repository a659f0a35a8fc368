// Reading every matching record of a model in id order, a page at a time, for exports: the rows of
// `query` (same filters, same joins, same fields), read as arrays and converted by a reader compiled
// once per model and column list (places and value kinds worked out before the first row, not per
// field of every row) with the SLA policy and clock read once per page.
import { COMMON_FIELDS, type FieldDef, MODEL_FIELDS, type ModelName, type StoredRecord } from '../../core/models.ts';
import type { ArrayRows, Driver } from '../db/driver.ts';
import { anyLiveException, findingExceptionMatcher, withException } from '../exceptions/exceptions.ts';
import { joinedColumns, recordColumns, recordFrom, withPriority } from './row-mapping.ts';
import { priorityConfig } from './priority.ts';
import type { PriorityConfig } from '../../core/priority.ts';
import { type QueryOptions, whereClauses } from './query.ts';
import { columnOf } from '../db/schema.ts';
import { slaPolicy, withSla } from './sla.ts';
import { sqlCount } from '../db/rows.ts';

/** The column a finding's host's asset id is read as (row-mapping.ts JOINED). */
const ASSET_ID_COLUMN = joinedColumns('vulnerabilities').find((j) => j.name === 'assetId')!.column;

// A stored value as a record's field: text, JSON (parsed), a boolean (SQLite's 0/1), a number; null for none.
const text = (v: unknown) => (v === null || v === undefined ? null : typeof v === 'string' ? v : String(v));
const json = (v: unknown) => (v === null || v === undefined ? null : typeof v === 'string' ? JSON.parse(v) : v);
const bool = (v: unknown) => (v === null || v === undefined ? null : Number(v) === 1);
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const CONVERT: Record<string, string> = { json: 'json', bool: 'bool', int: 'num', real: 'num' };

/** A row's values (in the query's column order) → the record's fields in the model's order, as one object literal. */
type Convert = (values: unknown[]) => Record<string, unknown>;

interface Reader {
  convert: Convert;
  findings: boolean;
  /** Where the exception matcher's inputs are in a row: the finding's id, plugin, host and host's asset. */
  at: { id: number; plugin: number; host: number; asset: number };
}

/** Readers by model and the query's column names (`r.*` is whatever columns the table has). */
const readers = new Map<string, Reader>();

/**
 * The model's row conversion for rows of these columns, compiled once: one object literal of every
 * field, each read from its place in the row's array as the kind it is stored as (written into the
 * code). Rows are read as arrays (Driver.allArrays): node:sqlite's row objects are dictionaries and pg
 * builds each row object key by key, and a record of some 50 fields built key by key went through as
 * many hidden-class transitions; an array is read at fixed indexes (bench/export).
 */
function readerOf(model: ModelName, columns: string[]): Reader {
  const key = `${model}\u0000${columns.join('\u0000')}`;
  let r = readers.get(key);
  if (r) return r;
  const defs: FieldDef[] = [...COMMON_FIELDS, ...MODEL_FIELDS[model]];
  const fields = [
    ...defs.map((f) => ({
      name: f.name,
      column: f.name === 'source' ? 'source_name' : columnOf(f.name),
      as: f.name === 'source' ? 'text' : (CONVERT[f.kind] ?? 'text'),
    })),
    ...joinedColumns(model).map((j) => ({ name: j.name, column: j.column, as: 'text' })),
  ];
  // The last of a repeated name, as a row object keeps it.
  const index = new Map<string, number>(columns.map((c, i) => [c, i]));
  const at = (column: string) => {
    const i = index.get(column);
    if (i === undefined) throw new Error(`export read: the query has no column ${column}`);
    return i;
  };
  // The names are the model's own (core/models.ts), written as JSON string literals; the indexes are numbers.
  const body = `return (v) => ({${fields.map((f) => `${JSON.stringify(f.name)}: ${f.as}(v[${at(f.column)}])`).join(', ')}});`;
  const convert = new Function('text', 'json', 'bool', 'num', body)(text, json, bool, num) as Convert;
  const findings = model === 'vulnerabilities';
  r = {
    convert,
    findings,
    at: findings
      ? { id: at('id'), plugin: at('plugin_id'), host: at('host_id'), asset: at(ASSET_ID_COLUMN) }
      : { id: at('id'), plugin: -1, host: -1, asset: -1 },
  };
  readers.set(key, r);
  return r;
}

/** One stored row as the record `query` returns (the same fields and values, in the same order, as records.ts rowToRecord). */
function toRecord(
  r: Reader,
  values: unknown[],
  exception: unknown,
  now: number,
  nowText: string,
  policy: ReturnType<typeof slaPolicy>,
  priority: PriorityConfig | null,
): StoredRecord {
  const out = r.convert(values);
  if (r.findings) {
    withException(out, exception, nowText);
    withSla(out, now, policy);
    if (priority) withPriority(out, priority);
  }
  return out as StoredRecord;
}

export type ExportReadOptions = Pick<QueryOptions, 'sourceIds' | 'filters' | 'changedSince'> & {
  /** False: findings without priorityReason and priorityFactors, for a format that never writes them (their text is a good part of reading a finding). */
  priorityText?: boolean;
};

/**
 * Every record matching the options, in id order, as pages of at most `pageSize` (keyset paging on the
 * id: each page is one indexed range read, whatever the depth). A page is read when the consumer asks for it.
 */
export async function* recordPages(db: Driver, model: ModelName, opts: ExportReadOptions, pageSize = 1000): AsyncGenerator<StoredRecord[]> {
  const params: unknown[] = [];
  const where = whereClauses(model, opts, params);
  if (where === null) return;
  // A finding's exception is matched in memory against the proposed and approved ones, read once (they are
  // few), rather than by a subquery per row; without any (the usual case) nothing is looked up.
  const columns = recordColumns(model, { exceptions: false });
  const matcher = model === 'vulnerabilities' && (await anyLiveException(db)) ? await findingExceptionMatcher(db) : null;
  const head = `SELECT ${columns} FROM ${recordFrom(model)} WHERE `;
  const tail = ` ORDER BY r."id" LIMIT ${sqlCount(Math.max(1, Math.floor(pageSize)), 'page size')}`;
  const first = where.length ? `${head}${where.join(' AND ')}${tail}` : `SELECT ${columns} FROM ${recordFrom(model)}${tail}`;
  const next = `${head}${[...where, `r."id" > ?`].join(' AND ')}${tail}`;
  let last: string | null = null;
  for (;;) {
    const { columns: names, rows }: ArrayRows = last === null ? await db.allArrays(first, params) : await db.allArrays(next, [...params, last]);
    if (rows.length === 0) return;
    const reader = readerOf(model, names);
    const { at } = reader;
    const now = Date.now();
    const nowText = new Date(now).toISOString();
    const policy = slaPolicy();
    const priority = opts.priorityText === false ? null : priorityConfig();
    const page = new Array<StoredRecord>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      const exception = matcher ? matcher(row[at.id], row[at.plugin], row[at.host], row[at.asset]) : null;
      page[i] = toRecord(reader, row, exception, now, nowText, policy, priority);
    }
    last = String(rows[rows.length - 1][at.id]);
    yield page;
    if (rows.length < pageSize) return;
  }
}
