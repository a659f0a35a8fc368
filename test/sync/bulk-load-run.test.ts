// A sync that is the first import into empty tables runs without the findings' secondary indexes and
// ends with all of them built (store/db/bulk-load.ts; runner.ts builds them before counting and sweeping),
// with the same counts and sweep as ever. On both stores.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openApp } from '../../src/app/context.ts';
import { addSource } from '../../src/app/sources.ts';
import { ConnectorRegistry } from '../../src/connectors/registry.ts';
import { createLogger } from '../../src/core/log.ts';
import type { Row } from '../../src/store/index.ts';
import { runSync } from '../../src/sync/runner.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { fixtureConnector, newControl } from '../helpers/fixture-connector.ts';
import { streamsConnector } from '../helpers/streams-connector.ts';

process.env.TRIBUTARY_MASTER_KEY = Buffer.alloc(32, 4).toString('base64');

const hosts = Array.from({ length: 30 }, (_, i) => `h${i}`);
const findings = (n: number) => Array.from({ length: n }, (_, i) => ({ host: `h${i % 30}`, plugin: String(1000 + i) }));

/** The app on a test database, with only the fixture connector, fed by `control`. */
function openFixtureApp(db: TestDatabase, control: ReturnType<typeof newControl>) {
  return openApp({ dataDir: db.dataDir, db: db.url, log: createLogger({ level: 'silent' }), registry: new ConnectorRegistry([fixtureConnector(control)]) });
}

for (const backend of BACKENDS) {
  test(`a first import loads without secondary indexes and ends with all of them (${backend.kind})`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    const control = newControl({ hosts, findings: findings(1800), pageSize: 600 });
    const app = await openFixtureApp(db, control);
    try {
      const indexNames = async () => {
        const rows: Row[] =
          app.store.dialect === 'sqlite'
            ? await app.store.db.all(
                `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rec_vulnerabilities' AND sql IS NOT NULL ORDER BY name`,
              )
            : await app.store.db.all(
                `SELECT indexname AS name FROM pg_indexes WHERE tablename = 'rec_vulnerabilities' AND indexname NOT LIKE '%_pkey' ORDER BY 1`,
              );
        return rows.map((r) => String(r.name));
      };
      const before = await indexNames();
      // Page 2 is read once page 0 is stored (one write in flight): the load runs deferred by then.
      let during: Promise<string[]> | null = null;
      control.beforeFindingsPage = (page) => {
        if (page === 2) during = indexNames();
      };
      await addSource(app, 'fixture', 'first', { url: 'https://up.example', token: 'good-token-123' });
      const result = await runSync(app, 'first');
      assert.equal(result.status, 'succeeded', result.error ?? '');
      assert.deepEqual(await during, [], 'the findings table had no secondary index during the first import');
      assert.deepEqual(await indexNames(), before);
      assert.deepEqual(await app.store.db.all(`SELECT name FROM deferred_indexes`), []);
      assert.equal(result.streams.vulnerabilities?.records, 1800);

      // The next full run without 600 of them fixes exactly those (the sweep reads by the rebuilt indexes).
      control.findings = findings(1200);
      control.beforeFindingsPage = undefined;
      const second = await runSync(app, 'first', { full: true });
      assert.equal(second.status, 'succeeded', second.error ?? '');
      assert.equal(second.swept.vulnerabilities, 600);
      assert.equal(await app.store.records.count('vulnerabilities', undefined, { live: true }), 1200);
    } finally {
      await app.close();
      await db.drop();
    }
  });
}

