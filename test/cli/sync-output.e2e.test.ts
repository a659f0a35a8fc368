// What `tributary sync` shows when its output is not a terminal (piped to a file): one progress line
// per stream, and its log lines (retries through injected 429s and 5xx) in the log file, not between them;
// `sources check` likewise.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { progressWriter } from '../../src/cli/sync-log.ts';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { addTenableArgs, cliEnv, runCliAsync } from '../helpers/cli.ts';
import { tempDir } from '../helpers/databases.ts';

let sim: RunningTenableSim;
const dataDir = tempDir();
const env = cliEnv({ TRIBUTARY_RETRY_BASE_MS: '5' });
delete env.TRIBUTARY_LOG_FILE;
delete env.TRIBUTARY_LOG_LEVEL;
const cli = (...args: string[]) => runCliAsync(['--data-dir', dataDir, ...args], env);

before(async () => {
  sim = await startTenableSim({
    port: 0,
    hosts: 12,
    findingsPerHost: 6,
    seed: 3,
    rateLimit: { every: 4, retryAfter: 0 },
    serverError: { every: 9, status: 503 },
  });
});
after(async () => {
  await sim?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a piped sync prints one progress line per stream; retries go to the log file, which it names', async () => {
  assert.equal((await cli(...addTenableArgs('lab', sim))).code, 0);
  const r = await cli('sync', 'lab');
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.match(lines[0]!, /^full sync of 'lab'$/);
  const progress = lines.filter((l) => l.startsWith('syncing '));
  const streams = progress.map((l) => /^syncing (\S+):/.exec(l)![1]);
  assert.ok(streams.length >= 3, r.stderr);
  assert.equal(new Set(streams).size, streams.length, `one line per stream:\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /\r|\x1b\[/, 'no terminal redraws in a file');
  assert.doesNotMatch(r.stderr, /"level"|transient upstream error/, 'no log lines among the progress lines');
  const path = join(dataDir, 'logs', 'sync.log');
  assert.match(lines.at(-1)!, new RegExp(`^tributary: \\d+ log lines? \\(retries, warnings\\) in ${path.replace(/[.\\/]/g, '\\$&')}$`));
  assert.ok(existsSync(path));
  const log = readFileSync(path, 'utf8');
  assert.match(log, /transient upstream error|retry/i, 'the retries are in the log');
  assert.equal(log.includes(sim.analyst.secretKey), false);
  assert.equal(lines.length, 1 + progress.length + 1, `nothing else on stderr:\n${r.stderr}`);
});

test('sources check prints its check lines only: the retries of its 429s go to the log file, which it names', async () => {
  assert.equal((await cli(...addTenableArgs('checked', sim))).code, 0);
  const path = join(dataDir, 'logs', 'sync.log');
  const before = existsSync(path) ? readFileSync(path, 'utf8').length : 0;
  const r = await cli('sources', 'check', 'checked');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^✓ connection: /m);
  assert.doesNotMatch(r.stdout + r.stderr, /"level"|\{"/, 'no JSON log line among the check lines');
  assert.match(readFileSync(path, 'utf8').slice(before), /retrying/, 'the simulator answered 429 and the check retried');
  assert.match(r.stderr, new RegExp(`^tributary: \\d+ log lines? \\(retries, warnings\\) in ${path.replace(/[.\\/]/g, '\\$&')}$`, 'm'));
});

test('TRIBUTARY_LOG_FILE=- keeps the log on stderr', async () => {
  const r = await runCliAsync(['--data-dir', dataDir, 'sync', 'lab', '--full'], { ...env, TRIBUTARY_LOG_LEVEL: 'info', TRIBUTARY_LOG_FILE: '-' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /"level"/);
});

test('on a terminal the progress is one line redrawn in place (at most every 200 ms); elsewhere one line per stream', () => {
  const out: string[] = [];
  let t = 0;
  const p = progressWriter<{ stream: string; n: number }>(
    false,
    (s) => out.push(s),
    (x) => `${x.stream} ${x.n}`,
    () => t,
  );
  for (const [stream, n] of [
    ['hosts', 1],
    ['hosts', 2],
    ['vulns', 1],
    ['vulns', 5],
    ['ports', 3],
  ] as const)
    p.update({ stream, n });
  p.end();
  assert.deepEqual(out, ['hosts 2\n', 'vulns 5\n', 'ports 3\n']);
  const tty: string[] = [];
  const q = progressWriter<{ stream: string; n: number }>(
    true,
    (s) => tty.push(s),
    (x) => `${x.stream} ${x.n}`,
    () => t,
  );
  t = 1000;
  q.update({ stream: 'hosts', n: 1 });
  t = 1100;
  q.update({ stream: 'hosts', n: 2 });
  t = 1300;
  q.update({ stream: 'hosts', n: 3 });
  q.end();
  assert.deepEqual(tty, ['\r\x1b[2Khosts 1', '\r\x1b[2Khosts 3', '\r\x1b[2K']);
});
