// A transaction's `last` statement (driver.ts): run after the body, committed with it, its values kept
// exactly (PostgreSQL writes them as literals in the commit's round trip), and rolled back with a body
// that fails. On both stores; and the literal writer's own rules.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDriver } from '../../src/store/db/driver.ts';
import { withLiterals } from '../../src/store/db/postgres.ts';
import { BACKENDS } from '../helpers/databases.ts';

const AWKWARD = [`it's`, "back\\slash \\' both", 'tab\tnew\nline', 'ünïcødé ✓ 𝄞', '{"json": "va\\"lue"}', '?', ''];

for (const backend of BACKENDS) {
  test(`a transaction's last statement commits with it, values intact (${backend.kind})`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    const driver = await openDriver(db.url);
    try {
      await driver.exec(`CREATE TABLE t_last (k TEXT PRIMARY KEY, v TEXT, n DOUBLE PRECISION, z TEXT)`);
      for (const [i, v] of AWKWARD.entries()) {
        const out = await driver.transaction(
          async (tx) => {
            await tx.run(`INSERT INTO t_last (k, v) VALUES (?, ?)`, [`body${i}`, v]);
            return i;
          },
          { flush: false, last: { sql: `INSERT INTO t_last (k, v, n, z) VALUES (?, ?, ?, ?)`, params: [`last${i}`, v, i + 0.5, null] } },
        );
        assert.equal(out, i);
      }
      const rows = await driver.all<{ k: string; v: string; n: number | null; z: string | null }>(
        `SELECT k, v, n, z FROM t_last WHERE k LIKE 'last%' ORDER BY k`,
      );
      assert.deepEqual(
        rows.map((r) => [r.k, r.v, Number(r.n), r.z]),
        AWKWARD.map((v, i) => [`last${i}`, v, i + 0.5, null]),
      );
      // A body that fails takes its last statement with it.
      await assert.rejects(
        driver.transaction(
          async () => {
            throw new Error('page refused');
          },
          { last: { sql: `INSERT INTO t_last (k, v) VALUES (?, ?)`, params: ['never', 'x'] } },
        ),
        /page refused/,
      );
      // So does a last statement that fails: the body's row is not committed either.
      await assert.rejects(
        driver.transaction(async (tx) => tx.run(`INSERT INTO t_last (k, v) VALUES (?, ?)`, ['orphan', 'x']), {
          last: { sql: `INSERT INTO t_last (k, v) VALUES (?, ?)`, params: ['last0', 'duplicate key'] },
        }),
      );
      assert.deepEqual(await driver.all(`SELECT k FROM t_last WHERE k IN ('never', 'orphan')`), []);
    } finally {
      await driver.close();
      await db.drop();
    }
  });
}

test('literals: strings escaped by the client, numbers and booleans as written, null as NULL; counts must match', () => {
  const client = { escapeLiteral: (s: string) => `'${s.replace(/'/g, "''")}'` };
  assert.equal(withLiterals(client, 'VALUES (?, ?, ?, ?, ?)', ["o'k", 3, 1.5, null, true]), `VALUES ('o''k', 3, 1.5, NULL, TRUE)`);
  assert.equal(withLiterals(client, 'VALUES (?)', [{ a: 1 }]), `VALUES ('{"a":1}')`);
  assert.throws(() => withLiterals(client, 'VALUES (?, ?)', [1]), /more placeholders/);
  assert.throws(() => withLiterals(client, 'VALUES (?)', [1, 2]), /more values/);
  assert.throws(() => withLiterals(client, 'VALUES (?)', [Number.NaN]), /finite/);
});
