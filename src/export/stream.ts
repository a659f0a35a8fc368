// Streams the records of one model in an export format: keyset pages through the store (so memory
// holds one page and its hosts, however many records match), handed on as UTF-8 chunks of whole lines
// only when the consumer asks for more (an async generator: the reader's pace is the backpressure).
import type { ConnectorProduct } from '../core/connector.ts';
import type { Connectors } from './context.ts';
import type { ModelName, StoredRecord } from '../core/models.ts';
import type { Filter, Since, Store } from '../store/index.ts';
import { type EventEncoder, type EventMapper, type FormatOptions, type LineWriter, writerOf } from './formats/index.ts';

export interface ExportQuery {
  model: ModelName;
  sourceIds?: string[];
  filters?: Filter[];
  /** Only what changed in this window: stored by a run it counts, or fixed or removed by one (store/records/since.ts). */
  since?: Since | null;
  /** Records per store page (default EXPORT_PAGE_SIZE). */
  pageSize?: number;
  /** ocsf-parquet: events per row group (default parquet.ts PARQUET_ROW_GROUP). */
  rowGroup?: number;
}

export interface ExportProgress {
  records: number;
  bytes: number;
}

const FALLBACK_PRODUCT: ConnectorProduct = { vendor: 'Tributary', name: 'Tributary', namespace: 'tributary' };
/**
 * Records per store page. Small so what is under construction dies young: larger pages handed on whole
 * leave more of their text alive past young-generation collections, which raises the export's peak
 * memory (bench/export measures it).
 */
export const EXPORT_PAGE_SIZE = 250;
/**
 * Text handed on once a chunk holds this many characters (about as many bytes): under V8's 128 KiB
 * large-object size, so the chunk's flat copy is an ordinary young object that dies young (a larger
 * chunk goes to the large-object space, which only a full collection empties).
 */
const CHUNK_CHARS = 64 * 1024;

/** The product (vendor, name, namespace) of each source's connector, by source name. */
export async function productsBySource(store: Store, registry: Connectors): Promise<(source: string) => ConnectorProduct> {
  const byName = new Map<string, ConnectorProduct>();
  for (const s of await store.sources.list()) {
    const c = registry.has(s.type) ? registry.get(s.type) : null;
    byName.set(s.name, c?.product ?? { ...FALLBACK_PRODUCT, name: c?.title ?? s.type });
  }
  return (source) => byName.get(source) ?? FALLBACK_PRODUCT;
}

/**
 * The export as chunks of bytes: for the text formats, UTF-8 lines each ending in a newline (the
 * header, then chunks of about CHUNK_CHARS, never splitting a line); for a binary format (OCSF as
 * Parquet), a block (row group) at a time, then the footer. `onProgress` is called after each page.
 */
export async function* exportChunks(
  deps: { store: Store; registry: Connectors },
  q: ExportQuery,
  fmt: FormatOptions,
  onProgress?: (p: ExportProgress) => void,
): AsyncGenerator<Uint8Array> {
  const written = writerOf(q.model, fmt);
  if ('events' in written) {
    yield* binaryChunks(deps, q, written.events, await written.encoder(q.rowGroup), onProgress);
    return;
  }
  yield* textChunks(deps, q, written.lines, onProgress);
}

async function* textChunks(
  deps: { store: Store; registry: Connectors },
  q: ExportQuery,
  writer: LineWriter,
  onProgress?: (p: ExportProgress) => void,
): AsyncGenerator<Uint8Array> {
  const productOf = await productsBySource(deps.store, deps.registry);
  let hosts = new Map<string, StoredRecord | null>();
  const progress: ExportProgress = { records: 0, bytes: 0 };
  if (writer.header !== null) {
    const header = Buffer.from(`${writer.header}\n`);
    progress.bytes += header.length;
    yield header;
  }
  for await (const page of pagesOf(deps.store, q, writer.priorityText !== false)) {
    if (writer.needsHost) hosts = await pageHosts(deps.store, hosts, page);
    let chunk = '';
    for (const r of page) {
      const hostId = r.hostId as string | null | undefined;
      chunk += writer.line(r, hostId ? (hosts.get(hostId) ?? null) : null, productOf(r.source)) + '\n';
      if (chunk.length < CHUNK_CHARS) continue;
      yield counted(chunk, progress);
      chunk = '';
    }
    progress.records += page.length;
    const rest = chunk ? counted(chunk, progress) : null;
    onProgress?.(progress);
    if (rest) yield rest;
  }
}

/**
 * A chunk of text as the UTF-8 bytes every writer sends (a file, stdout, S3, an HTTP reply), its size
 * added to the progress: encoded once here rather than measured here and encoded again by the writer.
 */
function counted(chunk: string, progress: ExportProgress): Buffer {
  const bytes = Buffer.from(chunk, 'utf8');
  progress.bytes += bytes.length;
  return bytes;
}

function pagesOf(store: Store, q: ExportQuery, priorityText: boolean): AsyncGenerator<StoredRecord[]> {
  return store.records.pages(q.model, { sourceIds: q.sourceIds, filters: q.filters, changedSince: q.since, priorityText }, q.pageSize ?? EXPORT_PAGE_SIZE);
}

/** Events of a binary format packed by its encoder as pages arrive; a block's bytes are yielded once it is full. */
async function* binaryChunks(
  deps: { store: Store; registry: Connectors },
  q: ExportQuery,
  mapper: EventMapper,
  encoder: EventEncoder,
  onProgress?: (p: ExportProgress) => void,
): AsyncGenerator<Uint8Array> {
  const productOf = await productsBySource(deps.store, deps.registry);
  let hosts = new Map<string, StoredRecord | null>();
  const progress: ExportProgress = { records: 0, bytes: 0 };
  for await (const page of pagesOf(deps.store, q, mapper.priorityText !== false)) {
    if (mapper.needsHost) hosts = await pageHosts(deps.store, hosts, page);
    for (const r of page) {
      const hostId = r.hostId as string | null | undefined;
      if (!encoder.add(mapper.event(r, hostId ? (hosts.get(hostId) ?? null) : null, productOf(r.source)))) continue;
      const bytes = encoder.flush();
      progress.bytes += bytes.length;
      yield bytes;
    }
    progress.records += page.length;
    onProgress?.(progress);
  }
  const rest = encoder.finish();
  progress.bytes += rest.length;
  onProgress?.(progress);
  yield rest;
}

/**
 * The hosts of a page's records: those the previous page had already (a host's records are one id
 * range, so consecutive pages mostly share hosts), the others read. Only one page's hosts are held
 * (a larger cache would keep many hosts and their mapped parts alive for pages that need a handful).
 */
async function pageHosts(store: Store, previous: Map<string, StoredRecord | null>, records: StoredRecord[]): Promise<Map<string, StoredRecord | null>> {
  const hosts = new Map<string, StoredRecord | null>();
  const missing: string[] = [];
  for (const r of records) {
    const id = r.hostId as string | null | undefined;
    if (!id || hosts.has(id)) continue;
    const known = previous.get(id);
    // A record never points to a missing host, but an export must not stall on one that does (null).
    hosts.set(id, known ?? null);
    if (known === undefined) missing.push(id);
  }
  if (missing.length) for (const h of await store.records.getMany('hosts', missing)) hosts.set(h.id, h);
  return hosts;
}
