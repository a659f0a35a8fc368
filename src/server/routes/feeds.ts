// The offline feeds over HTTP: GET /api/v1/feeds (each feed's version, date, size, staleness) and
// POST /api/v1/feeds (the raw file as the body: CISA KEV JSON or FIRST EPSS CSV, gzipped or not), and
// GET /api/v1/feeds/cves (what the feeds say of given CVEs, for a finding's page).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { InputError } from '../../core/errors.ts';
import { feeds, importFeedFiles } from '../../feeds/index.ts';
import { cveFeedFacts } from '../../store/feeds.ts';
import { cveFactsList, feedImport, feedList } from '../../core/api-shapes.ts';
import { errorSchema } from '../errors.ts';
import { routeSchema } from '../schema.ts';

/** The largest feed file accepted (today's EPSS CSV is ~10 MB uncompressed, the KEV catalog ~1.5 MB). */
const MAX_FEED_BYTES = 256 * 1024 * 1024;

export function feedRoutes(app: AppContext) {
  return async (f: FastifyInstance): Promise<void> => {
    f.get(
      '/api/v1/feeds',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['feeds'],
          summary: 'Offline feeds: version, date, records, size; stale when older than 7 days',
          response: { 200: routeSchema(feedList) },
        },
      },
      async () => ({
        items: await feeds(app),
      }),
    );

    f.get<{ Querystring: { cve: string[] } }>(
      '/api/v1/feeds/cves',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['feeds'],
          summary: 'What the imported feeds say of these CVEs: the CISA KEV entry and the EPSS score, null where a feed does not list one',
          querystring: {
            type: 'object',
            properties: {
              cve: { type: 'array', items: { type: 'string', maxLength: 40 }, minItems: 1, maxItems: 500, description: 'a CVE id; repeat for several' },
            },
            required: ['cve'],
            additionalProperties: false,
          },
          response: {
            200: routeSchema(cveFactsList),
            400: errorSchema,
          },
        },
      },
      async (req) => ({ items: await cveFeedFacts(app.store, req.query.cve) }),
    );

    // The body is the file itself, whatever its content type.
    await f.register(async (r) => {
      r.removeAllContentTypeParsers();
      r.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_FEED_BYTES }, (_req, body, done) => done(null, body));
      r.post<{ Querystring: { name?: string } }>(
        '/api/v1/feeds',
        {
          config: { scope: 'admin' },
          bodyLimit: MAX_FEED_BYTES,
          schema: {
            tags: ['feeds'],
            summary: 'Import one feed file (the request body): CISA KEV catalog JSON or FIRST EPSS CSV, optionally gzipped; recognised by content',
            querystring: { type: 'object', properties: { name: { type: 'string', maxLength: 255 } }, additionalProperties: false },
            response: {
              200: routeSchema(feedImport),
              400: errorSchema,
            },
          },
        },
        async (req) => {
          const body = req.body;
          if (!Buffer.isBuffer(body) || body.length === 0) throw new InputError('send the feed file as the request body', 'body');
          return importFeedFiles(app, [{ name: req.query.name ?? 'upload', data: body }]);
        },
      );
    });
  };
}
