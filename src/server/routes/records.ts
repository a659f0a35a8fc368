// Normalized records: GET /api/v1/<model> with source and field filters and cursor pagination,
// GET /api/v1/<model>/<id>, and counts per model. Filters use the CLI's `--where` syntax.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { InputError } from '../../core/errors.ts';
import { type FieldDef, fieldsOf, MODEL_NAMES, type ModelName } from '../../core/models.ts';
import { parseFilter } from '../../store/filters.ts';
import type { Filter } from '../../store/records.ts';
import { ApiError, errorSchema } from '../errors.ts';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
const RESERVED = new Set(['source', 'where', 'limit', 'cursor']);
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

const asList = (v: unknown): string[] => (v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);

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
      return f.array ? { type: ['array', 'null'], items: {} } : { type: ['object', 'null'], additionalProperties: true };
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

const querySchema = {
  type: 'object',
  properties: {
    source: { type: 'array', items: { type: 'string' }, description: 'source name; repeat or comma-separate for several' },
    where: { type: 'array', items: { type: 'string' }, description: 'filter: field=value, field!=value, field>value, field>=value, field<value, field<=value, field~text' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
    cursor: { type: 'string', description: 'nextCursor of the previous page' },
  },
  additionalProperties: { description: 'any other parameter is a field filter: ?severity=high' },
} as const;

type RecordQuery = { source?: string[]; where?: string[]; limit: number; cursor?: string } & Record<string, unknown>;

export function recordRoutes(app: AppContext) {
  return async (f: FastifyInstance): Promise<void> => {
    const sourceIds = async (names: string[]): Promise<string[] | undefined> => {
      const list = names.flatMap((n) => n.split(',')).map((n) => n.trim()).filter(Boolean);
      if (list.length === 0) return undefined;
      const ids: string[] = [];
      for (const n of list) {
        const s = await app.store.findSource(n);
        if (!s) throw new InputError(`no source named '${n}'`, 'source');
        ids.push(s.id);
      }
      return ids;
    };

    for (const model of MODEL_NAMES) {
      const item = recordSchema(model);
      f.get<{ Querystring: RecordQuery }>(
        `/api/v1/${model}`,
        {
          schema: {
            tags: ['records'],
            summary: `${model} records, filtered and paged by cursor`,
            querystring: querySchema,
            response: {
              200: { type: 'object', properties: { items: { type: 'array', items: item }, nextCursor: { type: ['string', 'null'] } }, required: ['items', 'nextCursor'] },
              400: errorSchema,
            },
          },
        },
        async (req) => {
          const { source, where, limit, cursor, ...rest } = req.query;
          const filters = asList(where).map((w) => parseFilter(w));
          for (const [key, value] of Object.entries(rest)) {
            if (RESERVED.has(key)) continue;
            for (const v of asList(value)) filters.push(plainFilter(key, v));
          }
          const page = await app.store.query(model, { sourceIds: await sourceIds(asList(source)), filters, limit, cursor: cursor || null });
          return { items: page.records, nextCursor: page.nextCursor };
        },
      );
      f.get<{ Params: { id: string } }>(
        `/api/v1/${model}/:id`,
        {
          schema: {
            tags: ['records'],
            summary: `One ${model} record`,
            params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
            response: { 200: item, 404: errorSchema },
          },
        },
        async (req) => app.store.getRecord(model, req.params.id),
      );
    }

    const unknownModel = async (req: { params: unknown }): Promise<never> => {
      const model = (req.params as { model: string }).model;
      throw new ApiError(404, 'unknown_model', `unknown model '${model}'; models: ${MODEL_NAMES.join(', ')}`, 'model', { models: [...MODEL_NAMES] });
    };
    f.get('/api/v1/:model', { schema: { hide: true } }, unknownModel);
    f.get('/api/v1/:model/:id', { schema: { hide: true } }, unknownModel);

    f.get(
      '/api/v1/stats',
      {
        schema: {
          tags: ['records'],
          summary: 'Record counts per model, overall and per source',
          response: {
            200: {
              type: 'object',
              properties: {
                models: { type: 'object', additionalProperties: { type: 'integer' } },
                sources: { type: 'object', additionalProperties: { type: 'object', additionalProperties: { type: 'integer' } } },
              },
            },
          },
        },
      },
      async () => {
        const models: Record<string, number> = {};
        const sources: Record<string, Record<string, number>> = {};
        for (const s of await app.store.listSources()) {
          const counts: Record<string, number> = {};
          for (const m of MODEL_NAMES) {
            counts[m] = await app.store.count(m, s.id);
            models[m] = (models[m] ?? 0) + counts[m];
          }
          sources[s.name] = counts;
        }
        for (const m of MODEL_NAMES) models[m] ??= 0;
        return { models, sources };
      },
    );
  };
}
