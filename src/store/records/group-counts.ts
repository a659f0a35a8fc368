// Counting records: how many a query matches, counts grouped by fields, and a model's (or source's)
// total; read from a summary table where one holds the fields asked for.
import { InputError } from '../../core/errors.ts';
import { fieldsOf, type ModelName } from '../../core/models.ts';
import type { Driver } from '../db/driver.ts';
import { sqlCount } from '../db/rows.ts';
import { columnOf, fromColumnValue, q, tableOf } from '../db/schema.ts';
import { complianceResultSource, summarySource } from '../reports/summary-tables-write.ts';
import { withCvePlugins } from './cve-plugins.ts';
import { type QueryOptions, whereClauses } from './query.ts';
import { isComputed, JOINED, recordFrom, sourceJoin } from './row-mapping.ts';

export interface GroupCount {
  values: Record<string, unknown>;
  count: number;
}

/** How many records a query matches (its source and field filters; no paging). */
export async function countMatching(db: Driver, model: ModelName, opts: Pick<QueryOptions, 'sourceIds' | 'filters'>): Promise<number> {
  if (model === 'vulnerabilities') opts = { ...opts, filters: await withCvePlugins(db, opts.filters) };
  const params: unknown[] = [];
  const filtered = whereClauses(model, opts, params);
  if (filtered === null) return 0;
  const sum = await countSource(db, model, [], opts);
  const where = [...(sum?.where ?? []), ...filtered];
  if (sum) params.unshift(...sum.params);
  // Else only a filter on a joined field (a finding's plugin text or owner) needs the joins; the count is of the table.
  const needsJoin = (opts.filters ?? []).some((f) => JOINED[model]?.[f.field] !== undefined);
  const from = sum?.from ?? (needsJoin ? recordFrom(model) : `${q(tableOf(model))} r`);
  const rows = await db.all(`SELECT ${sum?.count ?? 'COUNT(*)'} AS "n" FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, params);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Where a count reads from: a summary table when one holds the grouped and filtered fields (and no
 * filter searches text), else the records; with the extra WHERE term a summary needs, put first.
 */
async function countSource(
  db: Driver,
  model: ModelName,
  by: string[],
  opts: Pick<QueryOptions, 'sourceIds' | 'filters'>,
): Promise<{ from: string; count: string; where: string[]; params: unknown[] } | null> {
  const filters = opts.filters ?? [];
  if (filters.some((f) => f.op === '~')) return null;
  const sum =
    (await summarySource(db, model, [...by, ...filters.map((f) => f.field)], opts.sourceIds)) ??
    (model === 'compliance' ? await complianceResultSource(db, by, filters, opts.sourceIds) : null);
  if (!sum) return null;
  const where = sum.from.startsWith('sum_model_counts') ? ['r."model" = ?'] : [];
  return { from: `${sum.from} ${sourceJoin(model)}`, count: sum.count, where, params: sum.params };
}

/** Record counts grouped by one or more fields (e.g. vulnerabilities by severity), largest groups first. */
export async function groupCount(
  db: Driver,
  model: ModelName,
  by: string[],
  opts: Pick<QueryOptions, 'sourceIds' | 'filters' | 'limit'> = {},
): Promise<GroupCount[]> {
  if (by.length === 0) throw new InputError('name at least one field to group by', 'by');
  if (model === 'vulnerabilities') opts = { ...opts, filters: await withCvePlugins(db, opts.filters) };
  const defs = by.map((name) => {
    const def = fieldsOf(model).find((d) => d.name === name);
    if (!def || def.kind === 'json' || name === 'id' || (isComputed(model, name) && JOINED[model]?.[name] === undefined))
      throw new InputError(`cannot group ${model} by '${name}'`, 'by');
    return def;
  });
  const params: unknown[] = [];
  const filtered = whereClauses(model, opts, params);
  if (filtered === null) return [];
  const sum = await countSource(db, model, by, opts);
  const where = [...(sum?.where ?? []), ...filtered];
  if (sum) params.unshift(...sum.params);
  const cols = defs.map((d, i) => `${d.name === 'source' ? 's."name"' : (JOINED[model]?.[d.name] ?? `r.${q(columnOf(d.name))}`)} AS "g${i}"`);
  const groupBy = defs.map((_, i) => `"g${i}"`);
  const limit = sqlCount(Math.max(1, Math.min(Math.floor(opts.limit ?? 1000), 10_000)), 'limit');
  const needsJoin = [...(opts.filters ?? []).map((f) => f.field), ...by].some((field) => JOINED[model]?.[field] !== undefined);
  const from = sum?.from ?? (needsJoin ? recordFrom(model) : `${q(tableOf(model))} r ${sourceJoin(model)}`);
  const sql = `SELECT ${cols.join(', ')}, ${sum?.count ?? 'COUNT(*)'} AS "n" FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} GROUP BY ${groupBy.join(', ')} ORDER BY "n" DESC, ${groupBy.join(', ')} LIMIT ${limit}`;
  const rows = await db.all(sql, params);
  return rows.map((row) => ({
    values: Object.fromEntries(defs.map((d, i) => [d.name, fromColumnValue(d, row[`g${i}`])])),
    count: Number(row.n),
  }));
}

/** Records of a model (of one source), or only the live ones (not removed). */
export async function countRecords(db: Driver, model: ModelName, sourceId?: string, opts: { live?: boolean } = {}): Promise<number> {
  const conds = [...(sourceId ? [`"source_id" = ?`] : []), ...(opts.live ? [`"removed" = 0`] : [])];
  const rows = await db.all(
    `SELECT COUNT(*) AS "n" FROM ${q(tableOf(model))}${conds.length ? ` WHERE ${conds.join(' AND ')}` : ''}`,
    sourceId ? [sourceId] : [],
  );
  return Number(rows[0]?.n ?? 0);
}
