#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=131072 node --max-semi-space-size=8 --heap-growing-percent=50
// Entry point for `tributary`. Tributary is TypeScript run by Node's own type stripping, so it needs
// Node >= 22.13 (node:sqlite, strip-types). On an older Node (many machines still ship 20) we run the
// same command under Node 24 fetched once from the npm registry into ~/.cache/tributary-node.
// Node runs with these V8 flags (from the shebang, or added when we start Node ourselves):
// --max-semi-space-size=8: on large machines V8 otherwise sizes the young generation at 2 × 64 MB,
// which lifts a long sync's resident memory by ~100 MB for no measured speed gain (bench/tenable-sc-api);
// 8 rather than 16 took another 20-30 MB off an export of a million findings (bench/export: peaks
// 201-234 → 176-202 MB, same CPU time) and ~10 MB off 100,000-finding API and CSV syncs, no slower;
// --heap-growing-percent=50: the old generation grows to 1.5 times what survived the last full GC, not by
// V8's own factor of up to 4, which let a CSV import's heap idle at ~150 MB with ~30 MB alive
// (bench/tenable-sc-csv: peak RSS 322 → 263 MB at 100, no slower); 50 rather than 100 took another
// 20-30 MB off a 1M-finding API sync (bench/tenable-sc-api: SQLite 337-338 → 311-322 MB at the same
// speed, PostgreSQL 302-308 → 269-276 MB for ~6 % of its speed; 30 cost SQLite 10 %).
// And with MALLOC_MMAP_THRESHOLD_=131072 in its environment (glibc reads it at start; elsewhere it is
// ignored): allocations of 128 KB and more (response bodies, COPY buffers, SQLite pages in flight) are
// mapped and given back to the system when freed. glibc otherwise raises that threshold after the first
// large frees and serves them from its heap, which fragments: a 1M-finding sync's resident memory crept
// up by ~50 MB outside V8's heap (bench/tenable-sc-api: peak RSS 307-312 → 281 MB on PostgreSQL,
// 342-371 → 295 MB on SQLite, no slower).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants, homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { enableCompileCache, launchSettings } from './launch.js';

const here = dirname(fileURLToPath(import.meta.url));
const main = join(here, '..', 'src', 'cli', 'main.ts');
const [major, minor] = process.versions.node.split('.').map(Number);
const modern = major > 22 || (major === 22 && minor >= 13);

// Before any TypeScript loads; a Node started below inherits it through NODE_COMPILE_CACHE.
enableCompileCache();

/** The signals a supervisor or a terminal stops a command with; passed on to the Node we start. */
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Runs the command under `nodeBin` as if it were this process: stdio shared, the stop signals passed on,
 * and this process ends as the child did (its status, or the same signal). The child holds one end of a
 * socket (fd 3, named in TRIBUTARY_LAUNCHER_FD) and stops when it closes, so it does not outlive us
 * even when we are killed with SIGKILL (src/cli/process.ts followLauncher).
 */
function run(nodeBin, extraFlags) {
  const { env, flags } = launchSettings();
  const child = spawn(nodeBin, [...flags, ...extraFlags, main, ...process.argv.slice(2)], {
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    env: { ...process.env, ...env, TRIBUTARY_LAUNCHER_FD: '3' },
  });
  // Our end is only held, never read or written; a reset on it must not end us before the child.
  child.stdio[3].on('error', () => {});
  const forward = (signal) => child.kill(signal);
  for (const signal of FORWARDED) process.on(signal, forward);
  child.on('error', (err) => {
    process.stderr.write(`tributary: cannot start ${nodeBin}: ${err.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (code !== null) process.exit(code);
    for (const s of FORWARDED) process.off(s, forward);
    process.kill(process.pid, signal);
    // Still here: a signal Node itself handles or ignores (SIGUSR1, SIGPIPE); the shell's convention.
    process.exit(128 + (constants.signals[signal] ?? 0));
  });
}

if (modern && process.features.typescript) {
  await import(main);
} else if (modern) {
  // 22.13-22.17: type stripping exists but is behind a flag.
  run(process.execPath, ['--experimental-strip-types', '--no-warnings=ExperimentalWarning']);
} else {
  const prefix = process.env.TRIBUTARY_NODE_PREFIX ?? join(homedir(), '.cache', 'tributary-node');
  const node24 = join(prefix, 'node_modules', '.bin', 'node');
  if (!existsSync(node24)) {
    process.stderr.write(`tributary: Node ${process.versions.node} is too old; fetching Node 24 from the npm registry into ${prefix}\n`);
    const npm = spawnSync('npm', ['install', '--silent', '--no-save', '--prefix', prefix, 'node@24'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (npm.status !== 0 || !existsSync(node24)) {
      process.stderr.write('tributary: could not install Node 24 (npm install node@24 failed); install Node >= 22.13 yourself\n');
      process.exit(1);
    }
  }
  // One line, on a terminal only (npm's own engine warning is off: .npmrc loglevel=error).
  if (process.stderr.isTTY) process.stderr.write(`tributary: Node ${process.versions.node} is older than 22.13; running under Node 24 from ${prefix}\n`);
  run(node24, []);
}
