// The SQLite page writer's thread (see sqlite-writer.ts): stores each page it is sent, in order, on
// its own connection, and answers with the per-model counts or the error; builds a run's deferred
// indexes when asked.
import { parentPort, workerData } from 'node:worker_threads';
import { errorMessage } from '../../core/errors.ts';
import { finishDeferredIndexes, rebuildDeferredIndexes } from './bulk-load.ts';
import { writePreparedPage } from '../records/pages-write.ts';
import { openSqlite } from './sqlite.ts';
import { LONG_WAIT_MS } from './sqlite-waits.ts';
import type { WriteReply, WriteRequest } from './sqlite-writer.ts';

// What this thread waits for is this process's own writes (a run's epilogue on the main connection,
// whose many short transactions can keep winning SQLite's polling busy handler for longer than the
// main connection's 10 s) or another process's; a page or an index build that gave up would fail a run
// that only had to wait.
const db = openSqlite((workerData as { path: string }).path, { busyTimeoutMs: LONG_WAIT_MS });
let queue: Promise<void> = Promise.resolve();

parentPort!.on('message', (req: WriteRequest) => {
  queue = queue.then(async () => {
    let reply: WriteReply;
    try {
      if ('buildIndexesOf' in req) {
        if (req.name !== undefined) await rebuildDeferredIndexes(db, req.buildIndexesOf, { name: req.name });
        else await finishDeferredIndexes(db, req.buildIndexesOf);
        reply = { id: req.id, written: { counts: {}, changedKeys: {} } };
      } else reply = { id: req.id, written: await writePreparedPage(db, req.page) };
    } catch (err) {
      // Pages arrive prepared (bad records were refused before): what fails here is the database.
      reply = { id: req.id, error: { name: err instanceof Error ? err.name : 'Error', message: errorMessage(err) } };
    }
    parentPort!.postMessage(reply);
  });
});
