// The V8 flags and environment `tributary` runs with (the shebang of bin/tributary.js, read by
// bin/launch.js): what the benchmarks give both the floor and Tributary unless --node-flags says
// otherwise, so the figures are those of the product as launched.
import { launchSettings } from '../bin/launch.js';

export function launchFlags(): string[] {
  return launchSettings().flags;
}

/** The variables the shebang sets before `node` (MALLOC_MMAP_THRESHOLD_), over the caller's environment. */
export function launchEnv(): NodeJS.ProcessEnv {
  return { ...process.env, ...launchSettings().env };
}
