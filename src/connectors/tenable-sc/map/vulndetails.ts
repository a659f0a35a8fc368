// `vulndetails` rows (one per finding) → vulnerabilities, compliance results, and the inventory carried
// in plugin output (software, ports, host facts). Pure: the CSV import reuses these with rows it builds.
import { collectInto, type FieldsOf, type RecordOf, type RecordsByModel, type Severity, type VulnerabilityStatus } from '../../../core/models.ts';
import { complianceKey, findingKey, portKey, rowHostKey, softwareKey } from './identity.ts';
import { parseCompliance } from './plugin-output/compliance.ts';
import { parseDmiHardware, parseWindowsHardware } from './plugin-output/hardware.ts';
import {
  parseCredentialedScan,
  parseDeviceHostname,
  parseEthernetManufacturers,
  parseFqdnResolution,
  parseLastLoggedOnUser,
  parseMacAddresses,
  parseOsIdentification,
} from './plugin-output/host-info.ts';
import { parsePortScanner, parseServiceDetection } from './plugin-output/ports.ts';
import { parseUnixSoftware, parseWindowsSoftware } from './plugin-output/software.ts';
import { pluginOutput } from './plugin-output/text.ts';
import { hostIdentityFields } from './host-fields.ts';
import { hostNames } from './sumip.ts';
import { type DetailOptions, findingDetail } from './plugins.ts';
import { bool, epochToIso, int, jsonOf, list, macs, num, refName, remembered, text, timeOf } from './values.ts';

export const SOFTWARE_PLUGINS = ['20811', '22869'] as const;
export const PORT_PLUGINS = ['34220', '14272', '11219', '34277', '10335', '22964'] as const;
/**
 * Host-fact plugins read. Of the fact sheet's others: 45590 (CPE list) has no host field, and its OS is
 * coarser than 11936's; 10860/72684 (local users) have no model; 34252/25221 name a listening process,
 * not a service; 83991's output is unverified.
 */
export const HOST_PLUGINS = ['11936', '24270', '35351', '38689', '86420', '35716', '55472', '12053', '19506'] as const;
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
  const raw = row.cve;
  if (typeof raw !== 'string') return parseCves(raw);
  // A plugin's CVE list repeats on each of its findings: parsed once. The list is shared, so it is
  // frozen (the store then writes its JSON once, schema.ts toColumnValue).
  return remembered(cvesCache, raw, 4096, (r) => Object.freeze(parseCves(r)) as string[]);
}

const cvesCache = new Map<string, string[]>();

function parseCves(raw: unknown): string[] {
  return list(raw, /[\s,]+/)
    .filter((c) => /^CVE-\d{4}-\d+$/i.test(c))
    .map((c) => c.toUpperCase());
}

/** Finding status: `fixed` when read from the patched set, `reopened` when mitigated before, else `open`. */
export function statusOf(row: Record<string, unknown>, sourceType: 'cumulative' | 'patched'): VulnerabilityStatus {
  if (sourceType === 'patched') return 'fixed';
  return bool(row.hasBeenMitigated) ? 'reopened' : 'open';
}

/**
 * The console's date of the finding's last mitigation: `lastMitigated` (the name of SC's filter; as a row
 * field, and its variant `mitigatedOn`, UNCERTAIN: no recorded row carries one), else for a row of the
 * patched set its `lastSeen` (the scan that found it fixed, or on some consoles its last vulnerable
 * sighting: either way the console's own date, not the day Tributary read it).
 */
export function mitigatedAtOf(row: Record<string, unknown>, sourceType: 'cumulative' | 'patched'): string | null {
  const named = timeOf(row.lastMitigated ?? row.mitigatedOn);
  if (named) return named;
  return sourceType === 'patched' ? epochToIso(row.lastSeen) : null;
}

/**
 * VPR key drivers as one object: SC sends `vprContext` as a JSON string of `[{id, name, type, value}]`
 * (→ `{id: value}`); `keyDrivers` may come as an object or JSON text. Anything else is kept as sent
 * (`{value}`); nothing or an empty list is null.
 */
export function vprKeyDriversOf(row: Record<string, unknown>): Record<string, unknown> | null {
  const raw = row.keyDrivers ?? row.vprKeyDrivers ?? row.vprContext;
  // The context is the plugin's, so the same text repeats on every host: parsed once (bounded cache;
  // the object is shared, and never changed).
  if (typeof raw === 'string') return remembered(driversCache, raw, 1024, (r) => deepFreeze(keyDriversOf(jsonOf(r))));
  return keyDriversOf(jsonOf(raw));
}

const driversCache = new Map<string, Record<string, unknown> | null>();

/** `v` and everything in it made read-only (a cached value handed to many records). */
function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

