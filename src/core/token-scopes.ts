// What an API token may do (interfaces.md §7.2): `read` (lists, exports, reports), `operate` (also syncs,
// uploads, links), `admin` (also sources, secrets, schedules, feeds, tokens). Each scope includes the ones
// before it; a browser session (the admin user) has `admin`.
export const TOKEN_SCOPES = ['read', 'operate', 'admin'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** A token made without a scope gets the least (tokens stored before scopes existed were given `admin`). */
export const DEFAULT_TOKEN_SCOPE: TokenScope = 'read';

/** What each scope adds to the one before it, for help texts and the API description. */
export const SCOPE_COVERS: Record<TokenScope, string> = {
  read: 'lists, records, exports, reports, runs',
  operate: 'read, and syncs, file uploads, asset links, running an export now',
  admin: 'operate, and sources, secrets, export schedules, feeds, API tokens',
};

export function isTokenScope(value: unknown): value is TokenScope {
  return typeof value === 'string' && (TOKEN_SCOPES as readonly string[]).includes(value);
}

/** Whether a token of scope `held` may call a route that needs `needed`. */
export function scopeAllows(held: TokenScope, needed: TokenScope): boolean {
  return TOKEN_SCOPES.indexOf(held) >= TOKEN_SCOPES.indexOf(needed);
}
