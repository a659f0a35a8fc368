// Record queries: filters (field, operator, value) as SQL, sorts (nulls last, served by indexes), and
// pages by an opaque cursor or by position.
import type { FieldDef, ModelName, StoredRecord } from '../../core/models.ts';
import { InputError } from '../../core/errors.ts';
import { fieldsOf } from '../../core/models.ts';
import type { Driver, Row } from '../db/driver.ts';
import { nowIso, sqlCount } from '../db/rows.ts';
import { exceptedCandidatesClause, exceptedFindingsClause } from '../exceptions/exceptions.ts';
import { columnOf, q, sortOnlyExpression, tableOf } from '../db/schema.ts';
import { decodeCursor, decodeIdCursor, encodeCursor, encodeIdCursor, placeholders } from '../db/sql.ts';
import { withCvePlugins } from './cve-plugins.ts';
import type { Filter } from './filter-syntax.ts';
import { isComputed, JOINED, recordColumns, recordFrom, rowToRecord, sourceJoin } from './row-mapping.ts';
import { runsSinceSql, type Since, sinceClause } from './since.ts';
import { slaFilterClause } from './sla.ts';

export interface QueryOptions {
  sourceIds?: string[];
  filters?: Filter[];
  limit?: number;
  /** Opaque cursor from a previous page. */
  cursor?: string | null;
  /** Records to skip before the page (a page number's start; used only without a cursor). */
  offset?: number;
  /** Order by one field (then by id); nulls last in both directions. Default: by id. */
  sort?: SortSpec | null;
  /**
   * Only records changed in this window (since.ts): last stored by a run it counts, or with an event in
   * the change feed by such a run, which brings the records a sweep fixed or removed.
   */
  changedSince?: Since | null;
}

export interface SortSpec {
  field: string;
  desc?: boolean;
}

export interface QueryPage {
  records: StoredRecord[];
  nextCursor: string | null;
}

function filterClause(model: ModelName, f: Filter, params: unknown[]): string {
  const def = fieldsOf(model).find((d) => d.name === f.field);
  if (!def || f.field === 'source')
    throw new InputError(
      `unknown field '${f.field}' for ${model}; fields: ${fieldsOf(model)
        .map((d) => d.name)
        .join(', ')}`,
      f.field,
    );
  const joined = JOINED[model]?.[f.field];
  if (model === 'vulnerabilities' && (f.field === 'priorityReason' || f.field === 'priorityFactors'))
    throw new InputError(
      `${f.field} is ${f.field === 'priorityReason' ? 'a sentence' : 'an object'} to read; filter by decision (decision>=attend) or priority (priority>=75)`,
      f.field,
    );
  if (joined === undefined && isComputed(model, f.field)) return EXCEPTION_FIELDS.has(f.field) ? exceptionFilterClause(f, params) : slaFilterClause(f, params);
  const col = joined ?? `r.${q(columnOf(def.name))}`;
  if (f.op === '~') {
    params.push(`%${f.value.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`);
    return `LOWER(${col}) LIKE ? ESCAPE '\\'`;
  }
  if (def.kind === 'json') {
    if (f.op !== '=' && f.op !== '!=') throw new InputError(`${f.field} is a list; use ${f.field}=VALUE to match an element`, f.field);
    // Only the findings of the plugins that may name the CVE are searched (their plugin_id index).
    const plugins = model === 'vulnerabilities' && f.op === '=' ? f.plugins : undefined;
    if (plugins?.length === 0) return '1 = 0';
    if (plugins) params.push(...plugins);
    params.push(`%${JSON.stringify(f.value).replace(/[\\%_]/g, (c) => '\\' + c)}%`);
    const search = `${f.op === '!=' ? 'NOT ' : ''}COALESCE(${col}, '') LIKE ? ESCAPE '\\'`;
    // Within the plugins the test is written as a CASE: PostgreSQL estimates a long LIKE pattern to match
    // almost nothing, so it read every finding of the plugin and sorted them (17,000 rows, 0.3 s at 1.9 M
    // findings) instead of walking the plugin's index in the list's order up to the page; a CASE gets
    // the default estimate. The same rows match.
    return plugins ? `(r."plugin_id" IN ${placeholders(plugins)} AND (CASE WHEN ${search} THEN 1 END) = 1)` : search;
  }
  if (def.values) return enumClause(model, def, f, col, params);
  let v: unknown = f.value;
  if (def.kind === 'bool') {
    const s = f.value.toLowerCase();
    if (s !== 'true' && s !== 'false') throw new InputError(`${f.field} is true or false, got '${f.value}'`, f.field);
    v = s === 'true' ? 1 : 0;
  } else if (def.kind === 'int' || def.kind === 'real') {
    const n = Number(f.value);
    if (f.value.trim() === '' || !Number.isFinite(n)) throw new InputError(`${f.field} is a number, got '${f.value}'`, f.field);
    // An int field is a 32-bit INTEGER column on PostgreSQL: a value past it (or a fraction) was a 500 there.
    if (def.kind === 'int' && !(Number.isInteger(n) && n >= INT_MIN && n <= INT_MAX))
      throw new InputError(`${f.field} must be a whole number from ${INT_MIN} to ${INT_MAX}, got '${f.value.slice(0, 24)}'`, f.field);
    v = n;
  } else if (f.value.toLowerCase() === 'null' && (f.op === '=' || f.op === '!=')) {
    return `${col} IS ${f.op === '=' ? '' : 'NOT '}NULL`;
  }
  params.push(v);
  const op = f.op === '!=' ? '<>' : f.op;
  return `${col} ${op} ?`;
}

