// GET /api/v1/export/{model}?format=ocsf|ecs|jsonl|csv: every matching record, streamed (the list's
// filters: source, where, plain field parameters; since; ocsfVersion; ecsBulk; csvEscape), as a download.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { InputError } from '../../core/errors.ts';
import { isModelName, MODEL_NAMES } from '../../core/models.ts';
import { contentType, EXPORT_FORMATS, extension, parseFormat } from '../../export/formats/index.ts';
import { OCSF_VERSIONS } from '../../export/ocsf.ts';
import { addDestination, type DestinationInput, describeDestinations, runDestination } from '../../export/schedule.ts';
import { deleteDestination, getDestination } from '../../store/index.ts';
import { SINCE_HELP } from '../../store/index.ts';
import { exportChunks } from '../../export/stream.ts';
import { exportFileName } from '../../export/target.ts';
import { exportDestination, exportDestinationList, exportRemoved, exportStatusList } from '../../core/api-shapes.ts';
import { ApiError, errorSchema } from '../errors.ts';
import { routeSchema } from '../schema.ts';
import { asList, filtersOf } from './records.ts';

const RESERVED = new Set(['source', 'where', 'format', 'ocsfVersion', 'ecsBulk', 'csvEscape', 'since']);

const destinationSchema = routeSchema(exportDestination);

const nameParams = { type: 'object', properties: { name: { type: 'string', minLength: 1, maxLength: 200 } }, required: ['name'] } as const;

type ExportQuery = {
  format: string;
  source?: string[];
  where?: string[];
  ocsfVersion?: string;
  ecsBulk?: boolean;
  csvEscape?: boolean;
  since?: string;
} & Record<string, unknown>;

export function exportRoutes(app: AppContext) {
  return async (f: FastifyInstance): Promise<void> => {
    f.get<{ Querystring: { source?: string } }>(
      '/api/v1/exports',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['export'],
          summary: 'Scheduled export destinations with the status of their last export per source',
          querystring: {
            type: 'object',
            properties: { source: { type: 'string', description: 'only the destinations that apply to this source' } },
            additionalProperties: false,
          },
          response: { 200: routeSchema(exportDestinationList), 404: errorSchema },
        },
      },
      async (req) => ({ items: await describeDestinations(app, req.query.source) }),
    );

    f.post<{ Body: DestinationInput }>(
      '/api/v1/exports',
      {
        config: { scope: 'admin' },
        schema: {
          tags: ['export'],
          summary: 'Add a destination written after each successful sync of its source (or of every source)',
          body: {
            type: 'object',
            properties: {
              name: { type: 'string', minLength: 1, maxLength: 63 },
              source: { type: ['string', 'null'] },
              target: {
                type: 'string',
                minLength: 1,
                description:
                  'a folder under the export root (TRIBUTARY_EXPORT_DIR, default <data-dir>/exports; a relative one is taken from there) or s3://BUCKET/PREFIX',
              },
              format: { type: 'string', enum: [...EXPORT_FORMATS] },
              ocsfVersion: { type: ['string', 'null'], enum: [...OCSF_VERSIONS, null] },
              ecsBulk: { type: 'boolean' },
              models: { type: 'array', items: { type: 'string' } },
              mode: { type: 'string', enum: ['full', 'changes'] },
            },
            required: ['name', 'target', 'format'],
            additionalProperties: false,
          },
          response: { 201: destinationSchema, 400: errorSchema, 404: errorSchema, 409: errorSchema },
        },
      },
      async (req, reply) => {
        const d = await addDestination(app, req.body);
        req.log.info({ export: d.name }, 'export destination added');
        return reply.code(201).send((await describeDestinations(app)).find((x) => x.name === d.name));
      },
    );

    f.delete<{ Params: { name: string } }>(
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
        await deleteDestination(app.store, req.params.name);
        return { removed: req.params.name };
      },
    );

    f.post<{ Params: { name: string }; Body: { source?: string } }>(
      '/api/v1/exports/:name/run',
      {
        config: { scope: 'operate' },
        schema: {
          tags: ['export'],
          summary: "Write a destination now from its sources' last successful sync (e.g. to retry a failed export)",
          params: nameParams,
          body: { type: 'object', properties: { source: { type: 'string' } }, additionalProperties: false },
          response: { 200: routeSchema(exportStatusList), 404: errorSchema },
        },
        preValidation: async (req) => {
          if (req.body === undefined || req.body === null) req.body = {};
        },
      },
      async (req) => {
        const d = await getDestination(app.store, req.params.name);
        const sources = req.body.source
          ? [await app.store.getSource(req.body.source)]
          : d.sourceId
            ? [await app.store.getSourceById(d.sourceId)]
            : await app.store.listSources();
        for (const s of sources) await runDestination(app, d, s, null);
        const views = await describeDestinations(app);
        const names = new Set(sources.map((s) => s.name));
        return { items: (views.find((v) => v.name === d.name)?.status ?? []).filter((st) => names.has(st.source)) };
      },
    );

    f.get<{ Params: { model: string }; Querystring: ExportQuery }>(
      '/api/v1/export/:model',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['export'],
          summary: 'Every matching record of a model, streamed as OCSF or ECS (NDJSON), JSON Lines or CSV, with the filters of the list',
          params: { type: 'object', properties: { model: { type: 'string', enum: [...MODEL_NAMES] } }, required: ['model'] },
          querystring: {
            type: 'object',
            properties: {
              format: { type: 'string', enum: [...EXPORT_FORMATS] },
              ocsfVersion: { type: 'string', enum: [...OCSF_VERSIONS], default: '1.1.0' },
              ecsBulk: { type: 'boolean', description: 'ECS: an Elasticsearch _bulk action line with a stable _id before each document' },
              csvEscape: {
                type: 'boolean',
                default: true,
                description: "CSV: a text cell that starts with = + - @, tab or CR gets a ' so spreadsheets do not run it; false writes cells raw",
              },
              since: { type: 'string', description: `only the records changed in the window: ${SINCE_HELP}` },
              source: { type: 'array', items: { type: 'string' }, description: 'source name; repeat or comma-separate for several' },
              where: {
                type: 'array',
                items: { type: 'string' },
                description: 'filter: field=value, field!=value, field>value, field>=value, field<value, field<=value, field~text',
              },
            },
            required: ['format'],
            additionalProperties: { description: 'any other parameter is a field filter: ?severity=high' },
          },
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
        const names = asList(source)
          .flatMap((n) => n.split(','))
          .map((n) => n.trim())
          .filter(Boolean);
        const sourceIds = names.length
          ? await Promise.all(names.map(async (n) => (await app.store.findSource(n))?.id ?? Promise.reject(new InputError(`no source named '${n}'`, 'source'))))
          : undefined;
        const window = since ? await app.store.resolveSince(since) : null;
        // Bad filters and unmappable models answer 400 before the first byte is sent.
        await app.store.query(model, { sourceIds, filters, limit: 1, changedSince: window });
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
