// An in-memory SourceBucket and a way to run a file-mode stream by hand (no store): for tests of the
// CSV import that look at pages, checkpoints and import records directly.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Page, Stream, StreamContext } from '../../src/core/connector.ts';
import type { BucketObject, FileImportResult, FileSnapshot, ImportedExport, SourceBucket } from '../../src/core/files.ts';
import type { IncomingRecord, ModelName } from '../../src/core/models.ts';
import { silentLogger } from '../../src/core/log.ts';

export class MemoryBucket implements SourceBucket {
  readonly address = 's3://memory/';
  readonly files = new Map<string, { data: Buffer; obj: BucketObject }>();
  readonly imports: FileImportResult[] = [];
  readonly #imported = new Set<string>();
  reimport = false;
  /** Bytes per chunk handed out by open() (small, to cross record boundaries). */
  chunk = 4096;
  #clock = Date.parse('2026-01-01T00:00:00Z');

  put(key: string, data: string | Buffer): BucketObject {
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    this.#clock += 60_000;
    const obj = { key, size: buf.length, etag: createHash('md5').update(buf).digest('hex'), lastModified: new Date(this.#clock).toISOString() };
    this.files.set(key, { data: buf, obj });
    return obj;
  }

  async *list(): AsyncIterable<BucketObject> {
    for (const f of this.files.values()) yield f.obj;
  }

  async open(key: string): Promise<Readable> {
    const f = this.files.get(key);
    if (!f) throw new Error(`no such object ${key}`);
    const parts: Buffer[] = [];
    for (let i = 0; i < f.data.length; i += this.chunk) parts.push(f.data.subarray(i, i + this.chunk));
    return Readable.from(parts);
  }

  async isImported(obj: BucketObject): Promise<boolean> {
    return !this.reimport && this.#imported.has(`${obj.key}\u0000${obj.etag}`);
  }

  /** The run importing now (tests of snapshots set it; files recorded in one run form one snapshot). */
  run = 'run-1';
  readonly #snapshots = new Map<string, FileSnapshot>();
  #runs = 0;

  async recordImport(r: FileImportResult): Promise<void> {
    this.imports.push(r);
    const id = `${r.key}\u0000${r.etag}`;
    this.#imported.add(id);
    if (!this.#snapshots.has(id))
      this.#snapshots.set(id, { run: this.run, at: new Date(Date.parse('2026-06-01T00:00:00Z') + ++this.#runs * 1000).toISOString() });
  }

  async snapshotOf(obj: Pick<BucketObject, 'key' | 'etag'>): Promise<FileSnapshot | null> {
    return this.#snapshots.get(`${obj.key}\u0000${obj.etag}`) ?? null;
  }

  /** As the store keeps them: the last record of each version imported with a scope and export time. */
  async importedExports(): Promise<ImportedExport[]> {
    const last = new Map<string, FileImportResult>();
    for (const r of this.imports) last.set(`${r.key}\u0000${r.etag}`, r);
    const out: ImportedExport[] = [];
    for (const [id, r] of last) {
      if ((r.status !== 'imported' && r.status !== 'partial') || !r.kind || !r.scope || !r.exportedAt) continue;
      const snap = this.#snapshots.get(id)!;
      out.push({ key: r.key, etag: r.etag, kind: r.kind, snapshot: snap.run, snapshotAt: snap.at, scope: r.scope, exportedAt: r.exportedAt });
    }
    return out;
  }

  /** The last import record of a key. */
  last(key: string): FileImportResult | undefined {
    return [...this.imports].reverse().find((r) => r.key === key);
  }
}

/** A stream's context with nothing stored (its state in memory), reading `bucket` in file mode (API streams: none). */
export function streamContext(bucket: SourceBucket | undefined, over: Partial<StreamContext> = {}): StreamContext {
  let state: Record<string, unknown> = {};
  return {
    sourceName: 'test',
    log: silentLogger,
    state: {
      get: async () => state,
      set: async (p) => {
        state = { ...state, ...p };
      },
    },
    ...(bucket ? { bucket } : {}),
    mode: 'full',
    checkpoint: null,
    resumed: false,
    signal: new AbortController().signal,
    ...over,
  };
}

/** Runs a stream to the end (or `maxPages`), returning its pages. */
export async function readPages(stream: Stream, ctx: StreamContext, maxPages = Number.POSITIVE_INFINITY): Promise<Page[]> {
  const pages: Page[] = [];
  for await (const p of stream.read(ctx)) {
    pages.push(p);
    if (pages.length >= maxPages) break;
  }
  return pages;
}

/** All records of a model across pages. */
export function recordsOf(pages: Page[], model: ModelName): IncomingRecord[] {
  return pages.flatMap((p) => p.records[model] ?? []);
}

/** A CSV text from a header and rows (every cell quoted, like Tenable.sc exports). */
export function csvText(header: string[], rows: (string | number)[][], eol = '\n'): string {
  const q = (v: string | number) => `"${String(v).replace(/"/g, '""')}"`;
  return [header, ...rows].map((r) => r.map(q).join(',')).join(eol) + eol;
}
