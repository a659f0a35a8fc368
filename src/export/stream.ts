// Streams the records of one model in an export format: keyset pages through the store (so memory
// holds one page and its hosts, however many records match), each page handed on as one chunk of
// lines only when the consumer asks for more (an async generator: the reader's pace is the backpressure).
import type { ConnectorProduct } from '../core/connector.ts';
import type { Connectors } from './context.ts';
import type { ModelName, StoredRecord } from '../core/models.ts';
import { recordPages } from '../store/export-read.ts';
import type { Filter } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { type FormatOptions, lineWriter, ocsfMapper } from './formats.ts';
import { OcsfParquetEncoder } from './parquet.ts';
import type { SinceWindow } from './since.ts';

export interface ExportQuery {
  model: ModelName;
  sourceIds?: string[];
  filters?: Filter[];
  /** Only what changed since this point (see since.ts). */
  since?: SinceWindow | null;
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
/** Hosts kept between pages: a host's records are one id range, so a page needs few hosts and the next page mostly the same. */
const HOST_CACHE = 2000;
/**
 * Records per store page, and lines per chunk handed on. Both small so what is under construction dies
 * young: with pages of 1000 handed on whole (1.6 MB of OCSF text in string pieces per chunk), more of it
 * outlived young-generation collections and peak RSS was 240-250 MB at 100,000 findings; with pages of
 * 250 in chunks of 100 lines, 175-180 MB (bench/export, SQLite; reading alone: 160 MB).
 */
export const EXPORT_PAGE_SIZE = 250;
const CHUNK_LINES = 100;

/** The product (vendor, name, namespace) of each source's connector, by source name. */
export async function productsBySource(store: Store, registry: Connectors): Promise<(source: string) => ConnectorProduct> {
  const byName = new Map<string, ConnectorProduct>();
  for (const s of await store.listSources()) {
    const c = registry.has(s.type) ? registry.get(s.type) : null;
    byName.set(s.name, c?.product ?? { ...FALLBACK_PRODUCT, name: c?.title ?? s.type });
  }
  return (source) => byName.get(source) ?? FALLBACK_PRODUCT;
}

/**
 * The export as chunks: text (the header, then one chunk per page of records, each line ending in a
 * newline) or, for `ocsf-parquet`, bytes (a row group at a time, then the footer). `onProgress` is
 * called after each page.
 */
export async function* exportChunks(
  deps: { store: Store; registry: Connectors },
  q: ExportQuery,
  fmt: FormatOptions,
  onProgress?: (p: ExportProgress) => void,
): AsyncGenerator<string | Uint8Array> {
  if (fmt.format === 'ocsf-parquet') {
    yield* parquetChunks(deps, q, fmt, onProgress);
    return;
  }
  const writer = lineWriter(q.model, fmt);
  const productOf = await productsBySource(deps.store, deps.registry);
  const hosts = new Map<string, StoredRecord | null>();
  const progress: ExportProgress = { records: 0, bytes: 0 };
  if (writer.header !== null) {
    progress.bytes += writer.header.length + 1;
    yield writer.header + '\n';
  }
  for await (const page of pagesOf(deps.store, q)) {
    if (writer.needsHost) await loadHosts(deps.store, hosts, page);
    let chunk = '';
    let lines = 0;
    for (const r of page) {
      const hostId = r.hostId as string | null | undefined;
      chunk += writer.line(r, hostId ? (hosts.get(hostId) ?? null) : null, productOf(r.source)) + '\n';
      if (++lines < CHUNK_LINES) continue;
      progress.bytes += Buffer.byteLength(chunk);
      yield chunk;
      chunk = '';
      lines = 0;
    }
    progress.records += page.length;
    progress.bytes += Buffer.byteLength(chunk);
    onProgress?.(progress);
    if (chunk) yield chunk;
  }
}

function pagesOf(store: Store, q: ExportQuery): AsyncGenerator<StoredRecord[]> {
  return recordPages(store, q.model, { sourceIds: q.sourceIds, filters: q.filters, ...(q.since ? q.since.query : {}) }, q.pageSize ?? EXPORT_PAGE_SIZE);
}

/** OCSF events encoded into Parquet row groups as pages arrive; a group's bytes are yielded once it is full. */
async function* parquetChunks(
  deps: { store: Store; registry: Connectors },
  q: ExportQuery,
  fmt: FormatOptions,
  onProgress?: (p: ExportProgress) => void,
): AsyncGenerator<Uint8Array> {
  const mapper = ocsfMapper(q.model, fmt);
  const encoder = new OcsfParquetEncoder(q.model, fmt.ocsfVersion ?? '1.1.0', q.rowGroup);
  const productOf = await productsBySource(deps.store, deps.registry);
  const hosts = new Map<string, StoredRecord | null>();
  const progress: ExportProgress = { records: 0, bytes: 0 };
  for await (const page of pagesOf(deps.store, q)) {
    if (mapper.needsHost) await loadHosts(deps.store, hosts, page);
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

async function loadHosts(store: Store, cache: Map<string, StoredRecord | null>, records: StoredRecord[]): Promise<void> {
  const missing = new Set<string>();
  for (const r of records) {
    const id = r.hostId as string | null | undefined;
    if (id && !cache.has(id)) missing.add(id);
  }
  if (missing.size === 0) return;
  if (cache.size + missing.size > HOST_CACHE) cache.clear();
  const found = await store.getRecords('hosts', [...missing]);
  for (const h of found) cache.set(h.id, h);
  // A record never points to a missing host, but an export must not stall on one that does.
  for (const id of missing) if (!cache.has(id)) cache.set(id, null);
}
