// Where `tributary sync` writes its log (retries, warnings): a file in the data dir, so no log line
// lands between the progress lines on the terminal; TRIBUTARY_LOG_FILE names another file, `-` is stderr.
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../core/log.ts';

export interface SyncLog {
  log: Logger;
  /** The file the log goes to (null: stderr). */
  path: string | null;
  /** Lines written so far. */
  lines(): number;
  close(): Promise<void>;
}

export function openSyncLog(dataDir: string, level: string, env: NodeJS.ProcessEnv = process.env): SyncLog {
  const target = env.TRIBUTARY_LOG_FILE;
  if (target === '-') return { log: createLogger({ level }), path: null, lines: () => 0, close: async () => {} };
  const path = target || join(dataDir, 'logs', 'sync.log');
  mkdirSync(dirname(path), { recursive: true });
  const file = createWriteStream(path, { flags: 'a', mode: 0o600 });
  let lines = 0;
  let closed = false;
  // Hands each line to the file stream at once (it buffers), so nothing waits here when the log closes;
  // a line logged after that (a late close handler) is dropped rather than written after the end.
  const counting = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      if (!closed) {
        lines += String(chunk).split('\n').length - 1;
        file.write(chunk);
      }
      cb();
    },
  });
  return {
    log: createLogger({ level, destination: counting }),
    path,
    lines: () => lines,
    close: () => {
      closed = true;
      return new Promise((resolve) => file.end(resolve));
    },
  };
}

/**
 * The progress a sync shows: on a terminal one line redrawn in place; elsewhere (a pipe, a file) one
 * line per stream, written when the next stream starts and at the end.
 */
export function progressWriter<P extends { stream: string }>(tty: boolean, write: (s: string) => void, render: (p: P) => string, now: () => number = Date.now) {
  let lastDraw = 0;
  let pending: P | null = null;
  return {
    update(p: P): void {
      if (!tty) {
        if (pending && pending.stream !== p.stream) write(`${render(pending)}\n`);
        pending = p;
        return;
      }
      const t = now();
      if (t - lastDraw < 200) return;
      lastDraw = t;
      write(`\r\x1b[2K${render(p)}`);
    },
    end(): void {
      if (tty) write('\r\x1b[2K');
      else if (pending) write(`${render(pending)}\n`);
      pending = null;
    },
  };
}
