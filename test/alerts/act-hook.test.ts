// The `act` alert kind reads the SSVC decision column (issue 31 §1, migration 27): the open findings whose
// decision is 'act' are marked once per rule, with no change to the alerts code.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SecretBox } from '../../src/core/secrets.ts';
import { openStore } from '../../src/store/index.ts';
import { BACKENDS } from '../helpers/databases.ts';

for (const backend of BACKENDS) {
  test(`the act kind on ${backend.kind}: open Act findings, once per rule`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    const store = await openStore(db.url, new SecretBox(Buffer.alloc(32, 7)), () => []);
    try {
      await store.db.run(`INSERT INTO "sources" ("id", "name", "type", "config", "created_at", "updated_at") VALUES ('s', 'lab', 'fixture', '{}', 't', 't')`);
      for (const [id, status] of [
        ['a', 'open'],
        ['b', 'open'],
        ['c', 'fixed'],
      ])
        await store.db.run(
          `INSERT INTO "rec_vulnerabilities" ("id", "source_id", "natural_key", "removed", "status", "severity") VALUES (?, 's', ?, 0, ?, 'high')`,
          [id, id, status],
        );
      const rule = await store.alerts.create({
        name: 'act',
        kinds: ['act'],
        format: 'json',
        url: 'http://127.0.0.1:9/x',
        secret: 'a-secret-of-16+chars',
        maxItems: 5,
        createdBy: null,
      });
      assert.equal(await store.alerts.markFindings(rule.id, 'act', 'e1'), 0, 'no finding has a decision yet');
      await store.db.run(`UPDATE "rec_vulnerabilities" SET "decision" = 'act' WHERE "id" IN ('a', 'c')`);
      await store.db.run(`UPDATE "rec_vulnerabilities" SET "decision" = 'track' WHERE "id" = 'b'`);
      assert.equal(await store.alerts.markFindings(rule.id, 'act', 'e2'), 1);
      assert.deepEqual(
        (await store.alerts.markedFindings(rule.id, 'act', 'e2', 5)).items.map((i) => i.id),
        ['a'],
        'open and Act: not the fixed one, not the Track one',
      );
      await store.db.run(`UPDATE "rec_vulnerabilities" SET "decision" = 'act' WHERE "id" = 'b'`);
      assert.equal(await store.alerts.markFindings(rule.id, 'act', 'e3'), 1, 'newly in Act');
      assert.equal(await store.alerts.markFindings(rule.id, 'act', 'e4'), 0, 'once per rule');
    } finally {
      await store.close();
      await db.drop();
    }
  });
}
