// Reading the change feed: events in the order they were written, filtered by time or run, model,
// source, change and any field, paged by an opaque cursor. The `changes` model of interfaces.md §6.2.
import { InputError } from '../../core/errors.ts';
import type { ChangeKind, FieldDef } from '../../core/models.ts';
import type { Driver, Row } from '../db/driver.ts';
import type { Filter } from './filter-syntax.ts';
import { columnOf, q } from '../db/schema.ts';
import { sqlCount } from '../db/rows.ts';
import { decodeCursor, encodeCursor, inList } from '../db/sql.ts';
import { type OneRun, oneRunClause, parseIsoTime, type Since, sinceClause } from './since.ts';

/** One lifecycle event of a record. */
export interface ChangeRow {
  /** Its record's, its run's and its change's. */
  id: string;
  source: string;
  model: string;
  recordId: string;
  externalId: string | null;
  change: ChangeKind;
  /** The status before (fixed, reopened, updated) and after. */
  from: string | null;
  to: string | null;
  runId: string;
  at: string;
}

const CHANGE_FIELD_ORDER: (keyof ChangeRow)[] = ['id', 'source', 'model', 'recordId', 'externalId', 'change', 'from', 'to', 'runId', 'at'];

/** The fields of a change event, in output order. */
export const CHANGE_FIELDS: FieldDef[] = CHANGE_FIELD_ORDER.map((name) => ({ name, kind: name === 'at' ? 'time' : 'text' }));

export interface ChangeQuery {
  sourceIds?: string[];
  models?: string[];
  changes?: string[];
  /** After a run or from a time (since.ts). */
  since?: Since | null;
  /** Exactly one run's events. */
  run?: OneRun | null;
  filters?: Filter[];
  limit?: number;
  cursor?: string | null;
}

export interface ChangePage {
  records: ChangeRow[];
  nextCursor: string | null;
}

/** An event's id: its record's, its run's and its change (unique: a record changes one way once in a run). */
export const changeId = (recordId: string, runId: string, change: string) => `${recordId}-${runId.replace(/-/g, '')}-${change}`;

function column(field: string): string {
  if (field === 'source') return 's."name"';
  if (field === 'id') return `(c."record_id" || '-' || REPLACE(c."run_id", '-', '') || '-' || c."change")`;
  return `c.${q(columnOf(field))}`;
}

function filterClause(f: Filter, params: unknown[]): string {
  if (!CHANGE_FIELDS.some((d) => d.name === f.field))
    throw new InputError(`unknown field '${f.field}' for changes; fields: ${CHANGE_FIELDS.map((d) => d.name).join(', ')}`, f.field);
  const col = column(f.field);
  if (f.op === '~') {
    params.push(`%${f.value.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`);
    return `LOWER(${col}) LIKE ? ESCAPE '\\'`;
  }
  if (f.value.toLowerCase() === 'null' && (f.op === '=' || f.op === '!=')) return `${col} IS ${f.op === '=' ? '' : 'NOT '}NULL`;
  params.push(f.field === 'at' ? isoTime(f.value, 'at') : f.value);
  return `${col} ${f.op === '!=' ? '<>' : f.op} ?`;
}

function isoTime(value: string, param: string): string {
  const t = parseIsoTime(value);
  if (t === null) throw new InputError(`${param} must be an ISO-8601 time, got '${value}'`, param);
  return t;
}

export async function queryChanges(db: Driver, opts: ChangeQuery): Promise<ChangePage> {
  const limit = Math.max(1, Math.min(opts.limit ?? 100, 10_000));
  const params: unknown[] = [];
  const where: string[] = [];
  if (opts.sourceIds) {
    if (opts.sourceIds.length === 0) return { records: [], nextCursor: null };
    where.push(`c."source_id" IN ${inList(opts.sourceIds, params)}`);
  }
  if (opts.models?.length) where.push(`c."model" IN ${inList(opts.models, params)}`);
  if (opts.changes?.length) where.push(`c."change" IN ${inList(opts.changes, params)}`);
  if (opts.since && opts.run) throw new InputError('since and run do not go together: run is one run, since every later one', 'run');
  const from = opts.since?.at ?? opts.run?.startedAt;
  if (from !== undefined) {
    // Where the feed's order reaches the time (found in the time index), so the page is read from there
    // rather than found by filtering the feed from its start. The unary + keeps SQLite from reading
    // MIN(seq) as "walk the key from its start until a row matches", which reads the whole feed.
    where.push(`c."seq" >= (SELECT MIN(+"seq") FROM "changes" WHERE "at" >= ?)`);
    params.push(from);
  }
  if (opts.since) where.push(sinceClause('c', opts.since, params));
  if (opts.run) where.push(oneRunClause('c', opts.run, params));
  for (const f of opts.filters ?? []) where.push(filterClause(f, params));
  if (opts.cursor) {
    where.push(`c."seq" > ?`);
    params.push(decodeSeqCursor(opts.cursor));
  }
  const sql = `SELECT c.*, s."name" AS "source_name" FROM "changes" c JOIN "sources" s ON s."id" = c."source_id"${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY c."seq" LIMIT ${sqlCount(limit + 1, 'limit')}`;
  const rows = await db.all(sql, params);
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page.at(-1);
  return { records: page.map(toChange), nextCursor: more && last ? encodeCursor([Number(last.seq)]) : null };
}

function toChange(r: Row): ChangeRow {
  const s = (v: unknown) => (v === null || v === undefined ? null : String(v));
  return {
    id: changeId(String(r.record_id), String(r.run_id), String(r.change)),
    source: String(r.source_name),
    model: String(r.model),
    recordId: String(r.record_id),
    externalId: s(r.external_id),
    change: String(r.change) as ChangeKind,
    from: s(r.from),
    to: s(r.to),
    runId: String(r.run_id),
    at: String(r.at),
  };
}

function decodeSeqCursor(c: string): number {
  const v = decodeCursor(c);
  if (v && v.length === 1 && Number.isSafeInteger(v[0])) return v[0] as number;
  throw new InputError('invalid cursor (not from a change feed page?)', 'cursor');
}
