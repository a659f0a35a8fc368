// `tributary sync NAME [--full]`
import type { Command } from 'commander';
import { runSync } from '../sync/runner.ts';
import { ExitCode, printJson, withApp } from './app.ts';
import { formatRate, progressLine } from './output.ts';

export function registerSyncCommand(program: Command): void {
  program
    .command('sync <name>')
    .description('run one sync of a source now')
    .option('--full', 'a full run (re-reads everything and marks what is gone as removed)')
    .action(async (name: string, o: { full?: boolean }, cmd: Command) => {
      const status = await withApp(cmd, async (app, g) => {
        const tty = process.stderr.isTTY && !g.json;
        let lastDraw = 0;
        const controller = new AbortController();
        const stop = () => controller.abort(new Error('interrupted by signal'));
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        const result = await runSync(app, name, {
          full: o.full,
          trigger: 'cli',
          signal: controller.signal,
          onStart: ({ mode, resumedFrom }) => {
            if (!g.json) process.stderr.write(`${mode} sync of '${name}'${resumedFrom ? ` (resuming interrupted run ${resumedFrom})` : ''}\n`);
          },
          onProgress: (p) => {
            const now = Date.now();
            if (!tty || now - lastDraw < 200) return;
            lastDraw = now;
            process.stderr.write(`\r\x1b[2K${progressLine(p.stream, p.counts, p.elapsedMs)}`);
          },
        }).finally(() => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
        });
        if (tty) process.stderr.write('\r\x1b[2K');
        if (g.json) {
          printJson({ runId: result.runId, status: result.status, streams: result.streams, error: result.error });
        } else {
          const run = await app.store.getRun(result.runId);
          const ms = Date.parse(run.finishedAt ?? run.startedAt) - Date.parse(run.startedAt);
          const total = Object.values(result.streams).reduce((a, c) => a + c.records, 0);
          process.stdout.write(`${result.status}: ${result.mode} run ${result.runId} in ${(ms / 1000).toFixed(1)}s, ${total} records (${formatRate(total, ms)})\n`);
          for (const [stream, c] of Object.entries(result.streams)) {
            const swept = result.swept[stream] ? `, ${result.swept[stream]} marked removed` : '';
            process.stdout.write(`  ${stream.padEnd(16)} ${String(c.records).padStart(9)} records${c.errors ? `, ${c.errors} errors` : ''}${swept}\n`);
          }
          if (result.error) process.stdout.write(`  error: ${result.error}\n`);
        }
        return result.status;
      });
      if (status !== 'succeeded') throw new ExitCode(1);
    });
}
