// The runner stores a page while the stream reads the next one: at most one write in flight, pages
// stored in order, a failed write fails the stream, and ctx.flush() lets a stream wait until every
// page it yielded is stored. On both stores (SQLite through its page-writer thread).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { type AppContext, openApp } from '../../src/app/context.ts';
import { addSource } from '../../src/app/sources.ts';
import { ConnectorRegistry } from '../../src/connectors/registry.ts';
import type { Page, StreamContext } from '../../src/core/connector.ts';
import { silentLogger } from '../../src/core/log.ts';
import { runSync } from '../../src/sync/runner.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { streamsConnector } from '../helpers/streams-connector.ts';

process.env.TRIBUTARY_MASTER_KEY = Buffer.alloc(32, 9).toString('base64');

const PAGES = 5;
const events: string[] = [];
/** Per page: records of the source stored when the stream asked flush() after yielding it. */
const storedAtFlush: number[] = [];

function connector(app: () => AppContext) {
  return streamsConnector('piped', () => [
    {
      name: 'findings',
      models: ['vulnerabilities'],
      primaryKey: ['plugin'],
      async *read(ctx: StreamContext): AsyncIterable<Page> {
        for (let p = 0; p < PAGES; p++) {
          events.push(`read ${p}`);
          // Reading a page takes a while (an upstream request, or parsing).
          await sleep(30);
          const vulns = Array.from({ length: 3 }, (_, i) => ({
            key: `h|${p}-${i}`,
            hostKey: 'h',
            fields: { pluginId: `${p}${i}`, severity: 'high', status: 'open' },
          }));
          yield { records: { vulnerabilities: vulns }, checkpoint: { page: p } };
          if (p === 2) {
            await ctx.flush?.();
            const src = await app().store.sources.get('s');
            storedAtFlush.push(await app().store.records.count('vulnerabilities', src.id));
          }
        }
      },
    },
  ]);
}

for (const backend of BACKENDS) {
  describe(`pipelined pages on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let app: AppContext;
    before(async () => {
      db = await backend.create();
      app = await openApp({
        dataDir: db.dataDir,
        db: db.url,
        log: silentLogger,
        registry: new ConnectorRegistry([connector(() => app)]),
      });
      await addSource(app, 'piped', 's', {});
      // Every page write is slow and logged.
      const write = app.store.records.writePage.bind(app.store.records);
      app.store.records.writePage = async (...args: Parameters<typeof write>) => {
        const cp = JSON.stringify(args[4].value);
        events.push(`write ${cp} start`);
        await sleep(40);
        const out = await write(...args);
        events.push(`write ${cp} done`);
        return out;
      };
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    test('a page is stored while the next is read; writes never overlap and keep their order', async () => {
      events.length = 0;
      storedAtFlush.length = 0;
      const r = await runSync(app, 's');
      assert.equal(r.status, 'succeeded', r.error ?? '');
      assert.equal(r.streams.vulnerabilities.records, PAGES * 3);
      // Page 1 was being read while page 0 was being written.
      const i0 = events.indexOf('write {"page":0} start');
      const d0 = events.indexOf('write {"page":0} done');
      const r1 = events.indexOf('read 1');
      assert.ok(i0 >= 0 && i0 < r1 && r1 < d0, events.join(', '));
      // Never two writes at once, and in page order.
      let open = 0;
      const order: string[] = [];
      for (const e of events.filter((x) => x.startsWith('write'))) {
        open += e.endsWith('start') ? 1 : -1;
        assert.ok(open <= 1, `two writes in flight: ${events.join(', ')}`);
        if (e.endsWith('start')) order.push(e);
      }
      assert.deepEqual(
        order.slice(0, PAGES),
        Array.from({ length: PAGES }, (_, p) => `write {"page":${p}} start`),
      );
      // flush() after yielding page 2 returned only once pages 0-2 were stored.
      assert.deepEqual(storedAtFlush, [9]);
    });

    test('a page whose write fails fails the stream; the checkpoint stays at the last stored page', async () => {
      const write = app.store.records.writePage;
      app.store.records.writePage = async (...args: Parameters<typeof write>) => {
        if ((args[4].value as { page?: number } | null)?.page === 3) throw new Error('disk full (fixture)');
        return write(...args);
      };
      try {
        const r = await runSync(app, 's', { full: true });
        assert.equal(r.status, 'failed');
        assert.match(r.error ?? '', /disk full \(fixture\)/);
        const src = await app.store.sources.get('s');
        const cps = await app.store.runs.checkpoints(src.id);
        assert.deepEqual(cps.get('findings')?.value, { page: 2 });
        assert.equal(cps.get('findings')?.complete, false);
      } finally {
        app.store.records.writePage = write;
      }
    });
  });
}