function keyDriversOf(v: unknown): Record<string, unknown> | null {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) {
    const out: Record<string, unknown> = {};
    for (const d of v) {
      if (d && typeof d === 'object') {
        const id = text((d as { id?: unknown }).id) ?? text((d as { name?: unknown }).name);
        if (id) out[id] = (d as { value?: unknown }).value ?? null;
      }
    }
    return Object.keys(out).length > 0 ? out : v.length > 0 ? { value: v } : null;
  }
  if (typeof v === 'object') return Object.keys(v).length > 0 ? (v as Record<string, unknown>) : null;
  return { value: v };
}

/** SC 6.x row fields (acceptRisk, recastRisk, vprContext/keyDrivers, vulnUniqueness, seolDate): only those the row has. */
function riskFields(row: Record<string, unknown>, f: FieldsOf<'vulnerabilities'>): void {
  const accepted = bool(row.acceptRisk ?? row.acceptedRisk);
  if (accepted !== null) f.acceptedRisk = accepted;
  const recast = bool(row.recastRisk);
  if (recast !== null) f.recastRisk = recast;
  // A row that carries the context sets the drivers, null when it lists none: a finding whose drivers
  // went away loses them, and a page's rows keep one shape (one write batch, not two).
  if (row.keyDrivers !== undefined || row.vprKeyDrivers !== undefined || row.vprContext !== undefined) f.vprKeyDrivers = vprKeyDriversOf(row);
  const uniqueness = text(row.vulnUniqueness);
  if (uniqueness) f.vulnUniqueness = uniqueness;
  const seol = timeOf(row.seolDate);
  if (seol) f.seolDate = seol;
}

export function mapVulnerability(
  row: Record<string, unknown>,
  sourceType: 'cumulative' | 'patched',
  host = rowHostKey(row),
  detail: DetailOptions = {},
): RecordOf<'vulnerabilities'> | null {
  const pluginId = text(row.pluginID);
  if (!pluginId) return null;
  const port = int(row.port);
  const protocol = protocolOf(row);
  // Typed by the model: a field vulnerabilities do not have is a type error here.
  const fields: FieldsOf<'vulnerabilities'> = {
    pluginId,
    pluginName: text(row.pluginName),
    severity: severityOf(row),
    cves: cvesOf(row),
    cvssV2BaseScore: num(row.baseScore),
    cvssV3BaseScore: num(row.cvssV3BaseScore),
    cvssV3Vector: text(row.cvssV3Vector),
    cvssV2Vector: text(row.cvssVector),
    scannerEpssScore: num(row.epssScore),
    vprScore: num(row.vprScore),
    scannerKnownExploited: isKnownExploited(row),
    status: statusOf(row, sourceType),
    port,
    protocol,
    ...findingDetail(row, detail),
  };
  riskFields(row, fields);
  const mitigatedAt = mitigatedAtOf(row, sourceType);
  if (mitigatedAt) fields.mitigatedAt = mitigatedAt;
  return {
    // The console's own finding identity (its host's UUID or address + port + protocol + plugin), so two
    // of the console's hosts that land on one host keep their findings apart.
    key: findingKey(rowHostKey(row), port, protocol, pluginId),
    hostKey: host,
    externalId: text(row.vulnUUID),
    firstSeen: epochToIso(row.firstSeen),
    lastSeen: epochToIso(row.lastSeen),
    fields,
  };
}

