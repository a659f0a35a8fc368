// Scheduled exports: destinations (a folder or an S3 prefix; one source or all; a format; full or
// changes-only) written after each successful sync of a source. They run after the run is recorded,
// beside the sync's caller, never inside the sync: a failed export is retried a few times, its status
// says why, and the next successful sync tries again (a changes-only export then covers both runs).
// Targets are confined (confine.ts) when added and again before each write.
import { join } from 'node:path';
import type { ExportContext } from './context.ts';
import type { ExportDestination, ExportStatus } from '../core/api-shapes.ts';
import { errorMessage, InputError } from '../core/errors.ts';
import { isModelName, type ModelName } from '../core/models.ts';
import { scrubSecrets } from '../core/secrets.ts';
import { type DestinationRecord, type ExportStatusRecord, type Since, sinceRun } from '../store/index.ts';
import { confineFolder, confineTarget } from './confine.ts';
import { checkModel, contentType, extension, type FormatOptions, modelsOf, parseFormat } from './formats/index.ts';
import { exportChunks } from './stream.ts';
import { exportFileName, writeExport } from './target.ts';

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

export interface DestinationInput {
  name: string;
  /** A source name; omitted or null for every source. */
  source?: string | null;
  /** A folder under the export root (a relative one is taken from there) or `s3://bucket/prefix`. */
  target: string;
  format: string;
  ocsfVersion?: string | null;
  ecsBulk?: boolean;
  /** Default: every model the format writes. */
  models?: string[];
  mode?: string;
}

function formatOf(d: Pick<DestinationRecord, 'format' | 'ocsfVersion' | 'ecsBulk'>): FormatOptions {
  return { ...parseFormat(d.format, d.ocsfVersion ?? undefined), ecsBulk: d.ecsBulk };
}

export async function addDestination(app: ExportContext, input: DestinationInput): Promise<DestinationRecord> {
  if (!NAME_RE.test(input.name ?? '')) throw new InputError(`invalid export name '${input.name}': use letters, digits, '.', '_' or '-' (up to 63)`, 'name');
  const source = input.source ? await app.store.sources.get(input.source) : null;
  const target = (input.target ?? '').trim();
  if (!target) throw new InputError('give the folder or s3://BUCKET/PREFIX to write to', 'target');
  const stored = await confineTarget(app, target);
  const fmt = { ...parseFormat(input.format, input.ocsfVersion ?? undefined), ecsBulk: input.ecsBulk === true };
  if (fmt.ecsBulk && fmt.format !== 'ecs') throw new InputError('ecsBulk goes with the ecs format', 'ecsBulk');
  const mode = input.mode ?? 'full';
  if (mode !== 'full' && mode !== 'changes') throw new InputError(`mode is full or changes, not '${mode}'`, 'mode');
  const models = input.models?.length ? input.models : modelsOf(fmt);
  for (const m of models) {
    if (!isModelName(m)) throw new InputError(`unknown model '${m}'`, 'models');
    checkModel(m, fmt);
  }
  return app.store.exports.createDestination({
    name: input.name,
    sourceId: source?.id ?? null,
    target: stored,
    format: fmt.format,
    ocsfVersion: fmt.format === 'ocsf' || fmt.format === 'ocsf-parquet' ? (fmt.ocsfVersion ?? '1.1.0') : null,
    ecsBulk: fmt.ecsBulk === true,
    models,
    mode,
  });
}

/** Destinations with their status per source, for `exports list`, the API and the UI. */
export async function describeDestinations(app: ExportContext, sourceName?: string): Promise<ExportDestination[]> {
  const sources = await app.store.sources.list();
  const nameOf = new Map(sources.map((s) => [s.id, s.name]));
  const source = sourceName ? await app.store.sources.get(sourceName) : null;
  const out: ExportDestination[] = [];
  for (const d of await app.store.exports.listDestinations(source?.id)) {
    const statuses = await app.store.exports.listStatuses({ destinationId: d.id, sourceId: source?.id });
    out.push({
      name: d.name,
      source: d.sourceId ? (nameOf.get(d.sourceId) ?? null) : null,
      target: d.target,
      format: d.format,
      ocsfVersion: d.ocsfVersion,
      ecsBulk: d.ecsBulk,
      models: d.models,
      mode: d.mode,
      createdAt: d.createdAt,
      status: statuses.map((s) => statusView(d.name, nameOf.get(s.sourceId) ?? s.sourceId, s)),
    });
  }
  return out;
}

function statusView(destination: string, source: string, s: ExportStatusRecord): ExportStatus {
  return {
    destination,
    source,
    status: s.status,
    runId: s.runId,
    attempts: s.attempts,
    startedAt: s.startedAt,
    finishedAt: s.finishedAt,
    records: s.records,
    files: s.files,
    error: s.error,
  };
}

/** The status lines of a source's exports (for `sources show` and the source page). */
export async function exportStatusesOf(app: ExportContext, sourceName: string): Promise<ExportStatus[]> {
  return (await describeDestinations(app, sourceName)).map(
    (d) =>
      d.status[0] ?? {
        destination: d.name,
        source: sourceName,
        status: 'never',
        runId: null,
        attempts: 0,
        startedAt: null,
        finishedAt: null,
        records: 0,
        files: [],
        error: null,
      },
  );
}

const attempts = (app: ExportContext) => Math.max(1, Number(app.env.TRIBUTARY_EXPORT_ATTEMPTS ?? 3));
const retryBaseMs = (app: ExportContext) => Number(app.env.TRIBUTARY_EXPORT_RETRY_MS ?? 2000);

