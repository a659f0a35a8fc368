// `tributary` keeps Node's compile cache (bin/compile-cache.js): the JavaScript type stripping makes of
// each file is stored on the first start and read on the next, in NODE_COMPILE_CACHE or under
// ~/.cache/tributary-node; NODE_DISABLE_COMPILE_CACHE turns it off.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/databases.ts';

const BIN = fileURLToPath(new URL('../../bin/tributary.js', import.meta.url));

function files(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
}

function help(env: Record<string, string | undefined>): void {
  const r = spawnSync(process.execPath, [BIN, '--help'], { env: { ...process.env, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined, ...env }, encoding: 'utf8' });
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
