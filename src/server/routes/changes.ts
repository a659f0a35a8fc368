// The change feed and the reports made from it: GET /api/v1/changes (cursor-paged, oldest first, with
// since/run/model/source/change filters and the records' `where` syntax), GET /api/v1/reports/remediation
// and GET /api/v1/reports/trends (open findings by severity per day, mean time to remediate).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { InputError } from '../../core/errors.ts';
import { MODEL_NAMES } from '../../core/models.ts';
import { nowIso } from '../../store/index.ts';
import { CHANGE_KINDS } from '../../store/index.ts';
import { parseFilter } from '../../store/index.ts';
import { remediationReport } from '../../store/index.ts';
import { type TrendsReport, trendsFingerprint, trendsReport } from '../../store/index.ts';
import { changePage, remediationReport as remediationShape, trendsReport as trendsReportShape } from '../../core/api-shapes-reports.ts';
import { errorSchema } from '../errors.ts';
import { routeSchema, type ShapesProvider } from '../schema.ts';
import { changesQuery, remediationQuery, trendsQuery } from '../../core/api-requests.ts';
import { plainFilter, sourceIdsByName } from './records.ts';

const asList = (v: unknown): string[] =>
  v === undefined
    ? []
    : (Array.isArray(v) ? v.map(String) : [String(v)])
        .flatMap((s) => s.split(','))
        .map((s) => s.trim())
        .filter(Boolean);

const RESERVED = new Set(['since', 'run', 'model', 'source', 'change', 'where', 'limit', 'cursor']);
function checked(values: string[], allowed: readonly string[], param: string): string[] {
  for (const v of values) if (!allowed.includes(v)) throw new InputError(`${param}: unknown value '${v}'; one of ${allowed.join(', ')}`, param);
  return values;
}

export function changeRoutes(app: AppContext) {
  /** Recent trends reports by options and store fingerprint: a report reads every event of its window. */
  const trendsCache = new Map<string, TrendsReport>();
  return async (instance: FastifyInstance): Promise<void> => {
    const f = instance.withTypeProvider<ShapesProvider>();
    const sourceIds = (names: string[]) => sourceIdsByName(app, names);

    f.get(
      '/api/v1/changes',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['records'],
          summary: 'The change feed: lifecycle events of records (new, fixed, reopened, removed, updated), oldest first, paged by cursor',
          querystring: routeSchema(changesQuery),
          response: { 200: routeSchema(changePage), 400: errorSchema },
        },
      },
      async (req) => {
        const { since, run, model, source, change, where, limit, cursor, ...rest } = req.query;
        const filters = asList(where).map((w) => parseFilter(w));
        for (const [key, value] of Object.entries(rest)) if (!RESERVED.has(key)) for (const v of asList(value)) filters.push(plainFilter(key, v));
        const page = await app.store.changes({
          sourceIds: await sourceIds(asList(source)),
          models: checked(asList(model), MODEL_NAMES, 'model'),
          changes: checked(asList(change), CHANGE_KINDS, 'change'),
          since: since ? await app.store.resolveSince(since) : null,
          run: run ? await app.store.resolveRun(run) : null,
          filters,
          limit,
          cursor: cursor || null,
        });
        return { items: page.records, nextCursor: page.nextCursor };
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
        const since = req.query.since ? await app.store.resolveSince(req.query.since) : null;
        const generatedAt = nowIso();
        const items = await remediationReport(app.store, { sourceIds: await sourceIds(asList(req.query.source)), since, now: generatedAt });
        return { items, since: since?.at ?? null, generatedAt };
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
        const ids = await sourceIds(asList(req.query.source));
        const opts = { sourceIds: ids, days: req.query.days, to: req.query.to ?? null, now: generatedAt };
        const key = JSON.stringify([ids ?? null, opts.days, opts.to, generatedAt.slice(0, 10), await trendsFingerprint(app.store)]);
        let report = trendsCache.get(key);
        if (!report) {
          report = await trendsReport(app.store, opts);
          if (trendsCache.size >= 32) trendsCache.delete(trendsCache.keys().next().value as string);
          trendsCache.set(key, report);
        }
        return { ...report, generatedAt };
      },
    );
  };
}
