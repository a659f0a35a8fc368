// The sync runner: runs a source's streams, stores each page with its checkpoint in one transaction,
// resumes an interrupted run from its checkpoints, counts per model, and sweeps (marks removed / fixed)
// only after a complete, successful full run (or within the scope a stream names), and only when the
// sweep guard agrees (src/sync/guard.ts). A run that rejected a file or could not store a row ends
// partial and lists them (shortfalls.ts).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SyncContext } from './context.ts';
import { type Connector, type Page, readsFiles, type ScopedSweep, type Stream, type StreamContext, type SyncMode } from '../core/connector.ts';
import { ConflictError, errorMessage, InputError, UpstreamError } from '../core/errors.ts';
import type { ModelName } from '../core/models.ts';
import { alertAfterSync } from '../alerts/index.ts';
import { exportAfterSync } from '../export/schedule.ts';
import { openSourceBucket, skippedByRun } from '../filedrop/imports.ts';
import { scrubSecrets } from '../core/secrets.ts';
import { configError } from '../core/config.ts';
import { correlateAfterRun, prioritiesAfterRun, refreshSummariesAfterRun } from './correlate.ts';
import { ticketsAfterSync } from '../tickets/after-sync.ts';
import { RunLog } from './run-log.ts';
import { Shortfalls } from './shortfalls.ts';
import {
  nowIso,
  readEveryStream,
  RecordIdSet,
  type RunRecord,
  type RunShortfalls,
  type RunStatus,
  type SourceRecord,
  type StreamCounts,
  unreadableSecretsError,
} from '../store/index.ts';
import {
  PageRepeatGuard,
  pageBudgetMessage,
  readBaseline,
  readGuard,
  guardScopes,
  isScopedSweep,
  refusedSweeps,
  runDeadlineMessage,
  runDeadlineMs,
  streamPageBudget,
  type SyncBaseline,
  scopeRefusalMessage,
  sweepRefusalMessage,
} from './guard.ts';
import { backoffMs, retryPolicy } from '../core/retry.ts';
import { limitRecordsDepth, MAX_JSON_DEPTH } from '../core/json-depth.ts';

export interface SyncOptions {
  /** Force a fresh full run (also abandons an interrupted run's checkpoints, unless `resume`). */
  full?: boolean;
  /** Resume an interrupted run even when `full` is asked (a queued job retried after its worker died). */
  resume?: boolean;
  /** Let a full run's sweep remove what the sweep guard would refuse (`sync --full --allow-large-removal`). */
  allowLargeRemoval?: boolean;
  trigger?: string;
  /** Hard stop: upstream calls in flight are aborted; the run ends partial or failed. */
  signal?: AbortSignal;
  /**
   * Graceful stop (a worker draining on SIGTERM): the page in flight is fetched and stored with its
   * checkpoint, then the run ends 'interrupted' and the next run resumes from there.
   */
  drain?: AbortSignal;
  onProgress?: (p: SyncProgress) => void;
  /** Called once the run is recorded, before any upstream call (lets the API answer 202 with the id). */
  onStart?: (run: { runId: string; mode: SyncMode; resumedFrom: string | null }) => void;
}

export interface SyncProgress {
  runId: string;
  stream: string;
  counts: Record<string, StreamCounts>;
  elapsedMs: number;
}

export interface SyncResult {
  runId: string;
  status: Exclude<RunStatus, 'running'>;
  mode: SyncMode;
  resumedFrom: string | null;
  streams: Record<string, StreamCounts>;
  swept: Record<string, number>;
  error: string | null;
  /** Files rejected and rows not stored (any of them makes the run partial). */
  shortfalls: RunShortfalls;
  /** File mode: exports skipped as older than one already imported for their scope (they changed nothing). */
  skipped?: { file: string; reason: string }[];
}

/** How old a heartbeat may be before a run held by another machine counts as dead. */
const staleHeartbeatMs = () => Number(process.env.TRIBUTARY_STALE_RUN_MS ?? 90_000);
const HEARTBEAT_MS = 5_000;
/** Stored progress (counts) is refreshed after a page at most this often. */
const PROGRESS_MS = 1_000;
/** A full run is forced when the last successful one is older than this, so sweeps keep happening. */
const fullEveryMs = () => Number(process.env.TRIBUTARY_FULL_EVERY_MS ?? 7 * 24 * 3600_000);

