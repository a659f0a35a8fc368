// The sync job queue of the PostgreSQL mode: syncs are pg-boss jobs, run by any number of
// `tributary worker` processes (and `serve`). pg-boss gives us the lease (a job whose worker stops
// heartbeating is retried by another worker), one queued + one active job per source (the `stately`
// policy keyed by source name), and a global per-upstream concurrency limit (job groups).
import { PgBoss } from 'pg-boss';
import type { SyncContext } from './context.ts';
import { readsFiles, upstreamKey } from '../core/connector.ts';
import { ConflictError, errorMessage, InputError } from '../core/errors.ts';
import { sourceBucketOf } from '../filedrop/resolve.ts';
import { runSync, type SyncResult } from './runner.ts';

export const SYNC_QUEUE = 'tributary-sync';

export interface SyncJob {
  source: string;
  full?: boolean;
  allowLargeRemoval?: boolean;
  trigger: string;
  /** When the job was asked for; a scheduled job whose source ran since then is skipped. */
  requestedAt: string;
}

const envNumber = (env: NodeJS.ProcessEnv, name: string, dflt: number): number => {
  const v = Number(env[name]);
  return Number.isFinite(v) && v > 0 ? v : dflt;
};

/**
 * The upstream a source talks to: syncs of sources on one console share its concurrency limit. The
 * connector declares it (`upstream`, a URL counted by its host); a file-reading source's is its bucket.
 */
export function upstreamOf(app: Pick<SyncContext, 'registry'>, source: { name: string; type: string; config: Record<string, unknown> }): string {
  const connector = app.registry.get(source.type);
  if (readsFiles(connector, source.config)) return `bucket:${sourceBucketOf(app, source)}`;
  return upstreamKey(connector, source.config);
}

export function requirePostgres(app: SyncContext, what: string): void {
  if (app.store.dialect !== 'postgres') {
    throw new InputError(`${what} needs the PostgreSQL store (--db postgres://…); the embedded SQLite mode runs syncs in-process`, 'db');
  }
}

export interface WorkOptions {
  concurrency?: number;
  /** Stop taking jobs; the runs in progress finish their page, checkpoint and end 'interrupted'. */
  drain?: AbortSignal;
}

export class SyncQueue {
  readonly boss: PgBoss;
  readonly #app: SyncContext;
  readonly #env: NodeJS.ProcessEnv;
  readonly #drains = new Set<AbortController>();
  #started = false;

