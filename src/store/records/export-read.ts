// Reading every matching record of a model in id order, a page at a time, for exports: the rows of
// `query` (same filters, same joins, same fields), converted by a reader compiled once per model
// (column names and value kinds worked out before the first row, not per field of every row) with
// the SLA policy and clock read once per page.
import { COMMON_FIELDS, type FieldDef, MODEL_FIELDS, type ModelName, type StoredRecord } from '../../core/models.ts';
import type { Driver, Row } from '../db/driver.ts';
import { anyLiveException, findingExceptionMatcher, withException } from '../exceptions/exceptions.ts';
import { EXCEPTION_COLUMN, factorsOf, joinedColumns, reasonOf, recordColumns, recordFrom } from './row-mapping.ts';
import { type QueryOptions, whereClauses } from './query.ts';
import { columnOf } from '../db/schema.ts';
import { slaPolicy, withSla } from './sla.ts';
import { sqlCount } from '../db/rows.ts';

/** The column a finding's host's asset id is read as (row-mapping.ts JOINED). */
const ASSET_ID_COLUMN = joinedColumns('vulnerabilities').find((j) => j.name === 'assetId')!.column;

type Kind = 0 | 1 | 2 | 3; // text, json, bool, number
const KIND: Record<string, Kind> = { json: 1, bool: 2, int: 3, real: 3 };

interface Reader {
  names: string[];
  columns: string[];
  kinds: Kind[];
  findings: boolean;
}

const readers = new Map<ModelName, Reader>();

function readerOf(model: ModelName): Reader {
  let r = readers.get(model);
  if (r) return r;
  const defs: FieldDef[] = [...COMMON_FIELDS, ...MODEL_FIELDS[model]];
  const joined = joinedColumns(model);
  r = {
    names: [...defs.map((f) => f.name), ...joined.map((j) => j.name)],
    columns: [...defs.map((f) => (f.name === 'source' ? 'source_name' : columnOf(f.name))), ...joined.map((j) => j.column)],
    kinds: [...defs.map((f) => (f.name === 'source' ? 0 : (KIND[f.kind] ?? 0))), ...joined.map((): Kind => 0)],
    findings: model === 'vulnerabilities',
  };
  readers.set(model, r);
  return r;
}

/** One stored row as the record `query` returns (the same fields and values as records.ts rowToRecord). */
function toRecord(r: Reader, row: Row, now: number, nowText: string, policy: ReturnType<typeof slaPolicy>): StoredRecord {
  const out: Record<string, unknown> = {};
  const { names, columns, kinds } = r;
  for (let i = 0; i < names.length; i++) {
    const v = row[columns[i]];
    if (v === null || v === undefined) {
      out[names[i]] = null;
      continue;
    }
    switch (kinds[i]) {
      case 1:
        out[names[i]] = typeof v === 'string' ? JSON.parse(v) : v;
        break;
      case 2:
        out[names[i]] = Number(v) === 1;
        break;
      case 3:
        out[names[i]] = Number(v);
        break;
      default:
        out[names[i]] = typeof v === 'string' ? v : String(v);
    }
  }
  if (r.findings) {
    withException(out, row[EXCEPTION_COLUMN], nowText);
    withSla(out, now, policy);
    out.priorityReason = reasonOf(out);
    out.priorityFactors = factorsOf(out);
  }
  return out as StoredRecord;
}

export type ExportReadOptions = Pick<QueryOptions, 'sourceIds' | 'filters' | 'changedSince'>;

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
    const page = new Array<StoredRecord>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (matcher) row[EXCEPTION_COLUMN] = matcher(row.id, row.plugin_id, row.host_id, row[ASSET_ID_COLUMN]);
      page[i] = toRecord(reader, row, now, nowText, policy);
    }
    last = String(rows[rows.length - 1].id);
    yield page;
    if (rows.length < pageSize) return;
  }
}
