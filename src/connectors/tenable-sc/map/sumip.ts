// `sumip` rows (one per host per repository) → host records.
import type { FieldsOf, RecordOf } from '../../../core/models.ts';
import { rowHostKey } from './identity.ts';
import { epoch, macs, refName, text } from './values.ts';
import { hostIdentityFields } from './host-fields.ts';

/** "cpe:/o:microsoft:windows_10:::x64-home" → "Microsoft Windows 10". */
export function osFromCpe(cpe: unknown): string | null {
  const s = text(cpe);
  if (!s) return null;
  const m = /^cpe:(?:\/|2\.3:)[aho]:([^:]*):([^:]*)(?::([^:]*))?/i.exec(s);
  if (!m) return null;
  const cap = (w: string) => w.replace(/_/g, ' ').replace(/\b([a-z])/g, (c) => c.toUpperCase());
  const vendor = m[1] ?? '';
  let product = m[2] ?? '';
  if (!product) return null;
  const version = m[3] && m[3] !== '-' && m[3] !== '*' ? m[3] : '';
  const parts: string[] = [];
  if (vendor && !product.toLowerCase().startsWith(vendor.toLowerCase())) parts.push(cap(vendor));
  product = cap(product);
  parts.push(product);
  if (version) parts.push(version);
  return parts.join(' ');
}

/** Host name parts: the short name and the FQDN from a DNS name, else from a NetBIOS name. */
export function hostNames(dnsName: unknown, netbiosName: unknown): { hostname: string | null; fqdn: string | null } {
  const dns = text(dnsName)?.toLowerCase() ?? null;
  if (dns && !/^\d+\.\d+\.\d+\.\d+$/.test(dns)) {
    const fqdn = dns.includes('.') ? dns.replace(/\.$/, '') : null;
    return { hostname: dns.split('.')[0] || null, fqdn };
  }
  const nb = text(netbiosName);
  if (nb) {
    const name = nb.includes('\\') ? nb.slice(nb.lastIndexOf('\\') + 1) : nb;
    return { hostname: name.toLowerCase().split('.')[0] || null, fqdn: null };
  }
  return { hostname: null, fqdn: null };
}

export function mapSumipRow(row: Record<string, unknown>, key = rowHostKey(row)): RecordOf<'hosts'> {
  const uuid = text(row.uuid);
  const repo = row.repository as { dataFormat?: unknown } | undefined;
  const lastAuth = epoch(row.lastAuthRun);
  const lastUnauth = epoch(row.lastUnauthRun);
  const last = Math.max(lastAuth ?? 0, lastUnauth ?? 0);
  const agent = text(repo?.dataFormat)?.toLowerCase() === 'agent';
  const ip = text(row.ip);
  const fields: FieldsOf<'hosts'> = {
    ipAddresses: ip ? [ip] : [],
    ...hostNames(row.dnsName, row.netbiosName),
    netbiosName: text(row.netbiosName),
    repository: refName(row.repository),
    credentialed: lastAuth !== null || agent,
  };
  // MACs and OS are also filled in from plugin output (86420, 11936): only set what sumip knows.
  const mac = macs(row.macAddress);
  if (mac.length > 0) fields.macAddresses = mac;
  const os = osFromCpe(row.osCPE);
  if (os) fields.os = os;
  // Only a date the console gave; /rest/hosts may refine it later.
  if (last > 0) fields.scannerLastSeen = new Date(last * 1000).toISOString();
  Object.assign(fields, hostIdentityFields(row));
  return { key, externalId: uuid ? uuid.toLowerCase() : null, fields };
}
