// Users, browser sessions and API tokens in the store (the server's authentication reads and writes
// them only through these; tokens and session ids are stored as hashes).
import { randomUUID } from 'node:crypto';
import type { TokenScope } from '../../core/token-scopes.ts';
import type { Driver } from '../db/driver.ts';
import { nowIso } from '../db/rows.ts';

export async function userCount(db: Driver): Promise<number> {
  const rows = await db.all(`SELECT COUNT(*) AS "n" FROM "users"`);
  return Number(rows[0]?.n ?? 0);
}

export async function createUser(db: Driver, username: string, passwordHash: string): Promise<string> {
  const id = randomUUID();
  await db.run(`INSERT INTO "users" ("id", "username", "password_hash", "created_at") VALUES (?, ?, ?, ?)`, [id, username, passwordHash, nowIso()]);
  return id;
}

export async function findUser(db: Driver, username: string): Promise<{ id: string; username: string; passwordHash: string } | null> {
  const rows = await db.all(`SELECT * FROM "users" WHERE "username" = ?`, [username]);
  const r = rows[0];
  return r ? { id: String(r.id), username: String(r.username), passwordHash: String(r.password_hash) } : null;
}

export async function getUserById(db: Driver, id: string): Promise<{ id: string; username: string } | null> {
  const rows = await db.all(`SELECT "id", "username" FROM "users" WHERE "id" = ?`, [id]);
  return rows[0] ? { id: String(rows[0].id), username: String(rows[0].username) } : null;
}

export async function createSession(db: Driver, tokenHash: string, userId: string, csrfToken: string, expiresAt: string): Promise<void> {
  await db.run(`INSERT INTO "sessions" ("token_hash", "user_id", "csrf_token", "created_at", "expires_at") VALUES (?, ?, ?, ?, ?)`, [
    tokenHash,
    userId,
    csrfToken,
    nowIso(),
    expiresAt,
  ]);
}

export async function findSession(db: Driver, tokenHash: string): Promise<{ userId: string; csrfToken: string; expiresAt: string } | null> {
  const rows = await db.all(`SELECT * FROM "sessions" WHERE "token_hash" = ?`, [tokenHash]);
  const r = rows[0];
  if (!r) return null;
  if (String(r.expires_at) < nowIso()) {
    await deleteSession(db, tokenHash);
    return null;
  }
  return { userId: String(r.user_id), csrfToken: String(r.csrf_token), expiresAt: String(r.expires_at) };
}

export async function deleteSession(db: Driver, tokenHash: string): Promise<void> {
  await db.run(`DELETE FROM "sessions" WHERE "token_hash" = ?`, [tokenHash]);
}

/** An API token as listed (never its value or hash). */
export interface ApiTokenInfo {
  id: string;
  name: string;
  scope: TokenScope;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
}

export async function createApiToken(
  db: Driver,
  token: { name: string; tokenHash: string; userId: string; scope: TokenScope; expiresAt: string | null },
): Promise<string> {
  const id = randomUUID();
  await db.run(`INSERT INTO "api_tokens" ("id", "name", "token_hash", "user_id", "scope", "created_at", "expires_at") VALUES (?, ?, ?, ?, ?, ?, ?)`, [
    id,
    token.name,
    token.tokenHash,
    token.userId,
    token.scope,
    nowIso(),
    token.expiresAt,
  ]);
  return id;
}

export async function findApiToken(
  db: Driver,
  tokenHash: string,
): Promise<{ id: string; name: string; userId: string; scope: TokenScope; expiresAt: string | null; lastUsedAt: string | null } | null> {
  const rows = await db.all(`SELECT "id", "name", "user_id", "scope", "expires_at", "last_used_at" FROM "api_tokens" WHERE "token_hash" = ?`, [tokenHash]);
  const r = rows[0];
  return r
    ? {
        id: String(r.id),
        name: String(r.name),
        userId: String(r.user_id),
        scope: r.scope as TokenScope,
        expiresAt: (r.expires_at as string | null) ?? null,
        lastUsedAt: (r.last_used_at as string | null) ?? null,
      }
    : null;
}

export async function touchApiToken(db: Driver, id: string, at: string): Promise<void> {
  await db.run(`UPDATE "api_tokens" SET "last_used_at" = ? WHERE "id" = ?`, [at, id]);
}

export async function listApiTokens(db: Driver, userId: string): Promise<ApiTokenInfo[]> {
  const rows = await db.all(`SELECT * FROM "api_tokens" WHERE "user_id" = ? ORDER BY "created_at"`, [userId]);
  return rows.map((r) => ({
    id: String(r.id),
    name: String(r.name),
    scope: r.scope as TokenScope,
    createdAt: String(r.created_at),
    lastUsedAt: (r.last_used_at as string | null) ?? null,
    expiresAt: (r.expires_at as string | null) ?? null,
  }));
}

export async function deleteApiToken(db: Driver, id: string, userId: string): Promise<boolean> {
  return (await db.run(`DELETE FROM "api_tokens" WHERE "id" = ? AND "user_id" = ?`, [id, userId])) > 0;
}
