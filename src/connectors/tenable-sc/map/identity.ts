// Natural keys of Tenable.sc records. Host: Tenable host UUID where present, else the console's own
// uniqueness attributes (repository, IP, DNS name), so hosts without a UUID stay distinct.
import type { MissingIdentity } from '../../../core/map-rows.ts';
import { refId, text } from './values.ts';

export interface HostIdentity {
  uuid?: unknown;
  repositoryId?: unknown;
  ip?: unknown;
  dnsName?: unknown;
}

export function hostKey(h: HostIdentity): string {
  const uuid = text(h.uuid);
  if (uuid) return `uuid:${uuid.toLowerCase()}`;
  return `addr:${text(h.repositoryId) ?? ''}|${text(h.ip) ?? ''}|${(text(h.dnsName) ?? '').toLowerCase()}`;
}

/** Host key of an analysis row (sumip or vulndetails): `uuid`, else 6.x `hostUUID`, else the address. */
export function rowHostKey(row: Record<string, unknown>): string {
  return hostKey({
    uuid: text(row.uuid) ?? text(row.hostUUID),
    repositoryId: refId(row.repository) ?? row.repositoryID,
    ip: row.ip,
    dnsName: row.dnsName,
  });
}

/** Why a row cannot be keyed to a host (no uuid, hostUUID, ip or dnsName), or null when it can. */
export function missingHostIdentity(row: Record<string, unknown>): MissingIdentity | null {
  return (text(row.uuid) ?? text(row.hostUUID) ?? text(row.ip) ?? text(row.dnsName))
    ? null
    : { field: 'uuid|hostUUID|ip|dnsName', reason: 'a row without a host identity (uuid, hostUUID, ip or dnsName)' };
}

/** Why a finding row (vulndetails) cannot be keyed: no host identity, or no pluginID. */
export function missingFindingIdentity(row: Record<string, unknown>): MissingIdentity | null {
  return missingHostIdentity(row) ?? (text(row.pluginID) ? null : { field: 'pluginID', reason: 'a row without a pluginID' });
}

export function findingKey(host: string, port: number | null, protocol: string | null, pluginId: string): string {
  return `${host}|${port ?? 0}|${protocol ?? ''}|${pluginId}`;
}

export function portKey(host: string, port: number, protocol: string): string {
  return `${host}|${port}|${protocol}`;
}

export function softwareKey(host: string, name: string, version: string | null): string {
  return `${host}|${name}|${version ?? ''}`;
}

/** Compliance: per-check plugin ids (>= 1,000,000) are unique per check; shared ones add the check name. */
export function complianceKey(host: string, pluginId: string, checkName: string | null): string {
  const perCheck = Number(pluginId) >= 1_000_000;
  return perCheck || !checkName ? `${host}|${pluginId}` : `${host}|${pluginId}|${checkName}`;
}
