// Wire rows. Everything is a string except the severity/family/repository objects; times are
// epoch-second strings, "-1" means unknown and "" empty — as in the recorded responses.
import { PLUGINS, RISK_FACTORS, SEVERITIES } from './catalog.ts';
import { uuidFrom } from './hash.ts';
import type { HostDetails } from './host-details.ts';
import type { HostSkeleton } from './hosts.ts';
import type { FeatureSet } from './options.ts';
import { buildPluginText } from './plugin-text.ts';

export interface RepositoryInfo {
  id: string;
  name: string;
  description: string;
  dataFormat: string;
}

export const REPOSITORIES: RepositoryInfo[] = [
  { id: '1', name: 'Datacenter', description: 'Servers scanned weekly with credentials', dataFormat: 'IPv4' },
  { id: '2', name: 'Workstations', description: '', dataFormat: 'IPv4' },
  { id: '3', name: 'Restricted DMZ', description: 'Owned by the network team; not shared with the analyst group', dataFormat: 'IPv4' },
];
/** Repositories the analyst's group can read; repository 3 exists but its data is silently absent. */
export const GROUP_REPOSITORY_IDS = [1, 2];

const UNIQUENESS = 'repositoryID,ip,dnsName';
const PROTOCOL_NUMBERS: Record<string, number> = { TCP: 6, UDP: 17, ICMP: 1 };

export function repositoryRef(id: number, features: FeatureSet): Record<string, string> {
  const repo = REPOSITORIES[id - 1];
  return features.modernRowFields
    ? { id: repo.id, name: repo.name, description: repo.description, sciID: '1', dataFormat: repo.dataFormat }
    : { id: repo.id, name: repo.name, description: repo.description, dataFormat: repo.dataFormat };
}

export function vulnDetailsRow(
  seed: number,
  sk: HostSkeleton & { details: HostDetails },
  slot: number,
  lastSeen: number,
  resurfaced: boolean,
  features: FeatureSet,
): Record<string, unknown> {
  const def = PLUGINS[sk.plugin[slot]];
  const d = sk.details;
  const severity = sk.severity[slot];
  const port = String(sk.port[slot]);
  const protocol = def.id === 10114 || def.id === 10287 ? 'ICMP' : def.protocol;
  const pluginID = String(def.id);
  // A finding last seen before the host moved carries the address it had then.
  const ip = d.previousIp && lastSeen < sk.ipChangedAt ? d.previousIp : d.ip;
  // Column order follows the recorded rows; later-version columns are spliced in where they appear.
  const row: Record<string, unknown> = {
    pluginID,
    severity: SEVERITIES[severity],
    hasBeenMitigated: resurfaced ? '1' : '0',
    acceptRisk: '0',
    recastRisk: '0',
    ip,
    uuid: d.uuid,
    port,
    protocol,
    pluginName: def.name,
    firstSeen: String(sk.firstSeen[slot]),
    lastSeen: String(lastSeen),
    exploitAvailable: def.exploitAvailable,
    exploitEase: def.exploitEase,
    exploitFrameworks: def.exploitFrameworks,
    synopsis: def.synopsis,
    description: def.description,
    solution: def.solution,
    seeAlso: def.seeAlso,
    riskFactor: RISK_FACTORS[severity],
    stigSeverity: def.stigSeverity,
  };
  if (features.modernRowFields) {
    row.vprScore = def.vprScore;
    row.vprContext = def.vprContext;
  }
  if (features.epss) row.epssScore = def.epssScore;
  Object.assign(row, {
    baseScore: def.baseScore,
    temporalScore: def.temporalScore,
    cvssVector: def.cvssVector,
    cvssV3BaseScore: def.cvssV3BaseScore,
    cvssV3TemporalScore: def.cvssV3TemporalScore,
    cvssV3Vector: def.cvssV3Vector,
    cpe: def.cpe,
    vulnPubDate: def.vulnPubDate,
    patchPubDate: def.patchPubDate,
    pluginPubDate: def.pluginPubDate,
    pluginModDate: def.pluginModDate,
    checkType: def.checkType,
    version: def.version,
    cve: def.cve,
    bid: '',
    xref: def.xref,
    pluginText: buildPluginText(def, sk, d, slot, protocol),
    dnsName: d.dnsName,
    macAddress: d.macAddress,
    netbiosName: d.netbiosName,
  });
  if (features.modernRowFields) {
    row.operatingSystem = d.operatingSystem;
    row.ips = ip;
    row.hostUniqueness = UNIQUENESS;
  }
  row.uniqueness = UNIQUENESS;
  row.family = def.family;
  row.repository = repositoryRef(sk.repository, features);
  row.pluginInfo = `${pluginID} (${port}/${PROTOCOL_NUMBERS[protocol]}) ${def.name}`;
  if (features.findingUuids) {
    row.vulnUUID = uuidFrom(seed, sk.index, def.id, sk.port[slot], 5);
    row.hostUUID = d.hostUUID;
  }
  if (features.epss) {
    row.acrScore = String(3 + (sk.seedHash % 7));
    row.assetExposureScore = String(200 + (sk.seedHash % 700));
  }
  return row;
}

