// The thread a feed file is read on (src/feeds/read.ts starts one per file): parses it from its path or
// the bytes it was given and answers with the feed, or the error; the server's event loop stays free.
import { createReadStream } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { FeedReply, FeedWork } from './read.ts';
import { parseFeedStream } from './parse.ts';

const work = workerData as FeedWork;
let reply: FeedReply;
const transfer: ArrayBuffer[] = [];
try {
  const input = 'path' in work.source ? createReadStream(work.source.path, { highWaterMark: 256 * 1024 }) : [Buffer.from(work.source.data)];
  const read = await parseFeedStream(input, work.limits);
  if (read.feed.kind === 'epss') transfer.push(read.feed.entries.scores.buffer as ArrayBuffer, read.feed.entries.percentiles.buffer as ArrayBuffer);
  reply = { read };
} catch (err) {
  const e = err as Error & { field?: unknown; code?: unknown };
  reply = {
    error: {
      name: e.name ?? 'Error',
      message: e.message ?? String(err),
      field: typeof e.field === 'string' ? e.field : null,
      code: typeof e.code === 'string' ? e.code : null,
    },
  };
}
parentPort!.postMessage(reply, transfer);
