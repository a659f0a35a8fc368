// Planning a file-mode run (docs/csv-import.md): which files it reads, in which order, which rows of
// older snapshots later ones cover; the checkpoint that carries the plan; and the file-mode check.
import { hash } from 'node:crypto';
import { z } from 'zod';
import type { CheckResult, Page, StreamContext } from '../../core/connector.ts';
import type { BucketObject, FileImportResult, FileImportStatus, FileScope, RejectedRow, SourceBucket } from '../../core/files.ts';
import { MODEL_NAMES, type ModelName } from '../../core/models.ts';
import { detectKind, type Detection, type FileKind } from './columns.ts';
import { CsvFormatError, isBlankRecord, readCsv } from './reader.ts';
import { exportTimeOf, type KindSweep, type KnownExport, type NewerExport, newerExports, olderMessage, scopeOfObject, whollyCovered } from './scopes.ts';
import type { RowLimits } from './stream.ts';

/** Rejected rows kept per file (rowsRejected has the total); the bookkeeping keeps as many. */
export const MAX_REJECTIONS = 1000;

export interface FileStreamOptions {
  name: string;
  models: ModelName[];
  /** Accepted export kinds, in the order a snapshot's files are read. */
  kinds: FileKind[];
  /** The upstream, for messages (the connector's short name). */
  what: string;
  /** CSV rows per page (one transaction each); default FILE_PAGE_ROWS. */
  pageRows?: number;
  /** Caps on one row; default rowLimits() from the environment. */
  limits?: RowLimits;
  /**
   * Called once per read, before any file, with the map the kinds' mappers share: e.g. to seed it with
   * what the store already holds (the hosts earlier runs stored, so rows find them).
   */
  prepare?: (ctx: StreamContext, shared: Map<string, unknown>) => Promise<void>;
}

export interface PlannedFile {
  key: string;
  etag: string;
  size: number;
  kind: string;
  /** Short id of the key, stored with the records read from it (IncomingRecord.origin). */
  origin: string;
  /** Scope values a newer export covers (this run's or an earlier import): rows naming one are skipped (the newer export is the truth there). */
  covered: string[];
  /** A newer export of the same file name was imported: rows naming no scope value are skipped. */
  fileCovered?: boolean;
  /** The newer exports behind `covered` and `fileCovered`, for the message. */
  newer?: NewerExport[];
  /** Its export time: the date in its file name, else its upload time. */
  exportedAt?: string;
  /** Read for the state its rows leave to later files (the host index) alone: nothing stored, no import recorded. */
  indexOnly?: boolean;
}

export interface Position {
  /** Index into files. */
  file: number;
  /** Records after the header consumed so far (blank ones included). */
  records: number;
  rowsRead: number;
  rowsImported: number;
  rowsRejected: number;
  /** Rows not imported because a later snapshot covers their scope. */
  rowsSkipped: number;
  rejections: RejectedRow[];
  /** Scope values the file's imported rows named (FileKind.scope). */
  scope: string[];
  /** Scope values named by rows imported or rejected (a file with rejected rows sweeps none of them). */
  named?: string[];
  /** Imported rows naming no scope value (they are in the file name's scope). */
  unscoped?: number;
  /** The file's last page is stored; only its import record may be missing. */
  complete: boolean;
}

export interface FileCheckpoint {
  v: 2;
  files: PlannedFile[];
  /** A full run: it sweeps, within the scope of what it read, if every file reads clean. */
  full: boolean;
  at: Position;
  /** Per kind: rows imported and rejected of the files read so far. */
  stats: Record<string, { imported: number; rejected: number }>;
  /** Scope values of the files read so far. */
  scope: string[];
  /** Per kind: the scopes its clean files covered so far (scopes.ts). */
  sweeps?: Record<string, KindSweep>;
  /** Set on the last page: what this run sweeps. */
  swept?: NonNullable<Page['sweep']>;
}

const count = z.number().int().nonnegative();
const models = z.array(z.enum(MODEL_NAMES));
const strings = z.array(z.string());
const scopedSweep = z.object({
  models,
  scope: z.object({
    origins: strings,
    originKeys: strings.optional(),
    hostField: z.object({ name: z.string(), values: strings }).optional(),
  }),
});

