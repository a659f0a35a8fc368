// The change feed: GET /api/v1/changes (cursor-paged, oldest first, with since/run/model/source/change
// filters and the records' `where` syntax). The reports made from it are in reports.ts.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { InputError } from '../../core/errors.ts';
import { MODEL_NAMES } from '../../core/models.ts';
import { CHANGE_KINDS, parseFilter } from '../../store/index.ts';
import { changePage } from '../../core/api-shapes-reports.ts';
import { errorSchema } from '../errors.ts';
import { routeSchema, type ShapesProvider } from '../schema.ts';
import { changesQuery } from '../../core/api-requests.ts';
import { commaList, plainFilter, sourceIdsByName } from './records.ts';

const RESERVED = new Set(['since', 'run', 'model', 'source', 'change', 'where', 'limit', 'cursor']);
function checked(values: string[], allowed: readonly string[], param: string): string[] {
  for (const v of values) if (!allowed.includes(v)) throw new InputError(`${param}: unknown value '${v}'; one of ${allowed.join(', ')}`, param);
  return values;
}

export function changeRoutes(app: AppContext) {
  return async (instance: FastifyInstance): Promise<void> => {
    const f = instance.withTypeProvider<ShapesProvider>();
    const sourceIds = (names: string[]) => sourceIdsByName(app, names);

    f.get(
      '/api/v1/changes',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['records'],
          summary: 'The change feed: lifecycle events of records (new, fixed, reopened, removed, updated), oldest first, paged by cursor',
          querystring: routeSchema(changesQuery),
          response: { 200: routeSchema(changePage), 400: errorSchema },
        },
      },
      async (req) => {
        const { since, run, model, source, change, where, limit, cursor, ...rest } = req.query;
        const filters = commaList(where).map((w) => parseFilter(w));
        for (const [key, value] of Object.entries(rest)) if (!RESERVED.has(key)) for (const v of commaList(value)) filters.push(plainFilter(key, v));
        const page = await app.store.records.changes({
          sourceIds: await sourceIds(commaList(source)),
          models: checked(commaList(model), MODEL_NAMES, 'model'),
          changes: checked(commaList(change), CHANGE_KINDS, 'change'),
          since: since ? await app.store.records.resolveSince(since) : null,
          run: run ? await app.store.records.resolveRun(run) : null,
          filters,
          limit,
          cursor: cursor || null,
        });
        return { items: page.records, nextCursor: page.nextCursor };
      },
    );
  };
}
