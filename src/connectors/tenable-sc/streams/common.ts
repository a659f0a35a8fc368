// What every Tenable.sc stream shares: the client's lifetime and the severity filter.
import type { Page, StreamContext } from '../../../core/connector.ts';
import { HostResolver } from '../map/host-resolver.ts';
import { TenableScClient } from '../client.ts';
import type { AnalysisFilter } from '../client.ts';
import type { TenableScApiConfig } from '../config.ts';
import type { ScanWindows } from './scan-window.ts';

export interface StreamDeps {
  config: TenableScApiConfig;
  /** For tests: a client factory (default: a real client for the config). */
  client?: (ctx: StreamContext) => TenableScClient;
  /** Where the streams of one run start their incremental windows (one per run: it warns once). */
  scanWindows?: ScanWindows;
}

/** The host resolver a stream starts from: seeded with the hosts the store holds when the stream starts. */
export function loadResolver(ctx: StreamContext): Promise<HostResolver> {
  return HostResolver.load(ctx.knownHosts);
}

/** Runs `body` with a client that is closed afterwards, whatever happens. */
export async function* withClient(deps: StreamDeps, ctx: StreamContext, body: (client: TenableScClient) => AsyncGenerator<Page>): AsyncGenerator<Page> {
  const client = deps.client ? deps.client(ctx) : new TenableScClient(deps.config, { log: ctx.log });
  try {
    yield* body(client);
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
