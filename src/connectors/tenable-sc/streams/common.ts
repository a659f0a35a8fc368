// What every Tenable.sc stream shares: the client's lifetime and the severity filter.
import type { KnownHost, Page, StreamContext } from '../../../core/connector.ts';
import { HostResolver, seedOnly } from '../map/host-resolver.ts';
import { TenableScClient } from '../client.ts';
import type { AnalysisFilter } from '../client.ts';
import type { TenableScApiConfig } from '../config.ts';
import type { ScanWindows } from './scan-window.ts';

export interface StreamDeps {
  config: TenableScApiConfig;
  /** For tests: a client factory (default: a real client for the config). */
  client?: (ctx: StreamContext) => TenableScClient;
  /** The stored hosts the streams of one run share (tenableScStreams makes one per run). */
  hosts?: SharedHosts;
  /** Where the streams of one run start their incremental windows (one per run: it warns once). */
  scanWindows?: ScanWindows;
}

/**
 * The stored hosts every stream of a run seeds its host resolver from, read from the store once and
 * again only after a page of this run carried host records (the hosts stream's, or a host a later
 * stream created or completed): a stream starts after every page before it is stored, so each
 * resolver is seeded with exactly the hosts the store holds then, as when each stream read them. Kept
 * cut to what seeding reads (SEED_FIELDS). A different `knownHosts` function (another store or source,
 * in tests) is read afresh.
 */
export class SharedHosts {
  #from: StreamContext['knownHosts'] | null = null;
  #list: Promise<KnownHost[]> | null = null;

  async resolver(ctx: Pick<StreamContext, 'knownHosts'>): Promise<HostResolver> {
    if (!ctx.knownHosts) return new HostResolver();
    if (this.#from !== ctx.knownHosts || this.#list === null) {
      this.#from = ctx.knownHosts;
      const list = ctx.knownHosts().then((hosts) => hosts.map(seedOnly));
      this.#list = list;
      list.catch(() => {
        if (this.#list === list) this.#list = null;
      });
    }
    return HostResolver.seeded(await this.#list);
  }

  /** A page a stream yields: host records in it make the stored hosts change. */
  saw(page: Page): void {
    if ((page.records.hosts?.length ?? 0) > 0) this.#list = null;
  }
}

/** The host resolver a stream starts from: the run's shared stored hosts, or (without them) the store read now. */
export function loadResolver(deps: StreamDeps, ctx: StreamContext): Promise<HostResolver> {
  return deps.hosts ? deps.hosts.resolver(ctx) : HostResolver.load(ctx.knownHosts);
}

/** Runs `body` with a client that is closed afterwards, whatever happens. */
export async function* withClient(deps: StreamDeps, ctx: StreamContext, body: (client: TenableScClient) => AsyncGenerator<Page>): AsyncGenerator<Page> {
  const client = deps.client ? deps.client(ctx) : new TenableScClient(deps.config, { log: ctx.log });
  try {
    for await (const page of body(client)) {
      deps.hosts?.saw(page);
      yield page;
    }
  } finally {
    await client.close();
  }
}

/** Info findings are only asked for when they become vulnerabilities. */
export function severityFilter(includeInformational: boolean): AnalysisFilter[] {
  return includeInformational ? [] : [{ filterName: 'severity', operator: '=', value: '1,2,3,4' }];
}

export function pluginFilter(ids: readonly string[]): AnalysisFilter {
  return { filterName: 'pluginID', operator: '=', value: ids.join(',') };
}