/** Writes one destination's files for one source after `runId`; returns the files and the record count. */
async function writeDestination(
  app: ExportContext,
  d: DestinationRecord,
  source: { id: string; name: string },
  window: Since | null,
  at: Date,
  runId: string | null,
): Promise<{ files: string[]; records: number }> {
  const fmt = formatOf(d);
  const files: string[] = [];
  let records = 0;
  for (const m of d.models) {
    const model = m as ModelName;
    const q = { model, sourceIds: [source.id], since: window };
    // No file for a model with nothing to say (a scanner source has no tickets; a quiet day no changes).
    const probe = await app.store.records.query(model, { sourceIds: [source.id], limit: 1, changedSince: window });
    if (probe.records.length === 0) continue;
    let n = 0;
    const chunks = exportChunks(app, q, fmt, (p) => {
      n = p.records;
    });
    // The run's id in the name keeps two exports of one second apart.
    const tag = `${d.mode === 'changes' && window ? 'changes' : 'full'}${runId ? `-${runId.slice(0, 8)}` : ''}`;
    const name = exportFileName(model, extension(fmt.format), at, tag);
    // One folder (or key prefix) per source under the destination; a folder is checked again (a link
    // made since it was added, or a destination older than the export root).
    const out = d.target.startsWith('s3://') ? `${d.target.replace(/\/+$/, '')}/${source.name}/` : await confineFolder(app, join(d.target, source.name));
    const written = await writeExport(app, chunks, out, name, { folder: true, contentType: contentType(fmt.format) });
    files.push(written.location);
    records += n;
  }
  return { files, records };
}

/** Runs one destination for one source now, with retries; records the status. Never throws. */
export async function runDestination(
  app: ExportContext,
  d: DestinationRecord,
  source: { id: string; name: string },
  runId: string | null,
): Promise<ExportStatusRecord> {
  const log = app.log.child({ source: source.name, export: d.name });
  const previous = await app.store.exports.getStatus(d.id, source.id);
  const run = runId ? await app.store.runs.get(runId) : await app.store.runs.last(source.id, { complete: true });
  const window =
    d.mode === 'changes' && previous?.exportedRunId && previous.exportedRunStartedAt ? sinceRun(previous.exportedRunId, previous.exportedRunStartedAt) : null;
  const status: ExportStatusRecord = {
    destinationId: d.id,
    sourceId: source.id,
    status: 'running',
    runId: run?.id ?? null,
    exportedRunId: previous?.exportedRunId ?? null,
    exportedRunStartedAt: previous?.exportedRunStartedAt ?? null,
    attempts: 0,
    startedAt: new Date().toISOString(),
    finishedAt: null,
    records: 0,
    files: [],
    error: null,
  };
  const max = attempts(app);
  for (let attempt = 1; attempt <= max; attempt++) {
    status.attempts = attempt;
    await app.store.exports.putStatus(status);
    try {
      const { files, records } = await writeDestination(app, d, source, window, new Date(), run?.id ?? null);
      Object.assign(status, { status: 'succeeded', files, records, error: null, finishedAt: new Date().toISOString() });
      if (run) Object.assign(status, { exportedRunId: run.id, exportedRunStartedAt: run.startedAt });
      await app.store.exports.putStatus(status);
      log.info({ runId: status.runId, files, records }, 'scheduled export written');
      return status;
    } catch (err) {
      status.error = scrubSecrets(errorMessage(err));
      // A refused target stays refused: no retry.
      const retry = attempt < max && !(err instanceof InputError);
      log.warn({ runId: status.runId, attempt, err: status.error }, retry ? 'scheduled export failed; retrying' : 'scheduled export failed');
      if (!retry) break;
      await new Promise((r) => setTimeout(r, retryBaseMs(app) * 2 ** (attempt - 1)));
    }
  }
  Object.assign(status, { status: 'failed', finishedAt: new Date().toISOString() });
  await app.store.exports.putStatus(status).catch(() => {});
  return status;
}

/** Every destination that applies to a source, one after the other. Never throws. */
export async function runExportsFor(app: ExportContext, sourceName: string, runId: string | null): Promise<ExportStatusRecord[]> {
  try {
    const source = await app.store.sources.get(sourceName);
    const out: ExportStatusRecord[] = [];
    for (const d of await app.store.exports.listDestinations(source.id)) out.push(await runDestination(app, d, source, runId));
    return out;
  } catch (err) {
    app.log.error({ source: sourceName, err: errorMessage(err) }, 'scheduled exports could not run');
    return [];
  }
}

const pending = new WeakMap<ExportContext, Set<Promise<unknown>>>();

/**
 * Starts the scheduled exports of a source after its successful run, without waiting for them (the
 * sync's caller goes on; app.close() waits for them). Never throws.
 */
export function exportAfterSync(app: ExportContext, sourceName: string, runId: string): void {
  let set = pending.get(app);
  if (!set) {
    set = new Set();
    pending.set(app, set);
  }
  const p = runExportsFor(app, sourceName, runId);
  set.add(p);
  void p.finally(() => set.delete(p));
}

/** Waits for the scheduled exports this app started (before its store closes). */
export async function drainScheduledExports(app: ExportContext): Promise<void> {
  const set = pending.get(app);
  while (set && set.size > 0) await Promise.allSettled([...set]);
}
