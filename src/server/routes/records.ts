// Normalized records: GET /api/v1/<model> with source and field filters and cursor pagination,
// GET /api/v1/<model>/<id>, and counts per model. Filters use the CLI's `--where` syntax.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { InputError } from '../../core/errors.ts';
import { type FieldDef, fieldsOf, MODEL_NAMES, type ModelName } from '../../core/models.ts';
import { type Filter, parseFilter, type SortSpec, withLiveDefault } from '../../store/index.ts';
import { type ComplianceSummaryItem, complianceSummary, groupCounts, hostLabels, recordCount, recordStats } from '../../core/api-shapes-reports.ts';
import { ApiError, errorSchema } from '../errors.ts';
import { routeSchema, type ShapesProvider } from '../schema.ts';
import { complianceQuery, groupQuery, hostIdsQuery, recordQuery } from '../../core/api-requests.ts';
import { idParams } from '../../core/api-shapes.ts';

const querySchema = routeSchema(recordQuery);
const groupQuerySchema = routeSchema(groupQuery);
const idParamsSchema = routeSchema(idParams);

export { DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET } from '../../core/api-requests.ts';
const RESERVED = new Set(['source', 'where', 'limit', 'cursor', 'sort', 'offset', 'all']);
/** A plain query parameter as a filter: `severity=high`, and `port>=80` (parsed as key `port>`). */
export function plainFilter(key: string, value: string): Filter {
  const suffix = /^([A-Za-z_][A-Za-z0-9_]*)([!<>~])$/.exec(key);
  if (suffix) {
    const op = ({ '!': '!=', '<': '<=', '>': '>=', '~': '~' } as const)[suffix[2] as '!' | '<' | '>' | '~'];
    return { field: suffix[1], op, value };
  }
  if (/[<>~!]/.test(key)) return parseFilter(value === '' ? key : `${key}=${value}`, key);
  return { field: key, op: '=', value };
}

export const asList = (v: unknown): string[] => (v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);

/** The values of a query parameter given repeated or comma-separated (source names, models, changes). */
export const commaList = (v: unknown): string[] =>
  asList(v)
    .flatMap((n) => n.split(','))
    .map((n) => n.trim())
    .filter(Boolean);

/** The ids of the sources named, or undefined when none is (every source); an unknown name is refused. */
export async function sourceIdsByName(app: AppContext, names: string[]): Promise<string[] | undefined> {
  if (names.length === 0) return undefined;
  const ids: string[] = [];
  for (const n of names) {
    const s = await app.store.sources.find(n);
    if (!s) throw new InputError(`no source named '${n}'`, 'source');
    ids.push(s.id);
  }
  return ids;
}

function jsonType(f: FieldDef): Record<string, unknown> {
  if (f.name === 'removed') return { type: 'boolean' };
  switch (f.kind) {
    case 'int':
      return { type: ['integer', 'null'] };
    case 'real':
      return { type: ['number', 'null'] };
    case 'bool':
      return { type: ['boolean', 'null'] };
    case 'time':
      return { type: ['string', 'null'], format: 'date-time' };
    case 'json':
      // A json field that is not a list of values may still hold a list (a plugin's VPR drivers are a
      // list of objects): typed as an object, the serializer refused the answer with a 500.
      return f.array ? { type: ['array', 'null'], items: {} } : { type: ['object', 'array', 'null'], additionalProperties: true, items: {} };
    default:
      return { type: ['string', 'null'] };
  }
}

export function recordSchema(model: ModelName): Record<string, unknown> {
  const fields = fieldsOf(model);
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((f) => [f.name, jsonType(f)])),
    required: ['id', 'source'],
  };
}

/** `sort=field` or `sort=-field`. */
export function parseSort(sort: string | undefined): SortSpec | null {
  if (sort === undefined || sort.trim() === '') return null;
  const m = /^([-+]?)([A-Za-z][A-Za-z0-9]*)$/.exec(sort.trim());
  if (!m) throw new InputError(`malformed sort '${sort}': use field or -field`, 'sort');
  return { field: m[2], desc: m[1] === '-' };
}