/** A finding's risk exception fields (models.ts COMPUTED_FIELDS): `excepted` filters, the others are shown. */
const EXCEPTION_FIELDS = new Set(['excepted', 'exceptionId', 'exceptionState', 'exceptionReason', 'exceptionExpiresAt']);

/** `excepted=true|false`: covered now by an approved, unexpired risk exception (exceptions.ts), or not. */
function exceptionFilterClause(f: Filter, params: unknown[]): string {
  const s = f.value.trim().toLowerCase();
  if (f.field !== 'excepted' || (s !== 'true' && s !== 'false') || (f.op !== '=' && f.op !== '!='))
    throw new InputError(`a finding's exception filters as excepted=true or excepted=false, got '${f.field}${f.op}${f.value}'`, f.field);
  const now = nowIso();
  // The excepted ones are read from the exceptions' findings and plugins (by index), then tested.
  if ((s === 'true') === (f.op === '=')) return `${exceptedCandidatesClause('r', now, params)} AND ${exceptedFindingsClause('r', now, params)}`;
  return `NOT ${exceptedFindingsClause('r', now, params)}`;
}

/** Rank of an ordered enum's column (null for a value outside it). */
function rankExpression(col: string, values: readonly string[]): string {
  return `(CASE ${col} ${values.map((s, i) => `WHEN '${s}' THEN ${i}`).join(' ')} END)`;
}

/**
 * A filter on an enum field: values compare case-insensitively (`severity=Critical`), a value outside
 * the enum is refused naming the allowed ones, and `<`, `>` follow the enum's order where it has one.
 */
function enumClause(model: ModelName, def: FieldDef, f: Filter, col: string, params: unknown[]): string {
  const values = def.values!;
  const given = f.value.trim().toLowerCase();
  // `track*` was the stored value of CISA's Track* before migration 36; still accepted as its alias.
  const v = given === 'track*' && values.includes('track-star') ? 'track-star' : given;
  if (v === 'null' && (f.op === '=' || f.op === '!=')) return `${col} IS ${f.op === '=' ? '' : 'NOT '}NULL`;
  if (!values.includes(v)) throw new InputError(`unknown ${f.field} '${f.value}' for ${model}; ${f.field} is one of: ${values.join(', ')}`, f.field);
  if (f.op === '=' || f.op === '!=') {
    params.push(v);
    return `${col} ${f.op === '!=' ? '<>' : '='} ?`;
  }
  if (!def.ordered) throw new InputError(`${f.field} has no order; use ${f.field}=VALUE or ${f.field}!=VALUE (one of: ${values.join(', ')})`, f.field);
  params.push(values.indexOf(v));
  return `${rankExpression(col, values)} ${f.op} ?`;
}

/** The range of an int field's column (INTEGER on both stores). */
const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

/**
 * The expression a page sorts by. On one host (a hostId filter: tens of findings), SQLite, which keeps
 * no statistics, would walk the sort's own index over every finding (1.3 s for `sort=-priority` at
 * 954,240 findings): there the expression is one no index has, so the host's findings are read by its
 * index and sorted.
 */
function sortOf(db: Driver, model: ModelName, field: string, filters: Filter[] | undefined): string {
  const expr = sortExpression(model, field);
  const oneHost = filters?.some((f) => f.field === 'hostId' && f.op === '=' && !f.value.includes(','));
  return db.dialect === 'sqlite' && oneHost ? `(CASE WHEN 1 = 1 THEN ${expr} END)` : expr;
}