/** Thrown inside the page loop when a drain was asked for and the page in flight is stored. */
class DrainedError extends Error {}

export const processOwner = (): string => `${hostname()}:${process.pid}`;

function ownerIsDead(owner: string | null): boolean {
  if (!owner) return false;
  const i = owner.lastIndexOf(':');
  if (owner.slice(0, i) !== hostname()) return false;
  const pid = Number(owner.slice(i + 1));
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function isStale(run: RunRecord): boolean {
  if (ownerIsDead(run.owner)) return true;
  const beat = Date.parse(run.heartbeatAt ?? run.startedAt);
  return Date.now() - beat > staleHeartbeatMs();
}

export function parseSourceConfig(connector: Connector, source: SourceRecord): Record<string, unknown> {
  if (source.unreadableSecrets.length) throw unreadableSecretsError(source);
  const parsed = connector.configSchema.safeParse(source.config);
  if (!parsed.success) throw configError(parsed.error, `source '${source.name}': `);
  return parsed.data;
}

/** Streams of a connector must not share models (the sweep and the counts are per model) and write only the models it declares. */
function checkStreams(streams: Stream[], connector: Connector): void {
  const seen = new Map<ModelName, string>();
  for (const s of streams) {
    for (const m of s.models) {
      if (connector.models && !connector.models.includes(m))
        throw new Error(`connector bug: stream '${s.name}' writes ${m}, which connector '${connector.type}' does not declare in its models`);
      const other = seen.get(m);
      if (other) throw new Error(`connector bug: streams '${other}' and '${s.name}' both write ${m}`);
      seen.set(m, s.name);
    }
  }
}

export async function runSync(app: SyncContext, sourceName: string, opts: SyncOptions = {}): Promise<SyncResult> {
  const { store } = app;
  const source = await store.sources.get(sourceName);
  const connector = app.registry.get(source.type);
  const config = parseSourceConfig(connector, source);
  // The run's log also keeps its retries, 429s and latest lines for the run's page (run-log.ts).
  const runLog = new RunLog();
  const log = runLog.tap(app.log.child({ source: source.name }));

  // One run per source at a time; a run whose process died is closed and resumed.
  const active = await store.runs.active(source.id);
  if (active) {
    if (!isStale(active)) throw new ConflictError(`a sync of '${source.name}' is already running (run ${active.id}, started ${active.startedAt})`);
    await store.runs.finish(active.id, 'interrupted', active.counts, 'interrupted: the process running it stopped before it finished', active.activity);
    log.warn({ runId: active.id }, 'previous run was interrupted; resuming from its checkpoints');
  }

  const checkpoints = await store.runs.checkpoints(source.id);
  const last = await store.runs.last(source.id);
  const sourceState = await store.sources.getState(source.id);
  const baseline = readBaseline(sourceState);
  // A full run whose sweep was refused is not resumed (its streams are complete) and the next run is
  // full again: its checkpoints came from an upstream that answered with too little to trust.
  const refused = readGuard(sourceState);
  // A run that stored anything and did not read every stream is resumed: streams it completed are
  // skipped, the others go on from their checkpoints (or start, when it stopped between two streams).
  const resumable =
    (!opts.full || opts.resume) &&
    last &&
    !readEveryStream(last) &&
    last.status !== 'running' &&
    last.generation !== refused?.refusedGeneration &&
    [...checkpoints.values()].some((c) => c.generation === last.generation);
  let mode: SyncMode;
  let generation: string;
  let resumedFrom: string | null = null;
  if (resumable && last) {
    mode = last.mode;
    generation = last.generation;
    resumedFrom = last.id;
  } else {
    const lastFull = await store.runs.last(source.id, { complete: true, mode: 'full' });
    const fullDue = !lastFull || Date.now() - Date.parse(lastFull.startedAt) > fullEveryMs();
    mode = opts.full || fullDue || refused ? 'full' : 'incremental';
    generation = randomUUID();
  }

  const runId = randomUUID();
  const started = Date.now();
  await store.runs.create({
    id: runId,
    sourceId: source.id,
    mode,
    generation,
    resumedFrom,
    trigger: opts.trigger ?? 'manual',
    owner: processOwner(),
    startedAt: nowIso(),
  });
  log.info({ runId, mode, resumedFrom }, 'sync started');
  opts.onStart?.({ runId, mode, resumedFrom });

  const counts: Record<string, StreamCounts> = {};
  /** Ids this run stored: progress counts distinct records, the figures the summary ends with. */
  const stored = new RecordIdSet();
  /** A page write or a stream failed (a write whose commit was not answered may have stored a page progress did not count): the end counts the store. */
  let recount = false;
  /** Streams that said what to sweep (Page.sweep); the others follow the run's mode. */
  const sweepSaid = new Map<string, NonNullable<Page['sweep']>>();
  const streamErrors: string[] = [];
  const shortfalls = new Shortfalls();
  let failedStreams = 0;
  let streams: Stream[] = [];
  const abort = new AbortController();
  const onAbort = () => abort.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const deadlineMs = runDeadlineMs();
  let pastDeadline = false;
  const deadline = setTimeout(() => {
    pastDeadline = true;
    abort.abort(new Error(runDeadlineMessage(deadlineMs)));
  }, deadlineMs);
  deadline.unref();
  /** Pages each stream read in this run, against its page budget. */
  const pagesRead: Record<string, number> = {};
  const beat = setInterval(() => {
    store.runs.heartbeat(runId, counts, runLog.activity).catch((err) => log.warn({ err: errorMessage(err) }, 'heartbeat failed'));
  }, HEARTBEAT_MS);
  beat.unref();

  let lastBeat = Date.now();
  /**
   * One function for the run: a connector may keep what it read through it while nothing changes it (its
   * own pages say when). It reads the source's stored hosts a page at a time, with only the fields asked for.
   */
  const knownHosts = (fields: readonly string[]) => store.records.knownHostPages(source.id, fields);
  const knownHostsByKey = (keys: string[]) => store.records.knownHostsByKey(source.id, source.name, keys);
  let indexesBuilt: Promise<void> = Promise.resolve();
  const stamp = () => ({ sourceId: source.id, sourceName: source.name, runId, generation, now: nowIso() });
  const state = {
    get: () => store.sources.getState(source.id),
    set: async (patch: Record<string, unknown>) => store.sources.setState(source.id, { ...(await store.sources.getState(source.id)), ...patch }),
  };

  try {
    // File-mode sources read their bucket; a full run re-reads every file version it holds.
    const bucket = readsFiles(connector, config)
      ? openSourceBucket(app, source, { runId, reimport: mode === 'full', onRecorded: (r) => shortfalls.fileRecorded(r) })
      : undefined;
    streams = connector.streams(config, { sourceName: source.name, log, state, signal: abort.signal, bucket });
    checkStreams(streams, connector);
    for (const s of streams) for (const m of s.models) counts[m] = { records: 0, errors: 0 };

    for (const stream of streams) {
      if (abort.signal.aborted || opts.drain?.aborted) break;
      const cp = checkpoints.get(stream.name);
      const sameGen = cp?.generation === generation;
      if (resumedFrom && sameGen && cp?.complete) continue;
      const resumed = Boolean(resumedFrom && sameGen && cp && !cp.complete);
      const checkpoint = resumed ? cp!.value : mode === 'incremental' && cp?.complete ? cp.value : null;
      let lastValue: unknown = checkpoint;
      let startedFrom = { checkpoint, resumed };
      const budget = streamPageBudget(baseline?.pages[stream.name]);
      pagesRead[stream.name] = 0;
      try {
        // A transient upstream failure mid-stream restarts the stream from its last stored page.
        for (let attempt = 1; ; attempt++) {
          // One page is stored while the stream reads the next (the upstream, or the CPU for a file, is
          // busy meanwhile); at most one write is in flight, so pages are stored in order, and a page's
          // checkpoint counts only once its write is done.
          let inFlight: Promise<void> | null = null;
          const flush = async (): Promise<void> => {
            const p = inFlight;
            inFlight = null;
            if (p) await p;
          };
          const storePage = async (page: Page): Promise<void> => {
            // Before the write: a field nested deeper than the store can serialise is cut, and counted.
            for (const [m, n] of Object.entries(limitRecordsDepth(page.records))) {
              counts[m] ??= { records: 0, errors: 0 };
              counts[m].truncated = (counts[m].truncated ?? 0) + n;
            }
            const written = await store.records.writePage(stamp(), stream.name, mode, page.records, { value: page.checkpoint, complete: false }, stored);
            lastValue = page.checkpoint;
            for (const [m, n] of Object.entries(written)) {
              counts[m] ??= { records: 0, errors: 0 };
              counts[m].records += n;
            }
            // Rows that could not be stored count as errors of the model each was for.
            const failures = page.failures ?? [];
            for (const f of failures) {
              const m = f.model ?? stream.models[0]!;
              counts[m] ??= { records: 0, errors: 0 };
              counts[m].errors++;
            }
            if (page.errors && page.errors > failures.length) counts[stream.models[0]].errors += page.errors - failures.length;
            if (failures.length > 0) shortfalls.rowsFailed(stream.models[0], failures);
            if (page.sweep !== undefined) sweepSaid.set(stream.name, page.sweep);
            startedFrom = { checkpoint: lastValue, resumed: true };
            opts.onProgress?.({ runId, stream: stream.name, counts, elapsedMs: Date.now() - started });
            // Progress is visible to the API/UI whichever process runs the sync.
            if (Date.now() - lastBeat >= PROGRESS_MS) {
              lastBeat = Date.now();
              await store.runs.heartbeat(runId, counts, runLog.activity);
            }
          };
          const repeats = bucket ? null : new PageRepeatGuard();
          const ctx: StreamContext = {
            sourceName: source.name,
            log: log.child({ stream: stream.name }),
            state,
            signal: abort.signal,
            bucket,
            mode,
            ...startedFrom,
            flush,
            knownHosts,
            knownHostsByKey,
          };
          try {
            for await (const page of stream.read(ctx)) {
              if (abort.signal.aborted) throw new Error('sync cancelled');
              pagesRead[stream.name] = (pagesRead[stream.name] ?? 0) + 1;
              if (pagesRead[stream.name]! > budget.pages) throw new UpstreamError(pageBudgetMessage(stream.name, budget));
              repeats?.check(page.records);
              await flush();
              if (opts.drain?.aborted) throw new DrainedError();
              inFlight = storePage(page);
              // Awaited by the next flush; this only keeps a failure from counting as unhandled meanwhile.
              inFlight.catch(() => {});
            }
            await flush();
            break;
          } catch (err) {
            recount = true;
            // The page in flight is stored first (its failure, if any, replaces this error).
            await flush();
            // The retry policy (core/retry.ts) states the budget: a restart follows a call that already
            // backed off, so restart n waits like that call's retry n + 1.
            const policy = retryPolicy();
            const waitMs = attempt >= policy.streamAttempts || abort.signal.aborted ? null : backoffMs(policy, attempt + 1, err);
            if (waitMs === null) throw err;
            log.warn(
              {
                runId,
                stream: stream.name,
                attempt,
                waitMs: Math.round(waitMs),
                status: err instanceof UpstreamError ? err.status : null,
                err: errorMessage(err),
              },
              'transient upstream error; restarting the stream from its last page',
            );
            await sleep(waitMs, undefined, { signal: abort.signal }).catch(() => {});
          }
        }
        await store.records.writePage(stamp(), stream.name, mode, {}, { value: lastValue, complete: true });
        log.info({ runId, stream: stream.name }, 'stream complete');
        // A first import's tables of this stream are complete: their deferred indexes are built while the
        // next streams are read (the run's end waits for them, finishBulkLoad).
        store.records
          .buildStreamIndexes(runId, stream.models)
          .catch((err) => log.warn({ runId, stream: stream.name, err: errorMessage(err) }, 'deferred indexes not built yet; the run builds them at its end'));
      } catch (err) {
        if (err instanceof InputError) throw err;
        recount = true;
        if (err instanceof DrainedError) break;
        failedStreams++;
        for (const m of stream.models) counts[m].errors += 1;
        const hint = err instanceof UpstreamError && err.hint ? ` (${err.hint})` : '';
        streamErrors.push(`${stream.name}: ${errorMessage(err)}${hint}`);
        log.error({ runId, stream: stream.name, err: errorMessage(err) }, 'stream failed');
        if (abort.signal.aborted) break;
      }
    }
  } catch (err) {
    recount = true;
    failedStreams = Math.max(failedStreams, 1);
    streamErrors.push(errorMessage(err));
    log.error({ runId, err: errorMessage(err) }, 'sync failed');
  } finally {
    clearInterval(beat);
    clearTimeout(deadline);
    opts.signal?.removeEventListener('abort', onAbort);
    // A first import's deferred indexes: on SQLite they are built beside the epilogue below (by the
    // page writer's thread), and the run ends once they are all there.
    // An index that could not be built keeps its note (bulk-load.ts): the next run or process start
    // builds it. The records are stored, so the run's outcome does not depend on it.
    const unbuilt = (err: unknown) => log.warn({ runId, err: errorMessage(err) }, 'deferred indexes not built yet; the next run or start builds them');
    try {
      indexesBuilt = (await store.records.finishBulkLoad(runId)).built.catch(unbuilt);
    } catch (err) {
      unbuilt(err);
    }
  }

  // Distinct records this run stamped: as progress counted them (each id once, after its page's commit),
  // unless a write or a stream failed, when the store is counted (a scan of each model's records of the
  // source: issue 30, a second of an incremental run at a million findings); a resumed run adds what the
  // attempts it resumed stored (streams they completed are not read again).
  for (const m of Object.keys(counts) as ModelName[])
    if (resumedFrom) counts[m].records = await store.records.countStampedByGeneration(source.id, m, generation);
    else if (recount) counts[m].records = await store.records.countStamped(source.id, m, runId);

  const truncated = Object.values(counts).reduce((n, c) => n + (c.truncated ?? 0), 0);
  if (truncated > 0)
    log.warn({ runId, truncated }, `${truncated} rows had fields truncated (nested deeper than ${MAX_JSON_DEPTH} levels); they are stored with the field cut`);
  const cancelled = abort.signal.aborted;
  const drained = !cancelled && opts.drain?.aborted === true;
  if (cancelled) streamErrors.push(pastDeadline ? runDeadlineMessage(deadlineMs) : 'sync cancelled before it finished');
  if (drained) streamErrors.push('stopped after storing the page in flight; the next run resumes from its checkpoint');
  let status: SyncResult['status'] = failedStreams === 0 && !cancelled ? 'succeeded' : failedStreams >= streams.length ? 'failed' : 'partial';
  if (drained && failedStreams === 0) status = 'interrupted';
  let swept: Record<string, number> = {};
  if (status === 'succeeded') {
    // A model with a row the run could not store is not swept: that row's record may be any of its records.
    // (A stream that sweeps within scopes leaves out the scopes of such rows itself: filedrop/csv/scopes.ts.)
    const sure = (m: ModelName) => !shortfalls.failedModels.has(m);
    const sweepModels = streams
      .flatMap((s) => {
        const said = sweepSaid.get(s.name);
        if (said === undefined) return mode === 'full' ? s.models : [];
        if (typeof said === 'boolean') return said ? s.models : [];
        if (!Array.isArray(said)) return [];
        return s.models.filter((m) => (said as unknown[]).includes(m));
      })
      .filter(sure);
    // Streams that cover part of the source (file snapshots) sweep within their scopes, each scope
    // under the guard on its own (a scope whose snapshot looks truncated is left as it was).
    const scopedSaid = streams.flatMap((s) => {
      const said = sweepSaid.get(s.name);
      const list: ScopedSweep[] = !said || typeof said !== 'object' ? [] : Array.isArray(said) ? said.filter(isScopedSweep) : [said];
      return list.flatMap((x) => {
        const models = s.models.filter((m) => x.models.includes(m));
        return models.length > 0 ? [{ models, scope: x.scope }] : [];
      });
    });
    const { scoped, refused: scopeRefusals } = await guardScopes(
      (models, scope) => store.records.scopedSweepPreview(source.id, models, generation, scope, runId),
      scopedSaid,
      opts.allowLargeRemoval === true,
    );
    const preview = sweepModels.length > 0 ? await store.records.sweepPreview(source.id, sweepModels, generation) : {};
    const lastFull = baseline ?? (await store.runs.last(source.id, { complete: true, mode: 'full' }));
    const lastRecords = lastFull
      ? 'pages' in lastFull
        ? lastFull.records
        : Object.fromEntries(Object.entries(lastFull.counts).map(([m, c]) => [m, c.records]))
      : null;
    const refusals = refusedSweeps(preview, lastRecords);
    if (refusals.length > 0 && !opts.allowLargeRemoval) {
      status = 'partial';
      streamErrors.push(sweepRefusalMessage(refusals));
      log.warn({ runId, refusals }, 'sweep refused');
      await state.set({ syncGuard: { refusedGeneration: generation } });
    } else {
      if (refusals.length > 0 || scopeRefusals.length > 0)
        log.warn({ runId, refusals: [...refusals, ...scopeRefusals] }, opts.allowLargeRemoval ? 'large removal allowed by the user' : 'sweep refused');
      // The sweep's events in the change feed are this run's, at one time.
      const by = { runId, at: nowIso() };
      if (sweepModels.length > 0) swept = await store.records.sweep(source.id, sweepModels, generation, undefined, by);
      for (const { models, scope } of scoped)
        for (const [m, n] of Object.entries(await store.records.sweep(source.id, models, generation, scope, by))) swept[m] = (swept[m] ?? 0) + n;
      if (scopeRefusals.length > 0 && !opts.allowLargeRemoval) {
        // The other scopes are swept; the refused ones wait for a confirmed full run.
        status = 'partial';
        streamErrors.push(scopeRefusalMessage(scopeRefusals));
        await state.set({ syncGuard: { refusedGeneration: generation } });
      } else if (mode === 'full') {
        const records = Object.fromEntries(Object.entries(preview).map(([m, p]) => [m, p.seen]));
        for (const m of Object.keys(counts)) records[m] ??= counts[m]!.records;
        const next: SyncBaseline = { runId, at: nowIso(), records, pages: { ...baseline?.pages, ...pagesRead } };
        await state.set({ syncBaseline: next, syncGuard: null });
      }
    }
  }
  // A run that rejected a file or could not store a row says so by its status. It read every stream (it
  // names no error), so it swept as a complete run does (but for the models of those rows), and the next
  // run does not resume it.
  if (shortfalls.any) {
    log.warn({ runId, ...shortfalls.value }, `${shortfalls.describe()}; the run lists them`);
    if (status === 'succeeded') status = 'partial';
  }
  // The run's epilogue: the summary tables follow what every run stored, swept or fixed (summaries.ts);
  // before correlation, whose full pass reads the hosts' open findings from them.
  // After an incremental run that swept nothing, only the groups of what it stamped (the store checks the rest).
  const sweptAny = Object.values(swept).some((n) => n > 0);
  await refreshSummariesAfterRun(store, source.id, runId, log, mode === 'incremental' && !sweptAny);
  // What a partial run stored stays stored: it is correlated too.
  if (status === 'succeeded' || status === 'partial') {
    await correlateAfterRun(store, source.id, runId, swept, log);
    await prioritiesAfterRun(store, runId, log);
    // Remediation tickets follow the correlated findings (issue 32): a ticket write never fails the run.
    await ticketsAfterSync(app, runId, log);
  }
  await indexesBuilt;
  const error = streamErrors.length ? scrubSecrets(streamErrors.join('; ')) : null;
  log.info({ runId, status, counts, swept, ms: Date.now() - started }, 'sync finished');
  await store.runs.finish(runId, status, counts, error, runLog.activity, shortfalls.value);
  // Scheduled exports follow a run that read every stream; they run beside the caller and never change the run.
  if (readEveryStream({ status, error })) exportAfterSync(app, source.name, runId);
  // Alert rules are evaluated beside the caller too (a failed or partial run, findings it made known exploited…).
  alertAfterSync(app, { id: runId, source: source.name, status, error });
  const skipped = readsFiles(connector, config) ? await skippedByRun(app, source.id, runId).catch(() => []) : [];
  return { runId, status, mode, resumedFrom, streams: counts, swept, error, shortfalls: shortfalls.value, ...(skipped.length > 0 ? { skipped } : {}) };
}
