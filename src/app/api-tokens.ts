// API tokens for `Authorization: Bearer`, made by the API (POST /api/v1/tokens) and the CLI (`tokens
// create`): a random value shown once, stored only as its SHA-256 hash, with the scope it was given.
import { createHash, randomBytes } from 'node:crypto';
import { InputError } from '../core/errors.ts';
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
  const id = await app.store.users.createToken({ name: opts.name, tokenHash: hashToken(token), userId, scope: opts.scope, expiresAt: opts.expiresAt ?? null });
  return { id, token };
}

const TOKEN_UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30m`, `12h`, `90d` → the expiry time from now; between one minute and ten years. */
export function tokenExpiry(expiresIn: string, now = Date.now()): string {
  const m = /^\s*(\d+)\s*([mhd])\s*$/i.exec(expiresIn);
  const ms = m ? Number(m[1]) * TOKEN_UNITS[m[2]!.toLowerCase()]! : Number.NaN;
  if (!Number.isFinite(ms) || ms < 60_000 || ms > 3650 * 86_400_000)
    throw new InputError(`expiresIn '${expiresIn}' is not a duration from 1m to 3650d such as 12h or 90d`, 'expiresIn');
  return new Date(now + ms).toISOString();
}
