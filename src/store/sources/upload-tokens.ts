// The file drop's upload tokens in the store: only each token's SHA-256 hash is kept, with its source,
// bucket, optional file name, expiry, revocation and use. The file drop (filedrop/tokens.ts) makes and
// checks tokens; these read and write them.
import type { Driver, Row } from '../db/driver.ts';

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

export async function insertUploadToken(
  db: Driver,
  t: { id: string; sourceId: string; bucket: string; file: string | null; tokenHash: string; createdBy: string | null; createdAt: string; expiresAt: string },
): Promise<void> {
  await db.run(
    `INSERT INTO "upload_tokens" ("id", "source_id", "bucket", "file", "token_hash", "created_by", "created_at", "expires_at", "uploads") VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)`,
    [t.id, t.sourceId, t.bucket, t.file, t.tokenHash, t.createdBy, t.createdAt, t.expiresAt],
  );
}

/** A source's tokens, newest first. */
export async function uploadTokensOf(db: Driver, sourceId: string): Promise<UploadTokenInfo[]> {
  const rows = await db.all(`SELECT * FROM "upload_tokens" WHERE "source_id" = ? ORDER BY "created_at" DESC`, [sourceId]);
  return rows.map(toInfo);
}

/** A token of this source by id, or null. */
export async function uploadTokenById(db: Driver, sourceId: string, id: string): Promise<UploadTokenInfo | null> {
  const rows = await db.all(`SELECT * FROM "upload_tokens" WHERE "id" = ? AND "source_id" = ?`, [id, sourceId]);
  return rows[0] ? toInfo(rows[0]) : null;
}

/** The token with this hash, or null. */
export async function uploadTokenByHash(db: Driver, tokenHash: string): Promise<UploadTokenInfo | null> {
  const rows = await db.all(`SELECT * FROM "upload_tokens" WHERE "token_hash" = ?`, [tokenHash]);
  return rows[0] ? toInfo(rows[0]) : null;
}

export async function setUploadTokenRevoked(db: Driver, id: string, at: string): Promise<void> {
  await db.run(`UPDATE "upload_tokens" SET "revoked_at" = ? WHERE "id" = ?`, [at, id]);
}

/** Counts one upload with the token and records when. */
export async function noteUploadTokenUse(db: Driver, id: string, at: string): Promise<void> {
  await db.run(`UPDATE "upload_tokens" SET "last_used_at" = ?, "uploads" = "uploads" + 1 WHERE "id" = ?`, [at, id]);
}
