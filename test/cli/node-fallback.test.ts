// Under an older Node (many machines ship 20), `npx tributary …` runs the command under Node 24 and
// prints no engine warning from npm (issue 17 §3: it was printed twice per command).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { olderNode } from '../helpers/cli.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const oldNode = olderNode();
const npx = oldNode ? join(dirname(oldNode), 'npx') : undefined;
const why = !oldNode ? 'no Node older than 22.13 on this machine' : !existsSync(npx!) ? `no npx beside ${oldNode}` : false;

test('npx tributary under an older Node runs the command without npm engine warnings', { skip: why }, () => {
  const r = spawnSync(npx!, ['--no-install', 'tributary', 'sources', 'list', '--help'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${dirname(oldNode!)}:${process.env.PATH}` },
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /Usage: tributary sources list/);
  assert.doesNotMatch(r.stderr, /EBADENGINE|Unsupported engine/);
  assert.equal(r.stderr.trim(), '', 'nothing on stderr when it is not a terminal');
});
