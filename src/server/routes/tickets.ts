// Remediation tickets over HTTP (issue 32): GET /api/v1/sources/:name/tickets/plan (what the next run
// would write; read), POST /api/v1/sources/:name/tickets/apply (write it; operate), and
// GET /api/v1/sources/:name/tickets/log (the audit log of every write; read).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { applySourceTickets, planSourceTickets, ticketLog } from '../../app/tickets.ts';
import { nameParams } from '../../core/api-shapes.ts';
import { ticketApplyShape, ticketLogShape, ticketPlanShape } from '../../core/api-shapes-tickets.ts';
import { ticketLogQuery } from '../../core/api-requests.ts';
import { errorSchema } from '../errors.ts';
import { routeSchema, type ShapesProvider } from '../schema.ts';

const errors = { 400: errorSchema, 404: errorSchema, 409: errorSchema };

export function ticketRoutes(app: AppContext) {
  return async (instance: FastifyInstance): Promise<void> => {
    const f = instance.withTypeProvider<ShapesProvider>();
    f.get(
      '/api/v1/sources/:name/tickets/plan',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['tickets'],
          summary: 'Remediation tickets: what the next run would create, note and resolve, with the findings behind each (nothing is written)',
          params: routeSchema(nameParams),
          response: { 200: routeSchema(ticketPlanShape), ...errors },
        },
      },
      async (req) => planSourceTickets(app, req.params.name),
    );
    f.post(
      '/api/v1/sources/:name/tickets/apply',
      {
        config: { scope: 'operate' },
        schema: {
          tags: ['tickets'],
          summary: 'Remediation tickets: write the plan to the service desk (409 while the source has them off)',
          params: routeSchema(nameParams),
          response: { 200: routeSchema(ticketApplyShape), ...errors },
        },
      },
      async (req) => applySourceTickets(app, req.params.name),
    );
    f.get(
      '/api/v1/sources/:name/tickets/log',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['tickets'],
          summary: 'Remediation tickets: the audit log of every write (what, which request, which run, the answer), newest first',
          params: routeSchema(nameParams),
          querystring: routeSchema(ticketLogQuery),
          response: { 200: routeSchema(ticketLogShape), ...errors },
        },
      },
      async (req) => ({ items: await ticketLog(app, req.params.name, req.query.limit) }),
    );
  };
}
