// A `tributary worker` process on a test database, started and ready (it logged "worker ready"), with
// its log so far and its exit.
import { type ChildProcess, spawn } from 'node:child_process';
import { BIN } from './cli.ts';
import type { TestDatabase } from './databases.ts';

export interface Worker {
  child: ChildProcess;
  log: () => string;
  /** The exit code, or the signal that ended it. */
  exited: Promise<number | string | null>;
}

export function startWorker(db: TestDatabase, env: NodeJS.ProcessEnv, concurrency: number): Promise<Worker> {
  const child = spawn(process.execPath, [BIN, '--data-dir', db.dataDir, '--db', db.url, 'worker', '--concurrency', String(concurrency)], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const exited = new Promise<number | string | null>((res) => child.once('exit', (code, signal) => res(code ?? signal)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start: ${err}`)), 20_000);
    child.stderr!.on('data', (d) => {
      err += d;
      if (/worker ready/.test(err)) {
        clearTimeout(timer);
        resolve({ child, log: () => err, exited });
      }
    });
    child.once('exit', (code) => reject(new Error(`worker exited ${code}: ${err}`)));
  });
}