/** The file stream's checkpoint, as stored: read back through this schema (core/checkpoint.ts). */
export const fileCheckpointSchema: z.ZodType<FileCheckpoint> = z.object({
  v: z.literal(2),
  files: z.array(
    z.object({
      key: z.string(),
      etag: z.string(),
      size: count,
      kind: z.string(),
      origin: z.string(),
      covered: z.array(z.string()),
      fileCovered: z.boolean().optional(),
      newer: z.array(z.object({ repository: z.string().nullable(), key: z.string(), at: z.string() })).optional(),
      exportedAt: z.string().optional(),
      indexOnly: z.boolean().optional(),
    }),
  ),
  full: z.boolean(),
  at: z.object({
    file: count,
    records: count,
    rowsRead: count,
    rowsImported: count,
    rowsRejected: count,
    rowsSkipped: count,
    rejections: z.array(z.object({ line: z.number(), reason: z.string() })),
    scope: z.array(z.string()),
    named: strings.optional(),
    unscoped: count.optional(),
    complete: z.boolean(),
  }),
  stats: z.record(z.string(), z.object({ imported: count, rejected: count })),
  scope: z.array(z.string()),
  sweeps: z.record(z.string(), z.object({ repos: strings, origins: strings, originKeys: strings, tainted: strings })).optional(),
  swept: z.union([z.boolean(), models, scopedSweep, z.array(scopedSweep)]).optional(),
});

type Sniffed = { obj: BucketObject; detection: Detection };

/** The origin records read from an object carry: 12 hex digits of its key's hash. */
export function originOf(key: string): string {
  return hash('sha256', key, 'hex').slice(0, 12);
}

/** Reads just the header of an object and says which export it is. */
export async function sniffObject(bucket: SourceBucket, obj: BucketObject, kinds: FileKind[], what: string): Promise<Detection> {
  if (obj.size === 0) return { ok: false, reason: 'the file is empty' };
  const input = await bucket.open(obj.key);
  try {
    for await (const batch of readCsv(input)) {
      for (const rec of batch) {
        if (isBlankRecord(rec.fields)) continue;
        return detectKind(rec.fields, kinds, what);
      }
    }
    return { ok: false, reason: 'the file is empty (no header row)' };
  } catch (err) {
    if (err instanceof CsvFormatError) return { ok: false, reason: err.message };
    throw err;
  } finally {
    input.destroy();
  }
}

export function result(
  obj: Pick<PlannedFile, 'key' | 'etag' | 'size'>,
  kind: string | null,
  p: Pick<Position, 'rowsRead' | 'rowsImported' | 'rowsRejected' | 'rejections'>,
  error: string | null = null,
): FileImportResult {
  let status: FileImportStatus = 'imported';
  if (error !== null) status = 'rejected';
  else if (p.rowsRejected > 0) status = p.rowsImported > 0 ? 'partial' : 'rejected';
  if (status === 'rejected' && error === null) error = `every row was rejected (${p.rowsRejected}); see the rejected rows`;
  return {
    key: obj.key,
    etag: obj.etag,
    size: obj.size,
    kind,
    rowsRead: p.rowsRead,
    rowsImported: p.rowsImported,
    rowsRejected: p.rowsRejected,
    rejections: p.rejections.slice(0, MAX_REJECTIONS),
    status,
    error,
  };
}

export const emptyPos = (file: number): Position => ({
  file,
  records: 0,
  rowsRead: 0,
  rowsImported: 0,
  rowsRejected: 0,
  rowsSkipped: 0,
  rejections: [],
  scope: [],
  named: [],
  unscoped: 0,
  complete: false,
});

