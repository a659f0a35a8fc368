// Sync runs: per source and overall, and one run with live counts while it runs in this process
// (else the counts of its last stored heartbeat) and the files and rows it could not use.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import type { RunRecord } from '../../store/index.ts';
import { z } from 'zod';
import { idParams, run, runList, runsQuery, sourceRunsQuery } from '../../core/api-shapes.ts';
import { errorSchema } from '../errors.ts';
import { routeSchema, type ShapesProvider } from '../schema.ts';
import type { SyncManager } from '../syncs.ts';

/** Route schemas from the shared shapes (the web client imports their types). */
const runSchema = routeSchema(run);
const list = routeSchema(runList);
const sourceRunsQuerySchema = routeSchema(sourceRunsQuery);
const runsQuerySchema = routeSchema(runsQuery);
const idParamsSchema = routeSchema(idParams);
const sourceParams = routeSchema(z.object({ name: z.string() }));

export function runRoutes(app: AppContext, syncs: SyncManager) {
  return async (instance: FastifyInstance): Promise<void> => {
    const f = instance.withTypeProvider<ShapesProvider>();
    const names = async (): Promise<Map<string, string>> => new Map((await app.store.sources.list()).map((s) => [s.id, s.name]));
    /** A run; with `lists`, the files it rejected and the rows it could not store (lists carry their totals alone). */
    const view = (r: RunRecord, sourceNames: Map<string, string>, lists = false) => {
      const live = r.status === 'running' ? syncs.liveCounts(r.id) : null;
      const end = r.finishedAt ? Date.parse(r.finishedAt) : Date.now();
      return {
        id: r.id,
        source: sourceNames.get(r.sourceId) ?? null,
        status: r.status,
        mode: r.mode,
        trigger: r.trigger,
        resumedFrom: r.resumedFrom,
        startedAt: r.startedAt,
        finishedAt: r.finishedAt,
        heartbeatAt: r.heartbeatAt,
        durationMs: Math.max(0, end - Date.parse(r.startedAt)),
        live: live !== null,
        counts: live ?? r.counts,
        activity: r.activity,
        error: r.error,
        ...(lists ? { rejected: r.rejected, errors: r.errors } : {}),
        rejectedTotal: r.rejectedTotal,
        errorsTotal: r.errorsTotal,
      };
    };
    f.get(
      '/api/v1/sources/:name/runs',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['runs'],
          summary: "A source's runs, newest first",
          params: sourceParams,
          querystring: sourceRunsQuerySchema,
          response: { 200: list, 404: errorSchema },
        },
      },
      async (req) => {
        const s = await app.store.sources.get(req.params.name);
        const runs = await app.store.runs.list(s.id, req.query.limit, req.query.status ?? []);
        return { items: runs.map((r) => view(r, new Map([[s.id, s.name]]))) };
      },
    );

    f.get(
      '/api/v1/runs',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['runs'],
          summary: 'Recent runs, newest first: of all sources or one (?source=), of any status or the ones asked for (?status=, repeatable)',
          querystring: runsQuerySchema,
          response: { 200: list, 400: errorSchema, 404: errorSchema },
        },
      },
      async (req) => {
        const sourceNames = await names();
        const sourceId = req.query.source ? (await app.store.sources.get(req.query.source)).id : null;
        return { items: (await app.store.runs.list(sourceId, req.query.limit, req.query.status ?? [])).map((r) => view(r, sourceNames)) };
      },
    );

    f.get(
      '/api/v1/runs/:id',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['runs'],
          summary: 'One run: status, counts (live while running), timings, error, the files it rejected and the rows it could not store',
          params: idParamsSchema,
          response: { 200: runSchema, 404: errorSchema },
        },
      },
      async (req) => view(await app.store.runs.get(req.params.id), await names(), true),
    );
  };
}
