// Under an older Node (20, as many machines ship) `npx tributary` re-runs the command under Node 24
// (bin/tributary.js): npm must not print its unsupported-engine warning, let alone twice per command.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { cliEnv } from '../helpers/cli.ts';
import { tempDir } from '../helpers/databases.ts';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = tempDir();
after(() => rmSync(dataDir, { recursive: true, force: true }));

test('package.json admits the Node versions bin/tributary.js runs on (it fetches Node 24 for those before 22.13)', () => {
  const pkg = JSON.parse(readFileSync(`${repo}/package.json`, 'utf8')) as { engines: { node: string } };
  const m = /^>=\s*(\d+)/.exec(pkg.engines.node);
  assert.ok(m && Number(m[1]) <= 20, pkg.engines.node);
  assert.match(readFileSync(`${repo}/bin/tributary.js`, 'utf8'), /node@24/, 'the fallback that makes Node 20 work');
});

test('npx tributary on the machine\'s older Node prints no engine warning', (t) => {
  const old = ['/usr/bin/node', '/usr/local/bin/node'].find((bin) => {
    const v = spawnSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout?.trim();
    if (!v) return false;
    const [a, b] = v.split('.').map(Number);
    return a! < 22 || (a === 22 && b! < 13);
  });
  if (!old) {
    t.diagnostic('no Node older than 22.13 on this machine: only the package.json check above applies');
    return;
  }
  // npm checks the engines of the project it runs a bin of: our package.json, in a project of its own
  // (its bin a stub, so the check is npm's alone; in a worktree npm skips a symlinked node_modules).
  const project = join(dataDir, 'project');
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  writeFileSync(join(project, 'package.json'), readFileSync(`${repo}/package.json`));
  writeFileSync(join(project, 'stub.js'), '#!/usr/bin/env node\nconsole.log("ran");\n', { mode: 0o755 });
  symlinkSync('../../stub.js', join(project, 'node_modules', '.bin', 'tributary'));
  const env = cliEnv({ PATH: `${dirname(old)}${delimiter}${process.env.PATH ?? ''}` });
  const r = spawnSync('npx', ['--offline', 'tributary'], { cwd: project, env, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'ran\n');
  assert.doesNotMatch(r.stderr, /EBADENGINE|Unsupported engine/, r.stderr);
});
