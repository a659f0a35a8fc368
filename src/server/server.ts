// The HTTP API: Fastify with the app's pino logger, the admin bootstrap, authentication on every route
// but /healthz (and each route's token scope), the OpenAPI document and login, JSON errors, and
// background syncs that are aborted and awaited on close.
import { boundNumericParams } from './bounded-numbers.ts';
import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AppContext } from '../app/context.ts';
import { errorMessage } from '../core/errors.ts';
import { removePartialLeftovers } from '../export/confine.ts';
import { resumeDeliveries } from '../alerts/index.ts';
import { MODEL_NAMES } from '../core/models.ts';
import { authHook, type BootstrapOptions, bootstrapAdmin, CSRF_HEADER, LoginLimiter, type RateLimitOptions, SESSION_COOKIE } from './auth.ts';
import { fileDropRoutes } from './routes/files.ts';
import { errorHandler, notFoundHandler } from './errors.ts';
import { registerWebUi } from './web.ts';
import { assetRoutes } from './routes/assets.ts';
import { authRoutes } from './routes/auth.ts';
import { changeRoutes } from './routes/changes.ts';
import { exportRoutes } from './routes/export.ts';
import { recordRoutes } from './routes/records.ts';
import { reportRoutes } from './routes/reports.ts';
import { summaryRoutes } from './routes/summaries.ts';
import { exceptionRoutes } from './routes/exceptions.ts';
import { feedRoutes } from './routes/feeds.ts';
import { alertRoutes } from './routes/alerts.ts';
import { ticketRoutes } from './routes/tickets.ts';
import { runRoutes } from './routes/runs.ts';
import { sourceRoutes } from './routes/sources.ts';
import { viewRoutes } from './routes/views.ts';
import { Scheduler } from '../sync/scheduler.ts';
import { SyncQueue } from '../sync/queue.ts';
import { SyncManager } from './syncs.ts';
import { routeSchema } from './schema.ts';
import { connectorList } from '../core/api-shapes.ts';
import { fastifyTrustProxy, type TrustProxy } from './trust-proxy.ts';
import { collectRouteScopes, scopeInOpenApi } from './route-scopes.ts';
import { SCOPE_COVERS, TOKEN_SCOPES } from '../core/token-scopes.ts';

export const BODY_LIMIT = 1024 * 1024;
export const API_VERSION = '1.0.0';

export interface ServerOptions extends BootstrapOptions {
  /** Secure flag on the session cookie: true, false, or 'auto' (when the request came over https). */
  secureCookies?: boolean | 'auto';
  /**
   * Which X-Forwarded-* hops to believe (for the client IP and https detection): a number of proxy hops
   * or the proxies' addresses/CIDRs (trust-proxy.ts); `true` is one hop, never every hop.
   */
  trustProxy?: boolean | TrustProxy;
  loginRateLimit?: RateLimitOptions;
  /** Run the scheduler (embedded mode: runs syncs here; PostgreSQL mode: enqueues them); `serve` turns it on. */
  scheduler?: boolean | { tickMs: number };
  /** PostgreSQL mode: also work the job queue in this process (default true), so one `serve` is enough. */
  worker?: boolean;
  /** Serve the web UI at `/` from this directory (default dist/web), or false for the API alone. */
  webUi?: string | false;
}

