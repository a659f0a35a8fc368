// Each route's token scope, declared in its `config.scope` (auth.ts enforces it): the list of routes with
// their scopes (for the test that walks every route with each scope), and the OpenAPI annotation that
// shows an operation's scope (`x-tributary-scope` and a sentence in its description).
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { SCOPE_COVERS, type TokenScope } from '../core/token-scopes.ts';
import { requiredScope } from './auth.ts';

export interface RouteScope {
  method: string;
  url: string;
  /** The declared scope; null when the route declares none (it then needs `admin`). */
  scope: TokenScope | null;
  public: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered, with its declared scope. */
    routeScopes: readonly RouteScope[];
  }
}

/** Records every route registered from now on (call before registering them) as `f.routeScopes`. */
export function collectRouteScopes(f: FastifyInstance): void {
  const routes: RouteScope[] = [];
  f.decorate('routeScopes', routes);
  f.addHook('onRoute', (r: RouteOptions) => {
    const config = r.config as { public?: boolean; scope?: TokenScope } | undefined;
    for (const method of [r.method].flat()) routes.push({ method, url: r.url, scope: config?.scope ?? null, public: config?.public === true });
  });
}

/** @fastify/swagger's transform: the operation's scope as `x-tributary-scope` and in its description. */
export function scopeInOpenApi({ schema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }): { schema: FastifySchema; url: string } {
  const config = route.config as { public?: boolean; scope?: TokenScope } | undefined;
  if (!schema || config?.public) return { schema, url };
  const s = schema as FastifySchema & { description?: string };
  const scope = requiredScope(config);
  const sentence = `Needs an API token of scope \`${scope}\` (${SCOPE_COVERS[scope]}) or a session; a token of a lesser scope is answered 403.`;
  const annotated: FastifySchema & Record<string, unknown> = {
    ...s,
    'x-tributary-scope': scope,
    description: s.description ? `${s.description}\n\n${sentence}` : sentence,
  };
  return { schema: annotated, url };
}
