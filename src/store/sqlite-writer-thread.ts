// The SQLite page writer's thread (see sqlite-writer.ts): stores each page it is sent, in order, on
// its own connection, and answers with the per-model counts or the error; builds a run's deferred
// indexes when asked.
import { parentPort, workerData } from 'node:worker_threads';
import { errorMessage } from '../core/errors.ts';
import { finishDeferredIndexes } from './bulk-load.ts';
import { writePreparedPage } from './pages.ts';
import { openSqlite } from './sqlite.ts';
import type { WriteReply, WriteRequest } from './sqlite-writer.ts';

const db = openSqlite((workerData as { path: string }).path);
let queue: Promise<void> = Promise.resolve();

parentPort!.on('message', (req: WriteRequest) => {
  queue = queue.then(async () => {
    let reply: WriteReply;
    try {
      if ('buildIndexesOf' in req) {
        await finishDeferredIndexes(db, req.buildIndexesOf);
        reply = { id: req.id, counts: {} };
      } else reply = { id: req.id, counts: await writePreparedPage(db, req.page) };
    } catch (err) {
      // Pages arrive prepared (bad records were refused before): what fails here is the database.
      reply = { id: req.id, error: { name: err instanceof Error ? err.name : 'Error', message: errorMessage(err) } };
    }
    parentPort!.postMessage(reply);
  });
});
