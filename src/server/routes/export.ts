// GET /api/v1/export/{model}?format=ocsf|ecs|jsonl|csv: every matching record, streamed (the list's
// filters: source, where, plain field parameters; since; ocsfVersion; ecsBulk), as a download.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { InputError } from '../../core/errors.ts';
import { isModelName, MODEL_NAMES } from '../../core/models.ts';
import { contentType, EXPORT_FORMATS, extension, parseFormat } from '../../export/formats.ts';
import { OCSF_VERSIONS } from '../../export/ocsf.ts';
import { resolveSince } from '../../export/since.ts';
import { exportChunks } from '../../export/stream.ts';
import { exportFileName } from '../../export/target.ts';
import { ApiError, errorSchema } from '../errors.ts';
import { asList, filtersOf } from './records.ts';

const RESERVED = new Set(['source', 'where', 'format', 'ocsfVersion', 'ecsBulk', 'since']);

type ExportQuery = { format: string; source?: string[]; where?: string[]; ocsfVersion?: string; ecsBulk?: boolean; since?: string } & Record<string, unknown>;

export function exportRoutes(app: AppContext) {
  return async (f: FastifyInstance): Promise<void> => {
    f.get<{ Params: { model: string }; Querystring: ExportQuery }>(
      '/api/v1/export/:model',
      {
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
              since: { type: 'string', description: 'only what changed after this run id, or since this ISO-8601 time' },
              source: { type: 'array', items: { type: 'string' }, description: 'source name; repeat or comma-separate for several' },
              where: { type: 'array', items: { type: 'string' }, description: 'filter: field=value, field!=value, field>value, field>=value, field<value, field<=value, field~text' },
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
        const { format, ocsfVersion, ecsBulk, since, source, where, ...rest } = req.query;
        const fmt = { ...parseFormat(format, ocsfVersion), ecsBulk: ecsBulk === true };
        if (fmt.ecsBulk && fmt.format !== 'ecs') throw new InputError('ecsBulk goes with format=ecs', 'ecsBulk');
        const filters = filtersOf(where, rest, RESERVED);
        const names = asList(source).flatMap((n) => n.split(',')).map((n) => n.trim()).filter(Boolean);
        const sourceIds = names.length ? await Promise.all(names.map(async (n) => (await app.store.findSource(n))?.id ?? Promise.reject(new InputError(`no source named '${n}'`, 'source')))) : undefined;
        const window = since ? await resolveSince(app.store, since) : null;
        // Bad filters and unmappable models answer 400 before the first byte is sent.
        await app.store.query(model, { sourceIds, filters, limit: 1, ...(window?.query ?? {}) });
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
