// Text sorts the same way on both stores: in byte order (migration 17 gives PostgreSQL's text columns
// the "C" collation SQLite's BINARY already is), so a list sorted by plugin name or host name reads the
// same whichever store holds it, and the findings' sort indexes are built without locale comparisons.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SecretBox } from '../../src/core/secrets.ts';
import { migrate } from '../../src/store/db/migrate.ts';
import { MIGRATIONS } from '../../src/store/db/migrations.ts';
import { RecordIdSet } from '../../src/store/records/id-set.ts';
import { openStore } from '../../src/store/index.ts';
import { BACKENDS } from '../helpers/databases.ts';

const box = new SecretBox(Buffer.alloc(32, 6));
const NAMES = ['beta', 'Beta', 'alpha', 'Alpha', 'Zulu', 'éclair', '_under', '10 ten', '9 nine'];
/** What byte order gives (UTF-8: digits, upper case, underscore, lower case, then accented letters). */
const BYTE_ORDER = ['10 ten', '9 nine', 'Alpha', 'Beta', 'Zulu', '_under', 'alpha', 'beta', 'éclair'];

for (const backend of BACKENDS) {
  test(`plugin names and host names sort in byte order (${backend.kind})`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    const store = await openStore(db.url, box, () => []);
    try {
      const s = await store.sources.create('order', 'fixture', {}, null);
      await store.runs.create({
        id: 'run-1',
        sourceId: s.id,
        mode: 'full',
        generation: 'g-1',
        resumedFrom: null,
        trigger: 'test',
        owner: 'test',
        startedAt: '2026-11-23T10:00:00.000Z',
      });
      const stamp = { sourceId: s.id, sourceName: 'order', runId: 'run-1', generation: 'g-1', now: '2026-11-23T10:00:00.000Z' };
      const hosts = NAMES.map((n, i) => ({ key: `h${i}`, fields: { hostname: n } }));
      const vulnerabilities = NAMES.map((n, i) => ({
        key: `h${i}|${i}`,
        hostKey: `h${i}`,
        fields: { pluginId: String(100 + i), pluginName: n, severity: 'high', status: 'open' },
      }));
      await store.records.writePage(stamp, 'all', 'full', { hosts, vulnerabilities }, { value: null, complete: false }, new RecordIdSet());
      const byPlugin = await store.records.query('vulnerabilities', { sort: { field: 'pluginName', desc: false }, limit: 50 });
      assert.deepEqual(
        byPlugin.records.map((r) => r.pluginName),
        BYTE_ORDER,
      );
      const byHost = await store.records.query('hosts', { sort: { field: 'hostname', desc: false }, limit: 50 });
      assert.deepEqual(
        byHost.records.map((r) => r.hostname),
        BYTE_ORDER,
      );
      if (store.dialect === 'postgres') {
        // The order above is also the locale's on a C.UTF-8 database: the collation itself is the proof.
        const other = await store.db.all(
          `SELECT table_name, column_name, collation_name FROM information_schema.columns
           WHERE table_schema = current_schema() AND data_type = 'text' AND collation_name IS DISTINCT FROM 'C'`,
        );
        assert.deepEqual(other, [], 'every text column compares in byte order');
      }
    } finally {
      await store.close();
      await db.drop();
    }
  });
}

const pgBackend = BACKENDS.find((b) => b.kind === 'postgres')!;

test('a text column a later migration adds compares in byte order without saying so (postgres)', { skip: pgBackend.skip }, async () => {
  const db = await pgBackend.create();
  const store = await openStore(db.url, box, () => []);
  try {
    const later = {
      version: MIGRATIONS.at(-1)!.version + 1000,
      name: 'test: later text',
      sql: 'ALTER TABLE rec_plugins ADD COLUMN later_note TEXT; CREATE TABLE later_things (label TEXT);',
    };
    await migrate(store.db, [...MIGRATIONS, later]);
    const cols = await store.db.all(
      `SELECT table_name, column_name, collation_name FROM information_schema.columns
       WHERE table_schema = current_schema() AND column_name IN ('later_note', 'label', 'check_type') ORDER BY column_name`,
    );
    assert.deepEqual(
      cols.map((c) => [c.table_name, c.column_name, c.collation_name]),
      [
        ['rec_plugins', 'check_type', 'C'],
        ['later_things', 'label', 'C'],
        ['rec_plugins', 'later_note', 'C'],
      ],
    );
  } finally {
    await store.close();
    await db.drop();
  }
});
