// Migration 20 on both backends: the API tokens stored before scopes existed keep every right (admin),
// and a token is stored and read back with the scope it was made with.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SecretBox } from '../../src/core/secrets.ts';
import { openDriver } from '../../src/store/db/driver.ts';
import { MIGRATIONS } from '../../src/store/db/migrations.ts';
import { openStore } from '../../src/store/index.ts';
import { BACKENDS } from '../helpers/databases.ts';

const box = new SecretBox(Buffer.alloc(32, 7));

for (const backend of BACKENDS) {
  test(`on ${backend.kind}, a token stored before migration 20 is admin; new ones keep their scope`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    try {
      const raw = await openDriver(db.url);
      await raw.exec(`CREATE TABLE "schema_migrations" ("version" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "applied_at" TEXT NOT NULL)`);
      for (const m of MIGRATIONS.filter((x) => x.version < 20)) {
        await raw.exec(raw.dialect === 'postgres' ? (m.postgres ?? m.sql) : m.sql);
        await raw.run(`INSERT INTO "schema_migrations" VALUES (?, ?, ?)`, [m.version, m.name, '2026-01-01T00:00:00.000Z']);
      }
      await raw.run(`INSERT INTO "users" ("id", "username", "password_hash", "created_at") VALUES ('u', 'admin', 'x', 't')`);
      await raw.run(`INSERT INTO "api_tokens" ("id", "name", "token_hash", "user_id", "created_at") VALUES ('old', 'before scopes', 'h-old', 'u', 't')`);
      await raw.close();

      const store = await openStore(db.url, box, () => []);
      try {
        assert.equal((await store.users.findToken('h-old'))?.scope, 'admin');
        await store.users.createToken({ name: 'siem', tokenHash: 'h-new', userId: 'u', scope: 'read', expiresAt: null });
        assert.equal((await store.users.findToken('h-new'))?.scope, 'read');
        assert.deepEqual((await store.users.listTokens('u')).map((t) => `${t.name} ${t.scope}`).sort(), ['before scopes admin', 'siem read']);
      } finally {
        await store.close();
      }
    } finally {
      await db.drop();
    }
  });
}
