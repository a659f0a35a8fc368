// Open findings per severity for a page of hosts, read from the summary tables
// (store/reports/summary-tables-write.ts). Vulnerabilities by plugin is a report (reports.ts).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { hostFindingCountsList } from '../../core/api-shapes-reports.ts';
import { errorSchema } from '../errors.ts';
import { routeSchema, type ShapesProvider } from '../schema.ts';
import { hostIdsQuery } from '../../core/api-requests.ts';

export function summaryRoutes(app: AppContext) {
  return async (instance: FastifyInstance): Promise<void> => {
    const f = instance.withTypeProvider<ShapesProvider>();

    f.get(
      '/api/v1/hosts/finding-counts',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['records'],
          summary: 'Open findings (live records) per severity of hosts by id (?id=…, repeatable, up to 1000); as of the last sync of each source',
          querystring: routeSchema(hostIdsQuery),
          response: { 200: routeSchema(hostFindingCountsList), 400: errorSchema },
        },
      },
      async (req) => ({ items: await app.store.reports.hostFindingCounts([...new Set(req.query.id)]) }),
    );
  };
}
