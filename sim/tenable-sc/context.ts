// Shared state of one running simulator instance and the helpers every handler uses.
import { Dataset } from './dataset.ts';
import { FaultInjector } from './faults.ts';
import { HostCache } from './hosts.ts';
import { Lifecycle } from './lifecycle.ts';
import { type FeatureSet, featuresFor, type ResolvedSimConfig, type TenableSimOptions } from './options.ts';
import { buildUsers, type SimUser } from './users.ts';

export interface RequestStats {
  total: number;
  byRoute: Record<string, number>;
  byStatus: Record<string, number>;
}

export interface SimContext {
  config: ResolvedSimConfig;
  features: FeatureSet;
  users: { analyst: SimUser; admin: SimUser };
  lifecycle: Lifecycle;
  dataset: Dataset;
  faults: FaultInjector;
  stats: RequestStats;
  /** Whether the `lastMitigated` filter is offered (TenableSimOptions.lastMitigatedFilter). */
  lastMitigatedFilter: boolean;
  /** Whether the user's role may not read /rest/scanResult (TenableSimOptions.scanResultsForbidden). */
  scanResultsForbidden: boolean;
}

/** What a handler returns; the server wraps it in the console envelope. */
export interface ApiResult {
  status: number;
  response: unknown;
  errorCode: number;
  errorMsg: string;
  /** Body is large enough for slow-page / mid-body faults to matter. */
  bulky?: boolean;
}

export const ok = (response: unknown, bulky = false): ApiResult => ({ status: 200, response, errorCode: 0, errorMsg: '', bulky });
export const fail = (status: number, errorCode: number, errorMsg: string): ApiResult => ({ status, response: '', errorCode, errorMsg });

export function defaultNow(): number {
  // Anchored a week back so a few one-day /_sim/advance steps stay in the past of the wall clock.
  return Math.floor(Date.now() / 3_600_000) * 3600 - 7 * 86400;
}

export function createContext(opts: TenableSimOptions): SimContext {
  const config: ResolvedSimConfig = {
    version: opts.version ?? '6.4.0',
    seed: opts.seed ?? 1,
    hosts: opts.estate ? opts.estate.scanned : Math.max(1, Math.floor(opts.hosts ?? 50)),
    findingsPerHost: Math.max(1, Math.floor(opts.findingsPerHost ?? 20)),
    now: opts.now ?? defaultNow(),
  };
  const features = featuresFor(config.version);
  const lifecycle = new Lifecycle(config.now, opts.mitigatedLastSeen ?? 'fixed-scan');
  const cache = new HostCache(config.seed, config.findingsPerHost, config.now, 1024, opts.estate, opts.commonPatchSet);
  return {
    config,
    features,
    users: buildUsers(config.seed),
    lifecycle,
    dataset: new Dataset(config.hosts, cache, lifecycle),
    faults: new FaultInjector(config.seed, opts),
    stats: { total: 0, byRoute: {}, byStatus: {} },
    lastMitigatedFilter: opts.lastMitigatedFilter === true,
    scanResultsForbidden: opts.scanResultsForbidden === true,
  };
}
