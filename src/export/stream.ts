// Streams the records of one model in an export format: cursor pages through the store (so memory
// holds one page and its hosts, however many records match), each page handed on as one chunk of
// lines only when the consumer asks for more (an async generator: the reader's pace is the backpressure).
import type { ConnectorProduct } from '../core/connector.ts';
import type { ConnectorRegistry } from '../connectors/registry.ts';
import type { ModelName, StoredRecord } from '../core/models.ts';
import type { Filter, QueryOptions } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { type FormatOptions, lineWriter } from './formats.ts';
import type { SinceWindow } from './since.ts';

export interface ExportQuery {
  model: ModelName;
  sourceIds?: string[];
  filters?: Filter[];
  /** Only what changed since this point (see since.ts). */
  since?: SinceWindow | null;
  /** Records per store page (default 1000). */
  pageSize?: number;
}

export interface ExportProgress {
  records: number;
  bytes: number;
}

const FALLBACK_PRODUCT: ConnectorProduct = { vendor: 'Tributary', name: 'Tributary', namespace: 'tributary' };
/** Hosts kept between pages: a host's records are one id range, so a page needs few hosts and the next page mostly the same. */
const HOST_CACHE = 2000;

/** The product (vendor, name, namespace) of each source's connector, by source name. */
export async function productsBySource(store: Store, registry: ConnectorRegistry): Promise<(source: string) => ConnectorProduct> {
  const byName = new Map<string, ConnectorProduct>();
  for (const s of await store.listSources()) {
    const c = registry.has(s.type) ? registry.get(s.type) : null;
    byName.set(s.name, c?.product ?? { ...FALLBACK_PRODUCT, name: c?.title ?? s.type });
  }
  return (source) => byName.get(source) ?? FALLBACK_PRODUCT;
}

/**
 * The export as chunks of text (the header, then one chunk per page of records, each line ending in
 * a newline). `onProgress` is called after each page.
 */
export async function* exportChunks(
  deps: { store: Store; registry: ConnectorRegistry },
  q: ExportQuery,
  fmt: FormatOptions,
  onProgress?: (p: ExportProgress) => void,
): AsyncGenerator<string> {
  const writer = lineWriter(q.model, fmt);
  const productOf = await productsBySource(deps.store, deps.registry);
  const hosts = new Map<string, StoredRecord | null>();
  const progress: ExportProgress = { records: 0, bytes: 0 };
  const base: QueryOptions = { sourceIds: q.sourceIds, filters: q.filters, limit: q.pageSize ?? 1000, ...(q.since ? q.since.query : {}) };
  if (writer.header !== null) {
    progress.bytes += writer.header.length + 1;
    yield writer.header + '\n';
  }
  let cursor: string | null = null;
  do {
    const page = await deps.store.query(q.model, { ...base, cursor });
    if (writer.needsHost) await loadHosts(deps.store, hosts, page.records);
    let chunk = '';
    for (const r of page.records) {
      const hostId = r.hostId as string | null | undefined;
      chunk += writer.line(r, hostId ? (hosts.get(hostId) ?? null) : null, productOf(r.source)) + '\n';
    }
    cursor = page.nextCursor;
    progress.records += page.records.length;
    progress.bytes += Buffer.byteLength(chunk);
    onProgress?.(progress);
    if (chunk) yield chunk;
  } while (cursor);
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