export async function queryRecords(db: Driver, model: ModelName, opts: QueryOptions): Promise<QueryPage> {
  if (model === 'vulnerabilities') opts = { ...opts, filters: await withCvePlugins(db, opts.filters) };
  const limit = sqlCount(Math.max(1, Math.min(Math.floor(opts.limit ?? 100), 10_000)), 'limit');
  const params: unknown[] = [];
  const where = whereClauses(model, opts, params);
  if (where === null) return { records: [], nextCursor: null };
  const sort = opts.sort && opts.sort.field !== 'id' ? opts.sort : null;
  const desc = opts.sort?.desc === true;
  const dir = desc ? 'DESC' : 'ASC';
  const cmp = desc ? '<' : '>';
  // The page's records are chosen on narrow rows (the id, with only the joins a filter or the sort
  // needs), then read whole: a sort then moves ids, not every column and join of thousands of rows.
  const joins = [...(opts.filters ?? []).map((f) => f.field), ...(sort ? [sort.field] : [])].some((field) => JOINED[model]?.[field] !== undefined);
  const narrowFrom = joins ? recordFrom(model) : `${q(tableOf(model))} r ${sourceJoin(model)}`;
  const select = (extra: string[], order: string, n: number, more: unknown[], key = '') => {
    const w = [...where, ...extra];
    const chosen = `SELECT r."id" FROM ${narrowFrom}${w.length ? ` WHERE ${w.join(' AND ')}` : ''} ORDER BY ${order} LIMIT ${n}`;
    return db.all(`SELECT ${recordColumns(model)}${key} FROM ${recordFrom(model)} WHERE r."id" IN (${chosen}) ORDER BY ${order}`, [...params, ...more]);
  };
  let rows: Row[] = [];
  // A page asked for by its position (a reloaded or shared page N of a list) instead of a cursor: one
  // read in the full order, nulls last, skipping what comes before it.
  const offset = !opts.cursor && opts.offset && opts.offset > 0 ? sqlCount(Math.floor(opts.offset), 'offset') : 0;
  if (offset) {
    const sortExpr = sort ? sortOf(db, model, sort.field, opts.filters) : null;
    const order = sortExpr ? `${sortExpr} ${dir} NULLS LAST, r."id" ${dir}` : `r."id" ${dir}`;
    rows = await db.all(
      `SELECT ${recordColumns(model)}${sortExpr ? `, ${sortExpr} AS "sort_key"` : ''} FROM ${recordFrom(model)}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order} LIMIT ${limit + 1} OFFSET ${offset}`,
      params,
    );
  } else if (sort) {
    // Nulls last in both directions, read in two steps: the values in order (a plain ORDER BY that an
    // index on the field serves on both stores; NULLS LAST would keep SQLite from using it), then the
    // nulls by id. An expression that is never null (a finding's severity rank) needs only the first.
    const notNull = NOT_NULL_SORTS.has(sortExpression(model, sort.field));
    const sortExpr = sortOf(db, model, sort.field, opts.filters);
    const key = `, ${sortExpr} AS "sort_key"`;
    const c = opts.cursor ? decodeSortCursor(opts.cursor) : null;
    if (!c || c.v !== null) {
      const extra = notNull ? [] : [`${sortExpr} IS NOT NULL`];
      const more: unknown[] = [];
      if (c) {
        // A row-value comparison: the index range starts at the cursor.
        extra.push(`(${sortExpr}, r."id") ${cmp} (?, ?)`);
        more.push(c.v, c.id);
      }
      // Each range of the sort's values the filters leave, read in order (sortRanges).
      for (const range of sortRanges(model, sort.field, sortExpr, opts.filters, desc)) {
        if (rows.length > limit) break;
        const got = await select([...extra, ...range.terms], `${sortExpr} ${dir}, r."id" ${dir}`, limit + 1 - rows.length, [...more, ...range.params], key);
        rows = rows.concat(got);
      }
    }
    if (!notNull && rows.length <= limit) {
      const extra = [`${sortExpr} IS NULL`];
      const more: unknown[] = [];
      if (c && c.v === null) {
        extra.push(`r."id" ${cmp} ?`);
        more.push(c.id);
      }
      rows = rows.concat(await select(extra, `r."id" ${dir}`, limit + 1 - rows.length, more, key));
    }
  } else {
    const extra: string[] = [];
    const more: unknown[] = [];
    if (opts.cursor) {
      extra.push(`r."id" ${cmp} ?`);
      more.push(decodeRecordCursor(opts.cursor));
    }
    rows = await select(extra, `r."id" ${dir}`, limit + 1, more);
  }
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const records = page.map((row) => rowToRecord(model, row));
  if (!more) return { records, nextCursor: null };
  const last = page[page.length - 1];
  return { records, nextCursor: sort ? encodeCursor([last.sort_key ?? null, String(last.id)]) : encodeIdCursor(String(last.id)) };
}

