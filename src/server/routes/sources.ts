// Sources: list, create, show, reconfigure, remove, credential check, start a sync. Every response
// carries the masked view (secrets as "********"); the plaintext never leaves the store layer.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { HeldTests, testConfiguration } from '../../app/connection-test.ts';
import { addSource, checkSource, configureSource, present, removeSource } from '../../app/sources.ts';
import { ConflictError, InputError } from '../../core/errors.ts';
import { exportStatusesOf } from '../../export/schedule.ts';
import {
  nameParams as nameParamsShape,
  sourceChangeBody,
  sourceCheck,
  sourceCheckBody,
  sourceCreateBody,
  sourceList,
  sourceRemoved,
  sourceTrialBody,
  sourceView,
  syncBody,
  syncStarted,
} from '../../core/api-shapes.ts';
import { errorSchema } from '../errors.ts';
import { routeSchema, type ShapesProvider } from '../schema.ts';
import type { SyncManager } from '../syncs.ts';

const nameParams = routeSchema(nameParamsShape);

export const sourceViewSchema = routeSchema(sourceView);
const checkSchema = routeSchema(sourceCheck);

/** A running run whose heartbeat is younger than this is taken as alive (the runner beats every 5 s). */
const ACTIVE_RUN_FRESH_MS = 90_000;

const errors = { 400: errorSchema, 404: errorSchema, 409: errorSchema };

/** Who made a request, so a test's held result serves only their save. */
const ownerOf = (req: FastifyRequest): string => req.auth?.sessionHash ?? `user:${req.auth?.userId ?? '?'}`;

