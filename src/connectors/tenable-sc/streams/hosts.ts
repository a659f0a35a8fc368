// The hosts stream: `sumip` (one row per host per repository), then the inventory plugins that carry
// host facts (OS, hardware, last user, MACs, credentialed scan), then on 5.20+ the console's
// /rest/hosts last-seen dates, identifiers and scores. Every enrichment sets only the fields it knows;
// every row finds its host through the host resolver (map/host-resolver.ts).
import type { Page, Stream, StreamContext } from '../../../core/connector.ts';
import { errorMessage, UpstreamError } from '../../../core/errors.ts';
import { mapRows } from '../../../core/map-rows.ts';
import type { TenableScClient } from '../client.ts';
import { type HostResolver, rowHostIds } from '../map/host-resolver.ts';
import { HOSTS_API_FIELDS, hostsApiHost, mapHostsApiRow } from '../map/hosts-api.ts';
import { missingFindingIdentity, missingHostIdentity, rowHostKey } from '../map/identity.ts';
import { mapSumipRow } from '../map/sumip.ts';
import { compareVersions, text } from '../map/values.ts';
import { HOST_PLUGINS, mapHostEnrichment } from '../map/vulndetails.ts';
import { loadResolver, pluginFilter, type StreamDeps, withClient } from './common.ts';
import { type AnalysisPhase, type Cursor, pageBudget, runAnalysisPhases, timeFilter } from './cursor.ts';
import { streamStart } from './scan-window.ts';

export const HOST_PHASES = ['sumip', 'inventory', 'hosts-api'] as const;
export const HOSTS_API_MIN_VERSION = '5.20.0';

export function hostPhases(cursor: Cursor, known: Set<string>, resolver: HostResolver): AnalysisPhase[] {
  return [
    {
      name: 'sumip',
      query: { tool: 'sumip', sourceType: 'cumulative', filters: timeFilter('lastSeen', cursor) },
      map: (rows, at) =>
        mapRows(
          rows,
          (row, add) => {
            resolver.learnRepository(row.repository);
            const { key } = resolver.resolve(rowHostIds(row), rowHostKey(row));
            known.add(key);
            const host = mapSumipRow(row, key);
            resolver.noteFacts(key, host.fields);
            add('hosts', host);
          },
          { ...at, missing: missingHostIdentity },
        ),
    },
    {
      name: 'inventory',
      query: { tool: 'vulndetails', sourceType: 'cumulative', filters: [pluginFilter(HOST_PLUGINS), ...timeFilter('lastSeen', cursor)] },
      map: (rows, at) =>
        mapRows(rows, (row, add) => add('hosts', mapHostEnrichment(row, { key: resolver.rowHost(row, add) })), { ...at, missing: missingFindingIdentity }),
    },
  ];
}

/** The console version from /rest/system, or null when it does not say. */
export async function consoleVersion(client: TenableScClient, signal?: AbortSignal): Promise<string | null> {
  const sys = await client.get('/system', undefined, { signal });
  return sys && typeof sys === 'object' ? text((sys as { version?: unknown }).version) : null;
}

/** One read of the hosts stream: its client and context, the page size, the host keys sumip named and the resolver that found them. */
interface HostsRead {
  client: TenableScClient;
  ctx: StreamContext;
  pageSize: number;
  known: Set<string>;
  resolver: HostResolver;
}

async function* hostsApiPhase({ client, ctx, pageSize, known, resolver }: HostsRead, cursor: Cursor): AsyncGenerator<Page> {
  const done: Cursor = { ...cursor, phase: 'done', offset: 0 };
  let version: string | null = null;
  try {
    version = await consoleVersion(client, ctx.signal);
  } catch (err) {
    ctx.log.warn({ err: errorMessage(err) }, 'cannot read the console version; skipping /rest/hosts last-seen dates');
  }
  if (!version || compareVersions(version, HOSTS_API_MIN_VERSION) < 0) {
    yield { records: {}, checkpoint: done };
    return;
  }
  let offset = cursor.offset;
  for (;;) {
    ctx.signal.throwIfAborted();
    const rows = await client.fetchHostsPage(offset, pageSize, HOSTS_API_FIELDS, { signal: ctx.signal });
    const next = offset + rows.length;
    const last = rows.length < pageSize;
    const { records, errors, failures } = mapRows(
      rows,
      (row, add) => {
        const key = hostsApiHost(row, resolver);
        // Only hosts this run knows from sumip (read again after a resume past it).
        if (key && known.has(key)) add('hosts', mapHostsApiRow(row, key));
      },
      {
        what: 'hosts-api',
        firstRow: offset + 1,
        log: ctx.log,
        missing: (row) =>
          text(row.tenableUUID) || text(row.uuid) || text(row.ipAddress)
            ? null
            : { field: 'tenableUUID|uuid|ipAddress', reason: 'a host without tenableUUID, uuid or ipAddress' },
      },
    );
    yield { records, checkpoint: last ? done : { ...cursor, phase: 'hosts-api', offset: next }, ...(errors > 0 ? { errors, failures } : {}) };
    if (last) return;
    offset = next;
  }
}

/**
 * A run resumed past sumip has not seen its host keys (the stored hosts seed the resolver, but which of
 * them sumip named this run only sumip says), and the rows after it must map onto those hosts: sumip is
 * read again for its keys alone, storing nothing.
 */
async function rememberSumipKeys({ client, ctx, pageSize, known, resolver }: HostsRead, cursor: Cursor): Promise<void> {
  const sumip = hostPhases(cursor, known, resolver)[0]!;
  let budget: { pages: number; why: string } | null = null;
  for (let offset = 0, pages = 1; ; pages++) {
    const page = await client.fetchAnalysisPage({ ...sumip.query, offset, limit: pageSize }, { signal: ctx.signal });
    budget ??= pageBudget(page.total ?? 50_000 * pageSize, 0, pageSize);
    if (pages > budget.pages)
      throw new UpstreamError(`sumip: stopped after ${budget.pages} pages, the page budget (${budget.why})`, {
        hint: 'Set TRIBUTARY_MAX_PAGES to a larger number of pages if the console really holds that much',
      });
    // Read for its keys only: nothing is stored, so rows that fail are not reported again.
    sumip.map(page.rows, { what: 'sumip', firstRow: offset + 1 });
    offset += page.rows.length;
    if (page.rows.length < pageSize || (page.total !== null && offset >= page.total)) return;
  }
}

export function hostsStream(deps: StreamDeps): Stream {
  return {
    name: 'hosts',
    models: ['hosts'],
    primaryKey: ['uuid', 'repositoryID', 'ip', 'dnsName'],
    cursorField: 'lastSeen',
    read(ctx: StreamContext) {
      const known = new Set<string>();
      return withClient(deps, ctx, async function* (client) {
        const start = await streamStart(deps, ctx, client, 'hosts', [...HOST_PHASES]);
        const resolver = await loadResolver(deps, ctx);
        const read: HostsRead = { client, ctx, pageSize: deps.config.pageSize, known, resolver };
        if (start.phase === 'inventory' || start.phase === 'hosts-api') await rememberSumipKeys(read, start);
        let cursor = start;
        for await (const page of runAnalysisPhases(client, ctx, hostPhases(start, known, resolver), start, read.pageSize, 'hosts-api')) {
          cursor = page.checkpoint as Cursor;
          yield page;
        }
        if (cursor.phase !== 'hosts-api') return;
        yield* hostsApiPhase(read, cursor);
      });
    },
  };
}
