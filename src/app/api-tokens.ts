// API tokens for `Authorization: Bearer`, made by the API (POST /api/v1/tokens) and the CLI (`tokens
// create`): a random value shown once, stored only as its SHA-256 hash, with the scope it was given.
import { createHash, randomBytes } from 'node:crypto';
import type { TokenScope } from '../core/token-scopes.ts';
import type { AppContext } from './context.ts';

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** A new random token value with a prefix that says what it is (`trb_` API token, `trs_` session). */
export const newToken = (prefix: string): string => prefix + randomBytes(32).toString('base64url');

export async function createApiToken(
  app: AppContext,
  userId: string,
  opts: { name: string; scope: TokenScope; expiresAt?: string | null },
): Promise<{ id: string; token: string }> {
  const token = newToken('trb_');
  const id = await app.store.createApiToken({ name: opts.name, tokenHash: hashToken(token), userId, scope: opts.scope, expiresAt: opts.expiresAt ?? null });
  return { id, token };
}
