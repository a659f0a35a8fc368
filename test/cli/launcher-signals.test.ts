// Under a Node older than 22.13 bin/tributary.js runs the command under Node 24 as its child (issue 27
// §7): SIGTERM, SIGINT and SIGHUP sent to the launcher reach the command, the launcher ends as the
// command did (its status, or the same signal), and no child outlives it, not even one whose launcher
// was killed with SIGKILL; the port it listened on is free again. A signal sent to the whole process
// group (both get it, then the launcher's echo) still stops a command gracefully.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { addTenableArgs, BIN, cliEnv, olderNode, runCliAsync } from '../helpers/cli.ts';
import { BACKENDS, tempDir } from '../helpers/databases.ts';

const oldNode = olderNode();
const skip = oldNode ? false : 'no Node older than 22.13 on this machine (/usr/bin/node, /usr/local/bin/node): the launcher starts no child';

const home = tempDir();
// An empty UI folder of the operator's: serve builds nothing.
const env = cliEnv({ TRIBUTARY_WEB_DIR: join(home, 'web'), TRIBUTARY_ADMIN_PASSWORD: 'launcher-test-password-1' });
// Commands seen; any a failing test left behind is killed, so it cannot hold this run's pipes open.
const commands = new Set<number>();
after(() => {
  for (const pid of commands) if (!gone(pid)) process.kill(pid, 'SIGKILL');
  rmSync(home, { recursive: true, force: true });
});

interface Launched {
  launcher: ChildProcess;
  output: () => string;
  /** Resolves when stdout or stderr matched. */
  printed: (re: RegExp) => Promise<void>;
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `tributary ARGS` started as a supervisor would, under the older Node. */
function launch(args: string[], env: NodeJS.ProcessEnv): Launched {
  const launcher = spawn(oldNode!, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const waiting: { re: RegExp; resolve: () => void }[] = [];
  const add = (d: Buffer) => {
    output += d;
    for (const w of waiting.filter((w) => w.re.test(output))) w.resolve();
  };
  launcher.stdout!.on('data', add);
  launcher.stderr!.on('data', add);
  // 'exit', not 'close': a command left behind would keep the pipes open.
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    launcher.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const printed = (re: RegExp) =>
    new Promise<void>((resolve, reject) => {
      if (re.test(output)) return resolve();
      const timer = setTimeout(() => reject(new Error(`no ${re} within 60 s:\n${output}`)), 60_000);
      waiting.push({
        re,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
      void ended.then(() => reject(new Error(`ended before ${re}:\n${output}`)));
    });
  return { launcher, output: () => output, printed, ended };
}

/** Process ids whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        const stat = readFileSync(`/proc/${n}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Gone: no such process, or one that has ended and waits only to be reaped (a zombie). */
function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return !existsSync(`/proc/${pid}`);
  }
}

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`${what} within ${ms} ms`);
    await sleep(50);
  }
}

function listenOn(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The one Node 24 the launcher started. */
function commandOf(l: Launched): number {
  const kids = childrenOf(l.launcher.pid!);
  assert.equal(kids.length, 1, `one child of the launcher: ${kids.join(', ')}`);
  commands.add(kids[0]!);
  return kids[0]!;
}

/** Stops a listening command with `signal` sent to the launcher only; checks nothing is left behind. */
async function stopListener(args: string[], port: number, ready: RegExp, signal: NodeJS.Signals) {
  const l = launch(args, env);
  await l.printed(ready);
  const command = commandOf(l);
  assert.equal(await listenOn(port), false, `the command listens on ${port}`);
  l.launcher.kill(signal);
  const end = await l.ended;
  assert.ok(gone(command), `the command (pid ${command}) is gone once the launcher ended`);
  assert.ok(await listenOn(port), `port ${port} is free`);
  return { ...end, output: l.output() };
}

describe('the launcher and the command it starts under Node 24', { skip }, () => {
  test('serve: SIGTERM to the launcher closes the server; both end with its status 0', async () => {
    const port = await freePort();
    const r = await stopListener(['--data-dir', join(home, 'serve'), 'serve', '--port', String(port)], port, /serving on/, 'SIGTERM');
    assert.deepEqual([r.code, r.signal], [0, null], r.output);
  });

  test('sim: SIGINT stops it cleanly (status 0); SIGHUP, which it does not handle, ends both by SIGHUP', async () => {
    const port = await freePort();
    const sim = ['sim', 'tenable-sc', '--port', String(port), '--hosts', '2'];
    const int = await stopListener(sim, port, /"url"/, 'SIGINT');
    assert.deepEqual([int.code, int.signal], [0, null], int.output);
    const hup = await stopListener(sim, port, /"url"/, 'SIGHUP');
    assert.deepEqual([hup.code, hup.signal], [null, 'SIGHUP'], hup.output);
  });

  test('a launcher killed with SIGKILL (which it cannot pass on) leaves no command behind', async () => {
    const port = await freePort();
    const l = launch(['sim', 'tenable-sc', '--port', String(port), '--hosts', '2'], env);
    await l.printed(/"url"/);
    const command = commandOf(l);
    l.launcher.kill('SIGKILL');
    await l.ended;
    await until(() => gone(command), `the orphaned command (pid ${command}) stops`);
    assert.ok(await listenOn(port), `port ${port} is free`);
  });
});

for (const backend of BACKENDS) {
  describe(`sync under the launcher against a slow console (${backend.kind})`, { skip: skip || backend.skip }, () => {
    let sim: RunningTenableSim;
    let db: Awaited<ReturnType<typeof backend.create>>;
    let global: string[];
    before(async () => {
      // Every request takes 1.5 s: a stopped sync still stores the page in flight, so its graceful
      // stop lasts long enough for the echo of a group signal to arrive during it.
      sim = await startTenableSim({ port: 0, hosts: 4, findingsPerHost: 2, seed: 4, latencyMs: 1500 });
      db = await backend.create();
      global = ['--data-dir', db.dataDir, '--db', db.url];
      const added = await runCliAsync([...global, ...addTenableArgs('slow', sim)], env);
      assert.equal(added.code, 0, added.stderr);
    });
    after(async () => {
      await sim?.close();
      await db?.drop();
    });

    /** Starts `sync slow`, stops it with `send`, and checks it ended as an interrupted sync does. */
    async function stopSync(send: (launcher: ChildProcess, command: number) => Promise<void>) {
      const l = launch([...global, 'sync', 'slow'], env);
      await l.printed(/sync of 'slow'/);
      const command = commandOf(l);
      await send(l.launcher, command);
      const end = await l.ended;
      assert.ok(gone(command), `the command (pid ${command}) is gone`);
      // The sync's own status: it stopped, recorded what it had, and said so (not killed midway).
      assert.deepEqual([end.code, end.signal], [1, null], l.output());
      assert.match(l.output(), /interrupted by signal/);
    }

    test('SIGTERM to the launcher stops the sync as SIGTERM to the command does', async () => {
      await stopSync(async (launcher) => void launcher.kill('SIGTERM'));
    });

    test("a group's SIGTERM (the command's own, then the launcher's echo) does not cut its stop short", async () => {
      await stopSync(async (launcher, command) => {
        process.kill(command, 'SIGTERM');
        await sleep(300);
        launcher.kill('SIGTERM');
      });
    });
  });
}
