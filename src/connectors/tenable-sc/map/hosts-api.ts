// `/rest/hosts` rows (Host Assets, console 5.20+): the console's own last-seen date per host, its
// identifiers (`tenableUUID`, the host's `uuid`) and its asset criticality and exposure scores.
import type { FieldsOf, RecordOf } from '../../../core/models.ts';
import { scoreOf } from './host-fields.ts';
import { type HostIds, type HostResolver, netbiosOf } from './host-resolver.ts';
import { hostKey } from './identity.ts';
import { hostNames } from './sumip.ts';
import { epochToIso, text } from './values.ts';

export const HOSTS_API_FIELDS = 'id,uuid,tenableUUID,name,ipAddress,os,firstSeen,lastSeen,macAddress,repID,netBios,acr,aes';

/** Identifiers of a /rest/hosts row, in the repository `names` says its `repID` is. */
export function hostsApiIds(row: Record<string, unknown>, names: Map<string, string>): HostIds {
  const ip = text(row.ipAddress);
  // `name` is the DNS name, or the IP itself when the host has none.
  const name = text(row.name);
  const repId = text(row.repID);
  return {
    scope: (repId && names.get(repId)) ?? '',
    tenableUuid: text(row.tenableUUID)?.toLowerCase() ?? null,
    netbios: netbiosOf(row.netBios),
    fqdn: name && name !== ip ? hostNames(name, null).fqdn : null,
    ips: ip ? [ip] : [],
  };
}

/**
 * The known host a /rest/hosts row describes: by its `uuid` taken as the host's own id (SC 6.x
 * `hostUUID`; UNCERTAIN that the two are one, so it only finds, never contradicts), else by the
 * identifiers sumip and vulndetails give.
 */
export function hostsApiHost(row: Record<string, unknown>, resolver: HostResolver): string | null {
  const ids = hostsApiIds(row, resolver.repositoryNames);
  const uuid = text(row.uuid)?.toLowerCase();
  const byUuid = uuid ? resolver.find({ scope: ids.scope, hostUuid: uuid }) : null;
  if (byUuid) return byUuid;
  const ip = ids.ips?.[0];
  const name = text(row.name);
  const legacy = ip ? hostKey({ repositoryId: row.repID, ip, dnsName: name && name !== ip ? name : '' }) : undefined;
  return resolver.find(ids, ids.tenableUuid ? hostKey({ uuid: ids.tenableUuid }) : legacy) ?? (legacy && resolver.has(legacy) ? legacy : null);
}

/**
 * The enrichment record for a /rest/hosts row: the console's last-seen date, Tenable UUID and scores
 * (not its single `macAddress`, which would overwrite the fuller list from sumip/86420, nor its `uuid`:
 * whether that is vulndetails' `hostUUID` is UNCERTAIN, and a wrong one would part a host from its
 * findings).
 */
export function mapHostsApiRow(row: Record<string, unknown>, key: string): RecordOf<'hosts'> | null {
  const fields: FieldsOf<'hosts'> = {};
  const last = epochToIso(row.lastSeen);
  if (last) fields.scannerLastSeen = last;
  const tenable = text(row.tenableUUID);
  if (tenable) fields.tenableUuid = tenable.toLowerCase();
  const acr = scoreOf(row.acr);
  if (acr !== null) fields.acrScore = acr;
  const aes = scoreOf(row.aes);
  if (aes !== null) fields.aesScore = aes;
  if (Object.keys(fields).length === 0) return null;
  return { key, fields };
}
