// How `tributary` starts: its shebang sets the allocator's mmap threshold and Node's V8 flags (and
// `npm start` the same); it keeps Node's compile cache (bin/launch.js): the JavaScript type
// stripping makes of each file is stored on the first start and read on the next, in NODE_COMPILE_CACHE
// or under ~/.cache/tributary-node (also for the Node 24 it starts under an older Node);
// NODE_DISABLE_COMPILE_CACHE turns it off.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { olderNode } from '../helpers/cli.ts';
import { tempDir } from '../helpers/databases.ts';

const BIN = fileURLToPath(new URL('../../bin/tributary.js', import.meta.url));

function files(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
}

function help(env: Record<string, string | undefined>): void {
  const r = spawnSync(process.execPath, [BIN, '--help'], {
    env: { ...process.env, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined, ...env },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /Usage: tributary/);
}

test('the compile cache is kept in NODE_COMPILE_CACHE, else under the home cache folder, and can be turned off', () => {
  const dir = tempDir();
  try {
    const named = join(dir, 'named');
    help({ NODE_COMPILE_CACHE: named });
    // One entry per module loaded: the CLI's TypeScript files among them.
    assert.ok(files(named) > 20, `${files(named)} entries in ${named}`);

    const home = join(dir, 'home');
    help({ HOME: home });
    assert.ok(files(join(home, '.cache', 'tributary-node', 'compile-cache')) > 20);

    const off = join(dir, 'off');
    help({ HOME: off, NODE_DISABLE_COMPILE_CACHE: '1' });
    assert.equal(files(off), 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Where the launcher finds the Node 24 it runs under an older Node.
const nodePrefix = process.env.TRIBUTARY_NODE_PREFIX ?? join(homedir(), '.cache', 'tributary-node');
const oldNode = olderNode();
const noFallback = !oldNode
  ? 'no Node older than 22.13 on this machine'
  : !existsSync(join(nodePrefix, 'node_modules', '.bin', 'node')) && `no Node 24 in ${nodePrefix}`;

test('under an older Node, the Node 24 the launcher starts keeps the cache in the same place', { skip: noFallback }, () => {
  const home = tempDir();
  try {
    const r = spawnSync(oldNode!, [BIN, '--help'], {
      env: { ...process.env, HOME: home, TRIBUTARY_NODE_PREFIX: nodePrefix, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined },
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(files(join(home, '.cache', 'tributary-node', 'compile-cache')) > 20);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('the shebang starts Node with the launch environment and flags, and npm start with the same', () => {
  const shebang = readFileSync(BIN, 'utf8').split('\n', 1)[0]!;
  const m = /^#!\/usr\/bin\/env -S (.*)$/.exec(shebang);
  assert.ok(m, shebang);
  // What env -S runs for the shebang, with a script that prints what the process got.
  const words = m[1]!.split(/\s+/);
  const at = words.indexOf('node');
  const probe = 'console.log(JSON.stringify([process.env.MALLOC_MMAP_THRESHOLD_, process.execArgv]))';
  const r = spawnSync('/usr/bin/env', [...words.slice(0, at), process.execPath, ...words.slice(at + 1), '-e', probe], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const [threshold, execArgv] = JSON.parse(r.stdout) as [string, string[]];
  assert.equal(threshold, '131072');
  assert.deepEqual(execArgv.slice(0, 2), ['--max-semi-space-size=8', '--heap-growing-percent=50']);
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
  assert.equal(pkg.scripts.start, `${words.slice(0, at).join(' ')} node ${words.slice(at + 1).join(' ')} bin/tributary.js serve`);
});
