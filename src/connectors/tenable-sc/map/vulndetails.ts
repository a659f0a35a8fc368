// `vulndetails` rows (one per finding) → vulnerabilities, compliance results, and the inventory carried
// in plugin output (software, ports, host facts). Pure: the CSV import reuses these with rows it builds.
import type { IncomingRecord, ModelName, Severity, VulnerabilityStatus } from '../../../core/models.ts';
import { complianceKey, findingKey, portKey, rowHostKey, softwareKey } from './identity.ts';
import { parseCompliance } from './plugin-output/compliance.ts';
import { parseDmiHardware, parseWindowsHardware } from './plugin-output/hardware.ts';
import { parseCredentialedScan, parseDeviceHostname, parseLastLoggedOnUser, parseMacAddresses, parseOsIdentification } from './plugin-output/host-info.ts';
import { parsePortScanner, parseServiceDetection } from './plugin-output/ports.ts';
import { parseUnixSoftware, parseWindowsSoftware } from './plugin-output/software.ts';
import { pluginOutput } from './plugin-output/text.ts';
import { type DetailOptions, findingDetail } from './plugins.ts';
import { bool, epochToIso, int, list, macs, num, refName, text } from './values.ts';

export const SOFTWARE_PLUGINS = ['20811', '22869'] as const;
export const PORT_PLUGINS = ['34220', '14272', '11219', '34277', '10335', '22964'] as const;
export const HOST_PLUGINS = ['11936', '24270', '35351', '38689', '86420', '55472', '19506'] as const;
/** Plugins whose output only exists on credentialed or agent scans. */
const CREDENTIALED_PLUGINS = new Set(['20811', '22869', '24270', '35351', '38689']);
const COMPLIANCE_SCAN_PLUGINS = new Set(['21156', '21157', '33929']);

const SEVERITIES: Severity[] = ['info', 'low', 'medium', 'high', 'critical'];

export function severityOf(row: Record<string, unknown>): Severity | null {
  const sev = row.severity;
  const id = int(sev && typeof sev === 'object' ? (sev as { id?: unknown }).id : sev);
  if (id !== null && id >= 0 && id <= 4) return SEVERITIES[id]!;
  const name = (refName(sev) ?? text(sev) ?? '').toLowerCase();
  if (name.startsWith('info')) return 'info';
  return (SEVERITIES as string[]).includes(name) ? (name as Severity) : null;
}

export function protocolOf(row: Record<string, unknown>): string | null {
  return text(row.protocol)?.toLowerCase() ?? null;
}

/** A compliance (audit) result rather than a vulnerability. */
export function isComplianceRow(row: Record<string, unknown>): boolean {
  const pluginType = (text(row.pluginType) ?? text((row.family as { type?: unknown } | undefined)?.type) ?? '').toLowerCase();
  if (pluginType === 'compliance') return true;
  if ((refName(row.family) ?? '').toLowerCase() === 'policy compliance') return true;
  const pid = text(row.pluginID) ?? '';
  if (COMPLIANCE_SCAN_PLUGINS.has(pid) || Number(pid) >= 1_000_000) return true;
  return typeof row.pluginText === 'string' && row.pluginText.includes('<cm:compliance-');
}

/** CISA KEV: Tenable plugins carry an xref like `CISA-KNOWN-EXPLOITED #2022/05/03`. */
export function isKnownExploited(row: Record<string, unknown>): boolean {
  if (/CISA-KNOWN-EXPLOITED/i.test(text(row.xref) ?? '')) return true;
  const ctx = text(row.vprContext);
  return ctx !== null && /cisa[_ -]?(kev|known)/i.test(ctx);
}

export function cvesOf(row: Record<string, unknown>): string[] {
  return list(row.cve, /[\s,]+/).filter((c) => /^CVE-\d{4}-\d+$/i.test(c)).map((c) => c.toUpperCase());
}

/** Finding status: `fixed` when read from the patched set, `reopened` when mitigated before, else `open`. */
export function statusOf(row: Record<string, unknown>, sourceType: 'cumulative' | 'patched'): VulnerabilityStatus {
  if (sourceType === 'patched') return 'fixed';
  return bool(row.hasBeenMitigated) ? 'reopened' : 'open';
}

export function mapVulnerability(row: Record<string, unknown>, sourceType: 'cumulative' | 'patched', detail: DetailOptions = {}): IncomingRecord | null {
  const pluginId = text(row.pluginID);
  if (!pluginId) return null;
  const host = rowHostKey(row);
  const port = int(row.port);
  const protocol = protocolOf(row);
  return {
    key: findingKey(host, port, protocol, pluginId),
    hostKey: host,
    externalId: text(row.vulnUUID),
    firstSeen: epochToIso(row.firstSeen),
    lastSeen: epochToIso(row.lastSeen),
    fields: {
      pluginId,
      pluginName: text(row.pluginName),
      severity: severityOf(row),
      cves: cvesOf(row),
      cvssV2BaseScore: num(row.baseScore),
      cvssV3BaseScore: num(row.cvssV3BaseScore),
      epssScore: num(row.epssScore),
      vprScore: num(row.vprScore),
      knownExploited: isKnownExploited(row),
      status: statusOf(row, sourceType),
      port,
      protocol,
      ...findingDetail(row, detail),
    },
  };
}

