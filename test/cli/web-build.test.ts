// `tributary serve` without a built web UI builds it first, or stops with one line saying how.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ExitCode } from '../../src/cli/app.ts';
import { BUILD_SCRIPT, ensureWebUi, runBuildScript } from '../../src/cli/web-build.ts';
import { tempDir } from '../helpers/databases.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

test('a built UI is served as it is; a missing one is built; a failed build stops serve naming the command', () => {
  let builds = 0;
  const ui = join(dir, 'web');
  const builder = () => {
    builds++;
    mkdirSync(ui, { recursive: true });
    writeFileSync(join(ui, 'index.html'), '<!doctype html>');
    return { ok: true, reason: '' };
  };
  ensureWebUi(ui, builder);
  assert.equal(builds, 1, 'built when missing');
  ensureWebUi(ui, builder);
  assert.equal(builds, 1, 'not built again');

  const missing = join(dir, 'never');
  assert.throws(
    () => ensureWebUi(missing, () => ({ ok: false, reason: 'it exited with 1' })),
    (err: unknown) =>
      err instanceof ExitCode && err.code === 1 && /it exited with 1.*bash scripts\/build-web\.sh/.test(err.message) && !err.message.includes('\n'),
  );
  assert.throws(() => ensureWebUi(missing, () => ({ ok: true, reason: '' })), /no index\.html/, 'a build that made nothing is a failure too');
});

test('the build script is the repository one; a missing script is a reason, not a crash', () => {
  assert.match(BUILD_SCRIPT, /scripts\/build-web\.sh$/);
  const r = runBuildScript(join(dir, 'no-such-script.sh'));
  assert.equal(r.ok, false);
  assert.match(r.reason, /no-such-script\.sh is missing/);
});
