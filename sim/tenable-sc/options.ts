// Public option/handle types of the Tenable.sc simulator and the version-gated feature switches.
import type { Estate } from '../shared/estate.ts';
import type { CommonPatchSet } from './patch-sets.ts';

/** One injectable fault: fires on the next `times` requests, on every Nth request, or with a probability. */
export interface FaultRule {
  times?: number;
  every?: number;
  probability?: number;
  /** HTTP status for server errors (500 or 503; default 503). */
  status?: number;
  /** Seconds announced in Retry-After for 429 (default 1). */
  retryAfter?: number;
}

export interface FaultSettings {
  /** Added delay before every /rest request is answered. */
  latencyMs?: number;
  rateLimit?: FaultRule;
  serverError?: FaultRule;
  /** Socket destroyed after part of the body has been written. */
  resetMidBody?: FaultRule;
  /** Body written in chunks spread over this many milliseconds (analysis and hosts answers). */
  slowPageMs?: number;
  /** Probability (0..1) that an analysis page omits `totalRecords`; true = always. */
  missingTotalRecords?: number | boolean;
  /** Only requests whose path starts with one of these are faulted (default: every /rest path). */
  paths?: string[];
}

export interface TenableSimOptions extends FaultSettings {
  port?: number;
  host?: string;
  tls?: boolean;
  cert?: string;
  key?: string;
  version?: string;
  seed?: number;
  hosts?: number;
  findingsPerHost?: number;
  /** Simulated "now" (epoch seconds) the data is anchored to; default: start of the current hour minus 7 days. */
  now?: number;
  /**
   * A mitigated finding's `lastSeen`: when the scan found it fixed (`fixed-scan`, default), or its last
   * vulnerable sighting (`last-vulnerable`, as consoles whose patched set a lastSeen window misses).
   */
  mitigatedLastSeen?: MitigatedLastSeen;
  /**
   * Offer the `lastMitigated` filter (when the patched set's findings were found fixed), as current
   * consoles do. Off by default: the simulator then answers it with error 146, as consoles without it
   * do, and the connector reads the whole patched set (its fallback).
   */
  lastMitigatedFilter?: boolean;
  /**
   * The analyst's role may not read /rest/scanResult (answered HTTP 403, error 143): the connector then
   * keeps its fixed 12-hour overlap. By default the scan results are readable.
   */
  scanResultsForbidden?: boolean;
  /** A shared estate (sim/shared/estate.ts): hosts are its scanned machines, named and numbered as it says. */
  estate?: Estate;
  /**
   * Each platform's common patch set (patch-sets.ts; `CORPUS_PATCH_SET` is calibrated on a real console's
   * recordings): hosts of a platform then miss mostly the same plugins. Unset: every plugin of a pool
   * about as common as any other.
   */
  commonPatchSet?: CommonPatchSet;
}

export type MitigatedLastSeen = 'fixed-scan' | 'last-vulnerable';

export interface SimCredentials {
  accessKey: string;
  secretKey: string;
  username: string;
}

export interface RunningTenableSim {
  url: string;
  analyst: SimCredentials;
  admin: SimCredentials;
  version: string;
  /** PEM of the self-signed certificate when --tls generated one. */
  caCertificate?: string;
  close(): Promise<void>;
}

export interface ResolvedSimConfig {
  version: string;
  seed: number;
  hosts: number;
  findingsPerHost: number;
  now: number;
}

/** What a console of a given version offers; the connector must cope with all of these. */
export interface FeatureSet {
  apiKeys: boolean;
  hostsApi: boolean;
  /** vprScore, vprContext, operatingSystem, ips, hostUniqueness, repository.sciID */
  modernRowFields: boolean;
  /** vulnUUID, hostUUID */
  findingUuids: boolean;
  /** epssScore, acrScore, assetExposureScore */
  epss: boolean;
  /** The `SecurityCenter: <version>` response header seen on older consoles. */
  versionHeader: boolean;
}

export function parseVersion(version: string): number[] {
  const parts = version.split('.').map((p) => Number.parseInt(p, 10));
  if (parts.length === 0 || parts.some((p) => !Number.isFinite(p))) throw new Error(`invalid version "${version}"`);
  while (parts.length < 3) parts.push(0);
  return parts;
}

export function versionAtLeast(version: string, minimum: string): boolean {
  const a = parseVersion(version);
  const b = parseVersion(minimum);
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return true;
}

export function featuresFor(version: string): FeatureSet {
  return {
    apiKeys: versionAtLeast(version, '5.13.0'),
    hostsApi: versionAtLeast(version, '5.20.0'),
    modernRowFields: versionAtLeast(version, '5.10.0'),
    findingUuids: versionAtLeast(version, '6.0.0'),
    epss: versionAtLeast(version, '6.4.0'),
    versionHeader: !versionAtLeast(version, '5.20.0'),
  };
}
