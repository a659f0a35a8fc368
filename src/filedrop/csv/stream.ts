// The file-mode stream shared by the connectors: reads CSV exports from the source's bucket, recognises
// each file's kind by its header, maps rows with the connector's mappers, and reports per file (rows
// read/imported/rejected with line numbers) through bucket.recordImport.
//
// Lifecycle (docs/csv-import.md): every new file is read (a full run counts every file as new); the
// files a run imports for the first time form one snapshot. Each export is the whole state of its
// scope (the repositories its rows name, or its file name): rows in a scope a newer export covers are
// skipped, and every run, full or not, sweeps within the scopes its clean files (rows imported, none
// rejected) covered. A run with no new file reads nothing and sweeps nothing.
//
// Checkpoints: the plan (files to read, with etags) and the position (file, records consumed, counts)
// ride on every page. A resumed run re-reads the files before the current one and the rows of the
// current one already stored, writing nothing (only for the state rows leave to later rows: the host
// index), then goes on.
import { readCheckpoint } from '../../core/checkpoint.ts';
import type { Page, RowFailure, Stream, StreamContext } from '../../core/connector.ts';
import type { FileImportResult, SourceBucket } from '../../core/files.ts';
import { type IncomingRecord, MODEL_FIELDS, type ModelName } from '../../core/models.ts';
import { CsvRow, detectKind, type RowMapper, RowError } from './columns.ts';
import { emptyPos, type FileCheckpoint, type FileStreamOptions, fileCheckpointSchema, MAX_REJECTIONS, plan, type Position, result } from './plan.ts';
import { CsvFormatError, isBlankRecord, readCsv } from './reader.ts';
import { noteFileSweep, olderMessage, sweepOf } from './scopes.ts';

export { checkBucket, type FileCheckpoint, type FileStreamOptions, MAX_REJECTIONS, originOf, sniffObject } from './plan.ts';

