// `tributary sync NAME [--full [--allow-large-removal]] [--queue [--no-wait]]` and `tributary worker [--concurrency N]`
import type { Command } from 'commander';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AppContext, resolvePaths } from '../app/context.ts';
import { InputError } from '../core/errors.ts';
import { removePartialLeftovers } from '../export/confine.ts';
import { resumeDeliveries } from '../alerts/index.ts';
import { RUN_LIST_CAP, type RunRecord, unreadableSecretsError } from '../store/index.ts';
import { runSync, type SyncProgress, type SyncResult } from '../sync/runner.ts';
import { SyncQueue } from '../sync/queue.ts';
import { Scheduler } from '../sync/scheduler.ts';
import { ExitCode, type GlobalOptions, globals, printJson, withApp } from './app.ts';
import { formatRate, progressLine, terminalSafe } from './output.ts';
import { openSyncLog, progressWriter } from './sync-log.ts';

/** Lines of each list a summary prints; the run's record keeps up to RUN_LIST_CAP (the API and `--json` show them). */
const SUMMARY_LINES = 20;

/** The files the run rejected and the rows it could not store, one line each (the first SUMMARY_LINES). */
function shortfallLines(run: RunRecord): string[] {
  const out: string[] = [];
  const more = (total: number, shown: number) =>
    total > shown ? [`    … and ${total - shown} more (GET /api/v1/runs/${run.id} lists up to ${RUN_LIST_CAP})`] : [];
  if (run.rejectedTotal > 0) {
    out.push(`  rejected files (${run.rejectedTotal}):`);
    const shown = run.rejected.slice(0, SUMMARY_LINES);
    for (const f of shown) out.push(`    ${terminalSafe(f.file)} — ${terminalSafe(f.reason)}`);
    out.push(...more(run.rejectedTotal, shown.length));
  }
  if (run.errorsTotal > 0) {
    out.push(`  rows not stored (${run.errorsTotal}):`);
    const shown = run.errors.slice(0, SUMMARY_LINES);
    for (const e of shown) out.push(`    ${e.model}, ${terminalSafe(e.row)}${e.field ? `, ${terminalSafe(e.field)}` : ''}: ${terminalSafe(e.reason)}`);
    out.push(...more(run.errorsTotal, shown.length));
  }
  return out;
}

function printSummary(g: GlobalOptions, run: RunRecord, result: Pick<SyncResult, 'status' | 'streams' | 'error' | 'swept' | 'skipped'>): void {
  if (g.json) {
    printJson({
      runId: run.id,
      status: result.status,
      streams: result.streams,
      error: result.error,
      rejected: run.rejected,
      errors: run.errors,
      rejectedTotal: run.rejectedTotal,
      errorsTotal: run.errorsTotal,
      ...(result.skipped ? { skipped: result.skipped } : {}),
    });
    return;
  }
  const ms = Date.parse(run.finishedAt ?? run.startedAt) - Date.parse(run.startedAt);
  const total = Object.values(result.streams).reduce((a, c) => a + c.records, 0);
  process.stdout.write(`${result.status}: ${run.mode} run ${run.id} in ${(ms / 1000).toFixed(1)}s, ${total} records (${formatRate(total, ms)})\n`);
  for (const [stream, c] of Object.entries(result.streams)) {
    const swept = result.swept[stream] ? `, ${result.swept[stream]} marked removed` : '';
    process.stdout.write(
      `  ${stream.padEnd(16)} ${String(c.records).padStart(9)} records${c.errors ? `, ${c.errors} errors` : ''}${c.truncated ? `, ${c.truncated} with a field truncated` : ''}${swept}\n`,
    );
  }
  // Older exports changed nothing: said, with the newer export that is the truth there.
  for (const sk of result.skipped ?? []) process.stdout.write(`  skipped ${terminalSafe(sk.file)}: ${terminalSafe(sk.reason)}\n`);
  if (result.error) process.stdout.write(`  error: ${terminalSafe(result.error)}\n`);
  for (const line of shortfallLines(run)) process.stdout.write(`${line}\n`);
}

interface SyncFlags {
  full?: boolean;
  allowLargeRemoval?: boolean;
}

async function syncHere(app: AppContext, g: GlobalOptions, name: string, { full, allowLargeRemoval }: SyncFlags): Promise<string> {
  const progress = progressWriter<SyncProgress>(
    !!process.stderr.isTTY,
    (s) => process.stderr.write(s),
    (p) => progressLine(p.stream, p.counts, p.elapsedMs),
  );
  const controller = new AbortController();
  const stop = () => controller.abort(new Error('interrupted by signal'));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const result = await runSync(app, name, {
    full,
    allowLargeRemoval,
    trigger: 'cli',
    signal: controller.signal,
    onStart: ({ mode, resumedFrom }) => {
      if (!g.json) process.stderr.write(`${mode} sync of '${name}'${resumedFrom ? ` (resuming interrupted run ${resumedFrom})` : ''}\n`);
    },
    onProgress: (p) => {
      if (!g.json) progress.update({ ...p, counts: structuredClone(p.counts) });
    },
  }).finally(() => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  });
  if (!g.json) progress.end();
  printSummary(g, await app.store.runs.get(result.runId), result);
  return result.status;
}

