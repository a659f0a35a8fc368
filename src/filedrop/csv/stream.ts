// The file-mode stream shared by the connectors: reads CSV exports from the source's bucket, recognises
// each file's kind by its header, maps rows with the connector's mappers, and reports per file (rows
// read/imported/rejected with line numbers) through bucket.recordImport.
//
// Lifecycle (docs/csv-import.md): the newest export of each kind (by upload time, then key) is that
// kind's current snapshot; older ones are superseded and never read. A run reads a group's snapshot
// when one of its files is new (a full run counts every file as new), and sweeps the models of the
// group only when the snapshot was read whole with rows and without rejected rows. A run with no new
// file reads nothing and sweeps nothing.
//
// Checkpoints: the plan (files to read, with etags) and the position (file, records consumed, counts)
// ride on every page. A resumed run re-reads the files before the current one and the rows of the
// current one already stored, writing nothing (only for the state rows leave to later rows: the host
// index), then goes on.
import type { CheckResult, Page, Stream, StreamContext } from '../../core/connector.ts';
import type { BucketObject, FileImportResult, FileImportStatus, RejectedRow, SourceBucket } from '../../core/files.ts';
import type { IncomingRecord, ModelName } from '../../core/models.ts';
import { CsvRow, detectKind, type Detection, type FileKind, type RowMapper, RowError } from './columns.ts';
import { CsvFormatError, isBlankRecord, readCsv } from './reader.ts';

/** Rejected rows kept per file (rowsRejected has the total); the bookkeeping keeps as many. */
export const MAX_REJECTIONS = 1000;

/**
 * CSV rows per page (one transaction each) unless a stream says otherwise. Larger than an API page: a
 * file import writes ~1.5 records a row, and SQLite writes every database page a commit touched once,
 * so fewer, larger commits write less. 2000: 5000-row pages were faster still (bench/tenable-sc-csv,
 * 1M rows: 36-38 s against 40-45 s) but peaked at 296-319 MB RSS, past the 300 MB budget.
 */
export const FILE_PAGE_ROWS = 2000;

/**
 * What one row may produce (docs/csv-import.md): a cell over `maxCellChars` or a row mapping to more
 * than `maxRowRecords` records is rejected with its line, so one hostile row (a Plugin Output listing
 * a million packages) cannot take the writer out of memory. Defaults fit the largest real rows (a
 * software enumeration of a few thousand packages is some 200 KB); raise them with the variables.
 */
export interface RowLimits {
  maxCellChars: number;
  maxRowRecords: number;
}

