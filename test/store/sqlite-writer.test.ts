// The SQLite page writer thread: pages it stores are visible on the store's own connection, in the
// order sent; a failing page rejects with the database's reason and leaves nothing of itself; close()
// lets posted pages finish; a page waits for a lock as long as a run's epilogue may hold it, and the
// epilogue for an index build.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { DatabaseSync } from 'node:sqlite';
import { after, before, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { SecretBox } from '../../src/core/secrets.ts';
import { preparePage } from '../../src/store/records/pages.ts';
import { BUSY_TIMEOUT_MS, LONG_WAIT_MS } from '../../src/store/db/sqlite-waits.ts';
import { SqlitePageWriter } from '../../src/store/db/sqlite-writer.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { createSqlite, type TestDatabase } from '../helpers/databases.ts';

let db: TestDatabase;
let store: Store;
let sourceId: string;
const stamp = () => ({ sourceId, sourceName: 'w', runId: 'r1', generation: 'g1', now: new Date().toISOString() });
const vulns = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({ key: `h|${from + i}`, hostKey: 'h', fields: { pluginId: String(from + i), severity: 'low', status: 'open' } }));

before(async () => {
  db = await createSqlite();
  store = await openStore(db.url, new SecretBox(Buffer.alloc(32, 1)), () => []);
  sourceId = (await store.sources.create('w', 'fixture', {}, null)).id;
});
after(async () => {
  await store?.close();
  await db?.drop();
});

test('pages written by the thread are visible to the store, in the order they were sent', async () => {
  const writer = new SqlitePageWriter(db.url.slice('sqlite:'.length));
  try {
    const sent = [0, 1, 2, 3].map((p) =>
      writer.write(preparePage(stamp(), 'findings', 'full', { vulnerabilities: vulns(p * 100, 50) }, { value: { page: p }, complete: false })),
    );
    const counts = (await Promise.all(sent)).map((w) => w.counts);
    assert.deepEqual(counts, Array(4).fill({ vulnerabilities: 50 }));
    assert.equal(await store.records.count('vulnerabilities', sourceId), 200);
    assert.deepEqual((await store.runs.checkpoints(sourceId)).get('findings')?.value, { page: 3 }, 'the last page sent was the last written');
  } finally {
    await writer.close();
  }
});

test('a page the database refuses rejects with its reason and stores none of its rows', async () => {
  const writer = new SqlitePageWriter(db.url.slice('sqlite:'.length));
  try {
    const page = preparePage(stamp(), 'findings', 'full', { vulnerabilities: vulns(1000, 10) }, { value: { page: 'bad' }, complete: false });
    // A column the table does not have: the statement fails inside the page's transaction.
    page.upserts[0]!.sql = { ...page.upserts[0]!.sql, head: page.upserts[0]!.sql.head.replace('"plugin_id"', '"no_such_column"') };
    await assert.rejects(writer.write(page), /no_such_column/);
    assert.equal(await store.records.count('vulnerabilities', sourceId), 200);
    assert.deepEqual((await store.runs.checkpoints(sourceId)).get('findings')?.value, { page: 3 });
    // The writer goes on after a refused page.
    assert.deepEqual(
      (await writer.write(preparePage(stamp(), 'findings', 'full', { vulnerabilities: vulns(2000, 5) }, { value: { page: 4 }, complete: false }))).counts,
      { vulnerabilities: 5 },
    );
  } finally {
    await writer.close();
  }
});

test('a writer thread that dies fails the page it held; the next page gets a new thread', { timeout: 30_000 }, async () => {
  const writer = new SqlitePageWriter(db.url.slice('sqlite:'.length));
  try {
    // A page larger than the thread's heap limit (256 MB): one 1 MB text in 400 rows.
    const page = preparePage(stamp(), 'findings', 'full', { vulnerabilities: vulns(5000, 400) }, { value: { page: 'huge' }, complete: false });
    const big = 'x'.repeat(1 << 20);
    for (const u of page.upserts) for (const r of u.rows) r[2] = big;
    await assert.rejects(writer.write(page), /SQLite page writer (failed|stopped)/);
    assert.deepEqual(
      (await writer.write(preparePage(stamp(), 'findings', 'full', { vulnerabilities: vulns(6000, 3) }, { value: { page: 'after' }, complete: false }))).counts,
      { vulnerabilities: 3 },
    );
    assert.equal(await store.records.count('vulnerabilities', sourceId), 208);
  } finally {
    await writer.close();
  }
});