/** The filters of a record query: `where` expressions and plain field parameters. */
export function filtersOf(where: unknown, rest: Record<string, unknown>, reserved: Set<string>): Filter[] {
  const filters = asList(where).map((w) => parseFilter(w));
  for (const [key, value] of Object.entries(rest)) {
    if (reserved.has(key)) continue;
    for (const v of asList(value)) filters.push(plainFilter(key, v));
  }
  return filters;
}

const GROUP_RESERVED = new Set(['source', 'where', 'limit', 'by']);
const groupResponseSchema = routeSchema(groupCounts);

type SummaryItem = ComplianceSummaryItem;

export function recordRoutes(app: AppContext) {
  return async (instance: FastifyInstance): Promise<void> => {
    const f = instance.withTypeProvider<ShapesProvider>();
    const sourceIds = (names: string[]) => sourceIdsByName(app, commaList(names));

    for (const model of MODEL_NAMES) {
      const item = recordSchema(model);
      f.get(
        `/api/v1/${model}`,
        {
          config: { scope: 'read' },
          schema: {
            tags: ['records'],
            summary: `${model} records, filtered and paged by cursor`,
            querystring: querySchema,
            response: {
              200: {
                type: 'object',
                properties: { items: { type: 'array', items: item }, nextCursor: { type: ['string', 'null'] } },
                required: ['items', 'nextCursor'],
              },
              400: errorSchema,
            },
          },
        },
        async (req) => {
          const { source, where, limit, cursor, offset, sort, all, ...rest } = req.query;
          const filters = withLiveDefault(model, filtersOf(where, rest, RESERVED), all);
          const page = await app.store.records.query(model, {
            sourceIds: await sourceIds(asList(source)),
            filters,
            limit,
            cursor: cursor || null,
            offset,
            sort: parseSort(sort),
          });
          return { items: page.records, nextCursor: page.nextCursor };
        },
      );
      f.get(
        `/api/v1/${model}/count`,
        {
          config: { scope: 'read' },
          schema: {
            tags: ['records'],
            summary: `How many ${model} records the list's filters match (the same parameters as the list; paging ignored)`,
            querystring: querySchema,
            response: { 200: routeSchema(recordCount), 400: errorSchema },
          },
        },
        async (req) => {
          const { source, where, limit: _limit, cursor: _cursor, offset: _offset, sort: _sort, all, ...rest } = req.query;
          const filters = withLiveDefault(model, filtersOf(where, rest, RESERVED), all);
          return { count: await app.store.records.countMatching(model, { sourceIds: await sourceIds(asList(source)), filters }) };
        },
      );
      f.get(
        `/api/v1/${model}/counts`,
        {
          config: { scope: 'read' },
          schema: {
            tags: ['records'],
            summary: `${model} record counts grouped by fields (?by=field, repeatable), with the same filters as the list`,
            querystring: groupQuerySchema,
            response: { 200: groupResponseSchema, 400: errorSchema },
          },
        },
        async (req) => {
          const { source, where, limit, by, ...rest } = req.query;
          const filters = filtersOf(where, rest, GROUP_RESERVED);
          const items = await app.store.records.groupCount(model, asList(by), { sourceIds: await sourceIds(asList(source)), filters, limit });
          return { items };
        },
      );
      f.get(
        `/api/v1/${model}/:id`,
        {
          config: { scope: 'read' },
          schema: {
            tags: ['records'],
            summary: `One ${model} record`,
            params: idParamsSchema,
            response: { 200: item, 404: errorSchema },
          },
        },
        async (req) => app.store.records.get(model, req.params.id),
      );
    }

    f.get(
      '/api/v1/compliance/summary',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['records'],
          summary: 'Compliance results per host and benchmark: passed, failed, warning and error rule counts (current records only)',
          querystring: routeSchema(complianceQuery),
          response: { 200: routeSchema(complianceSummary), 400: errorSchema },
        },
      },
      async (req) => {
        const rows = await app.store.reports.complianceSummary({
          sourceIds: await sourceIds(asList(req.query.source)),
          hostId: req.query.hostId,
          limit: req.query.limit,
        });
        const items: SummaryItem[] = rows
          .map((r) => ({ ...r, hostname: null, ipAddresses: [] }))
          .sort((a, b) => b.failed - a.failed || (a.hostId ?? '').localeCompare(b.hostId ?? '') || a.benchmark.localeCompare(b.benchmark));
        const hostIds = [...new Set(items.map((i) => i.hostId).filter((h): h is string => h !== null))];
        for (const host of await app.store.records.hostLabels(hostIds)) {
          for (const i of items) if (i.hostId === host.id) Object.assign(i, { hostname: host.hostname, ipAddresses: host.ipAddresses });
        }
        return { items };
      },
    );

    f.get(
      '/api/v1/hosts/labels',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['records'],
          summary: 'Hostname and IP addresses of hosts by id (?id=…, repeatable, up to 1000), for labelling per-host records',
          querystring: routeSchema(hostIdsQuery),
          response: {
            200: routeSchema(hostLabels),
            400: errorSchema,
          },
        },
      },
      async (req) => ({ items: await app.store.records.hostLabels([...new Set(req.query.id)]) }),
    );

    const unknownModel = async (req: { params: unknown }): Promise<never> => {
      const model = (req.params as { model: string }).model;
      throw new ApiError(404, 'unknown_model', `unknown model '${model}'; models: ${MODEL_NAMES.join(', ')}`, 'model', { models: [...MODEL_NAMES] });
    };
    f.get('/api/v1/:model', { config: { scope: 'read' }, schema: { hide: true } }, unknownModel);
    f.get('/api/v1/:model/:id', { config: { scope: 'read' }, schema: { hide: true } }, unknownModel);

    f.get(
      '/api/v1/stats',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['records'],
          summary:
            'Live record counts per model (findings open or reopened, other records not removed: what the lists show by default), overall and per source, and overdue findings per severity',
          response: { 200: routeSchema(recordStats) },
        },
      },
      async () => {
        // From the summaries (rebuilt in each run's epilogue): no count reads the records.
        const models: Record<string, number> = {};
        const sources: Record<string, Record<string, number>> = {};
        const byId = new Map((await app.store.sources.list()).map((s) => [s.id, s.name]));
        for (const name of byId.values()) sources[name] = Object.fromEntries(MODEL_NAMES.map((m) => [m, 0]));
        for (const c of await app.store.records.modelCounts()) {
          const name = byId.get(c.sourceId);
          // Live records only: what a sweep marked removed (gone upstream, findings fixed) is history.
          if (name === undefined || c.removed || !(c.model in sources[name]!)) continue;
          sources[name]![c.model]! += c.n;
          models[c.model] = (models[c.model] ?? 0) + c.n;
        }
        // Findings count as the default list does: open or reopened (fixed ones are history too).
        for (const [id, name] of byId) {
          const fixed = await app.store.records.countMatching('vulnerabilities', {
            sourceIds: [id],
            filters: [
              { field: 'status', op: '=', value: 'fixed' },
              { field: 'removed', op: '=', value: 'false' },
            ],
          });
          sources[name]!.vulnerabilities! -= fixed;
          models.vulnerabilities = (models.vulnerabilities ?? 0) - fixed;
        }
        for (const m of MODEL_NAMES) models[m] ??= 0;
        const overdue: Record<string, number> = { critical: 0, high: 0, medium: 0, low: 0, ...(await app.store.reports.overdueCounts()) };
        return { models, sources, overdue };
      },
    );
  };
}
