// The reports, in one place: vulnerabilities by plugin (the console's Vulnerability Summary, from the
// summary tables), coverage gaps, time to remediate and trends (from the change feed and the scanner's
// dates). Their SQL is in store/reports/; their CLI in cli/report.ts.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import {
  coverageQuery,
  decisionCountsQuery,
  pluginQuery,
  remediationHostsQuery,
  remediationQuery,
  remediationsExportQuery,
  remediationsQuery,
  trendsQuery,
} from '../../core/api-requests.ts';
import {
  coverageAnswer,
  decisionCounts as decisionCountsShape,
  pluginSummary,
  remediationHosts as remediationHostsShape,
  remediationReport as remediationShape,
  remediationsReport as remediationsShape,
  topFixesOf,
  topFixesReport,
  trendsReport as trendsReportShape,
} from '../../core/api-shapes-reports.ts';
import { remediationsCsv } from '../../export/report-csv.ts';
import { InputError } from '../../core/errors.ts';
import type { Severity } from '../../core/models.ts';
import { nowIso, type TrendsReport } from '../../store/index.ts';
import { errorSchema } from '../errors.ts';
import { routeSchema, type ShapesProvider } from '../schema.ts';
import { sourceIdsByName, commaList } from './records.ts';

const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'];

export function reportRoutes(app: AppContext) {
  /** Recent trends reports by options and store fingerprint: a report reads every event of its window. */
  const trendsCache = new Map<string, TrendsReport>();
  return async (instance: FastifyInstance): Promise<void> => {
    const f = instance.withTypeProvider<ShapesProvider>();
    const sourceIds = (names: string[]) => sourceIdsByName(app, names);

    f.get(
      '/api/v1/vulnerabilities/plugins',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['records'],
          summary:
            'Vulnerabilities by plugin: one row per source and plugin with open findings (live records), its affected hosts, worst severity, KEV and EPSS; as of the last sync of each source',
          querystring: routeSchema(pluginQuery),
          response: { 200: routeSchema(pluginSummary), 400: errorSchema },
        },
      },
      async (req) => {
        const { q, severity, knownExploited, sort, limit, offset } = req.query;
        if (severity !== undefined && !SEVERITIES.includes(severity.toLowerCase()))
          throw new InputError(`unknown severity '${severity}'; severity is one of: ${SEVERITIES.join(', ')}`, 'severity');
        return app.store.reports.pluginSummary({
          sourceIds: await sourceIds(commaList(req.query.source)),
          search: q?.trim() || undefined,
          minSeverity: severity ? (severity.toLowerCase() as Severity) : undefined,
          knownExploited: knownExploited === undefined ? undefined : knownExploited === 'true',
          sort,
          limit,
          offset,
        });
      },
    );

    f.get(
      '/api/v1/reports/coverage',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['reports'],
          summary: 'Coverage gaps: the four numbers, or with ?list=KIND the records behind one',
          querystring: routeSchema(coverageQuery),
          response: { 200: routeSchema(coverageAnswer), 400: errorSchema },
        },
      },
      async (req) => {
        const { days, list } = req.query;
        if (list !== undefined) return { kind: list, days, items: await app.store.reports.coverageList(list, days) };
        return app.store.reports.coverage(days);
      },
    );

    f.get(
      '/api/v1/reports/remediation',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['reports'],
          summary: 'Mean time to remediate (from fixed events) and open-finding age, per source and severity',
          querystring: routeSchema(remediationQuery),
          response: {
            200: routeSchema(remediationShape),
            400: errorSchema,
          },
        },
      },
      async (req) => {
        const since = req.query.since ? await app.store.records.resolveSince(req.query.since) : null;
        const generatedAt = nowIso();
        const items = await app.store.reports.remediation({ sourceIds: await sourceIds(commaList(req.query.source)), since, now: generatedAt });
        return { items, since: since?.at ?? null, generatedAt };
      },
    );

    f.get(
      '/api/v1/reports/remediations',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['reports'],
          summary: 'Top remediations: open findings grouped by the fix that closes them, with hosts, findings, decisions, owners and share of priority',
          description:
            "A fix is the plugin's solution normalised; upgrades of one product to successive versions are one fix, the newest version's (docs/priority.md).",
          querystring: routeSchema(remediationsQuery),
          response: { 200: routeSchema(remediationsShape), 400: errorSchema },
        },
      },
      async (req) => {
        const r = await app.store.reports.remediations({ sourceIds: await sourceIds(commaList(req.query.source)), limit: req.query.limit });
        return { ...r, generatedAt: nowIso() };
      },
    );

    f.get(
      '/api/v1/reports/top-fixes',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['reports'],
          summary: 'Top fixes (interfaces.md 7.3): the top remediations as rows of the fixes model',
          querystring: routeSchema(remediationsQuery),
          response: { 200: routeSchema(topFixesReport), 400: errorSchema },
        },
      },
      async (req) => {
        const r = await app.store.reports.remediations({ sourceIds: await sourceIds(commaList(req.query.source)), limit: req.query.limit });
        return { fixes: topFixesOf(r.items), generatedAt: nowIso() };
      },
    );

    f.get(
      '/api/v1/reports/remediations/export',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['reports', 'export'],
          summary: 'Top remediations as a file: CSV (one row per fix) or JSON',
          querystring: routeSchema(remediationsExportQuery),
          response: { 200: { description: 'the report as a file', type: 'string' }, 400: errorSchema },
        },
      },
      async (req, reply) => {
        const r = await app.store.reports.remediations({ sourceIds: await sourceIds(commaList(req.query.source)), limit: req.query.limit });
        const json = req.query.format === 'json';
        return reply
          .header('content-type', json ? 'application/json; charset=utf-8' : 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="remediations.${json ? 'json' : 'csv'}"`)
          .send(json ? JSON.stringify({ ...r, generatedAt: nowIso() }) : remediationsCsv(r.items));
      },
    );

    f.get(
      '/api/v1/reports/remediations/hosts',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['reports'],
          summary: 'The hosts a fix closes open findings on (the drill-down of the top remediations), most priority first; a page of them with ?limit=&offset=',
          querystring: routeSchema(remediationHostsQuery),
          response: { 200: routeSchema(remediationHostsShape), 400: errorSchema },
        },
      },
      async (req) => {
        const { fix, limit, offset } = req.query;
        return app.store.reports.remediationHosts(fix, await sourceIds(commaList(req.query.source)), { limit, offset });
      },
    );

    f.get(
      '/api/v1/reports/decisions',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['reports'],
          summary:
            'Open findings by SSVC decision, with their summed priority, in all or per asset, owner or department (most Act first); a page of them with ?limit=&offset=',
          querystring: routeSchema(decisionCountsQuery),
          response: { 200: routeSchema(decisionCountsShape), 400: errorSchema },
        },
      },
      async (req) => {
        const { by, limit, offset } = req.query;
        return app.store.reports.decisionCountsPage(by ?? null, await sourceIds(commaList(req.query.source)), { limit, offset });
      },
    );

    f.get(
      '/api/v1/reports/trends',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['reports'],
          summary:
            "Trends from the change feed and the scanner's dates: open findings by severity at the end of each day, and mean time to remediate per severity",
          description:
            "Today's counts are the store's live open and reopened findings; each earlier day's is derived from the openings and closings dated after it: a finding's first appearance at the scanner's first-seen date, a fix at the scanner's mitigation date where it sent one (else when a run saw it), so a first import already has the scanner's history. The mean time to remediate counts the fixes dated in the window, from first seen (or the last reopening) to the fix; where it is null, meanBlankReason says why.",
          querystring: routeSchema(trendsQuery),
          response: {
            200: routeSchema(trendsReportShape),
            400: errorSchema,
          },
        },
      },
      async (req) => {
        const generatedAt = nowIso();
        const ids = await sourceIds(commaList(req.query.source));
        const opts = { sourceIds: ids, days: req.query.days, to: req.query.to ?? null, now: generatedAt };
        const key = JSON.stringify([ids ?? null, opts.days, opts.to, generatedAt.slice(0, 10), await app.store.reports.trendsFingerprint()]);
        let report = trendsCache.get(key);
        if (!report) {
          report = await app.store.reports.trends(opts);
          if (trendsCache.size >= 32) trendsCache.delete(trendsCache.keys().next().value as string);
          trendsCache.set(key, report);
        }
        return { ...report, generatedAt };
      },
    );
  };
}