test('a run whose deferred index build fails still ends with its records and its status; the notes stay for the next start', async () => {
  const db = await BACKENDS[0]!.create();
  const control = newControl({ hosts, findings: findings(900), pageSize: 600 });
  const app = await openFixtureApp(db, control);
  try {
    // What a build that lost its turn for the lock too long looks like to the runner.
    // (the builds once a stream is done, and those at the run's end)
    app.store.records.buildStreamIndexes = async () => Promise.reject(new Error('database is locked'));
    app.store.records.finishBulkLoad = async () => ({ built: Promise.reject(new Error('database is locked')) });
    await addSource(app, 'fixture', 'locked', { url: 'https://up.example', token: 'good-token-123' });
    const result = await runSync(app, 'locked');
    assert.equal(result.status, 'succeeded', result.error ?? '');
    assert.equal(result.streams.vulnerabilities?.records, 900);
    assert.equal((await app.store.runs.get(result.runId)).status, 'succeeded', 'the run is finished, not left running');
    assert.ok(Number((await app.store.db.all(`SELECT COUNT(*) AS n FROM deferred_indexes`))[0]!.n) > 0, 'the notes of the unbuilt indexes stay');
  } finally {
    await app.close();
    await db.drop();
  }
});

for (const backend of BACKENDS) {
  test(`a first import builds a stream's deferred indexes once it is done, while the next stream is read (${backend.kind})`, {
    skip: backend.skip,
  }, async () => {
    const db = await backend.create();
    const indexNames = async (app: Awaited<ReturnType<typeof openApp>>) => {
      const rows: Row[] =
        app.store.dialect === 'sqlite'
          ? await app.store.db.all(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rec_vulnerabilities' AND sql IS NOT NULL ORDER BY name`)
          : await app.store.db.all(
              `SELECT indexname AS name FROM pg_indexes WHERE tablename = 'rec_vulnerabilities' AND indexname NOT LIKE '%_pkey' ORDER BY 1`,
            );
      return rows.map((r) => String(r.name));
    };
    let all: string[] = [];
    /** The findings' indexes seen while the second stream read its pages: none at its start, all before its last page. */
    const seen: string[][] = [];
    const connector = streamsConnector('twostreams', () => [
      {
        name: 'findings',
        models: ['hosts', 'vulnerabilities'],
        primaryKey: ['key'],
        async *read() {
          for (let page = 0; page < 2; page++)
            yield {
              records: {
                hosts: page === 0 ? hosts.map((h) => ({ key: h, fields: { hostname: h } })) : [],
                vulnerabilities: Array.from({ length: 600 }, (_, i) => ({
                  key: `f${page * 600 + i}`,
                  hostKey: hosts[i % hosts.length]!,
                  fields: { pluginId: String(1000 + i), severity: 'high', status: 'open' },
                })),
              },
              checkpoint: { page },
            };
        },
      },
      {
        name: 'rules',
        models: ['compliance'],
        primaryKey: ['key'],
        async *read() {
          seen.push(await indexNames(app));
          // The builds go on beside this stream: its pages wait for none of them here.
          for (let page = 0; page < 3; page++) {
            const deadline = Date.now() + 20_000;
            while (page === 2 && (await indexNames(app)).length < all.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
            seen.push(await indexNames(app));
            yield {
              records: {
                compliance: [{ key: `r${page}`, hostKey: hosts[0]!, fields: { benchmark: 'CIS', ruleId: `r${page}`, ruleName: 'Rule', result: 'passed' } }],
              },
              checkpoint: { page },
            };
          }
        },
      },
    ]);
    const app = await openApp({ dataDir: db.dataDir, db: db.url, log: createLogger({ level: 'silent' }), registry: new ConnectorRegistry([connector]) });
    try {
      all = await indexNames(app);
      assert.ok(all.length > 5, 'the findings table has its secondary indexes');
      await addSource(app, 'twostreams', 'two', {});
      const result = await runSync(app, 'two');
      assert.equal(result.status, 'succeeded', result.error ?? '');
      assert.equal(result.streams.vulnerabilities?.records, 1200);
      assert.ok(seen[0]!.length < all.length, 'the findings were loaded without their indexes');
      assert.deepEqual(seen.at(-1), all, 'every findings index was built while the next stream was being read');
      assert.deepEqual(await indexNames(app), all);
      assert.deepEqual(await app.store.db.all(`SELECT name FROM deferred_indexes`), []);
    } finally {
      await app.close();
      await db.drop();
    }
  });
}
