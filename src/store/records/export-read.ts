// Reading every matching record of a model in id order, a page at a time, for exports: the rows of
// `query` (same filters, same joins, same fields), converted by a reader compiled once per model
// (column names and value kinds worked out before the first row, not per field of every row) with
// the SLA policy and clock read once per page.
import { COMMON_FIELDS, type FieldDef, MODEL_FIELDS, type ModelName, type StoredRecord } from '../../core/models.ts';
import type { Driver, Row } from '../db/driver.ts';
import { anyLiveException, findingExceptionMatcher, withException } from '../exceptions/exceptions.ts';
import { EXCEPTION_COLUMN, joinedColumns, recordColumns, recordFrom, withPriority } from './row-mapping.ts';
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

type Convert = (row: Row) => Record<string, unknown>;

interface Reader {
  /** A row → the record's fields in the model's order, as one object literal. */
  convert: Convert;
  findings: boolean;
}

const readers = new Map<ModelName, Reader>();

/**
 * The model's row conversion, compiled once: the row's values read into an array by a loop over the
 * columns, then one object literal of every field (what each value is read as written into the code).
 * Set key by key, a record of some 50 fields went through as many hidden-class transitions and keyed
 * stores; and node:sqlite's rows are dictionary objects, from which a loop of keyed loads reads four
 * times faster than a named load per field (bench/export: ~11 → ~2.5 µs a finding, both measured).
 */
function readerOf(model: ModelName): Reader {
  let r = readers.get(model);
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
  const columns = fields.map((f) => f.column);
  // The names are the model's own (core/models.ts), written as JSON string literals.
  const body = `return (v) => ({${fields.map((f, i) => `${JSON.stringify(f.name)}: ${f.as}(v[${i}])`).join(', ')}});`;
  const build = new Function('text', 'json', 'bool', 'num', body)(text, json, bool, num) as (values: unknown[]) => Record<string, unknown>;
  const values = new Array<unknown>(columns.length);
  const convert: Convert = (row) => {
    for (let i = 0; i < columns.length; i++) values[i] = row[columns[i]];
    return build(values);
  };
  r = { convert, findings: model === 'vulnerabilities' };
  readers.set(model, r);
  return r;
}

/** One stored row as the record `query` returns (the same fields and values, in the same order, as records.ts rowToRecord). */
function toRecord(r: Reader, row: Row, now: number, nowText: string, policy: ReturnType<typeof slaPolicy>, priority: PriorityConfig | null): StoredRecord {
  const out = r.convert(row);
  if (r.findings) {
    withException(out, row[EXCEPTION_COLUMN], nowText);
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
  const reader = readerOf(model);
  const params: unknown[] = [];
  const where = whereClauses(model, opts, params);
  if (where === null) return;
  // A finding's exception is matched in memory against the proposed and approved ones, read once (they are
  // few), rather than by a subquery per row; without any (the usual case) nothing is looked up.
  const columns = recordColumns(model, { exceptions: false });
  const matcher = reader.findings && (await anyLiveException(db)) ? await findingExceptionMatcher(db) : null;
  const head = `SELECT ${columns} FROM ${recordFrom(model)} WHERE `;
  const tail = ` ORDER BY r."id" LIMIT ${sqlCount(Math.max(1, Math.floor(pageSize)), 'page size')}`;
  const first = where.length ? `${head}${where.join(' AND ')}${tail}` : `SELECT ${columns} FROM ${recordFrom(model)}${tail}`;
  const next = `${head}${[...where, `r."id" > ?`].join(' AND ')}${tail}`;
  let last: string | null = null;
  for (;;) {
    const rows: Row[] = last === null ? await db.all(first, params) : await db.all(next, [...params, last]);
    if (rows.length === 0) return;
    const now = Date.now();
    const nowText = new Date(now).toISOString();
    const policy = slaPolicy();
    const priority = opts.priorityText === false ? null : priorityConfig();
    const page = new Array<StoredRecord>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (matcher) row[EXCEPTION_COLUMN] = matcher(row.id, row.plugin_id, row.host_id, row[ASSET_ID_COLUMN]);
      page[i] = toRecord(reader, row, now, nowText, policy, priority);
    }
    last = String(rows[rows.length - 1].id);
    yield page;
    if (rows.length < pageSize) return;
  }
}