/**
 * CSV rows per page (one transaction each) unless a stream says otherwise. Larger than an API page: a
 * file import writes ~1.5 records a row, and SQLite writes every database page a commit touched once,
 * so fewer, larger commits write less. Larger pages are faster still but hold more rows in memory: 2000
 * keeps the CSV import benchmark's peak memory within its budget (bench/tenable-sc-csv).
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

/** Fields of a model whose lists add up across records of one key (FieldDef.accumulate). */
const accumulating = new Map<ModelName, string[]>();
function accumulatingOf(model: ModelName): string[] {
  let f = accumulating.get(model);
  if (!f) {
    f = MODEL_FIELDS[model].filter((d) => d.accumulate).map((d) => d.name);
    accumulating.set(model, f);
  }
  return f;
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
    // Another row of the same record (an export writes one row per CVE): its lists add up.
    for (const k of accumulatingOf(model)) {
      const a = old.fields[k];
      const b = r.fields[k];
      if (Array.isArray(a) && Array.isArray(b)) fields[k] = [...new Set([...a, ...b])];
    }
    m.set(r.key, {
      ...old,
      ...(r.externalId !== undefined ? { externalId: r.externalId } : {}),
      ...(r.hostKey !== undefined ? { hostKey: r.hostKey } : {}),
      ...(r.firstSeen != null ? { firstSeen: r.firstSeen } : {}),
      ...(r.lastSeen != null ? { lastSeen: r.lastSeen } : {}),
      ...(r.origin !== undefined ? { origin: r.origin } : {}),
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
      throw new RowError(
        `the row yields more than ${this.#limits.maxRowRecords} records (software, ports, …), the limit of one row (TRIBUTARY_CSV_MAX_ROW_RECORDS)`,
      );
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
      if (n > max)
        throw new RowError(
          `${header[i] ?? `column ${i + 1}`} holds ${n} characters, over the ${max}-character limit of one cell (TRIBUTARY_CSV_MAX_CELL_CHARS)`,
          header[i] ?? null,
        );
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

/** Rejects one row: counted and kept with the file's import, and listed for the run with its page (`failed`). */
function reject(pos: Position, failed: RowFailure[], at: { file: string; model: ModelName }, line: number, reason: string, field: string | null = null): void {
  pos.rowsRejected++;
  if (pos.rejections.length < MAX_REJECTIONS) pos.rejections.push({ line, reason });
  failed.push({ model: at.model, row: `${at.file} line ${line}`, field, reason });
}

/** A page of records with the rows rejected since the last page (taken: the list starts again). */
function pageOf(records: Page['records'], checkpoint: FileCheckpoint, failed: RowFailure[]): Page {
  if (failed.length === 0) return { records, checkpoint };
  const failures = failed.splice(0);
  return { records, checkpoint, errors: failures.length, failures };
}

async function* readFile(
  bucket: SourceBucket,
  cp: FileCheckpoint,
  opts: FileStreamOptions,
  ctx: StreamContext,
  shared: Map<string, unknown>,
): AsyncGenerator<Page, Position> {
  const f = cp.files[cp.at.file]!;
  const pos: Position = { ...cp.at, rejections: [...cp.at.rejections] };
  const kind = opts.kinds.find((k) => k.name === f.kind)!;
  const pageRows = opts.pageRows ?? FILE_PAGE_ROWS;
  const rows = new RowMapping(opts.limits ?? rowLimits());
  const input = await bucket.open(f.key);
  const page = new PageBuilder();
  const scopeOf = kind.scope?.of;
  const covered = new Set(f.covered);
  const scope = new Set(pos.scope);
  const named = new Set(pos.named ?? []);
  let unscoped = pos.unscoped ?? 0;
  // Records of exports that sweep carry their file, so a later export of the same name covers them.
  const origin = f.origin;
  const add =
    kind.sweeps.length > 0
      ? (model: ModelName, r: IncomingRecord | null | undefined): void => {
          if (!r) return;
          r.origin = origin;
          page.add(model, r);
        }
      : page.add;
  const checkpoint = (): FileCheckpoint => ({ ...cp, at: { ...pos, rejections: [...pos.rejections], scope: [...scope], named: [...named], unscoped } });
  const failed: RowFailure[] = [];
  const at = { file: f.key, model: kind.rowModel ?? kind.writes[0]! };
  try {
    let header: string[] | null = null;
    let mapper: RowMapper | null = null;
    let index: Map<string, number> | null = null;
    let skip = f.indexOnly ? Number.POSITIVE_INFINITY : pos.records;
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
            // Stored before the resume (or a file read for its state alone): mapped again only for what
            // rows leave to the rows after them (the host index), and dropped.
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
            reject(
              pos,
              failed,
              at,
              rec.line,
              `has ${rec.fields.length} fields but the header has ${header.length} (a stray delimiter or an unbalanced quote?)`,
            );
          } else {
            const row = new CsvRow(rec.fields, rec.line, index!);
            const where = scopeOf ? scopeOf(row) : null;
            if (where ? covered.has(where) : f.fileCovered) {
              // A newer export covers this row's scope (its repository, or its file name): it is the truth there.
              pos.rowsSkipped++;
            } else {
              if (where) named.add(where);
              try {
                rows.map(mapper!, row, header, add);
                pos.rowsImported++;
                if (where) scope.add(where);
                else unscoped++;
              } catch (err) {
                // A mapper that fails on a hostile row (not only a RowError) rejects that row, not the file.
                if (ctx.signal.aborted) throw err;
                if (err instanceof RowError) reject(pos, failed, at, rec.line, err.message, err.field);
                else reject(pos, failed, at, rec.line, `could not be mapped: ${err instanceof Error ? err.message : String(err)}`);
              }
            }
          }
          page.rows++;
          if (page.rows >= pageRows || page.size >= FILE_PAGE_RECORDS) yield pageOf(page.take(), checkpoint(), failed);
        }
      }
    } catch (err) {
      if (!(err instanceof CsvFormatError)) throw err;
      // An unterminated quote or an oversized record: the rest of the file cannot be read.
      reject(pos, failed, at, err.line, `${err.message}; the rest of the file was not read`);
    }
    if (!header) throw new Error(`'${f.key}' changed while it was being imported: no header row`);
    pos.complete = true;
    pos.scope = [...scope];
    pos.named = [...named];
    pos.unscoped = unscoped;
    if (!f.indexOnly) yield pageOf(page.take(), checkpoint(), failed);
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
      const stored = ctx.resumed ? readCheckpoint(fileCheckpointSchema, ctx.checkpoint, { stream: opts.name, log: ctx.log }).value : null;
      if (stored) {
        cp = stored;
        if (cp.swept) {
          yield { records: {}, checkpoint: cp, sweep: cp.swept };
          return;
        }
      } else cp = await plan(bucket, opts, ctx);
      const shared = new Map<string, unknown>();
      await opts.prepare?.(ctx, shared);
      const current = new Map<string, string>();
      if (cp.at.file < cp.files.length) for await (const o of bucket.list()) current.set(o.key, o.etag);
      if (ctx.resumed) {
        // The files this run read before it was interrupted are read again, storing nothing, for the
        // state their rows leave to later files (Host Assets rows find the hosts a vulnerability
        // export named through it).
        for (let i = 0; i < Math.min(cp.at.file, cp.files.length); i++) {
          if (current.get(cp.files[i]!.key) !== cp.files[i]!.etag) continue;
          const f = { ...cp.files[i]!, indexOnly: true };
          const files = cp.files.map((x, j) => (j === i ? f : x));
          for await (const _ of readFile(bucket, { ...cp, files, at: emptyPos(i) }, opts, ctx, shared)) {
            // nothing is yielded for a file read for its state alone
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
        if (f.indexOnly) {
          cp = { ...cp, at: emptyPos(cp.at.file + 1) };
          continue;
        }
        // Once the file's last page is stored, record the import (idempotent, so a resume may repeat it).
        await ctx.flush?.();
        const r: FileImportResult = {
          ...result(f, f.kind, pos),
          scope: { repositories: pos.scope, fileName: (pos.unscoped ?? 0) > 0 },
          exportedAt: f.exportedAt ?? null,
        };
        if (pos.rowsImported === 0 && pos.rowsRejected === 0 && pos.rowsSkipped > 0) {
          // Every row was in a scope a newer export covers: an older export, which changed nothing.
          r.status = 'skipped';
          r.error = olderMessage(f.newer ?? []);
          ctx.log.warn({ key: f.key, reason: r.error }, 'older export skipped');
        } else if (pos.rowsSkipped > 0)
          ctx.log.warn({ key: f.key, rowsSkipped: pos.rowsSkipped, reason: olderMessage(f.newer ?? []) }, 'rows of an older export skipped');
        await bucket.recordImport(r);
        ctx.log.info(
          { key: f.key, kind: f.kind, rowsRead: r.rowsRead, rowsImported: r.rowsImported, rowsRejected: r.rowsRejected, rowsSkipped: pos.rowsSkipped },
          'file imported',
        );
        const st = cp.stats[f.kind] ?? { imported: 0, rejected: 0 };
        const scope = [...new Set([...cp.scope, ...pos.scope])];
        cp = {
          ...cp,
          scope,
          sweeps: { ...cp.sweeps, [f.kind]: noteFileSweep(cp.sweeps?.[f.kind], f, pos) },
          stats: { ...cp.stats, [f.kind]: { imported: st.imported + pos.rowsImported, rejected: st.rejected + pos.rowsRejected } },
          at: emptyPos(cp.at.file + 1),
        };
      }
      // Every run sweeps, full or not: each clean export is the whole state of its scope.
      const swept = intact ? sweepOf(cp.sweeps, opts.kinds) : [];
      const read = cp.files.filter((f) => !f.indexOnly);
      if (read.length > 0 && swept.length === 0)
        ctx.log.warn({ stats: cp.stats }, 'no file was read clean (rejected rows, no rows, or a changed file): nothing is marked removed this run');
      yield { records: {}, checkpoint: { ...cp, swept }, sweep: swept };
    },
  };
}
