// Migration 40 on both backends: a store's existing host summaries take their hosts' placement (asset,
// owner, department), so the decisions per owner read right after the upgrade, with no rebuild.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SecretBox } from '../../src/core/secrets.ts';
import { openDriver } from '../../src/store/db/driver.ts';
import { migrate } from '../../src/store/db/migrate.ts';
import { MIGRATIONS } from '../../src/store/db/migrations.ts';
import { openStore } from '../../src/store/index.ts';
import { BACKENDS } from '../helpers/databases.ts';

for (const backend of BACKENDS) {
  test(`migration 40 on ${backend.kind} copies each host's placement onto its summary`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    try {
      const raw = await openDriver(db.url);
      await migrate(
        raw,
        MIGRATIONS.filter((m) => m.version < 40),
      );
      await raw.run(`INSERT INTO "sources" ("id", "name", "type", "config", "created_at", "updated_at") VALUES ('s', 'lab', 'fixture', '{}', 't', 't')`);
      for (const [id, owner, dept] of [
        ['h1', 'Bo Chen', 'Finance'],
        ['h2', 'Bo Chen', 'Finance'],
        ['h3', null, null],
      ])
        await raw.run(
          `INSERT INTO "rec_hosts" ("id", "source_id", "natural_key", "removed", "asset_id", "owner", "department") VALUES (?, 's', ?, 0, ?, ?, ?)`,
          [id, id, owner ? `a-${id}` : null, owner, dept],
        );
      // The summaries as a run's epilogue left them before the upgrade (a source with sum_state is not rebuilt on read).
      for (const [id, act, track] of [
        ['h1', 2, 1],
        ['h2', 1, 0],
        ['h3', 0, 4],
      ])
        await raw.run(
          `INSERT INTO "sum_hosts" ("host_id", "source_id", "critical", "high", "medium", "low", "info", "total", "urgent", "act", "attend", "track_star", "track", "priority")
           VALUES (?, 's', 0, 0, 0, 0, 0, ?, 0, ?, 0, 0, ?, ?)`,
          [id, Number(act) + Number(track), act, track, Number(act) * 80 + Number(track) * 10],
        );
      await raw.run(`INSERT INTO "sum_state" ("source_id", "refreshed_at") VALUES ('s', '2026-01-01T00:00:00.000Z')`);
      await raw.close();

      const store = await openStore(db.url, new SecretBox(Buffer.alloc(32, 7)), () => []);
      try {
        const rows = await store.db.all(`SELECT "host_id", "asset_id", "owner", "department" FROM "sum_hosts" ORDER BY "host_id"`);
        assert.deepEqual(
          rows.map((r) => [r.host_id, r.asset_id, r.owner, r.department]),
          [
            ['h1', 'a-h1', 'Bo Chen', 'Finance'],
            ['h2', 'a-h2', 'Bo Chen', 'Finance'],
            ['h3', null, null, null],
          ],
        );
        assert.deepEqual(
          (await store.reports.decisionCounts('owner')).map((o) => [o.group, o.act, o.track, o.priority]),
          [
            ['Bo Chen', 3, 1, 250],
            [null, 0, 4, 40],
          ],
        );
      } finally {
        await store.close();
      }
    } finally {
      await db.drop();
    }
  });
}
