// Host facts from plugin output: OS (11936), last logged-on user (38689), MACs (86420, 35716),
// host name (55472), FQDN (12053) and whether the scan was credentialed (19506).
import { macs } from '../values.ts';
import { keyValue } from './text.ts';

/** 11936: the first `Remote operating system : <OS>` candidate. */
export function parseOsIdentification(output: string): string | null {
  const v = keyValue(output, 'Remote operating system');
  return v ? v.split('\n')[0]!.trim() || null : null;
}

/** 38689: `Last Successful logon : <user>`. */
export function parseLastLoggedOnUser(output: string): string | null {
  return keyValue(output, /Last Successful logon/);
}

/** 86420: the consolidated `  - <MAC>` list; the "potentially unreliable" section is ignored. */
export function parseMacAddresses(output: string): string[] {
  const out: string[] = [];
  let reliable = true;
  for (const line of output.split('\n')) {
    if (/potentially unreliable/i.test(line)) reliable = false;
    else if (/consolidated list/i.test(line)) reliable = true;
    const m = /^\s*-\s*([0-9A-Fa-f:.-]{12,17})\s*$/.exec(line);
    if (reliable && m) for (const mac of macs(m[1])) if (!out.includes(mac)) out.push(mac);
  }
  return out;
}

/** 55472: `Hostname : <name>`. */
export function parseDeviceHostname(output: string): string | null {
  return keyValue(output, 'Hostname');
}

/** 19506: true when `Credentialed checks : yes` (possibly followed by details). */
export function parseCredentialedScan(output: string): boolean | null {
  const v = keyValue(output, 'Credentialed checks');
  if (v === null) return null;
  return /^yes\b/i.test(v);
}

/**
 * 12053: `<ip> resolves as <fqdn>.` (the fact sheet marks the text UNCERTAIN: any line with
 * `resolves as` is read); the trailing dot of the absolute name is dropped, the name lowercased.
 */
export function parseFqdnResolution(output: string): string | null {
  const m = /resolves as\s+([A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?)\.?\s*$/im.exec(output);
  return m ? m[1]!.toLowerCase() : null;
}

/** 35716: one `<MAC> : <vendor>` line per card. */
export function parseEthernetManufacturers(output: string): string[] {
  const out: string[] = [];
  for (const line of output.split('\n')) {
    const m = /^\s*([0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){5})\s*:/.exec(line);
    if (m) for (const mac of macs(m[1])) if (!out.includes(mac)) out.push(mac);
  }
  return out;
}
