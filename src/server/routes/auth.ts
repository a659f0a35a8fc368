// Login, logout and the current session; API tokens (created with a scope and shown once, listed,
// deleted), which only an admin (a session or an admin token) manages.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { NotFoundError } from '../../core/errors.ts';
import { createApiToken, tokenExpiry } from '../../app/api-tokens.ts';
import { DEFAULT_TOKEN_SCOPE } from '../../core/token-scopes.ts';
import { type AuthInfo, checkLogin, createSession, type LoginLimiter, SESSION_COOKIE, SESSION_TTL_MS } from '../auth.ts';
import { apiTokenCreated, apiTokenList, idParams, loginBody, sessionInfo, tokenCreateBody } from '../../core/api-shapes.ts';
import { ApiError, errorSchema } from '../errors.ts';
import { routeSchema, type ShapesProvider } from '../schema.ts';

export interface AuthRouteOptions {
  secureCookies: boolean | 'auto';
  limiter: LoginLimiter;
}

const sessionSchema = routeSchema(sessionInfo);

function current(req: FastifyRequest): AuthInfo {
  if (!req.auth) throw new ApiError(401, 'unauthorized', 'authentication required');
  return req.auth;
}

export function authRoutes(app: AppContext, opts: AuthRouteOptions) {
  return async (instance: FastifyInstance): Promise<void> => {
    const f = instance.withTypeProvider<ShapesProvider>();
    const secure = (req: FastifyRequest) => (opts.secureCookies === 'auto' ? req.protocol === 'https' : opts.secureCookies);
    const clearCookie = (req: FastifyRequest, reply: FastifyReply) =>
      reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: secure(req) });

    f.post(
      '/api/v1/auth/login',
      {
        config: { public: true },
        schema: {
          tags: ['auth'],
          summary: 'Log in; sets the session cookie and returns the CSRF token for unsafe requests',
          security: [],
          body: routeSchema(loginBody),
          response: { 200: sessionSchema, 401: errorSchema, 429: errorSchema },
        },
      },
      async (req, reply) => {
        const { username, password } = req.body;
        const wait = opts.limiter.retryAfter(username, req.ip);
        if (wait > 0) {
          req.log.warn({ user: username, ip: req.ip }, 'login refused: too many failed attempts');
          throw new ApiError(429, 'too_many_requests', `too many failed logins; try again in ${wait} s`, null, { retryAfter: wait });
        }
        const user = await checkLogin(app, username, password);
        if (!user) {
          opts.limiter.fail(username, req.ip);
          req.log.warn({ user: username, ip: req.ip }, 'login failed');
          throw new ApiError(401, 'invalid_credentials', 'wrong username or password');
        }
        opts.limiter.succeed(username, req.ip);
        const session = await createSession(app, user.id);
        reply.setCookie(SESSION_COOKIE, session.token, {
          path: '/',
          httpOnly: true,
          sameSite: 'lax',
          secure: secure(req),
          maxAge: Math.floor(SESSION_TTL_MS / 1000),
        });
        req.log.info({ user: user.username }, 'logged in');
        return { user, csrfToken: session.csrfToken, via: 'session' as const, scope: 'admin' as const };
      },
    );

    f.post(
      '/api/v1/auth/logout',
      { config: { scope: 'read' }, schema: { tags: ['auth'], summary: 'End the current session', response: { 204: { type: 'null' } } } },
      async (req, reply) => {
        const auth = current(req);
        if (auth.sessionHash) await app.store.users.deleteSession(auth.sessionHash);
        clearCookie(req, reply);
        return reply.code(204).send();
      },
    );

    f.get(
      '/api/v1/auth/session',
      { config: { scope: 'read' }, schema: { tags: ['auth'], summary: 'The logged-in user and the CSRF token', response: { 200: sessionSchema } } },
      async (req) => {
        const auth = current(req);
        return { user: { id: auth.userId, username: auth.username }, csrfToken: auth.csrfToken, via: auth.via, scope: auth.scope };
      },
    );

    f.get(
      '/api/v1/tokens',
      {
        config: { scope: 'admin' },
        schema: {
          tags: ['auth'],
          summary: 'API tokens of the current user with their scopes (never their values)',
          response: { 200: routeSchema(apiTokenList) },
        },
      },
      async (req) => ({ items: await app.store.users.listTokens(current(req).userId) }),
    );

    f.post(
      '/api/v1/tokens',
      {
        config: { scope: 'admin' },
        schema: {
          tags: ['auth'],
          summary: `Create an API token for \`Authorization: Bearer\` with a scope (read, operate, admin; default ${DEFAULT_TOKEN_SCOPE}); its value is shown only in this response`,
          body: routeSchema(tokenCreateBody),
          response: {
            201: routeSchema(apiTokenCreated),
            400: errorSchema,
          },
        },
      },
      async (req, reply) => {
        const auth = current(req);
        const expiresAt = req.body.expiresIn === undefined ? null : tokenExpiry(req.body.expiresIn);
        const scope = req.body.scope ?? DEFAULT_TOKEN_SCOPE;
        const { id, token } = await createApiToken(app, auth.userId, { name: req.body.name, scope, expiresAt });
        req.log.info({ tokenId: id, name: req.body.name, scope, expiresAt }, 'API token created');
        return reply.code(201).send({ id, name: req.body.name, scope, token, expiresAt });
      },
    );

    f.delete(
      '/api/v1/tokens/:id',
      {
        config: { scope: 'admin' },
        schema: {
          tags: ['auth'],
          summary: 'Revoke an API token',
          params: routeSchema(idParams),
          response: { 204: { type: 'null' } },
        },
      },
      async (req, reply) => {
        if (!(await app.store.users.deleteToken(req.params.id, current(req).userId))) throw new NotFoundError(`no API token with id '${req.params.id}'`);
        return reply.code(204).send();
      },
    );
  };
}
