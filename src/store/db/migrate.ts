// Applying the schema migrations (migrations.ts) to a database, and the version it is at.
import type { Driver } from './driver.ts';
import { BYTE_ORDER_FROM, byteOrderText, type Migration, MIGRATIONS } from './migrations.ts';
import { nowIso } from './rows.ts';

/** Applies pending migrations, each in its own transaction; safe when several processes start at once. */
export async function migrate(db: Driver, migrations: Migration[] = MIGRATIONS): Promise<void> {
  await db.exec(`CREATE TABLE IF NOT EXISTS "schema_migrations" ("version" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "applied_at" TEXT NOT NULL)`);
  for (const m of migrations) {
    await db.transaction(async (tx) => {
      if (tx.dialect === 'postgres') await tx.exec('LOCK TABLE "schema_migrations" IN EXCLUSIVE MODE');
      const done = await tx.all(`SELECT "version" FROM "schema_migrations" WHERE "version" = ?`, [m.version]);
      if (done.length) return;
      await tx.exec(tx.dialect === 'postgres' ? (m.postgres ?? m.sql) : m.sql);
      // A text column a later migration adds compares in byte order too (migrations.ts byteOrderText).
      if (tx.dialect === 'postgres' && m.version > BYTE_ORDER_FROM) await tx.exec(byteOrderText());
      await tx.run(`INSERT INTO "schema_migrations" ("version", "name", "applied_at") VALUES (?, ?, ?)`, [m.version, m.name, nowIso()]);
    });
  }
}

export async function schemaVersion(db: Driver): Promise<number> {
  const rows = await db.all(`SELECT MAX("version") AS "v" FROM "schema_migrations"`);
  return Number(rows[0]?.v ?? 0);
}
