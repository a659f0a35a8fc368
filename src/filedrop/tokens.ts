// Upload tokens of the file-drop guide: bearer tokens for the service's own upload endpoint
// (`PUT /api/v1/upload/:bucket/:file`), scoped to one source's bucket (and optionally one file name),
// with an expiry, revocable. Only the SHA-256 hash is stored; the token is shown once.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AppContext } from '../app/context.ts';
import { NotFoundError } from '../core/errors.ts';
import type { Row } from '../store/driver.ts';
import { sourceBucketOf } from './resolve.ts';

export const UPLOAD_TOKEN_PREFIX = 'tfu_';

export interface UploadTokenInfo {
  id: string;
  sourceId: string;
  bucket: string;
  /** When set, the token uploads only this file name. */
  file: string | null;
  createdBy: string | null;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
  uploads: number;
}

/** Refusal of an upload token: 401 when it is not (or no longer) valid, 403 when it is for something else. */
export class UploadAuthError extends Error {
  readonly statusCode: 401 | 403;
  constructor(statusCode: 401 | 403, message: string) {
    super(message);
    this.name = 'UploadAuthError';
    this.statusCode = statusCode;
  }
}

const hash = (token: string): string => createHash('sha256').update(token).digest('hex');

function toInfo(r: Row): UploadTokenInfo {
  return {
    id: String(r.id),
    sourceId: String(r.source_id),
    bucket: String(r.bucket),
    file: (r.file as string | null) ?? null,
    createdBy: (r.created_by as string | null) ?? null,
    createdAt: String(r.created_at),
    expiresAt: String(r.expires_at),
    revokedAt: (r.revoked_at as string | null) ?? null,
    lastUsedAt: (r.last_used_at as string | null) ?? null,
    uploads: Number(r.uploads ?? 0),
  };
}

export async function createUploadToken(
  app: AppContext,
  source: { id: string; name: string; type: string; config: Record<string, unknown> },
  opts: { expiresSeconds: number; file?: string | null; createdBy?: string | null },
): Promise<{ id: string; token: string; bucket: string; file: string | null; expiresAt: string }> {
  const id = randomUUID();
  const token = UPLOAD_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const bucket = sourceBucketOf(app, source);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + opts.expiresSeconds * 1000).toISOString();
  await app.store.db.run(
    `INSERT INTO "upload_tokens" ("id", "source_id", "bucket", "file", "token_hash", "created_by", "created_at", "expires_at", "uploads") VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)`,
    [id, source.id, bucket, opts.file ?? null, hash(token), opts.createdBy ?? null, now.toISOString(), expiresAt],
  );
  return { id, token, bucket, file: opts.file ?? null, expiresAt };
}

export async function listUploadTokens(app: AppContext, sourceId: string): Promise<UploadTokenInfo[]> {
  const rows = await app.store.db.all(`SELECT * FROM "upload_tokens" WHERE "source_id" = ? ORDER BY "created_at" DESC`, [sourceId]);
  return rows.map(toInfo);
}

/** Revokes a token of this source; NotFoundError when the source has no such token. */
export async function revokeUploadToken(app: AppContext, sourceId: string, id: string): Promise<UploadTokenInfo> {
  const rows = await app.store.db.all(`SELECT * FROM "upload_tokens" WHERE "id" = ? AND "source_id" = ?`, [id, sourceId]);
  if (!rows[0]) throw new NotFoundError(`no upload token '${id}' for this source`);
  const info = toInfo(rows[0]);
  if (!info.revokedAt) {
    info.revokedAt = new Date().toISOString();
    await app.store.db.run(`UPDATE "upload_tokens" SET "revoked_at" = ? WHERE "id" = ?`, [info.revokedAt, id]);
  }
  return info;
}

/**
 * Checks `Authorization: Bearer <token>` for an upload of `key` into `bucket`; returns the token and
 * its source. Throws UploadAuthError: 401 for a missing, unknown, revoked or expired token, 403 for
 * a token of another bucket or file.
 */
export async function verifyUploadToken(
  app: AppContext,
  authorization: string | undefined,
  bucket: string,
  key: string,
): Promise<{ token: UploadTokenInfo; sourceName: string }> {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!m) throw new UploadAuthError(401, 'send Authorization: Bearer <upload token> (from `tributary sources file-drop NAME`)');
  const rows = await app.store.db.all(`SELECT * FROM "upload_tokens" WHERE "token_hash" = ?`, [hash(m[1])]);
  if (!rows[0]) throw new UploadAuthError(401, 'unknown upload token');
  const info = toInfo(rows[0]);
  if (info.revokedAt) throw new UploadAuthError(401, 'this upload token was revoked; ask for a new one');
  if (info.expiresAt <= new Date().toISOString()) throw new UploadAuthError(401, `this upload token expired at ${info.expiresAt}; ask for a new one`);
  if (info.bucket !== bucket) throw new UploadAuthError(403, `this upload token is for bucket '${info.bucket}', not '${bucket}'`);
  if (info.file !== null && info.file !== key) throw new UploadAuthError(403, `this upload token is for the file '${info.file}' only`);
  let source: { name: string; type: string; config: Record<string, unknown> };
  try {
    source = await app.store.getSourceById(info.sourceId);
  } catch {
    throw new UploadAuthError(401, 'the source of this upload token no longer exists');
  }
  if (sourceBucketOf(app, source) !== info.bucket)
    throw new UploadAuthError(403, `source '${source.name}' no longer uses bucket '${info.bucket}'; ask for a new token`);
  return { token: info, sourceName: source.name };
}

export async function markTokenUsed(app: AppContext, id: string): Promise<void> {
  await app.store.db.run(`UPDATE "upload_tokens" SET "last_used_at" = ?, "uploads" = "uploads" + 1 WHERE "id" = ?`, [new Date().toISOString(), id]);
}
