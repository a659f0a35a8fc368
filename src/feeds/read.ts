// Reads a feed file on a thread of its own (parse-thread.ts): a catalog of a million entries or a
// decompression bomb costs that thread's time and capped memory, never the server's event loop.
import { Worker } from 'node:worker_threads';
import { InputError } from '../core/errors.ts';
import type { FeedLimits, ReadFeed } from './parse.ts';

/** What the thread reads: a file by its path (streamed from disk) or bytes already received. */
export type FeedWork = { source: { path: string } | { data: Uint8Array }; limits: FeedLimits };
export type FeedReply = { read: ReadFeed } | { error: { name: string; message: string; field: string | null; code: string | null } };

/** The heap the thread may grow to: room for the entries the caps allow, never the whole machine. */
const THREAD_HEAP_MB = 768;

export function readFeedOnThread(work: FeedWork): Promise<ReadFeed> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('./parse-thread.ts', import.meta.url), {
      workerData: work,
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB, maxYoungGenerationSizeMb: 32 },
    });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
      void w.terminate();
    };
    w.on('message', (m: FeedReply) =>
      settle(() => {
        if ('read' in m) return resolve(m.read);
        const { name, message, field, code } = m.error;
        if (name === 'InputError') return reject(new InputError(message, field));
        // A file that cannot be opened is the caller's mistake, named with its cause.
        if (code && /^E[A-Z]+$/.test(code)) return reject(new InputError(`cannot read the feed file: ${code}`, 'file'));
        reject(Object.assign(new Error(message), { name }));
      }),
    );
    w.on('error', (err: Error & { code?: string }) =>
      settle(() =>
        reject(
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new InputError(
                `reading the feed needed more than ${THREAD_HEAP_MB} MB of memory (a real one needs a few dozen); TRIBUTARY_FEED_MAX_BYTES and TRIBUTARY_FEED_MAX_ENTRIES cap what a feed may hold`,
                'file',
              )
            : err,
        ),
      ),
    );
    w.on('exit', (code) => settle(() => reject(new Error(`the feed reader stopped (exit code ${code})`))));
  });
}
