// The in-process scheduler of the embedded mode: every tick it starts the syncs whose schedule is due,
// one run per source at a time. (PostgreSQL mode with workers uses the job queue instead.)
import type { SyncContext } from './context.ts';
import { nextDue } from '../core/schedule.ts';
import { ConflictError, errorMessage } from '../core/errors.ts';
import { runSync, type SyncOptions } from './runner.ts';

export interface SchedulerOptions {
  tickMs?: number;
  /**
   * Starts a sync. Default: run it here and wait for it. The server passes its own, which returns once
   * the run is recorded, so scheduled runs show live progress like manual ones.
   */
  start?: (sourceName: string, opts: SyncOptions) => Promise<unknown>;
}

export class Scheduler {
  readonly #app: SyncContext;
  readonly #tickMs: number;
  readonly #start: (sourceName: string, opts: SyncOptions) => Promise<unknown>;
  readonly #running = new Map<string, Promise<unknown>>();
  #timer: NodeJS.Timeout | null = null;
  #ticking = false;

  constructor(app: SyncContext, opts: SchedulerOptions = {}) {
    this.#app = app;
    this.#tickMs = opts.tickMs ?? 30_000;
    this.#start = opts.start ?? ((name, o) => runSync(app, name, o));
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.tick(), this.#tickMs);
    this.#timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await Promise.allSettled(this.#running.values());
  }

  /** Starts every due sync; returns the names started. */
  async tick(now = new Date()): Promise<string[]> {
    if (this.#ticking) return [];
    this.#ticking = true;
    const started: string[] = [];
    try {
      for (const s of await this.#app.store.sources.list()) {
        if (!s.schedule || this.#running.has(s.name)) continue;
        const last = await this.#app.store.runs.last(s.id);
        if (last?.status === 'running') continue;
        if (nextDue(s.schedule, last ? new Date(last.startedAt) : null, now) > now) continue;
        started.push(s.name);
        const p = this.#start(s.name, { trigger: 'schedule' })
          .catch((err) => {
            if (!(err instanceof ConflictError)) this.#app.log.error({ source: s.name, err: errorMessage(err) }, 'scheduled sync failed to start');
          })
          .finally(() => this.#running.delete(s.name));
        this.#running.set(s.name, p);
      }
    } finally {
      this.#ticking = false;
    }
    return started;
  }
}
