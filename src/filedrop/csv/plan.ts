// Planning a file-mode run (docs/csv-import.md): which files it reads, in which order, which rows of
// older snapshots later ones cover; the checkpoint that carries the plan; and the file-mode check.
import { hash } from 'node:crypto';
import { z } from 'zod';
import type { CheckResult, Page, StreamContext } from '../../core/connector.ts';
import type { BucketObject, FileImportResult, FileImportStatus, RejectedRow, SourceBucket } from '../../core/files.ts';
import { MODEL_NAMES, type ModelName } from '../../core/models.ts';
import { CsvRow, detectKind, type Detection, type FileKind } from './columns.ts';
import { CsvFormatError, isBlankRecord, readCsv } from './reader.ts';
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
  /** Scope values later snapshots of the run cover: rows naming one are skipped (the later export is the truth there). */
  covered: string[];
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
  /** Scope values the file's rows named (FileKind.scope). */
  scope: string[];
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
  /** Set on the last page: what this run sweeps. */
  swept?: NonNullable<Page['sweep']>;
}

const count = z.number().int().nonnegative();
const models = z.array(z.enum(MODEL_NAMES));

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
    complete: z.boolean(),
  }),
  stats: z.record(z.string(), z.object({ imported: count, rejected: count })),
  scope: z.array(z.string()),
  swept: z
    .union([
      z.boolean(),
      models,
      z.object({
        models,
        scope: z.object({ origins: z.array(z.string()), hostField: z.object({ name: z.string(), values: z.array(z.string()) }).optional() }),
      }),
    ])
    .optional(),
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

/** The scope values an export's rows name (parsed, not mapped), and whether some row names none. */
async function scopeOfObject(bucket: SourceBucket, key: string, kind: FileKind, what: string): Promise<{ values: string[]; unscoped: boolean }> {
  const out = new Set<string>();
  let unscoped = false;
  const scope = kind.scope;
  if (!scope) return { values: [], unscoped: true };
  const input = await bucket.open(key);
  try {
    let index: Map<string, number> | null = null;
    for await (const batch of readCsv(input)) {
      for (const rec of batch) {
        if (isBlankRecord(rec.fields)) continue;
        if (!index) {
          const d = detectKind(rec.fields, [kind], what);
          if (!d.ok) return { values: [], unscoped: true };
          index = d.match.index;
          continue;
        }
        const v = scope.of(new CsvRow(rec.fields, rec.line, index));
        if (v) out.add(v);
        else unscoped = true;
      }
    }
  } catch (err) {
    if (!(err instanceof CsvFormatError)) throw err;
    unscoped = true;
  } finally {
    input.destroy();
  }
  return { values: [...out], unscoped };
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
 * kind, oldest snapshot first; rows of an older snapshot in a scope a later one covers are skipped.
 * Files that are no export are recorded as rejected at once (nothing of them is stored).
 */
export async function plan(bucket: SourceBucket, opts: FileStreamOptions, ctx: StreamContext): Promise<FileCheckpoint> {
  const objs = await listAll(bucket);
  const fresh: (Sniffed & { kind: FileKind; snapshot: string; at: string })[] = [];
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
      // Not an export; a file the service takes only another way (an offline feed) says so.
      const reason = (await bucket.misplacedReason?.(o).catch(() => null)) ?? detection.reason;
      ctx.log.warn({ key: o.key, reason }, 'file rejected');
      await bucket.recordImport(result(o, null, { rowsRead: 0, rowsImported: 0, rowsRejected: 0, rejections: [] }, reason));
      continue;
    }
    const snap = await bucket.snapshotOf(o);
    fresh.push({ obj: o, detection, kind: detection.match.kind, snapshot: snap?.run ?? THIS_RUN, at: snap?.at ?? LATEST });
  }
  // A snapshot's place in time: when its first file was imported.
  const snapAt = new Map<string, string>();
  for (const f of fresh) if (!snapAt.has(f.snapshot) || f.at < snapAt.get(f.snapshot)!) snapAt.set(f.snapshot, f.at);
  const order = (a: (typeof fresh)[number], b: (typeof fresh)[number]) =>
    snapAt.get(a.snapshot)!.localeCompare(snapAt.get(b.snapshot)!) || (a.snapshot < b.snapshot ? -1 : a.snapshot > b.snapshot ? 1 : 0);
  // Groups whose new files all sweep nothing (a host list alone): the group's imported exports that
  // sweep are read again for the state they leave to those files (the host index), storing nothing.
  const indexGroups = new Set(fresh.map((f) => f.kind.group));
  for (const f of fresh) if (f.kind.sweeps.length > 0) indexGroups.delete(f.kind.group);
  const indexOnly: Sniffed[] = [];
  if (indexGroups.size > 0) {
    for (const o of imported) {
      const detection = await sniffObject(bucket, o, opts.kinds, opts.what);
      if (detection.ok && indexGroups.has(detection.match.kind.group) && detection.match.kind.sweeps.length > 0) indexOnly.push({ obj: o, detection });
    }
  }
  const files: PlannedFile[] = [];
  for (const k of opts.kinds) {
    for (const s of indexOnly) {
      if (s.detection.ok && s.detection.match.kind === k)
        files.push({ key: s.obj.key, etag: s.obj.etag, size: s.obj.size, kind: k.name, origin: originOf(s.obj.key), covered: [], indexOnly: true });
    }
    const mine = fresh.filter((f) => f.kind === k).sort(order);
    const snapshots = new Set(mine.map((f) => f.snapshot));
    // Scopes of later snapshots (only a full run reads more than one snapshot).
    const scopes: { values: string[]; unscoped: boolean }[] = [];
    for (const f of mine) scopes.push(k.scope && snapshots.size > 1 ? await scopeOfObject(bucket, f.obj.key, k, opts.what) : { values: [], unscoped: true });
    mine.forEach((f, i) => {
      const covered = new Set<string>();
      for (let j = i + 1; j < mine.length; j++) if (mine[j]!.snapshot !== f.snapshot) for (const v of scopes[j]!.values) covered.add(v);
      const own = scopes[i]!;
      if (!own.unscoped && own.values.length > 0 && own.values.every((v) => covered.has(v))) {
        // Every row is in a scope later exports cover: nothing of it would be imported.
        ctx.log.info({ key: f.obj.key }, 'file covered by later exports; not read');
        return;
      }
      files.push({ key: f.obj.key, etag: f.obj.etag, size: f.obj.size, kind: k.name, origin: originOf(f.obj.key), covered: [...covered] });
    });
  }
  ctx.log.info({ files: files.map((f) => (f.indexOnly ? `${f.key} (index only)` : f.key)), full: ctx.mode === 'full' }, 'file import plan');
  return { v: 2, files, full: ctx.mode === 'full', at: emptyPos(0), stats: {}, scope: [] };
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
    const misplaced = d.ok ? null : await bucket.misplacedReason?.(o).catch(() => null);
    out.push(
      d.ok
        ? { id: `file:${o.key}`, ok: true, message: `${o.key}: ${d.match.kind.label} export, will be imported by the next sync`, hint: null }
        : {
            id: `file:${o.key}`,
            ok: false,
            message: `${o.key}: will be rejected: ${misplaced ?? d.reason}`,
            hint: misplaced
              ? 'Remove it from the bucket; an administrator imports feeds with `tributary feeds import FILE`'
              : 'Remove it from the bucket, or upload the export the connector accepts (see docs/csv-import.md)',
          },
    );
  }
  return out;
}
