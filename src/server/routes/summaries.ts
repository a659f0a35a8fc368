// Summary screens' data (issue 17): vulnerabilities by plugin (the console's Vulnerability Summary) and
// open findings per severity for a page of hosts, read from the summary tables (store/reports/summary-tables-write.ts).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { InputError } from '../../core/errors.ts';
import type { Severity } from '../../core/models.ts';
import { hostFindingCountsList, pluginSummary } from '../../core/api-shapes-reports.ts';
import { errorSchema } from '../errors.ts';
import { routeSchema } from '../schema.ts';
import { MAX_OFFSET, sourceIdsByName, sourceNames } from './records.ts';

const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'];

type PluginQuery = { source?: string[]; q?: string; severity?: string; knownExploited?: string; sort?: string; limit: number; offset: number };

export function summaryRoutes(app: AppContext) {
  return async (f: FastifyInstance): Promise<void> => {
    f.get<{ Querystring: PluginQuery }>(
      '/api/v1/vulnerabilities/plugins',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['records'],
          summary:
            'Vulnerabilities by plugin: one row per source and plugin with open findings (live records), its affected hosts, worst severity, KEV and EPSS; as of the last sync of each source',
          querystring: {
            type: 'object',
            properties: {
              source: { type: 'array', items: { type: 'string' }, description: 'source name; repeat or comma-separate for several' },
              q: { type: 'string', description: 'plugin name contains (case-insensitive), or the exact plugin id' },
              severity: { type: 'string', description: 'worst severity at least this (info, low, medium, high, critical)' },
              knownExploited: { type: 'string', enum: ['true', 'false'] },
              sort: {
                type: 'string',
                default: '-hosts',
                description:
                  'hosts, findings, severity, pluginName, pluginId, knownExploited, epssScore, vprScore, cvssV3BaseScore or source; -field for descending',
              },
              limit: { type: 'integer', minimum: 1, maximum: 1000, default: 50 },
              offset: { type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 },
            },
            additionalProperties: false,
          },
          response: { 200: routeSchema(pluginSummary), 400: errorSchema },
        },
      },
      async (req) => {
        const { q, severity, knownExploited, sort, limit, offset } = req.query;
        if (severity !== undefined && !SEVERITIES.includes(severity.toLowerCase()))
          throw new InputError(`unknown severity '${severity}'; severity is one of: ${SEVERITIES.join(', ')}`, 'severity');
        const sourceIds = await sourceIdsByName(app, sourceNames(req.query.source));
        return app.store.pluginSummary({
          sourceIds,
          search: q?.trim() || undefined,
          minSeverity: severity ? (severity.toLowerCase() as Severity) : undefined,
          knownExploited: knownExploited === undefined ? undefined : knownExploited === 'true',
          sort,
          limit,
          offset,
        });
      },
    );

    f.get<{ Querystring: { id: string[] } }>(
      '/api/v1/hosts/finding-counts',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['records'],
          summary: 'Open findings (live records) per severity of hosts by id (?id=…, repeatable, up to 1000); as of the last sync of each source',
          querystring: {
            type: 'object',
            properties: { id: { type: 'array', items: { type: 'string', maxLength: 64 }, maxItems: 1000 } },
            required: ['id'],
            additionalProperties: false,
          },
          response: { 200: routeSchema(hostFindingCountsList), 400: errorSchema },
        },
      },
      async (req) => ({ items: await app.store.hostFindingCounts([...new Set(req.query.id)]) }),
    );
  };
}
