// Saved views: each user's named lists of the web UI (a path and its query of filters and sort), to
// open again or share by URL. GET /api/v1/views lists the caller's (read), POST saves one under its name
// (replacing the caller's view of that name) and DELETE /api/v1/views/:id removes one (operate).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { idParams, savedView, savedViewBody, savedViewList, savedViewsQuery } from '../../core/api-shapes.ts';
import type { AuthInfo } from '../auth.ts';
import { ApiError, errorSchema } from '../errors.ts';
import { routeSchema, type ShapesProvider } from '../schema.ts';

function current(req: FastifyRequest): AuthInfo {
  if (!req.auth) throw new ApiError(401, 'unauthorized', 'authentication required');
  return req.auth;
}

export function viewRoutes(app: AppContext) {
  return async (instance: FastifyInstance): Promise<void> => {
    const f = instance.withTypeProvider<ShapesProvider>();
    f.get(
      '/api/v1/views',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['views'],
          summary: "The caller's saved views (named lists of the web UI: path and query), by path and name",
          querystring: routeSchema(savedViewsQuery),
          response: { 200: routeSchema(savedViewList) },
        },
      },
      async (req) => ({ items: await app.store.views.list(current(req).userId, req.query.path) }),
    );

    f.post(
      '/api/v1/views',
      {
        config: { scope: 'operate' },
        schema: {
          tags: ['views'],
          summary: 'Save a view for the caller: a name, the list path and its query (saving under a taken name replaces that view)',
          body: routeSchema(savedViewBody),
          response: { 201: routeSchema(savedView), 400: errorSchema },
        },
      },
      async (req, reply) => {
        const { name, path, query } = req.body;
        const saved = await app.store.views.save(current(req).userId, { name: name.trim(), path, query: query.replace(/^\?/, '') });
        return reply.code(201).send(saved);
      },
    );

    f.delete(
      '/api/v1/views/:id',
      {
        config: { scope: 'operate' },
        schema: {
          tags: ['views'],
          summary: "Delete one of the caller's saved views",
          params: routeSchema(idParams),
          response: { 204: { type: 'null' }, 404: errorSchema },
        },
      },
      async (req, reply) => {
        await app.store.views.delete(current(req).userId, req.params.id);
        return reply.code(204).send();
      },
    );
  };
}
