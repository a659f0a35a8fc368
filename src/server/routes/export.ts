// GET /api/v1/export/{model}?format=ocsf|ecs|jsonl|csv: every matching record, streamed (the list's
// filters: source, where, plain field parameters; since; ocsfVersion; ecsBulk; csvEscape), as a download.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../app/context.ts';
import { InputError } from '../../core/errors.ts';
import { isModelName, MODEL_NAMES } from '../../core/models.ts';
import { contentType, EXPORT_FORMATS, extension, formatMenu, parseFormat } from '../../export/formats/index.ts';
import { addDestination, describeDestinations, runDestination } from '../../export/schedule.ts';
import { exportChunks } from '../../export/stream.ts';
import { exportFileName } from '../../export/target.ts';
import {
  exportDestination,
  exportDestinationList,
  exportFormatList,
  exportRemoved,
  exportStatusList,
  nameParams as nameParamsShape,
} from '../../core/api-shapes.ts';
import { ApiError, errorSchema } from '../errors.ts';
import { routeSchema, type ShapesProvider } from '../schema.ts';
import { destinationBody, exportQuery, exportRunBody, exportsQuery, modelParams } from '../../core/api-requests.ts';
import { commaList, filtersOf, sourceIdsByName } from './records.ts';

const RESERVED = new Set(['source', 'where', 'format', 'ocsfVersion', 'ecsBulk', 'csvEscape', 'since']);

const destinationSchema = routeSchema(exportDestination);

// The format as the registry (export/formats) names them: checked, and listed in the OpenAPI document.
const registryFormat = z.enum(EXPORT_FORMATS);
const exportQueryOfFormats = exportQuery.extend({ format: registryFormat });
const destinationBodyOfFormats = destinationBody.extend({ format: registryFormat });

const nameParams = routeSchema(nameParamsShape);

export function exportRoutes(app: AppContext) {
  return async (instance: FastifyInstance): Promise<void> => {
    const f = instance.withTypeProvider<ShapesProvider>();
    f.get(
      '/api/v1/exports',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['export'],
          summary: 'Scheduled export destinations with the status of their last export per source',
          querystring: routeSchema(exportsQuery),
          response: { 200: routeSchema(exportDestinationList), 404: errorSchema },
        },
      },
      async (req) => ({ items: await describeDestinations(app, req.query.source) }),
    );

    f.post(
      '/api/v1/exports',
      {
        config: { scope: 'admin' },
        schema: {
          tags: ['export'],
          summary: 'Add a destination written after each successful sync of its source (or of every source)',
          body: routeSchema(destinationBodyOfFormats),
          response: { 201: destinationSchema, 400: errorSchema, 404: errorSchema, 409: errorSchema },
        },
      },
      async (req, reply) => {
        const d = await addDestination(app, req.body);
        req.log.info({ export: d.name }, 'export destination added');
        const added = (await describeDestinations(app)).find((x) => x.name === d.name);
        if (!added) throw new Error(`destination '${d.name}' was added but is not listed`);
        return reply.code(201).send(added);
      },
    );

    f.delete(
      '/api/v1/exports/:name',
      {
        config: { scope: 'admin' },
        schema: {
          tags: ['export'],
          summary: 'Remove a destination (files written stay)',
          params: nameParams,
          response: { 200: routeSchema(exportRemoved), 404: errorSchema },
        },
      },
      async (req) => {
        await app.store.exports.deleteDestination(req.params.name);
        return { removed: req.params.name };
      },
    );

    f.post(
      '/api/v1/exports/:name/run',
      {
        config: { scope: 'operate' },
        schema: {
          tags: ['export'],
          summary: "Write a destination now from its sources' last successful sync (e.g. to retry a failed export)",
          params: nameParams,
          body: routeSchema(exportRunBody),
          response: { 200: routeSchema(exportStatusList), 404: errorSchema },
        },
        preValidation: async (req) => {
          if (req.body === undefined || req.body === null) req.body = {};
        },
      },
      async (req) => {
        const d = await app.store.exports.getDestination(req.params.name);
        const sources = req.body.source
          ? [await app.store.sources.get(req.body.source)]
          : d.sourceId
            ? [await app.store.sources.getById(d.sourceId)]
            : await app.store.sources.list();
        for (const s of sources) await runDestination(app, d, s, null);
        const views = await describeDestinations(app);
        const names = new Set(sources.map((s) => s.name));
        return { items: (views.find((v) => v.name === d.name)?.status ?? []).filter((st) => names.has(st.source)) };
      },
    );

    f.get(
      '/api/v1/export/formats',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['export'],
          summary: 'The export menu: each format with the options an entry sets (OCSF 1.3: ocsfVersion) and the models it can write',
          response: { 200: routeSchema(exportFormatList) },
        },
      },
      async () => ({ items: formatMenu() }),
    );

    f.get(
      '/api/v1/export/:model',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['export'],
          summary: 'Every matching record of a model, streamed as OCSF or ECS (NDJSON), JSON Lines or CSV, with the filters of the list',
          params: routeSchema(modelParams),
          querystring: routeSchema(exportQueryOfFormats),
          response: { 200: { description: 'the export, streamed', type: 'string' }, 400: errorSchema, 404: errorSchema },
        },
      },
      async (req, reply) => {
        const { model } = req.params;
        if (!isModelName(model)) throw new ApiError(404, 'unknown_model', `unknown model '${model}'; models: ${MODEL_NAMES.join(', ')}`, 'model');
        const { format, ocsfVersion, ecsBulk, csvEscape, since, source, where, ...rest } = req.query;
        const fmt = { ...parseFormat(format, ocsfVersion), ecsBulk: ecsBulk === true, csvEscape: csvEscape !== false };
        if (fmt.ecsBulk && fmt.format !== 'ecs') throw new InputError('ecsBulk goes with format=ecs', 'ecsBulk');
        if (!fmt.csvEscape && fmt.format !== 'csv') throw new InputError('csvEscape goes with format=csv', 'csvEscape');
        const filters = filtersOf(where, rest, RESERVED);
        const sourceIds = await sourceIdsByName(app, commaList(source));
        const window = since ? await app.store.records.resolveSince(since) : null;
        // Bad filters and unmappable models answer 400 before the first byte is sent.
        await app.store.records.query(model, { sourceIds, filters, limit: 1, changedSince: window });
        const chunks = exportChunks(app, { model, sourceIds, filters, since: window }, fmt);
        const first = await chunks.next();
        const body = Readable.from(
          (async function* () {
            if (!first.done) yield first.value;
            yield* chunks;
          })(),
        );
        body.on('error', (err) => req.log.error({ err: err.message, model }, 'export stream failed'));
        return reply
          .header('content-type', contentType(fmt.format))
          .header('content-disposition', `attachment; filename="${exportFileName(model, extension(fmt.format))}"`)
          .send(body);
      },
    );
  };
}
