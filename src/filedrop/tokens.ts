// Upload tokens of the file-drop guide: bearer tokens for the service's own upload endpoint
// (`PUT /api/v1/upload/:bucket/:file`), scoped to one source's bucket (and optionally one file name),
// with an expiry, revocable. Only the SHA-256 hash is stored; the token is shown once.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { NotFoundError } from '../core/errors.ts';
import type { UploadTokenInfo } from '../store/index.ts';
import type { FileDropContext } from './context.ts';
import { sourceBucketOf } from './resolve.ts';

export type { UploadTokenInfo };

export const UPLOAD_TOKEN_PREFIX = 'tfu_';

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

export async function createUploadToken(
  app: FileDropContext,
  source: { id: string; name: string; type: string; config: Record<string, unknown> },
  opts: { expiresSeconds: number; file?: string | null; createdBy?: string | null },
): Promise<{ id: string; token: string; bucket: string; file: string | null; expiresAt: string }> {
  const id = randomUUID();
  const token = UPLOAD_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const bucket = sourceBucketOf(app, source);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + opts.expiresSeconds * 1000).toISOString();
  await app.store.sources.uploadTokens.insert({
    id,
    sourceId: source.id,
    bucket,
    file: opts.file ?? null,
    tokenHash: hash(token),
    createdBy: opts.createdBy ?? null,
    createdAt: now.toISOString(),
    expiresAt,
  });
  return { id, token, bucket, file: opts.file ?? null, expiresAt };
}

export function listUploadTokens(app: FileDropContext, sourceId: string): Promise<UploadTokenInfo[]> {
  return app.store.sources.uploadTokens.of(sourceId);
}

/** Revokes a token of this source; NotFoundError when the source has no such token. */
export async function revokeUploadToken(app: FileDropContext, sourceId: string, id: string): Promise<UploadTokenInfo> {
  const info = await app.store.sources.uploadTokens.byId(sourceId, id);
  if (!info) throw new NotFoundError(`no upload token '${id}' for this source`);
  if (!info.revokedAt) {
    info.revokedAt = new Date().toISOString();
    await app.store.sources.uploadTokens.setRevoked(id, info.revokedAt);
  }
  return info;
}

/**
 * Checks `Authorization: Bearer <token>` for an upload of `key` into `bucket`; returns the token and
 * its source. Throws UploadAuthError: 401 for a missing, unknown, revoked or expired token, 403 for
 * a token of another bucket or file.
 */
export async function verifyUploadToken(
  app: FileDropContext,
  authorization: string | undefined,
  bucket: string,
  key: string,
): Promise<{ token: UploadTokenInfo; sourceName: string }> {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!m) throw new UploadAuthError(401, 'send Authorization: Bearer <upload token> (from `tributary sources file-drop NAME`)');
  const info = await app.store.sources.uploadTokens.byHash(hash(m[1]!));
  if (!info) throw new UploadAuthError(401, 'unknown upload token');
  if (info.revokedAt) throw new UploadAuthError(401, 'this upload token was revoked; ask for a new one');
  if (info.expiresAt <= new Date().toISOString()) throw new UploadAuthError(401, `this upload token expired at ${info.expiresAt}; ask for a new one`);
  if (info.bucket !== bucket) throw new UploadAuthError(403, `this upload token is for bucket '${info.bucket}', not '${bucket}'`);
  if (info.file !== null && info.file !== key) throw new UploadAuthError(403, `this upload token is for the file '${info.file}' only`);
  let source: { name: string; type: string; config: Record<string, unknown> };
  try {
    source = await app.store.sources.getById(info.sourceId);
  } catch {
    throw new UploadAuthError(401, 'the source of this upload token no longer exists');
  }
  if (sourceBucketOf(app, source) !== info.bucket)
    throw new UploadAuthError(403, `source '${source.name}' no longer uses bucket '${info.bucket}'; ask for a new token`);
  return { token: info, sourceName: source.name };
}

export async function markTokenUsed(app: FileDropContext, id: string): Promise<void> {
  await app.store.sources.uploadTokens.noteUse(id, new Date().toISOString());
}
