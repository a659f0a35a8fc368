// Public types of the ServiceDesk Plus simulator: its options, fault rules and the handle of a running simulator.
import type { Estate } from '../shared/estate.ts';
import type { SdpDataset } from './data.ts';
import type { DataCentre, ZohoAccounts } from './oauth.ts';
import type { AssetApiMode } from './product-types.ts';
import type { KeyRole, WrittenRequests } from './writes.ts';

/** Fires on the next `times` API requests, or on every `every`-th one. */
export interface FaultRule {
  times?: number;
  every?: number;
  /** HTTP status: 4015 answers default to 400; server errors to 503. */
  status?: number;
  /** Retry-After seconds for HTTP 429. */
  retryAfter?: number;
}

export interface SdpFaults {
  latencyMs?: number;
  /** Body-level status 4015 "API Rate Limit reached". */
  rateLimit?: FaultRule;
  /** HTTP 429 with Retry-After. */
  http429?: FaultRule;
  serverError?: FaultRule;
  /** Only API paths containing one of these substrings are faulted (default all). */
  paths?: string[];
}

export interface SdpSimOptions {
  port?: number;
  host?: string;
  seed?: number;
  /** Epoch ms the generated history ends at (default: the start of the current hour minus one day). */
  now?: number;
  requests?: number;
  assets?: number;
  /** A shared estate (sim/shared/estate.ts): assets are its CMDB records, requests are about them. */
  estate?: Estate;
  /** CIs per CI type. */
  cis?: number;
  /** Requesters (end users). */
  users?: number;
  technicians?: number;
  serviceCategories?: number;
  portal?: string;
  dc?: DataCentre;
  clientId?: string;
  clientSecret?: string;
  apiKey?: string;
  /** Authorization-code lifetime (default 180 s, Zoho's Self Client default). */
  codeTtlSeconds?: number;
  accessTokenTtlSeconds?: number;
  /** Access-token requests allowed per refresh token per window (Zoho: 10 per 10 minutes). */
  tokenLimit?: number;
  tokenWindowSeconds?: number;
  includeScope?: boolean;
  /**
   * Which asset API is served: 'legacy' = `/assets` (builds before 15100), 'product-type' = one list per
   * product type plus `asset_assets` (builds after the old API was dropped), 'both' (default: build
   * 15100 while the old API was kept). `product_types` is served in every mode.
   */
  assetApi?: AssetApiMode;
  /** On-prem modules the technician key may not read (e.g. ['assets']): answered 403 / 4002. */
  apiKeyDenied?: string[];
  /** What the technician's role may do with requests (on-prem writes; default both). */
  apiKeyRole?: Partial<KeyRole>;
  /** Resolving a request needs a resolution text (a tenant setting; default true). */
  requireResolution?: boolean;
  /** Write calls allowed per minute before 4015 "API Rate Limit reached" (HTTP 429); default unlimited. */
  writesPerMinute?: number;
  faults?: SdpFaults;
  /** PEM files for HTTPS. */
  tlsCert?: string;
  tlsKey?: string;
  /** Serve HTTPS with a generated self-signed certificate (its PEM is on RunningSdpSim.caCertificate). */
  tls?: boolean;
}

export interface RunningSdpSim {
  url: string;
  /** PEM of the generated certificate when started with `tls: true`. */
  caCertificate?: string;
  accountsUrl: string;
  portal: string;
  clientId: string;
  clientSecret: string;
  apiKey: string;
  dc: DataCentre;
  mintAuthorizationCode(scopes?: string[], opts?: { ttlSeconds?: number; dc?: DataCentre }): string;
  data: SdpDataset;
  accounts: ZohoAccounts;
  /** Requests written through the API, with their notes; `setStatus` is a person's edit in the UI. */
  written: WrittenRequests;
  setFaults(f: SdpFaults): void;
  /**
   * Switches the asset API served from now on (an upgrade, or the old API being dropped); `missing`
   * lists answer "Invalid URL" whatever the mode. Also `POST /_sim/asset-api {"mode", "missing"}`.
   */
  setAssetApi(mode: AssetApiMode, missing?: string[]): void;
  stats(): SimStats;
  close(): Promise<void>;
}

export interface SimStats {
  requests: Record<string, number>;
  api: number;
  faults: Record<string, number>;
  tokens: ZohoAccounts['counts'];
  /** Write calls accepted by operation, and those refused with an error. */
  writes: WrittenRequests['counts'];
}