/** Hands the run to the job queue; waits for the job unless told not to. */
async function syncQueued(app: AppContext, g: GlobalOptions, name: string, { full, allowLargeRemoval }: SyncFlags, wait: boolean): Promise<string> {
  const source = await app.store.sources.get(name);
  // A worker could not open its secrets either: refuse here, in one line, rather than queue a failure.
  if (source.unreadableSecrets.length) throw unreadableSecretsError(source);
  const queue = await new SyncQueue(app).start();
  try {
    const jobId = await queue.enqueue(name, { full, allowLargeRemoval, trigger: 'cli' });
    if (!jobId) throw new InputError(`a sync of '${name}' is already queued; it will run when a worker is free`, 'name');
    if (!wait) {
      if (g.json) printJson({ jobId, status: 'queued' });
      else process.stdout.write(`queued sync of '${name}' as job ${jobId}\n`);
      return 'succeeded';
    }
    if (!g.json) process.stderr.write(`queued sync of '${name}' as job ${jobId}; waiting for a worker (Ctrl-C stops waiting, not the job)\n`);
    for (;;) {
      const job = await queue.job(jobId);
      if (!job) throw new Error(`job ${jobId} disappeared from the queue`);
      if (job.state === 'completed' || job.state === 'failed' || job.state === 'cancelled') {
        const source = await app.store.sources.get(name);
        const run = (await app.store.runs.list(source.id, 20)).find((r) => r.trigger?.endsWith(`job:${jobId}`));
        if (!run) {
          const output = job.output as { skipped?: string; message?: string } | null;
          throw new Error(
            `job ${jobId} ended ${job.state} without a run${output?.skipped ? `: ${output.skipped}` : output?.message ? `: ${output.message}` : ''}`,
          );
        }
        const status = run.status === 'running' ? 'failed' : run.status;
        printSummary(g, run, { status, streams: run.counts, error: run.error, swept: {} });
        return status;
      }
      await sleep(1000);
    }
  } finally {
    await queue.stop(false);
  }
}

export function registerSyncCommand(program: Command): void {
  program
    .command('sync <name>')
    .description('run one sync of a source now (or hand it to the job queue with --queue)')
    .option('--full', 'a full run (re-reads everything and marks what is gone as removed)')
    .option(
      '--allow-large-removal',
      'with --full: let the run mark removed (or fixed) more than the sweep guard allows, e.g. when the upstream really dropped most records',
    )
    .option('--queue', 'hand the run to the job queue (PostgreSQL mode) instead of running it here')
    .option('--no-wait', 'with --queue: return once the job is queued')
    .action(async (name: string, o: { full?: boolean; allowLargeRemoval?: boolean; queue?: boolean; wait: boolean }, cmd: Command) => {
      if (o.allowLargeRemoval && !o.full)
        throw new InputError('--allow-large-removal needs --full: only a fresh full run may remove what the last one could not confirm', 'allow-large-removal');
      const flags = { full: o.full, allowLargeRemoval: o.allowLargeRemoval };
      const g = globals(cmd);
      const log = openSyncLog(resolvePaths({ dataDir: g.dataDir, db: g.db }).dataDir, process.env.TRIBUTARY_LOG_LEVEL ?? 'warn');
      const status = await withApp(cmd, (app) => (o.queue ? syncQueued(app, g, name, flags, o.wait) : syncHere(app, g, name, flags)), 'warn', {
        log: log.log,
      }).finally(() => log.close());
      if (log.lines() > 0 && !g.json)
        process.stderr.write(`tributary: ${log.lines()} log line${log.lines() === 1 ? '' : 's'} (retries, warnings) in ${log.path}\n`);
      if (status !== 'succeeded') throw new ExitCode(1);
    });

  program
    .command('worker')
    .description('run queued and scheduled syncs (PostgreSQL mode; start any number, on any number of machines)')
    .option('--concurrency <n>', 'syncs run at once by this worker', '1')
    .action(async (o: { concurrency: string }, cmd: Command) => {
      const concurrency = Number(o.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
        throw new InputError('--concurrency must be a whole number from 1 to 64', 'concurrency');
      // Listen for SIGTERM before announcing readiness: a drain asked for at once still drains.
      const drain = new AbortController();
      const stopped = new Promise<void>((resolve) => {
        const stop = () => {
          drain.abort();
          resolve();
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await withApp(
        cmd,
        async (app) => {
          await removePartialLeftovers(app);
          await resumeDeliveries(app);
          const queue = await new SyncQueue(app).start();
          const scheduler = new Scheduler(app, {
            start: (name, so) => queue.enqueue(name, { trigger: so.trigger ?? 'schedule' }),
            tickMs: Number(app.env.TRIBUTARY_SCHEDULER_TICK_MS ?? 30_000),
          });
          await queue.work({ concurrency, drain: drain.signal });
          scheduler.start();
          process.stderr.write(`tributary: worker ready (concurrency ${concurrency}, pid ${process.pid})\n`);
          await stopped;
          process.stderr.write('tributary: worker draining: finishing the pages in flight\n');
          await scheduler.stop();
          await queue.stop(true);
        },
        'info',
        { requireReadableSecrets: true },
      );
    });
}
