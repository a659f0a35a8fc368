// `/rest/hosts` rows (Host Assets, console 5.20+): the console's own last-seen date per host.
import type { IncomingRecord } from '../../../core/models.ts';
import { hostKey } from './identity.ts';
import { epochToIso, text } from './values.ts';

export const HOSTS_API_FIELDS = 'id,uuid,tenableUUID,name,ipAddress,os,firstSeen,lastSeen,macAddress,repID,netBios';

/** Keys this row may be known under, most specific first. */
export function hostsApiKeys(row: Record<string, unknown>): string[] {
  const keys: string[] = [];
  for (const u of [row.tenableUUID, row.uuid]) {
    const s = text(u);
    if (s) keys.push(hostKey({ uuid: s }));
  }
  const ip = text(row.ipAddress);
  if (ip) {
    // `name` is the DNS name, or the IP itself when the host has none.
    const name = text(row.name);
    keys.push(hostKey({ repositoryId: row.repID, ip, dnsName: name === ip ? '' : name }));
  }
  return [...new Set(keys)];
}

/**
 * The enrichment record for a /rest/hosts row: only the console's last-seen date (its single
 * `macAddress` would overwrite the fuller list from sumip/86420). `key` is the first candidate key,
 * or the one the caller matched.
 */
export function mapHostsApiRow(row: Record<string, unknown>, key?: string): IncomingRecord | null {
  const k = key ?? hostsApiKeys(row)[0];
  if (!k) return null;
  const fields: Record<string, unknown> = {};
  const last = epochToIso(row.lastSeen);
  if (last) fields.scannerLastSeen = last;
  if (Object.keys(fields).length === 0) return null;
  return { key: k, fields };
}