async function listAll(bucket: SourceBucket): Promise<BucketObject[]> {
  const out: BucketObject[] = [];
  for await (const o of bucket.list()) out.push(o);
  // Oldest first; the key breaks ties so the order is stable.
  out.sort((a, b) => Date.parse(a.lastModified) - Date.parse(b.lastModified) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return out;
}

/**
 * Works out what this run reads (docs/csv-import.md): every new file (on a full run every file), by
 * kind, oldest snapshot first. Each export is the whole state of its scope: rows in a scope a newer
 * export covers (of another snapshot, read now or imported earlier) are skipped, and a new file all of
 * whose scope is so covered is recorded `skipped` (older: it changes nothing). Files that are no export
 * are recorded as rejected at once (nothing of them is stored).
 */
export async function plan(bucket: SourceBucket, opts: FileStreamOptions, ctx: StreamContext): Promise<FileCheckpoint> {
  const objs = await listAll(bucket);
  const fresh: (Sniffed & { kind: FileKind; snapshot: string; at: string; seenBefore: boolean })[] = [];
  const imported: BucketObject[] = [];
  // Files first imported by an earlier run belong to its snapshot; new ones to this run's (the latest).
  const THIS_RUN = '';
  const LATEST = '9999';
  for (const o of objs) {
    if (await bucket.isImported(o)) {
      imported.push(o);
      continue;
    }
    const detection = await sniffObject(bucket, o, opts.kinds, opts.what);
    if (!detection.ok) {
      // Not an export: maybe a file the service imports itself (an offline feed), now and once.
      if (bucket.importOther && (await bucket.recogniseOther?.(o))) {
        const r = await bucket.importOther(o);
        if (r.status === 'rejected') ctx.log.warn({ key: o.key, reason: r.error }, 'file rejected');
        await bucket.recordImport(r);
        continue;
      }
      const reason = bucket.otherKinds ? `${detection.reason}; nor is it ${bucket.otherKinds}` : detection.reason;
      ctx.log.warn({ key: o.key, reason }, 'file rejected');
      await bucket.recordImport(result(o, null, { rowsRead: 0, rowsImported: 0, rowsRejected: 0, rejections: [] }, reason));
      continue;
    }
    const snap = await bucket.snapshotOf(o);
    fresh.push({ obj: o, detection, kind: detection.match.kind, snapshot: snap?.run ?? THIS_RUN, at: snap?.at ?? LATEST, seenBefore: snap !== null });
  }
  // A snapshot's place in time: when its first file was imported.
  const snapAt = new Map<string, string>();
  for (const f of fresh) if (!snapAt.has(f.snapshot) || f.at < snapAt.get(f.snapshot)!) snapAt.set(f.snapshot, f.at);
  const order = (a: (typeof fresh)[number], b: (typeof fresh)[number]) =>
    snapAt.get(a.snapshot)!.localeCompare(snapAt.get(b.snapshot)!) || (a.snapshot < b.snapshot ? -1 : a.snapshot > b.snapshot ? 1 : 0);
  // Groups with new files but none that builds the host index (a host list alone): the group's
  // imported exports that build it are read again for that state (the host index), storing nothing.
  const indexGroups = new Set(fresh.map((f) => f.kind.group));
  for (const f of fresh) if (f.kind.hostIndex) indexGroups.delete(f.kind.group);
  const indexOnly: Sniffed[] = [];
  if (indexGroups.size > 0) {
    for (const o of imported) {
      const detection = await sniffObject(bucket, o, opts.kinds, opts.what);
      if (detection.ok && indexGroups.has(detection.match.kind.group) && detection.match.kind.hostIndex) indexOnly.push({ obj: o, detection });
    }
  }
  // What each export covers and when it was made: stored for earlier imports; a full run reading
  // several snapshots reads the others' scopes ahead.
  const stored = (await bucket.importedExports?.()) ?? [];
  const storedOf = new Map(stored.map((e) => [`${e.key}\u0000${e.etag}`, e]));
  const known: KnownExport[] = [...stored];
  const snapshots = new Set(fresh.map((f) => f.snapshot));
  const scopes = new Map<(typeof fresh)[number], FileScope | null>();
  const exportedAt = new Map<(typeof fresh)[number], string>();
  for (const f of fresh) {
    const had = storedOf.get(`${f.obj.key}\u0000${f.obj.etag}`);
    exportedAt.set(f, had?.exportedAt ?? exportTimeOf(f.obj.key, f.obj.lastModified));
    let scope: FileScope | null = had?.scope ?? null;
    const scopeColumn = f.kind.scope && f.detection.ok && f.detection.match.index.has(f.kind.scope.column);
    if (!scope && !scopeColumn) scope = { repositories: [], fileName: true };
    else if (!scope && snapshots.size > 1) {
      const read = await scopeOfObject(bucket, f.obj.key, f.kind, opts.what);
      scope = { repositories: read.values, fileName: read.unscoped };
    }
    scopes.set(f, scope);
    if (scope && !had)
      known.push({ key: f.obj.key, etag: f.obj.etag, kind: f.kind.name, snapshot: f.snapshot, snapshotAt: f.at, scope, exportedAt: exportedAt.get(f)! });
  }
  const files: PlannedFile[] = [];
  for (const k of opts.kinds) {
    for (const s of indexOnly) {
      if (s.detection.ok && s.detection.match.kind === k)
        files.push({ key: s.obj.key, etag: s.obj.etag, size: s.obj.size, kind: k.name, origin: originOf(s.obj.key), covered: [], indexOnly: true });
    }
    for (const f of fresh.filter((x) => x.kind === k).sort(order)) {
      const at = exportedAt.get(f)!;
      const newer = k.sweeps.length > 0 ? newerExports({ key: f.obj.key, kind: k.name, snapshot: f.snapshot, snapshotAt: f.at, exportedAt: at }, known) : [];
      const scope = scopes.get(f);
      if (scope && whollyCovered(scope, newer)) {
        if (f.seenBefore) {
          // Re-read by a full run: every row is in a scope newer exports cover, so nothing of it would be imported.
          ctx.log.info({ key: f.obj.key }, 'file covered by newer exports; not read');
          continue;
        }
        const reason = olderMessage(newer);
        ctx.log.warn({ key: f.obj.key, reason }, 'older export skipped');
        const r = result(f.obj, k.name, { rowsRead: 0, rowsImported: 0, rowsRejected: 0, rejections: [] });
        await bucket.recordImport({ ...r, status: 'skipped', error: reason, exportedAt: at });
        continue;
      }
      const covered = newer.flatMap((n) => (n.repository === null ? [] : [n.repository]));
      files.push({
        key: f.obj.key,
        etag: f.obj.etag,
        size: f.obj.size,
        kind: k.name,
        origin: originOf(f.obj.key),
        covered,
        ...(newer.some((n) => n.repository === null) ? { fileCovered: true } : {}),
        ...(newer.length > 0 ? { newer } : {}),
        exportedAt: at,
      });
    }
  }
  ctx.log.info({ files: files.map((f) => (f.indexOnly ? `${f.key} (index only)` : f.key)), full: ctx.mode === 'full' }, 'file import plan');
  return { v: 2, files, full: ctx.mode === 'full', at: emptyPos(0), stats: {}, scope: [], sweeps: {} };
}

/** File-mode check: the bucket's address, how many files await import, and what the pending ones are. */
export async function checkBucket(bucket: SourceBucket | undefined, kinds: FileKind[], what: string, bucketName: string): Promise<CheckResult[]> {
  if (!bucket) {
    return [
      {
        id: 'bucket',
        ok: false,
        message: `no file drop is configured, so bucket '${bucketName}' cannot be read`,
        hint: 'Start Tributary with --file-drop (or TRIBUTARY_FILE_DROP), or use the default local file drop in the data dir',
      },
    ];
  }
  let objs: BucketObject[];
  try {
    objs = await listAll(bucket);
  } catch (err) {
    return [
      {
        id: 'bucket',
        ok: false,
        message: `cannot list ${bucket.address}: ${err instanceof Error ? err.message : String(err)}`,
        hint: 'Check the file-drop settings (S3 endpoint, credentials, bucket)',
      },
    ];
  }
  const pending: BucketObject[] = [];
  for (const o of objs) if (!(await bucket.isImported(o))) pending.push(o);
  const out: CheckResult[] = [
    {
      id: 'bucket',
      ok: true,
      message: `${bucket.address}: ${objs.length} file${objs.length === 1 ? '' : 's'}, ${pending.length} awaiting import${
        pending.length
          ? ` (${pending
              .slice(0, 5)
              .map((o) => o.key)
              .join(', ')}${pending.length > 5 ? ', …' : ''})`
          : ''
      }`,
      hint: objs.length === 0 ? `Upload ${what} exports (${kinds.map((k) => k.label).join(', ')}) with \`tributary upload\` or the file-drop guide` : null,
    },
  ];
  const shown = pending.slice(-20);
  for (const o of shown) {
    const d = await sniffObject(bucket, o, kinds, what).catch(
      (err: unknown): Detection => ({ ok: false, reason: err instanceof Error ? err.message : String(err) }),
    );
    const other = d.ok ? null : await bucket.recogniseOther?.(o).catch(() => null);
    out.push(
      d.ok
        ? { id: `file:${o.key}`, ok: true, message: `${o.key}: ${d.match.kind.label} export, will be imported by the next sync`, hint: null }
        : other
          ? { id: `file:${o.key}`, ok: true, message: `${o.key}: ${other}, will be imported by the next sync`, hint: null }
          : {
              id: `file:${o.key}`,
              ok: false,
              message: `${o.key}: will be rejected: ${d.reason}${bucket.otherKinds ? `; nor is it ${bucket.otherKinds}` : ''}`,
              hint: 'Remove it from the bucket, or upload the export the connector accepts (see docs/csv-import.md)',
            },
    );
  }
  return out;
}
