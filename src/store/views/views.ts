// Saved views (migration 33): a user's named list — its path and its query (filters and sort), as the
// URL holds them — to open again or share. Each user has their own; a name is unique per user, and
// saving under a name already taken replaces that view.
import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../../core/errors.ts';
import type { Driver, Row } from '../db/driver.ts';
import { nowIso } from '../db/rows.ts';

export interface SavedView {
  id: string;
  name: string;
  /** The list's path in the UI, `/inventory/vulnerabilities`. */
  path: string;
  /** Its query string without the `?` (filters and sort; no page). */
  query: string;
  createdAt: string;
  updatedAt: string;
}

const toView = (r: Row): SavedView => ({
  id: String(r.id),
  name: String(r.name),
  path: String(r.path),
  query: String(r.query),
  createdAt: String(r.created_at),
  updatedAt: String(r.updated_at),
});

/** The user's views, by path then name; of one path when given. */
export async function listViews(db: Driver, userId: string, path?: string): Promise<SavedView[]> {
  const rows =
    path === undefined
      ? await db.all(`SELECT * FROM "saved_views" WHERE "user_id" = ? ORDER BY "path", "name"`, [userId])
      : await db.all(`SELECT * FROM "saved_views" WHERE "user_id" = ? AND "path" = ? ORDER BY "name"`, [userId, path]);
  return rows.map(toView);
}

/** Saves a view under its name for the user (replacing the user's view of that name) and returns it. */
export async function saveView(db: Driver, userId: string, view: { name: string; path: string; query: string }): Promise<SavedView> {
  const now = nowIso();
  return db.transaction(async (tx) => {
    const existing = await tx.all(`SELECT "id" FROM "saved_views" WHERE "user_id" = ? AND "name" = ?`, [userId, view.name]);
    const id = existing[0] ? String(existing[0].id) : randomUUID();
    if (existing[0]) await tx.run(`UPDATE "saved_views" SET "path" = ?, "query" = ?, "updated_at" = ? WHERE "id" = ?`, [view.path, view.query, now, id]);
    else
      await tx.run(`INSERT INTO "saved_views" ("id", "user_id", "name", "path", "query", "created_at", "updated_at") VALUES (?, ?, ?, ?, ?, ?, ?)`, [
        id,
        userId,
        view.name,
        view.path,
        view.query,
        now,
        now,
      ]);
    const rows = await tx.all(`SELECT * FROM "saved_views" WHERE "id" = ?`, [id]);
    return toView(rows[0]!);
  });
}

/** Deletes one of the user's views (another user's is not found). */
export async function deleteView(db: Driver, userId: string, id: string): Promise<void> {
  const rows = await db.all(`SELECT "id" FROM "saved_views" WHERE "id" = ? AND "user_id" = ?`, [id, userId]);
  if (!rows[0]) throw new NotFoundError(`no saved view ${id}`);
  await db.run(`DELETE FROM "saved_views" WHERE "id" = ?`, [id]);
}