export function mapComplianceRow(row: Record<string, unknown>, host = rowHostKey(row)): RecordOf<'compliance'> | null {
  const pluginId = text(row.pluginID);
  if (!pluginId) return null;
  const cm = parseCompliance(row.pluginText);
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

export function mapSoftwareRow(row: Record<string, unknown>, host = rowHostKey(row)): RecordOf<'software'>[] {
  const pid = text(row.pluginID);
  const out = pluginOutput(row.pluginText);
  const items = pid === '20811' ? parseWindowsSoftware(out) : pid === '22869' ? parseUnixSoftware(out) : [];
  return items.map((i) => ({ key: softwareKey(host, i.name, i.version), hostKey: host, fields: { name: i.name, version: i.version } }));
}

export function mapPortRow(row: Record<string, unknown>, host = rowHostKey(row)): RecordOf<'ports'> | null {
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
  const fields: FieldsOf<'ports'> = { port, protocol };
  if (pid === '22964') {
    const svc = parseServiceDetection(out);
    if (svc) fields.service = svc;
  }
  return { key: portKey(rowHostKey(row), port, protocol), hostKey: host, fields };
}

/**
 * Host facts carried by one inventory-plugin row; only the fields the row knows are set.
 * `uncredentialedScan`: 19506 saying `Credentialed checks : no` sets credentialed false (file mode,
 * where no host summary says otherwise; in API mode sumip's last authenticated run decides).
 * `key`: the host the row resolved to (default: the row's own key).
 */
export function mapHostEnrichment(row: Record<string, unknown>, opts: { uncredentialedScan?: boolean; key?: string } = {}): RecordOf<'hosts'> | null {
  const pid = text(row.pluginID) ?? '';
  const out = pluginOutput(row.pluginText);
  const f: FieldsOf<'hosts'> = {};
  if (pid === '11936') {
    const os = parseOsIdentification(out) ?? text(row.operatingSystem);
    if (os) f.os = os;
  } else if (pid === '24270' || pid === '35351') {
    Object.assign(f, pid === '24270' ? parseWindowsHardware(out) : parseDmiHardware(out));
  } else if (pid === '38689') {
    const user = parseLastLoggedOnUser(out);
    if (user) f.lastLoggedOnUser = user;
  } else if (pid === '86420' || pid === '35716') {
    const list = pid === '86420' ? parseMacAddresses(out) : parseEthernetManufacturers(out);
    if (list.length > 0) f.macAddresses = list;
  } else if (pid === '55472') {
    const name = parseDeviceHostname(out);
    if (name) f.hostname = name.toLowerCase().split('.')[0];
  } else if (pid === '12053') {
    // Reverse DNS as a plugin reports it: it fills the names a host lacks (web01.corp.example → web01),
    // never overwriting what the host summary or the hosts API said.
    const fqdn = parseFqdnResolution(out);
    if (fqdn) return { key: opts.key ?? rowHostKey(row), fill: true, fields: { fqdn, hostname: fqdn.toLowerCase().split('.')[0] } };
  } else if (pid === '19506') {
    const credentialed = parseCredentialedScan(out);
    if (credentialed || (credentialed === false && opts.uncredentialedScan)) f.credentialed = credentialed;
  } else if (!CREDENTIALED_PLUGINS.has(pid)) {
    return null;
  }
  if (CREDENTIALED_PLUGINS.has(pid)) f.credentialed = true;
  if (Object.keys(f).length === 0) return null;
  const uuid = text(row.uuid) ?? text(row.hostUUID);
  return { key: opts.key ?? rowHostKey(row), externalId: uuid ? uuid.toLowerCase() : undefined, fields: f };
}

/** Everything one vulndetails row yields (the CSV import's entry point). */
export function mapVulndetailsRow(
  row: Record<string, unknown>,
  opts: { sourceType?: 'cumulative' | 'patched'; includeInformational?: boolean; file?: boolean; hostKey?: string } & DetailOptions = {},
): RecordsByModel {
  const out: RecordsByModel = {};
  const host = opts.hostKey ?? rowHostKey(row);
  const pid = text(row.pluginID) ?? '';
  const add = collectInto(out);
  if (isComplianceRow(row)) {
    add('compliance', mapComplianceRow(row, host));
    return out;
  }
  if ((SOFTWARE_PLUGINS as readonly string[]).includes(pid)) for (const s of mapSoftwareRow(row, host)) add('software', s);
  if ((PORT_PLUGINS as readonly string[]).includes(pid)) add('ports', mapPortRow(row, host));
  if ((HOST_PLUGINS as readonly string[]).includes(pid) || CREDENTIALED_PLUGINS.has(pid))
    add('hosts', mapHostEnrichment(row, { uncredentialedScan: opts.file === true, key: host }));
  if (severityOf(row) !== 'info' || opts.includeInformational) add('vulnerabilities', mapVulnerability(row, opts.sourceType ?? 'cumulative', host, opts));
  return out;
}

/** Host facts every finding row carries (address, names, MAC, OS on newer consoles, identifiers). */
export function hostFromFindingRow(row: Record<string, unknown>, key = rowHostKey(row)): RecordOf<'hosts'> {
  const ip = text(row.ip);
  const f: FieldsOf<'hosts'> = {};
  if (ip) f.ipAddresses = list(row.ips).length > 0 ? list(row.ips) : [ip];
  const m = macs(row.macAddress);
  if (m.length > 0) f.macAddresses = m;
  const nb = text(row.netbiosName);
  if (nb) f.netbiosName = nb;
  const names = hostNames(row.dnsName, row.netbiosName);
  if (names.hostname) f.hostname = names.hostname;
  if (names.fqdn) f.fqdn = names.fqdn;
  const os = text(row.operatingSystem);
  if (os) f.os = os;
  f.repository = refName(row.repository);
  const last = epochToIso(row.lastSeen);
  if (last) f.scannerLastSeen = last;
  Object.assign(f, hostIdentityFields(row));
  const uuid = text(row.uuid) ?? text(row.hostUUID);
  return { key, externalId: uuid ? uuid.toLowerCase() : undefined, fields: f };
}
