// A sync run's own view of its log: the logger handed to the run's streams and connector passes every
// line on unchanged, and keeps the run's activity from them: retries (lines of core/retry.ts and the
// runner's stream restarts, which carry `attempt` and `waitMs`), the 429s among them (`status` 429),
// and the latest lines as an excerpt for the run's page (secrets scrubbed, as in the log itself).
import type { Logger } from '../core/log.ts';
import { scrubSecrets } from '../core/secrets.ts';
import { RUN_LOG_LINES, type RunActivity, emptyActivity } from '../store/index.ts';

const LEVELS = ['info', 'warn', 'error'] as const;
type Level = (typeof LEVELS)[number];
/** Fields worth a place in the excerpt beside the message. */
const DETAIL = ['stream', 'attempt', 'status', 'waitMs', 'err'] as const;

export class RunLog {
  readonly activity: RunActivity = emptyActivity();

  /** Records one line (the message and the object pino was given). */
  note(level: Level, obj: Record<string, unknown>, msg: string): void {
    if (typeof obj.attempt === 'number' && typeof obj.waitMs === 'number') {
      this.activity.retries++;
      if (obj.status === 429) this.activity.rateLimited++;
    }
    const detail = DETAIL.filter((k) => obj[k] !== undefined && obj[k] !== null)
      .map((k) => `${k}=${k === 'waitMs' ? `${obj[k]}ms` : String(obj[k])}`)
      .join(' ');
    const line = { at: new Date().toISOString(), level, msg: scrubSecrets(detail ? `${msg} (${detail})` : msg) };
    const log = this.activity.log;
    log.push(line);
    if (log.length > RUN_LOG_LINES) log.splice(0, log.length - RUN_LOG_LINES);
  }

  /** `log`, whose info, warn and error lines (its children's too) are also noted here. */
  tap(log: Logger): Logger {
    return this.#wrap(log, {});
  }

  #wrap(log: Logger, bindings: Record<string, unknown>): Logger {
    return new Proxy(log, {
      get: (target, prop) => {
        // A child's bindings (e.g. its stream) belong to each of its lines.
        if (prop === 'child') return (b: Record<string, unknown>, opts?: object) => this.#wrap(target.child(b, opts as never), { ...bindings, ...b });
        if (typeof prop === 'string' && (LEVELS as readonly string[]).includes(prop)) return this.#level(target, prop as Level, bindings);
        const v = Reflect.get(target, prop, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  }

  #level(target: Logger, level: Level, bindings: Record<string, unknown>) {
    return (...args: unknown[]) => {
      const [first, second] = args;
      if (typeof first === 'string') this.note(level, bindings, first);
      else if (first && typeof first === 'object')
        this.note(level, { ...bindings, ...(first as Record<string, unknown>) }, typeof second === 'string' ? second : '');
      return (target[level] as (...a: unknown[]) => void)(...args);
    };
  }
}