  constructor(app: SyncContext) {
    requirePostgres(app, 'the job queue');
    this.#app = app;
    this.#env = app.env;
    this.boss = new PgBoss({
      connectionString: app.dbUrl,
      schema: 'tributary_queue',
      max: 4,
      // How quickly a job whose worker died (no heartbeat) is handed to another worker.
      monitorIntervalSeconds: envNumber(this.#env, 'TRIBUTARY_QUEUE_MONITOR_SECONDS', 15),
      superviseIntervalSeconds: envNumber(this.#env, 'TRIBUTARY_QUEUE_MONITOR_SECONDS', 15),
      // The per-upstream limit reads cached group counts; a stale cache delays the next job of a console.
      queueCacheIntervalSeconds: envNumber(this.#env, 'TRIBUTARY_QUEUE_MONITOR_SECONDS', 10),
      schedule: false,
    });
    this.boss.on('error', (err) => app.log.error({ err: errorMessage(err) }, 'job queue error'));
  }

  async start(): Promise<this> {
    if (this.#started) return this;
    await this.boss.start();
    await this.boss.createQueue(SYNC_QUEUE, {
      policy: 'stately',
      // The lease: a worker heartbeats while it runs a sync; a job silent this long is retried elsewhere.
      heartbeatSeconds: envNumber(this.#env, 'TRIBUTARY_QUEUE_HEARTBEAT_SECONDS', 30),
      expireInSeconds: 24 * 3600,
      retryLimit: 5,
      retryDelay: envNumber(this.#env, 'TRIBUTARY_QUEUE_RETRY_DELAY_SECONDS', 5),
      retryBackoff: true,
      retryDelayMax: 300,
      deleteAfterSeconds: 7 * 24 * 3600,
    });
    this.#started = true;
    return this;
  }

  /** Enqueues a sync; null when one for this source is already waiting (it will do the same work). */
  async enqueue(source: string, opts: { full?: boolean; allowLargeRemoval?: boolean; trigger: string }): Promise<string | null> {
    const s = await this.#app.store.sources.get(source);
    const data: SyncJob = {
      source,
      full: opts.full,
      ...(opts.allowLargeRemoval ? { allowLargeRemoval: true } : {}),
      trigger: opts.trigger,
      requestedAt: new Date().toISOString(),
    };
    return this.boss.send(SYNC_QUEUE, data, { singletonKey: source, group: { id: upstreamOf(this.#app, s) } });
  }

  async job(id: string) {
    return this.boss.getJobById<SyncJob>(SYNC_QUEUE, id);
  }

  /** Runs queued syncs until stopped: `concurrency` at once here, one per upstream across all workers. */
  async work(opts: WorkOptions = {}): Promise<void> {
    const perUpstream = envNumber(this.#env, 'TRIBUTARY_UPSTREAM_CONCURRENCY', 1);
    await this.boss.work<SyncJob>(
      SYNC_QUEUE,
      {
        localConcurrency: Math.max(1, opts.concurrency ?? 1),
        groupConcurrency: perUpstream,
        pollingIntervalSeconds: envNumber(this.#env, 'TRIBUTARY_QUEUE_POLL_SECONDS', 2),
      },
      async ([job]) => this.#run(job.id, job.data, job.signal, opts.drain),
    );
  }

  async #run(jobId: string, data: SyncJob, jobSignal: AbortSignal, drain?: AbortSignal): Promise<{ runId: string; status: string } | { skipped: string }> {
    const { store, log } = this.#app;
    const source = await store.sources.find(data.source);
    if (!source) return { skipped: `source '${data.source}' no longer exists` };
    if (data.trigger === 'schedule') {
      const last = await store.runs.last(source.id);
      if (last && last.startedAt > data.requestedAt && last.status !== 'interrupted') return { skipped: 'the source ran after this scheduled job was queued' };
    }
    const stop = new AbortController();
    this.#drains.add(stop);
    const onDrain = () => stop.abort(new Error('worker draining'));
    drain?.addEventListener('abort', onDrain, { once: true });
    jobSignal.addEventListener('abort', () => stop.abort(new Error('job lease lost')), { once: true });
    try {
      const result: SyncResult = await runSync(this.#app, data.source, {
        full: data.full,
        allowLargeRemoval: data.allowLargeRemoval === true,
        resume: true,
        trigger: `${data.trigger}:job:${jobId}`,
        drain: stop.signal,
      });
      log.info({ jobId, runId: result.runId, status: result.status }, 'queued sync finished');
      if (result.status === 'interrupted') {
        // A drained run goes back to the queue at once, so another worker resumes it from its checkpoint.
        const next = await this.boss.send(SYNC_QUEUE, { ...data, requestedAt: new Date().toISOString() } satisfies SyncJob, {
          singletonKey: data.source,
          group: { id: upstreamOf(this.#app, source) },
        });
        log.info({ jobId, runId: result.runId, next }, 'drained run handed back to the queue');
      }
      return { runId: result.runId, status: result.status };
    } catch (err) {
      if (err instanceof ConflictError) log.warn({ jobId, err: err.message }, 'source busy; the job is retried later');
      throw err;
    } finally {
      drain?.removeEventListener('abort', onDrain);
      this.#drains.delete(stop);
    }
  }

  /** Stops: with `graceful`, waits for running syncs to store their page in flight and end. */
  async stop(graceful = true): Promise<void> {
    if (!this.#started) return;
    for (const d of this.#drains) d.abort(new Error('worker stopping'));
    await this.boss.stop({ graceful, timeout: 60_000, close: true });
    this.#started = false;
  }
}
