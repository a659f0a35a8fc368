// Sync runs: per source and overall, and one run with live counts while it runs in this process
// (else the counts of its last stored heartbeat).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import type { RunRecord } from '../../store/store.ts';
import { errorSchema } from '../errors.ts';
import type { SyncManager } from '../syncs.ts';

const countsSchema = {
  type: 'object',
  additionalProperties: { type: 'object', properties: { records: { type: 'integer' }, errors: { type: 'integer' } } },
} as const;

export const runSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    source: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['running', 'succeeded', 'failed', 'partial', 'interrupted'] },
    mode: { type: 'string', enum: ['full', 'incremental'] },
    trigger: { type: ['string', 'null'] },
    resumedFrom: { type: ['string', 'null'] },
    startedAt: { type: 'string' },
    finishedAt: { type: ['string', 'null'] },
    heartbeatAt: { type: ['string', 'null'] },
    durationMs: { type: 'integer' },
    live: { type: 'boolean', description: 'counts are live from this process (else from the last stored heartbeat)' },
    counts: countsSchema,
    error: { type: ['string', 'null'] },
  },
  required: ['id', 'source', 'status', 'mode', 'startedAt', 'finishedAt', 'counts', 'error'],
} as const;

const limitQuery = { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 1000, default: 50 } }, additionalProperties: false } as const;

export function runRoutes(app: AppContext, syncs: SyncManager) {
  return async (f: FastifyInstance): Promise<void> => {
    const names = async (): Promise<Map<string, string>> => new Map((await app.store.listSources()).map((s) => [s.id, s.name]));
    const view = (r: RunRecord, sourceNames: Map<string, string>) => {
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
        error: r.error,
      };
    };
    const list = { type: 'object', properties: { items: { type: 'array', items: runSchema } } } as const;

    f.get<{ Params: { name: string }; Querystring: { limit: number } }>(
      '/api/v1/sources/:name/runs',
      {
        schema: {
          tags: ['runs'],
          summary: "A source's runs, newest first",
          params: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          querystring: limitQuery,
          response: { 200: list, 404: errorSchema },
        },
      },
      async (req) => {
        const s = await app.store.getSource(req.params.name);
        const runs = await app.store.listRuns(s.id, req.query.limit);
        return { items: runs.map((r) => view(r, new Map([[s.id, s.name]]))) };
      },
    );

    f.get<{ Querystring: { limit: number } }>(
      '/api/v1/runs',
      { schema: { tags: ['runs'], summary: 'Recent runs of all sources, newest first', querystring: limitQuery, response: { 200: list, 400: errorSchema } } },
      async (req) => {
        const sourceNames = await names();
        return { items: (await app.store.listRuns(null, req.query.limit)).map((r) => view(r, sourceNames)) };
      },
    );

    f.get<{ Params: { id: string } }>(
      '/api/v1/runs/:id',
      {
        schema: {
          tags: ['runs'],
          summary: 'One run: status, counts (live while running), timings, error',
          params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
          response: { 200: runSchema, 404: errorSchema },
        },
      },
      async (req) => view(await app.store.getRun(req.params.id), await names()),
    );
  };
}
