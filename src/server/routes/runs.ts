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
    activity: {
      type: ['object', 'null'],
      description: 'upstream retries, how many followed an HTTP 429, and the latest log lines of the run (null for runs from before these were kept)',
      properties: {
        retries: { type: 'integer' },
        rateLimited: { type: 'integer' },
        log: {
          type: 'array',
          items: {
            type: 'object',
            properties: { at: { type: 'string' }, level: { type: 'string', enum: ['info', 'warn', 'error'] }, msg: { type: 'string' } },
          },
        },
      },
    },
    error: { type: ['string', 'null'] },
  },
  required: ['id', 'source', 'status', 'mode', 'startedAt', 'finishedAt', 'counts', 'error'],
} as const;

const limitQuery = { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 1000, default: 50 } }, additionalProperties: false } as const;
const STATUSES = ['running', 'succeeded', 'failed', 'partial', 'interrupted'] as const;
const statusParam = {
  type: 'array',
  items: { type: 'string', enum: STATUSES },
  description: 'only runs with this status; repeat for several',
} as const;
const listQuery = {
  type: 'object',
  properties: { ...limitQuery.properties, source: { type: 'string', description: 'only the runs of this source' }, status: statusParam },
  additionalProperties: false,
} as const;
type Status = (typeof STATUSES)[number];

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
        activity: r.activity,
        error: r.error,
      };
    };
    const list = { type: 'object', properties: { items: { type: 'array', items: runSchema } } } as const;

    f.get<{ Params: { name: string }; Querystring: { limit: number; status?: Status[] } }>(
      '/api/v1/sources/:name/runs',
      {
        schema: {
          tags: ['runs'],
          summary: "A source's runs, newest first",
          params: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          querystring: { ...limitQuery, properties: { ...limitQuery.properties, status: statusParam } },
          response: { 200: list, 404: errorSchema },
        },
      },
      async (req) => {
        const s = await app.store.getSource(req.params.name);
        const runs = await app.store.listRuns(s.id, req.query.limit, req.query.status ?? []);
        return { items: runs.map((r) => view(r, new Map([[s.id, s.name]]))) };
      },
    );

    f.get<{ Querystring: { limit: number; source?: string; status?: Status[] } }>(
      '/api/v1/runs',
      {
        schema: {
          tags: ['runs'],
          summary: 'Recent runs, newest first: of all sources or one (?source=), of any status or the ones asked for (?status=, repeatable)',
          querystring: listQuery,
          response: { 200: list, 400: errorSchema, 404: errorSchema },
        },
      },
      async (req) => {
        const sourceNames = await names();
        const sourceId = req.query.source ? (await app.store.getSource(req.query.source)).id : null;
        return { items: (await app.store.listRuns(sourceId, req.query.limit, req.query.status ?? [])).map((r) => view(r, sourceNames)) };
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
