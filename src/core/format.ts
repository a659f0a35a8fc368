// How sizes, durations and counts read in every message, log line, CLI summary and screen: one formatter each.

const BYTE_UNITS = ['KiB', 'MiB', 'GiB', 'TiB'] as const;

/** "12 bytes", "500 KiB", "1.5 MiB", "64 GiB": binary units, one decimal at most. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || Math.abs(n) < 1024) return `${n} bytes`;
  let v = n / 1024;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < BYTE_UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Math.round(v * 10) / 10} ${BYTE_UNITS[i]}`;
}

/** "10 min", "30 s", "250 ms". */
export function formatDuration(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000) return `${Math.round(ms / 100) / 10} s`;
  return `${ms} ms`;
}

/** A count with its noun, singular for one: `counted(1, 'day')` is "1 day", `counted(8, 'day')` "8 days". */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