/**
 * The ranges of a sort's index the page is read from, in the sort's order: the whole index, or, where
 * a filter on an enum field the list sorts by as text (a finding's status) keeps one value or leaves
 * one out, only that value's range, or the ranges below and above it. The filter alone leaves the
 * planner walking the index from its start through every row of the values it excludes (sorting the
 * live findings by status walked every fixed finding, 1.3 s at 1.9 M findings); the ranges give the
 * same rows in the same order.
 */
function sortRanges(model: ModelName, field: string, sortExpr: string, filters: Filter[] | undefined, desc: boolean): { terms: string[]; params: unknown[] }[] {
  const whole = [{ terms: [], params: [] }];
  const def = fieldsOf(model).find((d) => d.name === field);
  if (!def?.values || sortExpr !== sortOnlyExpression(columnOf(field))) return whole;
  const on = (filters ?? []).filter((f) => f.field === field);
  if (on.length !== 1 || (on[0]!.op !== '=' && on[0]!.op !== '!=')) return whole;
  const v = on[0]!.value.trim().toLowerCase();
  if (v === 'null' || !def.values.includes(v)) return whole;
  if (on[0]!.op === '=') return [{ terms: [`${sortExpr} = ?`], params: [v] }];
  const below = { terms: [`${sortExpr} < ?`], params: [v] };
  const above = { terms: [`${sortExpr} > ?`], params: [v] };
  return desc ? [above, below] : [below, above];
}

/** The WHERE terms of a record query (source and field filters); null when it can match nothing. */
export function whereClauses(model: ModelName, opts: Pick<QueryOptions, 'sourceIds' | 'filters' | 'changedSince'>, params: unknown[]): string[] | null {
  const where: string[] = [];
  if (opts.sourceIds) {
    if (opts.sourceIds.length === 0) return null;
    where.push(`r."source_id" IN ${placeholders(opts.sourceIds)}`);
    params.push(...opts.sourceIds);
  }
  if (opts.changedSince) {
    const runs = runsSinceSql(opts.changedSince, params);
    params.push(model);
    // Records a sweep fixed or removed carry no new stamp: the feed has them.
    where.push(
      `(r."seen_run" IN (${runs}) OR r."id" IN (SELECT e."record_id" FROM "changes" e WHERE e."model" = ? AND ${sinceClause('e', opts.changedSince, params)}))`,
    );
  }
  for (const f of opts.filters ?? []) where.push(filterClause(model, f, params));
  return where;
}

/** What a field sorts by: its column; the source's name; severity by rank (info < … < critical). */
function sortExpression(model: ModelName, field: string): string {
  const def = fieldsOf(model).find((d) => d.name === field);
  const sortable = (d: FieldDef) => d.kind !== 'json' && (!isComputed(model, d.name) || JOINED[model]?.[d.name] !== undefined);
  if (!def || !sortable(def)) {
    const names = fieldsOf(model)
      .filter(sortable)
      .map((d) => d.name);
    throw new InputError(`cannot sort ${model} by '${field}'; sortable fields: ${names.join(', ')}`, 'sort');
  }
  if (field === 'source') return 's."name"';
  const joined = JOINED[model]?.[field];
  if (joined !== undefined) return joined;
  const col = `r.${q(columnOf(def.name))}`;
  // A finding's severity sorts by its rank, a missing one lowest (-1): migration 13 indexes this expression.
  if (model === 'vulnerabilities' && field === 'severity') return SEVERITY_SORT;
  // The other findings sorts an index serves: its expression (schema.ts SORT_ONLY).
  if (model === 'vulnerabilities') {
    const expr = sortOnlyExpression(columnOf(def.name));
    if (expr) return expr;
  }
  // An ordered enum sorts by its order (severity: info < … < critical).
  if (def.ordered && def.values) return rankExpression(col, def.values);
  return col;
}

/** Severity rank of a finding, never null (the expression of migration 13's index). */
const SEVERITY_SORT = `COALESCE(${rankExpression('r."severity"', ['info', 'low', 'medium', 'high', 'critical'])}, -1)`;
const NOT_NULL_SORTS = new Set([SEVERITY_SORT]);

/** The sort key and id of a sorted query's cursor. */
function decodeSortCursor(c: string): { v: string | number | null; id: string } {
  const parsed = decodeCursor(c);
  if (
    parsed &&
    parsed.length === 2 &&
    (parsed[0] === null || ['string', 'number'].includes(typeof parsed[0])) &&
    typeof parsed[1] === 'string' &&
    /^[0-9a-f]{32}$/.test(parsed[1])
  ) {
    return { v: parsed[0] as string | number | null, id: parsed[1] };
  }
  throw new InputError('invalid cursor (it belongs to a query with another sort order?)', 'cursor');
}

/** The id of an id-order query's cursor. */
function decodeRecordCursor(c: string): string {
  const id = decodeIdCursor(c);
  if (id === null) throw new InputError('invalid cursor', 'cursor');
  return id;
}
