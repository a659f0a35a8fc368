// The SQLite page writer: sync pages are stored by a worker thread with its own connection to the
// database file, so the thread that reads and maps the next page (JSON, CSV, plugin outputs) runs
// while SQLite writes the last one; node:sqlite is synchronous and would otherwise hold that thread
// for the whole write. The runner keeps at most one page in flight (src/sync/runner.ts), so pages are
// stored in order. Other writes (runs, heartbeats, imports) stay on the main connection; WAL and
// busy_timeout let the two connections take turns. bench/tenable-sc-csv measures the effect.
import { Worker } from 'node:worker_threads';
import type { PreparedPage } from '../records/pages.ts';
import type { WrittenPage } from '../records/pages-write.ts';

interface Pending {
  resolve: (written: WrittenPage) => void;
  reject: (err: Error) => void;
}

/** A page to store, or a run whose deferred indexes to build (bulk-load.ts). */
type WriteBody = { page: PreparedPage } | { buildIndexesOf: string; name?: string };
export type WriteRequest = WriteBody & { id: number };

export type WriteReply = { id: number; written: WrittenPage } | { id: number; error: { name: string; message: string } };

export class SqlitePageWriter {
  readonly #path: string;
  #worker: Worker | null = null;
  #next = 1;
  readonly #pending = new Map<number, Pending>();
  /** Writes posted and not yet answered (close() waits for them). */
  readonly #inFlight = new Set<Promise<unknown>>();

  constructor(path: string) {
    this.#path = path;
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    // Its heap holds one prepared page at a time; the limits only keep a runaway from growing unbounded.
    const w = new Worker(new URL('./sqlite-writer-thread.ts', import.meta.url), {
      workerData: { path: this.#path },
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 256 },
    });
    // Idle between syncs: the thread must not keep a finished CLI command alive.
    w.unref();
    w.on('message', (m: WriteReply) => {
      const p = this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id);
      if (this.#pending.size === 0) w.unref();
      if ('written' in m) p.resolve(m.written);
      else p.reject(Object.assign(new Error(m.error.message), { name: m.error.name }));
    });
    // A thread that died fails the pages it held; the next write starts a new one.
    const fail = (err: Error) => {
      if (this.#worker === w) this.#worker = null;
      for (const p of this.#pending.values()) p.reject(err);
      this.#pending.clear();
    };
    w.on('error', (err) => fail(new Error(`the SQLite page writer failed: ${err.message}`)));
    w.on('exit', (code) => fail(new Error(`the SQLite page writer stopped (exit code ${code})`)));
    this.#worker = w;
    return w;
  }

  write(page: PreparedPage): Promise<WrittenPage> {
    return this.#send({ page });
  }

  /**
   * Builds the indexes the run deferred (and any a crashed run left) on this thread's connection, after
   * the pages sent before: the run's epilogue goes on on the main connection meanwhile (WAL lets it
   * read; its writes take turns with each build).
   */
  async buildIndexes(runId: string): Promise<void> {
    await this.#send({ buildIndexesOf: runId });
  }

  /**
   * Builds one index a run deferred, after the pages sent before and before those sent after: a
   * stream's indexes are built once it is done, one at a time between the next stream's pages.
   */
  async buildIndex(runId: string, name: string): Promise<void> {
    await this.#send({ buildIndexesOf: runId, name });
  }

  #send(body: WriteBody): Promise<WrittenPage> {
    const w = this.#start();
    const id = this.#next++;
    const done = new Promise<WrittenPage>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      // Busy while a page is being written: a sync awaiting it keeps the process alive.
      w.ref();
      const req: WriteRequest = { ...body, id };
      w.postMessage(req);
    });
    this.#inFlight.add(done);
    const forget = () => this.#inFlight.delete(done);
    done.then(forget, forget);
    return done;
  }

  /** Lets the pages already sent finish (the thread takes them in order), then stops the thread. */
  async close(): Promise<void> {
    const w = this.#worker;
    if (!w) return;
    await Promise.allSettled([...this.#inFlight]);
    this.#worker = null;
    await w.terminate();
  }
}