export function sourceRoutes(app: AppContext, syncs: SyncManager) {
  const held = new HeldTests();
  return async (instance: FastifyInstance): Promise<void> => {
    const f = instance.withTypeProvider<ShapesProvider>();
    const view = async (name: string) => {
      const s = await app.store.sources.get(name);
      return { ...present(app, s, await app.store.runs.last(s.id)), exports: await exportStatusesOf(app, s.name) };
    };

    f.get(
      '/api/v1/sources',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['sources'],
          summary: 'All sources with their last run',
          response: { 200: routeSchema(sourceList) },
        },
      },
      async () => {
        const sources = await app.store.sources.list();
        return { items: await Promise.all(sources.map(async (s) => present(app, s, await app.store.runs.last(s.id)))) };
      },
    );

    f.post(
      '/api/v1/sources',
      {
        config: { scope: 'admin' },
        schema: {
          tags: ['sources'],
          summary: 'Create a source; the configuration is validated against the connector schema',
          body: routeSchema(sourceCreateBody),
          response: { 201: sourceViewSchema, ...errors },
        },
      },
      async (req, reply) => {
        const { name, type, config = {}, schedule, connectionTest } = req.body;
        app.registry.get(type);
        if (await app.store.sources.find(name)) throw new ConflictError(`a source named '${name}' exists already`);
        const input: Record<string, unknown> = { ...config };
        if (schedule !== undefined) input.schedule = schedule;
        const tested = held.find(connectionTest, ownerOf(req), type, null);
        await addSource(app, type, name, input, { tested });
        if (tested) held.done(connectionTest);
        req.log.info({ source: name, type }, 'source created');
        return reply.code(201).send(await view(name));
      },
    );

    f.get(
      '/api/v1/sources/:name',
      {
        config: { scope: 'read' },
        schema: { tags: ['sources'], summary: 'One source (secrets masked)', params: nameParams, response: { 200: sourceViewSchema, 404: errorSchema } },
      },
      async (req) => view(req.params.name),
    );

    f.patch(
      '/api/v1/sources/:name',
      {
        config: { scope: 'admin' },
        schema: {
          tags: ['sources'],
          summary: 'Change configuration fields; a secret left out or sent as "********" keeps its value, "" or null clears a field',
          params: nameParams,
          body: routeSchema(sourceChangeBody),
          response: { 200: sourceViewSchema, ...errors },
        },
      },
      async (req) => {
        const { config = {}, schedule, connectionTest } = req.body;
        const changes: Record<string, unknown> = { ...config };
        if (schedule !== undefined) changes.schedule = schedule;
        const source = await app.store.sources.get(req.params.name);
        const tested = held.find(connectionTest, ownerOf(req), source.type, source.name);
        await configureSource(app, req.params.name, changes, { tested });
        if (tested) held.done(connectionTest);
        req.log.info({ source: req.params.name, keys: Object.keys(changes) }, 'source configured');
        return view(req.params.name);
      },
    );

    f.delete(
      '/api/v1/sources/:name',
      {
        config: { scope: 'admin' },
        schema: {
          tags: ['sources'],
          summary: 'Remove a source with its records and runs',
          params: nameParams,
          response: { 200: routeSchema(sourceRemoved), ...errors },
        },
      },
      async (req) => {
        const { name } = req.params;
        const source = await app.store.sources.get(name);
        // A run here, or one elsewhere (a worker) whose heartbeat is fresh, still writes records.
        const active = syncs.isRunning(name) ? true : await app.store.runs.active(source.id);
        const fresh = active === true || (active !== null && Date.now() - Date.parse(active.heartbeatAt ?? active.startedAt) < ACTIVE_RUN_FRESH_MS);
        if (fresh) throw new ConflictError(`a sync of '${name}' is running; wait for it to finish before removing the source`);
        const { warnings } = await removeSource(app, name);
        req.log.info({ source: name }, 'source removed');
        return { removed: name, warnings };
      },
    );

    f.post(
      '/api/v1/sources/check',
      {
        config: { scope: 'admin' },
        schema: {
          tags: ['sources'],
          summary: 'Test Connection before saving: the credential check on a new source configuration, which is not stored',
          description:
            'Validates like POST /api/v1/sources and runs the connector check; secrets are neither stored nor returned. A one-time authorization code is exchanged here: pass the answer’s connectionTest with the save.',
          body: routeSchema(sourceTrialBody),
          response: { 200: checkSchema, ...errors },
        },
      },
      async (req) => {
        const { type, name, config = {}, schedule } = req.body;
        const input: Record<string, unknown> = { ...config };
        if (schedule !== undefined && schedule !== null && schedule !== '') input.schedule = schedule;
        const r = await testConfiguration(app, held, { type, name: name || null, input, owner: ownerOf(req) });
        req.log.info({ type, ok: r.ok }, 'connection test of an unsaved source');
        return r;
      },
    );

    f.post(
      '/api/v1/sources/:name/check',
      {
        config: { scope: 'admin' },
        schema: {
          tags: ['sources'],
          summary: 'Run the credential check; with a body, on the stored configuration with these unsaved changes (nothing stored)',
          params: nameParams,
          body: routeSchema(sourceCheckBody),
          response: { 200: checkSchema, ...errors },
        },
        // No body at all: the check of the stored configuration, as before.
        preValidation: async (req) => {
          if (req.body === undefined || req.body === null) req.body = {};
        },
      },
      async (req) => {
        if (!req.body.config && req.body.schedule === undefined) return { ...(await checkSource(app, req.params.name)), connectionTest: null };
        const { config = {}, schedule } = req.body;
        const input: Record<string, unknown> = { ...config };
        if (schedule !== undefined) input.schedule = schedule;
        const r = await testConfiguration(app, held, { source: req.params.name, input, owner: ownerOf(req) });
        req.log.info({ source: req.params.name, ok: r.ok }, 'connection test of unsaved changes');
        return r;
      },
    );

    f.post(
      '/api/v1/sources/:name/sync',
      {
        config: { scope: 'operate' },
        schema: {
          tags: ['sources'],
          summary: 'Start a sync in the background; poll GET /api/v1/runs/{runId}',
          params: nameParams,
          body: routeSchema(syncBody),
          response: { 202: routeSchema(syncStarted), ...errors },
        },
        // A sync request with no body at all means the defaults.
        preValidation: async (req) => {
          if (req.body === undefined || req.body === null) req.body = {};
        },
      },
      async (req, reply) => {
        if (req.body.allowLargeRemoval === true && req.body.full !== true)
          throw new InputError('allowLargeRemoval needs full: only a fresh full run may remove what the last one could not confirm', 'allowLargeRemoval');
        const opts = { full: req.body.full === true, allowLargeRemoval: req.body.allowLargeRemoval === true, trigger: `api:${req.auth?.username ?? '?'}` };
        if (syncs.queued) {
          // PostgreSQL mode: the job queue runs it on whichever worker is free.
          const { runId, jobId } = await syncs.enqueue(req.params.name, opts);
          if (runId) reply.header('location', `/api/v1/runs/${runId}`);
          return reply.code(202).send({ runId, jobId });
        }
        const runId = await syncs.start(req.params.name, opts);
        return reply.code(202).header('location', `/api/v1/runs/${runId}`).send({ runId });
      },
    );
  };
}