export function mapComplianceRow(row: Record<string, unknown>): IncomingRecord | null {
  const pluginId = text(row.pluginID);
  if (!pluginId) return null;
  const cm = parseCompliance(row.pluginText);
  const host = rowHostKey(row);
  const ruleName = cm?.checkName ?? text(row.pluginName);
  // Without cm: tags (e.g. 33929) fall back to the severity mapping the console uses
  // (PASSED → info, WARNING → medium, FAILED → high).
  let result = cm?.result ?? null;
  if (result === null) {
    const sev = severityOf(row);
    result = sev === 'info' ? 'passed' : sev === 'low' || sev === 'medium' ? 'warning' : sev === 'high' || sev === 'critical' ? 'failed' : null;
  }
  return {
    key: complianceKey(host, pluginId, ruleName),
    hostKey: host,
    externalId: text(row.vulnUUID),
    firstSeen: epochToIso(row.firstSeen),
    lastSeen: epochToIso(row.lastSeen),
    fields: {
      benchmark: cm?.auditFile ?? refName(row.family),
      ruleId: cm?.checkId ?? pluginId,
      ruleName,
      result,
    },
  };
}

export function mapSoftwareRow(row: Record<string, unknown>): IncomingRecord[] {
  const pid = text(row.pluginID);
  const out = pluginOutput(row.pluginText);
  const items = pid === '20811' ? parseWindowsSoftware(out) : pid === '22869' ? parseUnixSoftware(out) : [];
  const host = rowHostKey(row);
  return items.map((i) => ({ key: softwareKey(host, i.name, i.version), hostKey: host, fields: { name: i.name, version: i.version } }));
}

export function mapPortRow(row: Record<string, unknown>): IncomingRecord | null {
  const pid = text(row.pluginID);
  const out = pluginOutput(row.pluginText);
  let port = int(row.port);
  let protocol = protocolOf(row);
  if (!port) {
    const parsed = parsePortScanner(out);
    if (!parsed) return null;
    port = parsed.port;
    protocol = parsed.protocol;
  }
  if (!port || port > 65535 || (protocol !== 'tcp' && protocol !== 'udp')) return null;
  const host = rowHostKey(row);
  const fields: Record<string, unknown> = { port, protocol };
  if (pid === '22964') {
    const svc = parseServiceDetection(out);
    if (svc) fields.service = svc;
  }
  return { key: portKey(host, port, protocol), hostKey: host, fields };
}

/** Host facts carried by one inventory-plugin row; only the fields the row knows are set. */
export function mapHostEnrichment(row: Record<string, unknown>): IncomingRecord | null {
  const pid = text(row.pluginID) ?? '';
  const out = pluginOutput(row.pluginText);
  const f: Record<string, unknown> = {};
  if (pid === '11936') {
    const os = parseOsIdentification(out) ?? text(row.operatingSystem);
    if (os) f.os = os;
  } else if (pid === '24270' || pid === '35351') {
    Object.assign(f, pid === '24270' ? parseWindowsHardware(out) : parseDmiHardware(out));
  } else if (pid === '38689') {
    const user = parseLastLoggedOnUser(out);
    if (user) f.lastLoggedOnUser = user;
  } else if (pid === '86420') {
    const list = parseMacAddresses(out);
    if (list.length > 0) f.macAddresses = list;
  } else if (pid === '55472') {
    const name = parseDeviceHostname(out);
    if (name) f.hostname = name.toLowerCase().split('.')[0];
  } else if (pid === '19506') {
    if (parseCredentialedScan(out)) f.credentialed = true;
  } else if (!CREDENTIALED_PLUGINS.has(pid)) {
    return null;
  }
  if (CREDENTIALED_PLUGINS.has(pid)) f.credentialed = true;
  if (Object.keys(f).length === 0) return null;
  const uuid = text(row.uuid) ?? text(row.hostUUID);
  return { key: rowHostKey(row), externalId: uuid ? uuid.toLowerCase() : undefined, fields: f };
}

/** Everything one vulndetails row yields (the CSV import's entry point). */
export function mapVulndetailsRow(
  row: Record<string, unknown>,
  opts: { sourceType?: 'cumulative' | 'patched'; includeInformational?: boolean } & DetailOptions = {},
): Partial<Record<ModelName, IncomingRecord[]>> {
  const out: Partial<Record<ModelName, IncomingRecord[]>> = {};
  const pid = text(row.pluginID) ?? '';
  const add = (m: ModelName, r: IncomingRecord | null) => {
    if (!r) return;
    const list = out[m] ?? [];
    list.push(r);
    out[m] = list;
  };
  if (isComplianceRow(row)) {
    add('compliance', mapComplianceRow(row));
    return out;
  }
  if ((SOFTWARE_PLUGINS as readonly string[]).includes(pid)) for (const s of mapSoftwareRow(row)) add('software', s);
  if ((PORT_PLUGINS as readonly string[]).includes(pid)) add('ports', mapPortRow(row));
  if ((HOST_PLUGINS as readonly string[]).includes(pid) || CREDENTIALED_PLUGINS.has(pid)) add('hosts', mapHostEnrichment(row));
  if (severityOf(row) !== 'info' || opts.includeInformational) add('vulnerabilities', mapVulnerability(row, opts.sourceType ?? 'cumulative', opts));
  return out;
}

/** Host facts every finding row carries (address, names, MAC, OS on newer consoles). */
export function hostFromFindingRow(row: Record<string, unknown>): IncomingRecord {
  const ip = text(row.ip);
  const f: Record<string, unknown> = {};
  if (ip) f.ipAddresses = list(row.ips).length > 0 ? list(row.ips) : [ip];
  const m = macs(row.macAddress);
  if (m.length > 0) f.macAddresses = m;
  const nb = text(row.netbiosName);
  if (nb) f.netbiosName = nb;
  const os = text(row.operatingSystem);
  if (os) f.os = os;
  f.repository = refName(row.repository);
  const uuid = text(row.uuid) ?? text(row.hostUUID);
  return { key: rowHostKey(row), externalId: uuid ? uuid.toLowerCase() : undefined, fields: f };
}
