// PostgreSQL bulk writes: rows are encoded in COPY's text format into buffers (postgres.ts copyChunks),
// whole lines per buffer, every value escaped; a COPY of awkward values, small and larger than a
// buffer, reads back exactly as written (and on SQLite, through the same driver call).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDriver } from '../../src/store/db/driver.ts';
import { copyChunks } from '../../src/store/db/postgres.ts';
import { BACKENDS } from '../helpers/databases.ts';

const AWKWARD = [`it's`, 'back\\slash', 'tab\there', 'new\nline', 'cr\rlf\r\n', 'ünïcødé ✓ 𝄞', '\\N', ''];

test('rows become COPY text lines: tab-separated, escaped, NULL as \\N, one buffer per whole lines', () => {
  const rows = [
    ['a', null, 1.5, true, { k: 'v\t' }],
    ['back\\slash', 'tab\there', 'new\nline', 'cr\r', false],
    ['ünïcødé ✓ 𝄞', '\\N', '', 0, undefined],
  ];
  const text = Buffer.concat(copyChunks(rows)).toString('utf8');
  assert.equal(text, 'a\t\\N\t1.5\tt\t{"k":"v\\\\t"}\n' + 'back\\\\slash\ttab\\there\tnew\\nline\tcr\\r\tf\n' + 'ünïcødé ✓ 𝄞\t\\\\N\t\t0\t\\N\n');

  // Past one buffer (256 KB): several, each ending with a whole line; a row larger than a buffer comes whole.
  const many = Array.from({ length: 3000 }, (_, i) => [`row ${i}`, 'x'.repeat(200), '✓'.repeat(20)]);
  const huge = ['huge', '𝄞'.repeat(200_000)];
  const chunks = copyChunks([...many, huge, ['after']]);
  assert.ok(chunks.length > 2, `${chunks.length} buffers`);
  for (const c of chunks) assert.equal(c[c.length - 1], 0x0a, 'each buffer ends at the end of a line');
  const lines = Buffer.concat(chunks).toString('utf8').split('\n');
  assert.equal(lines.length, 3000 + 2 + 1);
  assert.equal(lines[2999], `row 2999\t${'x'.repeat(200)}\t${'✓'.repeat(20)}`);
  assert.equal(lines[3000], `huge\t${'𝄞'.repeat(200_000)}`);
  assert.equal(lines[3001], 'after');
});

for (const backend of BACKENDS) {
  test(`a bulk insert of awkward values reads back exactly (${backend.kind})`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    const driver = await openDriver(db.url);
    try {
      await driver.exec(`CREATE TABLE t_copy (k TEXT PRIMARY KEY, v TEXT, n DOUBLE PRECISION)`);
      // 64 rows and more go through COPY on PostgreSQL (postgres.ts COPY_MIN_ROWS); one value spans buffers.
      const rows = Array.from({ length: 300 }, (_, i) => [
        `k${i}`,
        i === 7 ? 'ü'.repeat(300_000) : (AWKWARD[i % AWKWARD.length] ?? null),
        i % 5 === 0 ? null : i / 4,
      ]);
      await driver.transaction((tx) => tx.insertMany({ head: `INSERT INTO "t_copy" ("k","v","n")`, columns: 3, tail: '' }, rows));
      const back = await driver.all<{ k: string; v: string | null; n: number | null }>(`SELECT k, v, n FROM t_copy`);
      const byKey = new Map(back.map((r) => [r.k, [r.k, r.v, r.n === null ? null : Number(r.n)]]));
      assert.equal(byKey.size, rows.length);
      for (const r of rows) assert.deepEqual(byKey.get(r[0] as string), r);
    } finally {
      await driver.close();
      await db.drop();
    }
  });
}
