// Syncs started through the API run in this process, in the background: one per source at a time,
// live counts kept in memory from onProgress, aborted and awaited when the server closes.
import type { AppContext } from '../app/context.ts';
import { ConflictError, errorMessage } from '../core/errors.ts';
import type { StreamCounts } from '../store/index.ts';
import type { SyncQueue } from '../sync/queue.ts';
import { runSync } from '../sync/runner.ts';

interface Active {
  source: string;
  runId: string | null;
  controller: AbortController;
  done: Promise<void>;
  counts: Record<string, StreamCounts> | null;
}

/** How long a queued sync's API call waits for a worker to record the run before answering without its id. */
const QUEUED_START_WAIT_MS = 10_000;

export class SyncManager {
  readonly #app: AppContext;
  /** PostgreSQL mode: syncs go through the job queue, whichever worker runs them. */
  readonly #queue: SyncQueue | null;
  readonly #bySource = new Map<string, Active>();
  readonly #byRun = new Map<string, Active>();
  #closing = false;

  constructor(app: AppContext, queue: SyncQueue | null = null) {
    this.#app = app;
    this.#queue = queue;
  }

  get queued(): boolean {
    return this.#queue !== null;
  }

  /** Enqueues a sync and waits a little for a worker to record its run; the run id, or null with the job id. */
  async enqueue(
    source: string,
    opts: { full?: boolean; allowLargeRemoval?: boolean; trigger?: string } = {},
  ): Promise<{ runId: string | null; jobId: string }> {
    const queue = this.#queue;
    if (!queue) throw new Error('no job queue in this server');
    const s = await this.#app.store.sources.get(source);
    const jobId = await queue.enqueue(source, { full: opts.full, allowLargeRemoval: opts.allowLargeRemoval, trigger: opts.trigger ?? 'api' });
    if (!jobId) throw new ConflictError(`a sync of '${source}' is already queued`);
    const until = Date.now() + QUEUED_START_WAIT_MS;
    while (Date.now() < until && !this.#closing) {
      const run = (await this.#app.store.runs.list(s.id, 5)).find((r) => r.trigger?.endsWith(`job:${jobId}`));
      if (run) return { runId: run.id, jobId };
      await new Promise((r) => setTimeout(r, 200));
    }
    return { runId: null, jobId };
  }

  isRunning(source: string): boolean {
    return this.#bySource.has(source);
  }

  /** Live counts of a run of this process, or null when it is not running here. */
  liveCounts(runId: string): Record<string, StreamCounts> | null {
    const a = this.#byRun.get(runId);
    return a ? (a.counts ?? {}) : null;
  }

  /** Starts a run; resolves with its id once the run is recorded. Errors before that reject. */
  start(source: string, opts: { full?: boolean; allowLargeRemoval?: boolean; trigger?: string } = {}): Promise<string> {
    if (this.#closing) return Promise.reject(new ConflictError('the server is shutting down'));
    if (this.#bySource.has(source)) return Promise.reject(new ConflictError(`a sync of '${source}' is already running in this server`));
    const controller = new AbortController();
    const entry: Active = { source, runId: null, controller, done: Promise.resolve(), counts: null };
    this.#bySource.set(source, entry);
    const log = this.#app.log.child({ source });
    return new Promise<string>((resolve, reject) => {
      entry.done = runSync(this.#app, source, {
        full: opts.full,
        allowLargeRemoval: opts.allowLargeRemoval,
        trigger: opts.trigger ?? 'api',
        signal: controller.signal,
        onStart: ({ runId }) => {
          entry.runId = runId;
          this.#byRun.set(runId, entry);
          resolve(runId);
        },
        onProgress: (p) => {
          entry.counts = structuredClone(p.counts);
        },
      })
        .then(
          (result) => log.info({ runId: result.runId, status: result.status }, 'background sync finished'),
          (err) => {
            if (entry.runId === null) reject(err);
            else log.error({ runId: entry.runId, err: errorMessage(err) }, 'background sync failed');
          },
        )
        .finally(() => {
          this.#bySource.delete(source);
          if (entry.runId) this.#byRun.delete(entry.runId);
        });
    });
  }

  /** Aborts every running sync and waits for each to record how it ended. */
  async close(): Promise<void> {
    this.#closing = true;
    const all = [...this.#bySource.values()];
    for (const a of all) a.controller.abort(new Error('server shutting down'));
    await Promise.allSettled(all.map((a) => a.done));
  }
}