test('close() lets the pages already sent finish', async () => {
  const writer = new SqlitePageWriter(db.url.slice('sqlite:'.length));
  const pending = writer.write(preparePage(stamp(), 'findings', 'full', { vulnerabilities: vulns(3000, 500) }, { value: { page: 5 }, complete: false }));
  await writer.close();
  assert.deepEqual((await pending).counts, { vulnerabilities: 500 });
  assert.equal(await store.records.count('vulnerabilities', sourceId), 708);
});

test('a page waits out a write lock held longer than the main connection would wait', { timeout: 60_000 }, async () => {
  // The main connection's epilogue can hold the lock, one short transaction after another, for longer
  // than BUSY_TIMEOUT_MS; here another connection holds it that long in one go.
  const path = db.url.slice('sqlite:'.length);
  const holder = new DatabaseSync(path);
  holder.exec('PRAGMA busy_timeout = 5000; BEGIN IMMEDIATE');
  const writer = new SqlitePageWriter(path);
  try {
    const started = Date.now();
    const pending = writer.write(preparePage(stamp(), 'findings', 'full', { vulnerabilities: vulns(7000, 4) }, { value: { page: 6 }, complete: false }));
    let settled = false;
    pending.then(
      () => (settled = true),
      () => (settled = true),
    );
    await delay(BUSY_TIMEOUT_MS + 1_000);
    assert.equal(settled, false, 'the page is still waiting for the lock');
    holder.exec('COMMIT');
    assert.deepEqual((await pending).counts, { vulnerabilities: 4 });
    assert.ok(Date.now() - started > BUSY_TIMEOUT_MS);
    assert.equal(await store.records.count('vulnerabilities', sourceId), 712);
  } finally {
    if (holder.isTransaction) holder.exec('ROLLBACK');
    holder.close();
    await writer.close();
  }
});

test("a run's epilogue waits out an index build that holds the lock longer than the main connection would wait", { timeout: 60_000 }, async () => {
  // A first import's deferred index, as deferIndexes notes it (bulk-load.ts).
  const index = 'rec_vulnerabilities_test_build';
  await store.db.run(`INSERT INTO "deferred_indexes" ("name", "table_name", "sql", "run_id") VALUES (?, ?, ?, ?)`, [
    index,
    'rec_vulnerabilities',
    `CREATE INDEX ${index} ON rec_vulnerabilities (plugin_id, severity)`,
    'r-build',
  ]);
  const busyTimeout = async () => Number((await store.db.all<{ timeout: number }>('PRAGMA busy_timeout'))[0]?.timeout);
  // A build sorting a large table holds the write lock for longer than BUSY_TIMEOUT_MS: here another
  // thread holds it that long (the main thread blocks in SQLite's busy handler meanwhile), and the
  // build waits behind it.
  const holder = new Worker(
    `const { DatabaseSync } = require('node:sqlite');
     const { parentPort, workerData } = require('node:worker_threads');
     const db = new DatabaseSync(workerData.path);
     db.exec('BEGIN IMMEDIATE');
     parentPort.postMessage('locked');
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.ms);
     db.exec('COMMIT');
     db.close();`,
    { eval: true, workerData: { path: db.url.slice('sqlite:'.length), ms: BUSY_TIMEOUT_MS + 1_000 } },
  );
  try {
    await once(holder, 'message');
    const { built } = await store.records.finishBulkLoad('r-build');
    assert.equal(await busyTimeout(), LONG_WAIT_MS, 'writes here wait as long as a build may take');
    const started = Date.now();
    await store.sources.setState(sourceId, { epilogue: 'written' });
    assert.ok(Date.now() - started > BUSY_TIMEOUT_MS, 'the write waited for the lock');
    await built;
    assert.deepEqual(await store.sources.getState(sourceId), { epilogue: 'written' });
    assert.equal((await store.db.all(`SELECT 1 AS "x" FROM sqlite_master WHERE "name" = ?`, [index])).length, 1, 'the index is built');
    assert.equal(await busyTimeout(), BUSY_TIMEOUT_MS, 'the usual wait again once the builds are done');
  } finally {
    await holder.terminate();
  }
});
