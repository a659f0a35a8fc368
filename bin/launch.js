// How `tributary` starts. The shebang of bin/tributary.js is the one place its environment and V8 flags
// are written: launchSettings() reads them for the Node it starts itself and for the benchmarks.
// And Node's on-disk compile cache for Tributary's TypeScript: what type stripping makes of each file (and
// V8's code for it) is kept between runs, so a process, and each of its worker threads, no longer loads
// the stripper (a WebAssembly module) or strips every file again. Measured with bench/tenable-sc-api:
// 10-17 MB less peak resident memory in 100,000-finding syncs.
import { readFileSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** What the shebang gives `node`: its VAR=value settings and its flags. */
export function launchSettings() {
  const words = readFileSync(new URL('./tributary.js', import.meta.url), 'utf8')
    .split('\n', 1)[0]
    .split(/\s+/);
  const env = Object.fromEntries(words.filter((w) => /^[A-Z_][A-Z0-9_]*=/.test(w)).map((w) => w.split(/=(.*)/s).slice(0, 2)));
  return { env, flags: words.filter((w) => w.startsWith('--')) };
}

/** Where the cache is kept: NODE_COMPILE_CACHE, or ~/.cache/tributary-node/compile-cache. */
export function compileCacheDir() {
  return process.env.NODE_COMPILE_CACHE || join(homedir(), '.cache', 'tributary-node', 'compile-cache');
}

/** Enables the cache unless NODE_DISABLE_COMPILE_CACHE is set. */
export function enableCompileCache() {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return;
  const dir = compileCacheDir();
  // Worker threads inherit the environment and with it the cache; so does the Node 24 that the launcher
  // starts under an older Node, which has no cache of its own to enable (module.enableCompileCache).
  process.env.NODE_COMPILE_CACHE = dir;
  if (typeof module.enableCompileCache !== 'function') return;
  try {
    // A directory that cannot be written leaves the cache off (the status says so); nothing else changes.
    module.enableCompileCache(dir);
  } catch {}
}
