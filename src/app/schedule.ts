// Source schedules: an interval ("30m", "6h", "1d") or a cron expression ("0 */6 * * *").
import { InputError } from '../core/errors.ts';

const INTERVAL_RE = /^(\d+)\s*(s|m|h|d|w)$/i;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const CRON_FIELD_RE = /^[\d*?LW#/,A-Za-z-]+$/;

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
  const fields = schedule.trim().split(/\s+/);
  if ((fields.length === 5 || fields.length === 6) && fields.every((f) => CRON_FIELD_RE.test(f))) return fields.join(' ');
  throw new InputError(`schedule '${schedule}' is neither an interval (e.g. 6h, 30m, 1d) nor a cron expression (e.g. "0 */6 * * *")`, 'schedule');
}
