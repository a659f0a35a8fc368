// The command as a process: a reader that closes stdout early (`| head`) ends it quietly, and a command
// that bin/tributary.js started under Node 24 (the machine's Node being older) lives and dies with it.
import { Socket } from 'node:net';
import { errorMessage } from '../core/errors.ts';

/**
 * A closed stdout (EPIPE: `tributary query … | head -3`) ends the command at once with status 0, as
 * `git log | head` does: nothing more is read from the store for a reader that is gone. Any other
 * failure to write stdout (a full disk behind `>`) ends it with status 1 and a one-line reason.
 */
export function endQuietlyWhenStdoutCloses(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    process.stderr.write(`tributary: cannot write to stdout: ${errorMessage(err)}\n`);
    process.exit(1);
  });
}

/** The signals the launcher passes on (bin/tributary.js FORWARDED). */
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** How long after a signal the same one counts as its echo through the launcher. */
const ECHO_MS = 1000;

/**
 * For a command the launcher started (it names, in TRIBUTARY_LAUNCHER_FD, the socket it holds the other
 * end of): a signal sent to the whole process group (Ctrl-C in a terminal, `kill %1`, a supervisor
 * stopping every process of a service) reaches the command twice, directly and moments later passed on
 * by the launcher. The echo is dropped, so it cannot cut short the graceful stop the first one began
 * (serve closing, a sync storing its page in flight); with no command listening, a signal ends the
 * process as it would without this listener. And when the launcher is gone without passing anything on
 * (killed with SIGKILL), its end of the socket closes: the command stops as on SIGTERM.
 */
export function followLauncher(env: NodeJS.ProcessEnv = process.env): void {
  const fd = Number(env.TRIBUTARY_LAUNCHER_FD);
  // Not for processes this command starts in turn.
  delete env.TRIBUTARY_LAUNCHER_FD;
  if (!Number.isInteger(fd) || fd < 3) return;
  for (const signal of FORWARDED) {
    let last = Number.NEGATIVE_INFINITY;
    const onSignal = () => {
      const now = Date.now();
      const echo = now - last < ECHO_MS;
      last = now;
      if (echo || process.listenerCount(signal) > 1) return;
      process.off(signal, onSignal);
      process.kill(process.pid, signal);
    };
    // First among the listeners, so a command's own (added later) still counts when it runs.
    process.prependListener(signal, onSignal);
  }
  const lifeline = new Socket({ fd, readable: true, writable: false });
  // Closed after its end (or a read error): either way the launcher is gone.
  lifeline.on('error', () => {});
  lifeline.once('close', () => process.kill(process.pid, 'SIGTERM'));
  lifeline.resume().unref();
}
