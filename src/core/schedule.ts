// Source schedules: an interval ("30m", "6h", "1d") or a cron expression ("0 */6 * * *", UTC).
import { Cron } from 'croner';
import { InputError } from './errors.ts';

const INTERVAL_RE = /^(\d+)\s*(s|m|h|d|w)$/i;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Interval length in ms, or null when the schedule is a cron expression. */
export function intervalMs(schedule: string): number | null {
  const m = INTERVAL_RE.exec(schedule.trim());
  return m ? Number(m[1]) * UNIT_MS[m[2].toLowerCase()] : null;
}

export function validateSchedule(schedule: string): string {
  const ms = intervalMs(schedule);
  if (ms !== null) {
    if (ms < 60_000) throw new InputError(`schedule '${schedule}' is shorter than one minute`, 'schedule');
    return schedule;
  }
  const expr = schedule.trim().split(/\s+/).join(' ');
  try {
    new Cron(expr, { timezone: 'UTC', paused: true });
    return expr;
  } catch {
    throw new InputError(`schedule '${schedule}' is neither an interval (e.g. 6h, 30m, 1d) nor a cron expression (e.g. "0 */6 * * *")`, 'schedule');
  }
}

/**
 * When a source with this schedule is next due, given when its last scheduled (or any) run started.
 * A source never run is due at once.
 */
export function nextDue(schedule: string, lastStart: Date | null, now = new Date()): Date {
  const ms = intervalMs(schedule);
  if (ms !== null) return lastStart ? new Date(lastStart.getTime() + ms) : now;
  const cron = new Cron(schedule, { timezone: 'UTC', paused: true });
  const from = lastStart ?? new Date(now.getTime() - 1);
  return cron.nextRun(from) ?? new Date(8.64e15);
}