export async function buildServer(app: AppContext, opts: ServerOptions = {}): Promise<FastifyInstance> {
  await bootstrapAdmin(app, opts);
  // PostgreSQL mode: syncs are jobs in the queue (this server may work it too); SQLite: run in-process.
  const queue = app.store.dialect === 'postgres' && (opts.scheduler || opts.worker) ? await new SyncQueue(app).start() : null;
  const syncs = new SyncManager(app, queue);
  const drain = new AbortController();
  const limiter = new LoginLimiter(opts.loginRateLimit);

  const f = Fastify({
    loggerInstance: app.log.child({ component: 'http' }) as FastifyBaseLogger,
    genReqId: () => randomUUID(),
    bodyLimit: BODY_LIMIT,
    trustProxy: fastifyTrustProxy(opts.trustProxy === true ? 1 : (opts.trustProxy ?? false)),
    return503OnClosing: true,
    // Reject what the schemas do not allow instead of silently dropping it.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: false } },
  });
  f.decorateRequest('auth', null);
  collectRouteScopes(f);
  f.setErrorHandler(errorHandler);
  boundNumericParams(f);
  if (opts.webUi === false) f.setNotFoundHandler(notFoundHandler);
  else await registerWebUi(f, opts.webUi);

  await f.register(cookie);
  await f.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Tributary API',
        version: API_VERSION,
        description: `Sources, sync runs, normalized records (${MODEL_NAMES.join(', ')}), their change feed (/api/v1/changes) and reports. Authenticate with the session cookie from POST /api/v1/auth/login (unsafe methods also need the ${CSRF_HEADER} header) or with Authorization: Bearer <API token>. An API token has a scope, and a route its scope does not allow answers 403: ${TOKEN_SCOPES.map((t) => `\`${t}\` ${SCOPE_COVERS[t]}`).join('; ')}. A session has \`admin\`. Each operation names its scope in \`x-tributary-scope\`.`,
      },
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description:
              'API token from POST /api/v1/tokens or `tributary tokens create`; its scope (read, operate, admin) must cover the operation’s x-tributary-scope',
          },
          session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE },
        },
      },
      security: [{ bearer: [] }, { session: [] }],
    },
    transform: scopeInOpenApi,
  });

  f.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    if (req.url.startsWith('/api/')) reply.header('cache-control', 'no-store');
    reply.header('x-content-type-options', 'nosniff');
  });
  f.addHook('onRequest', authHook(app));
  const scheduler = opts.scheduler
    ? new Scheduler(app, {
        tickMs: typeof opts.scheduler === 'object' ? opts.scheduler.tickMs : undefined,
        start: (name, o) => (queue ? queue.enqueue(name, { trigger: o.trigger ?? 'schedule' }) : syncs.start(name, { trigger: o.trigger })),
      })
    : null;
  f.addHook('onReady', async () => {
    // Before anything exports here: what exports killed with an earlier process left half-written.
    await removePartialLeftovers(app);
    // Alert deliveries a stopped process left pending are sent now.
    await resumeDeliveries(app);
    if (queue && opts.worker !== false) await queue.work({ concurrency: 1, drain: drain.signal });
    scheduler?.start();
  });
  f.addHook('onClose', async () => {
    await scheduler?.stop();
    drain.abort();
    await queue?.stop(true);
    await syncs.close();
  });

  f.get('/api/v1/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => f.swagger());

  f.get(
    '/healthz',
    {
      config: { public: true },
      schema: {
        tags: ['meta'],
        summary: 'Liveness: database reachable and schema version (no authentication)',
        security: [],
        response: {
          200: {
            type: 'object',
            properties: { ok: { type: 'boolean' }, db: { type: 'string' }, dialect: { type: 'string' }, schemaVersion: { type: 'integer' } },
          },
          503: { type: 'object', properties: { ok: { type: 'boolean' }, db: { type: 'string' }, dialect: { type: 'string' }, error: { type: 'string' } } },
        },
      },
    },
    async (req, reply) => {
      try {
        const schemaVersion = await app.store.schemaVersion();
        return { ok: true, db: 'ok', dialect: app.store.dialect, schemaVersion };
      } catch (err) {
        req.log.error({ err: errorMessage(err) }, 'health check: database unreachable');
        return reply.code(503).send({ ok: false, db: 'unreachable', dialect: app.store.dialect, error: 'database unreachable; see the server log' });
      }
    },
  );

  f.get(
    '/api/v1/connectors',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['meta'],
        summary: 'Source types with the metadata of their configuration fields (for forms; never values)',
        response: { 200: routeSchema(connectorList) },
      },
    },
    async () => ({
      items: app.registry.all().map((c) => ({
        type: c.type,
        title: c.title,
        shortName: c.shortName,
        models: c.models ?? null,
        sections: c.sections?.map((x) => ({ title: x.title ?? null, help: x.help ?? null, keys: x.keys })) ?? null,
        files: c.files ? { defaultBucket: c.files.defaultBucket, kinds: c.files.kinds, uploadHint: c.files.uploadHint ?? null } : null,
        fields: Object.entries(c.fields).map(([key, info]) => ({
          key,
          label: info.label,
          help: info.help ?? null,
          secret: info.secret === true,
          input: info.input ?? (info.secret ? 'password' : 'text'),
          options: info.options ?? null,
          showWhen: info.showWhen ?? null,
          sendsSecrets: info.sendsSecrets ?? null,
          default: fieldDefault(c.configSchema, key),
        })),
      })),
    }),
  );

  await f.register(authRoutes(app, { secureCookies: opts.secureCookies ?? 'auto', limiter }));
  await f.register(sourceRoutes(app, syncs));
  await f.register(runRoutes(app, syncs));
  await f.register(assetRoutes(app));
  await f.register(changeRoutes(app));
  await f.register(summaryRoutes(app));
  await f.register(reportRoutes(app));
  await f.register(recordRoutes(app));
  await f.register(exportRoutes(app));
  await f.register(fileDropRoutes(app));
  await f.register(feedRoutes(app));
  await f.register(exceptionRoutes(app));
  await f.register(alertRoutes(app));
  await f.register(ticketRoutes(app));
  await f.register(viewRoutes(app));
  await f.ready();
  return f;
}

/** A field's default from the connector's zod schema (e.g. verifySsl → true), for new-source forms; null when none. */
export function fieldDefault(schema: unknown, key: string): unknown {
  type Def = { type?: string; defaultValue?: unknown; innerType?: { _zod?: { def?: Def } }; out?: { _zod?: { def?: Def } } };
  let def = (schema as { shape?: Record<string, { _zod?: { def?: Def } }> })?.shape?.[key]?._zod?.def;
  for (let i = 0; def && i < 5; i++) {
    if (def.type === 'default') {
      const v = typeof def.defaultValue === 'function' ? (def.defaultValue as () => unknown)() : def.defaultValue;
      return v === undefined ? null : v;
    }
    def = def.type === 'pipe' ? def.out?._zod?.def : def.type === 'optional' || def.type === 'nullable' ? def.innerType?._zod?.def : undefined;
  }
  return null;
}

export async function startServer(app: AppContext, opts: { port: number; host: string } & ServerOptions): Promise<{ url: string; close(): Promise<void> }> {
  const { port, host, ...rest } = opts;
  const f = await buildServer(app, rest);
  let url: string;
  try {
    url = await f.listen({ port, host });
  } catch (err) {
    // A busy port: stop what ready() started (scheduler, queue) so the caller can exit cleanly.
    await f.close().catch(() => {});
    throw err;
  }
  app.log.info({ url }, 'API listening');
  let closing: Promise<void> | null = null;
  return {
    url,
    close: () => {
      closing ??= f.close();
      return closing;
    },
  };
}