export function rowLimits(env: NodeJS.ProcessEnv = process.env): RowLimits {
  const num = (name: string, fallback: number): number => {
    const v = env[name];
    if (v === undefined || v === '') return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number above 0, got '${v}'`);
    return n;
  };
  return { maxCellChars: num('TRIBUTARY_CSV_MAX_CELL_CHARS', 4 * 1024 * 1024), maxRowRecords: num('TRIBUTARY_CSV_MAX_ROW_RECORDS', 50_000) };
}

/** Records a page holds before it is stored, whatever its row count (rows that carry much inventory). */
export const FILE_PAGE_RECORDS = 50_000;

export interface FileStreamOptions {
  name: string;
  models: ModelName[];
  /** Accepted export kinds, in the order a snapshot's files are read. */
  kinds: FileKind[];
  /** The upstream, for messages ("Tenable.sc"). */
  what: string;
  /** CSV rows per page (one transaction each); default FILE_PAGE_ROWS. */
  pageRows?: number;
  /** Caps on one row; default rowLimits() from the environment. */
  limits?: RowLimits;
}

interface PlannedFile {
  key: string;
  etag: string;
  size: number;
  kind: string;
}

interface Position {
  /** Index into files. */
  file: number;
  /** Records after the header consumed so far (blank ones included). */
  records: number;
  rowsRead: number;
  rowsImported: number;
  rowsRejected: number;
  rejections: RejectedRow[];
  /** The file's last page is stored; only its import record may be missing. */
  complete: boolean;
}

export interface FileCheckpoint {
  v: 1;
  files: PlannedFile[];
  /** Models the run may sweep if every file of their group reads clean. */
  candidates: ModelName[];
  at: Position;
  /** Per kind: rows imported and rejected of the files read so far. */
  stats: Record<string, { imported: number; rejected: number }>;
  /** Set on the last page: the models this run sweeps. */
  swept?: ModelName[];
}

function isCheckpoint(v: unknown): v is FileCheckpoint {
  if (!v || typeof v !== 'object') return false;
  const c = v as Partial<FileCheckpoint>;
  return c.v === 1 && Array.isArray(c.files) && Array.isArray(c.candidates) && !!c.at && typeof c.at.file === 'number' && !!c.stats;
}

type Sniffed = { obj: BucketObject; detection: Detection };

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

function result(obj: Pick<PlannedFile, 'key' | 'etag' | 'size'>, kind: string | null, p: Omit<Position, 'file' | 'records' | 'complete'>, error: string | null = null): FileImportResult {
  let status: FileImportStatus = 'imported';
  if (error !== null) status = 'rejected';
  else if (p.rowsRejected > 0) status = p.rowsImported > 0 ? 'partial' : 'rejected';
  if (status === 'rejected' && error === null) error = `every row was rejected (${p.rowsRejected}); see the rejected rows`;
  return { key: obj.key, etag: obj.etag, size: obj.size, kind, rowsRead: p.rowsRead, rowsImported: p.rowsImported, rowsRejected: p.rowsRejected, rejections: p.rejections.slice(0, MAX_REJECTIONS), status, error };
}

const emptyPos = (file: number): Position => ({ file, records: 0, rowsRead: 0, rowsImported: 0, rowsRejected: 0, rejections: [], complete: false });

async function listAll(bucket: SourceBucket): Promise<BucketObject[]> {
  const out: BucketObject[] = [];
  for await (const o of bucket.list()) out.push(o);
  // Oldest first; the key breaks ties so the order is stable.
  out.sort((a, b) => Date.parse(a.lastModified) - Date.parse(b.lastModified) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return out;
}

/** Works out what this run reads; records rejected and superseded new files at once (nothing of them is stored). */
async function plan(bucket: SourceBucket, opts: FileStreamOptions, ctx: StreamContext): Promise<FileCheckpoint> {
  const objs = await listAll(bucket);
  const isNew = new Map<string, boolean>();
  for (const o of objs) isNew.set(o.key, !(await bucket.isImported(o)));
  // Newest first: sniff every new file, and old ones until the newest of every kind is known.
  const newest = new Map<string, Sniffed>();
  const sniffed: Sniffed[] = [];
  for (const o of [...objs].reverse()) {
    if (!isNew.get(o.key) && newest.size === opts.kinds.length) continue;
    const detection = await sniffObject(bucket, o, opts.kinds, opts.what);
    const s = { obj: o, detection };
    sniffed.push(s);
    if (detection.ok && !newest.has(detection.match.kind.name)) newest.set(detection.match.kind.name, s);
  }
  for (const s of sniffed) {
    if (!isNew.get(s.obj.key)) continue;
    const zero = { rowsRead: 0, rowsImported: 0, rowsRejected: 0, rejections: [] };
    if (!s.detection.ok) {
      ctx.log.warn({ key: s.obj.key, reason: s.detection.reason }, 'file rejected');
      await bucket.recordImport(result(s.obj, null, zero, s.detection.reason));
      continue;
    }
    const kind = s.detection.match.kind;
    const top = newest.get(kind.name)!;
    if (top.obj.key !== s.obj.key) {
      const reason = `superseded: '${top.obj.key}' is a newer ${kind.label} export, and only the newest export of a kind is imported (each export is a complete snapshot); this file was not read`;
      ctx.log.info({ key: s.obj.key, newer: top.obj.key }, 'file superseded');
      await bucket.recordImport(result(s.obj, kind.name, zero, reason));
    }
  }
  const files: PlannedFile[] = [];
  const candidates = new Set<ModelName>();
  const groups = new Set(opts.kinds.filter((k) => newest.has(k.name) && isNew.get(newest.get(k.name)!.obj.key)).map((k) => k.group));
  for (const k of opts.kinds) {
    const top = newest.get(k.name);
    if (!top || !groups.has(k.group)) continue;
    files.push({ key: top.obj.key, etag: top.obj.etag, size: top.obj.size, kind: k.name });
    for (const m of k.sweeps) candidates.add(m);
  }
  ctx.log.info({ files: files.map((f) => f.key), candidates: [...candidates] }, 'file import plan');
  return { v: 1, files, candidates: [...candidates], at: emptyPos(0), stats: {} };
}

/** Collects a page's records, merging records of one key (the store writes each id once per page). */
class PageBuilder {
  records = new Map<ModelName, Map<string, IncomingRecord>>();
  rows = 0;
  /** Records added since the last take (merged ones included). */
  size = 0;

  add = (model: ModelName, r: IncomingRecord | null | undefined): void => {
    if (!r) return;
    this.size++;
    let m = this.records.get(model);
    if (!m) {
      m = new Map();
      this.records.set(model, m);
    }
    const old = m.get(r.key);
    if (!old) {
      m.set(r.key, r);
      return;
    }
    const fields = { ...old.fields };
    for (const [k, v] of Object.entries(r.fields)) if (v !== undefined) fields[k] = v;
    m.set(r.key, {
      ...old,
      ...(r.externalId !== undefined ? { externalId: r.externalId } : {}),
      ...(r.hostKey !== undefined ? { hostKey: r.hostKey } : {}),
      ...(r.firstSeen != null ? { firstSeen: r.firstSeen } : {}),
      ...(r.lastSeen != null ? { lastSeen: r.lastSeen } : {}),
      fields,
    });
  };

  take(): Partial<Record<ModelName, IncomingRecord[]>> {
    const out: Partial<Record<ModelName, IncomingRecord[]>> = {};
    for (const [m, recs] of this.records) out[m] = [...recs.values()];
    this.records = new Map();
    this.rows = 0;
    this.size = 0;
    return out;
  }
}

const dropRecord = (): void => {};

/**
 * Maps rows within the limits: a cell over the cap or a row yielding too many records is rejected
 * (RowError) and adds nothing; a row's records reach `add` only once the whole row mapped. One per
 * file, its buffer reused row after row.
 */
class RowMapping {
  readonly #held: [ModelName, IncomingRecord][] = [];
  readonly #limits: RowLimits;
  readonly #collect = (model: ModelName, r: IncomingRecord | null | undefined): void => {
    if (!r) return;
    if (this.#held.length >= this.#limits.maxRowRecords) {
      throw new RowError(`the row yields more than ${this.#limits.maxRowRecords} records (software, ports, …), the limit of one row (TRIBUTARY_CSV_MAX_ROW_RECORDS)`);
    }
    this.#held.push([model, r]);
  };

  constructor(limits: RowLimits) {
    this.#limits = limits;
  }

  map(mapper: RowMapper, row: CsvRow, header: string[], add: (model: ModelName, r: IncomingRecord | null | undefined) => void): void {
    const max = this.#limits.maxCellChars;
    for (let i = 0; i < row.fields.length; i++) {
      const n = row.fields[i]!.length;
      if (n > max) throw new RowError(`${header[i] ?? `column ${i + 1}`} holds ${n} characters, over the ${max}-character limit of one cell (TRIBUTARY_CSV_MAX_CELL_CHARS)`);
    }
    this.#held.length = 0;
    try {
      mapper.map(row, this.#collect);
      for (const [model, r] of this.#held) add(model, r);
    } finally {
      this.#held.length = 0;
    }
  }
}

function reject(pos: Position, line: number, reason: string): void {
  pos.rowsRejected++;
  if (pos.rejections.length < MAX_REJECTIONS) pos.rejections.push({ line, reason });
}

async function* readFile(bucket: SourceBucket, cp: FileCheckpoint, opts: FileStreamOptions, ctx: StreamContext, shared: Map<string, unknown>): AsyncGenerator<Page, Position> {
  const f = cp.files[cp.at.file]!;
  const pos: Position = { ...cp.at, rejections: [...cp.at.rejections] };
  const kind = opts.kinds.find((k) => k.name === f.kind)!;
  const pageRows = opts.pageRows ?? FILE_PAGE_ROWS;
  const rows = new RowMapping(opts.limits ?? rowLimits());
  const input = await bucket.open(f.key);
  const page = new PageBuilder();
  const checkpoint = (): FileCheckpoint => ({ ...cp, at: { ...pos, rejections: [...pos.rejections] } });
  try {
    let header: string[] | null = null;
    let mapper: RowMapper | null = null;
    let index: Map<string, number> | null = null;
    let skip = pos.records;
    try {
      for await (const batch of readCsv(input)) {
        ctx.signal.throwIfAborted();
        for (const rec of batch) {
          if (!header) {
            if (isBlankRecord(rec.fields)) continue;
            const d = detectKind(rec.fields, [kind], opts.what);
            if (!d.ok) throw new Error(`'${f.key}' changed while it was being imported: ${d.reason}`);
            header = rec.fields;
            index = d.match.index;
            mapper = kind.mapper(shared, { names: rec.fields, index: d.match.index });
            continue;
          }
          if (skip > 0) {
            skip--;
            // Stored before the resume: mapped again only for what rows leave to the rows after them
            // (the host index), and dropped.
            if (!isBlankRecord(rec.fields) && rec.fields.length <= header.length) {
              try {
                rows.map(mapper!, new CsvRow(rec.fields, rec.line, index!), header, dropRecord);
              } catch {
                // Rejected (or failed) when it was first read: nothing of it was stored.
              }
            }
            continue;
          }
          pos.records++;
          // Rows of nothing but delimiters (e.g. 529 `,,,,` lines at the end of an export) are skipped, not rejected.
          if (isBlankRecord(rec.fields)) continue;
          pos.rowsRead++;
          if (rec.fields.length > header.length && !isBlankRecord(rec.fields.slice(header.length))) {
            reject(pos, rec.line, `has ${rec.fields.length} fields but the header has ${header.length} (a stray delimiter or an unbalanced quote?)`);
          } else {
            try {
              rows.map(mapper!, new CsvRow(rec.fields, rec.line, index!), header, page.add);
              pos.rowsImported++;
            } catch (err) {
              // A mapper that fails on a hostile row (not only a RowError) rejects that row, not the file.
              if (ctx.signal.aborted) throw err;
              reject(pos, rec.line, err instanceof RowError ? err.message : `could not be mapped: ${err instanceof Error ? err.message : String(err)}`);
            }
          }
          page.rows++;
          if (page.rows >= pageRows || page.size >= FILE_PAGE_RECORDS) yield { records: page.take(), checkpoint: checkpoint() };
        }
      }
    } catch (err) {
      if (!(err instanceof CsvFormatError)) throw err;
      // An unterminated quote or an oversized record: the rest of the file cannot be read.
      reject(pos, err.line, `${err.message}; the rest of the file was not read`);
    }
    if (!header) throw new Error(`'${f.key}' changed while it was being imported: no header row`);
    pos.complete = true;
    yield { records: page.take(), checkpoint: checkpoint() };
    return pos;
  } finally {
    input.destroy();
  }
}

export function fileImportStream(opts: FileStreamOptions): Stream {
  return {
    name: opts.name,
    models: opts.models,
    primaryKey: ['file', 'line'],
    async *read(ctx: StreamContext): AsyncGenerator<Page> {
      const bucket = ctx.bucket;
      if (!bucket) throw new Error('file import needs the file drop: no bucket is configured for this source');
      let cp: FileCheckpoint;
      if (ctx.resumed && isCheckpoint(ctx.checkpoint)) {
        cp = ctx.checkpoint;
        if (cp.swept) {
          yield { records: {}, checkpoint: cp, sweep: cp.swept };
          return;
        }
      } else cp = await plan(bucket, opts, ctx);
      const shared = new Map<string, unknown>();
      const current = new Map<string, string>();
      if (cp.at.file < cp.files.length) for await (const o of bucket.list()) current.set(o.key, o.etag);
      if (ctx.resumed) {
        // The files this run read before it was interrupted are read again, storing nothing, for the
        // state their rows leave to later files (Host Assets rows find the hosts a vulnerability
        // export named through it).
        for (let i = 0; i < Math.min(cp.at.file, cp.files.length); i++) {
          if (current.get(cp.files[i]!.key) !== cp.files[i]!.etag) continue;
          for await (const _ of readFile(bucket, { ...cp, at: emptyPos(i) }, opts, ctx, shared)) {
            // pages dropped
          }
        }
      }
      let intact = true;
      while (cp.at.file < cp.files.length) {
        const f = cp.files[cp.at.file]!;
        let pos = cp.at;
        if (!pos.complete) {
          if (current.get(f.key) !== f.etag) {
            // Replaced or deleted since the plan (only possible across a resume): skip it, sweep nothing.
            ctx.log.warn({ key: f.key }, 'file changed or vanished since the run planned it; skipped');
            intact = false;
            cp = { ...cp, at: emptyPos(cp.at.file + 1) };
            continue;
          }
          const it = readFile(bucket, cp, opts, ctx, shared);
          for (;;) {
            const n = await it.next();
            if (n.done) {
              pos = n.value;
              break;
            }
            cp = n.value.checkpoint as FileCheckpoint;
            yield n.value;
          }
        }
        // Once the file's last page is stored, record the import (idempotent, so a resume may repeat it).
        await ctx.flush?.();
        const r = result(f, f.kind, pos);
        await bucket.recordImport(r);
        ctx.log.info({ key: f.key, kind: f.kind, rowsRead: r.rowsRead, rowsImported: r.rowsImported, rowsRejected: r.rowsRejected }, 'file imported');
        const st = cp.stats[f.kind] ?? { imported: 0, rejected: 0 };
        cp = { ...cp, stats: { ...cp.stats, [f.kind]: { imported: st.imported + pos.rowsImported, rejected: st.rejected + pos.rowsRejected } }, at: emptyPos(cp.at.file + 1) };
      }
      const swept = intact ? sweepable(cp, opts) : [];
      if (cp.candidates.length > 0 && swept.length === 0) ctx.log.warn({ stats: cp.stats }, 'the snapshot was not read clean (rejected rows, no rows, or a changed file): nothing is marked removed this run');
      yield { records: {}, checkpoint: { ...cp, swept }, sweep: swept };
    },
  };
}

/** Models to sweep: a kind's `sweeps` when every file of its group was read with rows and no rejections. */
function sweepable(cp: FileCheckpoint, opts: FileStreamOptions): ModelName[] {
  const out = new Set<ModelName>();
  for (const k of opts.kinds) {
    if (k.sweeps.length === 0) continue;
    const mine = cp.stats[k.name];
    if (!mine || mine.imported === 0) continue;
    const group = opts.kinds.filter((g) => g.group === k.group);
    if (group.some((g) => (cp.stats[g.name]?.rejected ?? 0) > 0)) continue;
    for (const m of k.sweeps) if (cp.candidates.includes(m)) out.add(m);
  }
  return [...out];
}

/** File-mode check: the bucket's address, how many files await import, and what the pending ones are. */
export async function checkBucket(bucket: SourceBucket | undefined, kinds: FileKind[], what: string, bucketName: string): Promise<CheckResult[]> {
  if (!bucket) {
    return [{ id: 'bucket', ok: false, message: `no file drop is configured, so bucket '${bucketName}' cannot be read`, hint: 'Start Tributary with --file-drop (or TRIBUTARY_FILE_DROP), or use the default local file drop in the data dir' }];
  }
  let objs: BucketObject[];
  try {
    objs = await listAll(bucket);
  } catch (err) {
    return [{ id: 'bucket', ok: false, message: `cannot list ${bucket.address}: ${err instanceof Error ? err.message : String(err)}`, hint: 'Check the file-drop settings (S3 endpoint, credentials, bucket)' }];
  }
  const pending: BucketObject[] = [];
  for (const o of objs) if (!(await bucket.isImported(o))) pending.push(o);
  const out: CheckResult[] = [
    {
      id: 'bucket',
      ok: true,
      message: `${bucket.address}: ${objs.length} file${objs.length === 1 ? '' : 's'}, ${pending.length} awaiting import${pending.length ? ` (${pending.slice(0, 5).map((o) => o.key).join(', ')}${pending.length > 5 ? ', …' : ''})` : ''}`,
      hint: objs.length === 0 ? `Upload ${what} exports (${kinds.map((k) => k.label).join(', ')}) with \`tributary upload\` or the file-drop guide` : null,
    },
  ];
  const shown = pending.slice(-20);
  const detections = new Map<string, Detection>();
  for (const o of shown) {
    detections.set(o.key, await sniffObject(bucket, o, kinds, what).catch((err: unknown): Detection => ({ ok: false, reason: err instanceof Error ? err.message : String(err) })));
  }
  // Newest pending file of each kind (pending is oldest first).
  const newest = new Map<string, string>();
  for (const o of shown) {
    const d = detections.get(o.key)!;
    if (d.ok) newest.set(d.match.kind.name, o.key);
  }
  for (const o of shown) {
    const d = detections.get(o.key)!;
    if (!d.ok) {
      out.push({ id: `file:${o.key}`, ok: false, message: `${o.key}: will be rejected: ${d.reason}`, hint: 'Remove it from the bucket, or upload the export the connector accepts (see docs/csv-import.md)' });
      continue;
    }
    const top = newest.get(d.match.kind.name);
    out.push(
      top === o.key
        ? { id: `file:${o.key}`, ok: true, message: `${o.key}: ${d.match.kind.label} export, will be imported by the next sync`, hint: null }
        : { id: `file:${o.key}`, ok: true, message: `${o.key}: ${d.match.kind.label} export, superseded by the newer '${top}' (only the newest export of a kind is imported)`, hint: null },
    );
  }
  return out;
}