const SEVERITY_WEIGHT = [0, 1, 3, 10, 40];

export function sumIpRow(sk: HostSkeleton & { details: HostDetails }, counts: number[], hostLastSeen: number, features: FeatureSet): Record<string, unknown> {
  const d = sk.details;
  const credentialed = sk.kind !== 2;
  const row: Record<string, unknown> = {
    ip: d.ip,
    uuid: d.uuid,
    score: String(counts.reduce((s, c, i) => s + c * SEVERITY_WEIGHT[i], 0)),
    total: String(counts.reduce((s, c) => s + c, 0)),
    severityInfo: String(counts[0]),
    severityLow: String(counts[1]),
    severityMedium: String(counts[2]),
    severityHigh: String(counts[3]),
    severityCritical: String(counts[4]),
    macAddress: d.macs[0] ?? '',
    policyName: d.policyName,
    pluginSet: '202511140312',
    netbiosName: d.netbiosName,
    dnsName: d.dnsName,
    osCPE: d.osCpe,
    biosGUID: d.biosGUID,
    tpmID: '',
    mcafeeGUID: '',
    lastAuthRun: credentialed ? String(hostLastSeen) : '',
    lastUnauthRun: credentialed ? '' : String(hostLastSeen),
  };
  if (features.modernRowFields) row.hostUniqueness = UNIQUENESS;
  row.uniqueness = UNIQUENESS;
  row.repository = repositoryRef(sk.repository, features);
  return row;
}

export const HOST_FIELDS = [
  'id',
  'uuid',
  'tenableUUID',
  'name',
  'ipAddress',
  'os',
  'firstSeen',
  'lastSeen',
  'macAddress',
  'source',
  'repID',
  'netBios',
  'netBiosWorkgroup',
  'systemType',
  'createdTime',
  'modifiedTime',
  'acr',
  'aes',
];
export const HOST_ALWAYS = ['tenableUUID', 'name', 'ipAddress', 'os', 'firstSeen', 'lastSeen'];

/** One /rest/hosts entry restricted to the requested fields (plus the always-returned ones). */
export function hostAssetRow(sk: HostSkeleton & { details: HostDetails }, hostLastSeen: number, fields: Set<string>): Record<string, unknown> {
  const d = sk.details;
  const [workgroup, netbios] = d.netbiosName.includes('\\') ? d.netbiosName.split('\\') : ['', d.netbiosName];
  const all: Record<string, unknown> = {
    id: String(sk.index + 1),
    // The host's own id: the `hostUUID` of its vulndetails rows (UNCERTAIN on real consoles; the
    // connector also finds hosts by tenableUUID and address).
    uuid: d.hostUUID,
    tenableUUID: d.uuid,
    name: d.dnsName || d.ip,
    ipAddress: d.ip,
    os: d.operatingSystem,
    firstSeen: String(sk.hostFirstSeen),
    lastSeen: String(hostLastSeen),
    macAddress: d.macs[0] ?? '',
    source: [{ type: sk.kind === 2 ? 'nessus_scan_unauthenticated' : 'nessus_scan' }],
    repID: String(sk.repository),
    netBios: netbios,
    netBiosWorkgroup: workgroup,
    systemType: sk.kind === 0 && sk.variant >= 2 ? 'general-purpose' : sk.kind === 2 ? '' : 'server',
    createdTime: String(sk.hostFirstSeen),
    modifiedTime: String(hostLastSeen),
    acr: { score: String(3 + (sk.seedHash % 7)), overwritten: 'false' },
    aes: { score: String(200 + (sk.seedHash % 700)) },
  };
  const out: Record<string, unknown> = {};
  for (const f of HOST_FIELDS) if (fields.has(f) || HOST_ALWAYS.includes(f)) out[f] = all[f];
  return out;
}
