// The V8 flags and environment `tributary` runs with (the shebang of bin/tributary.js): what the
// benchmarks give both the floor and Tributary unless --node-flags says otherwise, so the figures are
// those of the product as launched.
import { readFileSync } from 'node:fs';

function shebangWords(): string[] {
  const shebang = readFileSync(new URL('../bin/tributary.js', import.meta.url), 'utf8').split('\n', 1)[0]!;
  return shebang.split(/\s+/);
}

export function launchFlags(): string[] {
  return shebangWords().filter((a) => a.startsWith('--'));
}

/** The variables the shebang sets before `node` (MALLOC_MMAP_THRESHOLD_), over the caller's environment. */
export function launchEnv(): NodeJS.ProcessEnv {
  const set = Object.fromEntries(shebangWords().flatMap((w) => (/^[A-Z_][A-Z0-9_]*=/.test(w) ? [w.split(/=(.*)/s).slice(0, 2)] : [])));
  return { ...process.env, ...set };
}
