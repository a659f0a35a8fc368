// The offline feeds over HTTP: GET /api/v1/feeds (each feed's version, date, size, staleness) and
// POST /api/v1/feeds (the raw file as the body: CISA KEV JSON or FIRST EPSS CSV, gzipped or not, read
// within TRIBUTARY_FEED_MAX_BYTES and parsed off the event loop; `?replace=true` installs an older one), and
// GET /api/v1/feeds/cves (what the feeds say of given CVEs, for a finding's page).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { InputError } from '../../core/errors.ts';
import { alertAfterFeedImport } from '../../alerts/index.ts';
import { feeds, importFeedFiles } from '../../feeds/index.ts';
import { feedLimits } from '../../feeds/parse.ts';
import { formatBytes } from '../../core/format.ts';
import { cveFactsList, feedImport, feedList } from '../../core/api-shapes.ts';
import { errorSchema } from '../errors.ts';
import { routeSchema, type ShapesProvider } from '../schema.ts';
import { cveQuery, feedImportQuery } from '../../core/api-requests.ts';

export function feedRoutes(app: AppContext) {
  return async (instance: FastifyInstance): Promise<void> => {
    const f = instance.withTypeProvider<ShapesProvider>();
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

    f.get(
      '/api/v1/feeds/cves',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['feeds'],
          summary: 'What the imported feeds say of these CVEs: the CISA KEV entry and the EPSS score, null where a feed does not list one',
          querystring: routeSchema(cveQuery),
          response: {
            200: routeSchema(cveFactsList),
            400: errorSchema,
          },
        },
      },
      async (req) => ({ items: await app.store.feeds.cveFacts(req.query.cve) }),
    );

    // The body is the file itself, whatever its content type, read by the handler within the byte cap.
    await f.register(async (scope) => {
      const r = scope.withTypeProvider<ShapesProvider>();
      r.removeAllContentTypeParsers();
      r.addContentTypeParser('*', (_req, _payload, done) => done(null));
      r.post(
        '/api/v1/feeds',
        {
          config: { scope: 'admin' },
          schema: {
            tags: ['feeds'],
            summary:
              'Import one feed file (the request body): CISA KEV catalog JSON or FIRST EPSS CSV, optionally gzipped; recognised by content. Refused (400) when dated more than a day ahead, older than the current feed (unless replace=true), or over TRIBUTARY_FEED_MAX_BYTES / TRIBUTARY_FEED_MAX_ENTRIES',
            querystring: routeSchema(feedImportQuery),
            response: {
              200: routeSchema(feedImport),
              400: errorSchema,
            },
          },
        },
        async (req, reply) => {
          const limits = feedLimits(app.env);
          const parts: Buffer[] = [];
          let size = 0;
          for await (const chunk of req.raw) {
            size += (chunk as Buffer).length;
            if (size > limits.maxBytes) {
              reply.header('connection', 'close');
              throw new InputError(
                `the feed file is larger than ${formatBytes(limits.maxBytes)}, the limit TRIBUTARY_FEED_MAX_BYTES sets`,
                'TRIBUTARY_FEED_MAX_BYTES',
              );
            }
            parts.push(chunk as Buffer);
          }
          if (size === 0) throw new InputError('send the feed file as the request body', 'body');
          const result = await importFeedFiles(app, [{ name: req.query.name ?? 'upload', data: Buffer.concat(parts) }], {
            replace: req.query.replace === true,
          });
          // Alert rules follow a feed that changed, in the background.
          if (result.imported.some((i) => i.status === 'imported')) alertAfterFeedImport(app);
          return result;
        },
      );
    });
  };
}
