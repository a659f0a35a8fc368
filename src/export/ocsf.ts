// OCSF mapping (JSON, one event per record): compliance results → Compliance Finding (2003), hosts and
// CMDB/correlated assets → Device Inventory Info (5001), installed software → Software Inventory Info
// (5020, OCSF 1.3.0), and what a finding's Vulnerability Finding (2002, mapped in json-fast.ts) shares with
// them: the device, the lifecycle. Pure functions of a stored record, its host and the upstream's product;
// what OCSF has no attribute for goes to `unmapped`.
import { ocsfVersion } from '../core/api-requests.ts';
import type { ConnectorProduct } from '../core/connector.ts';
import { bool, compact, dnsName, domainOf, epochMs, ipAddresses, list, macAddresses, num, perRecord, type Rec, str } from './values.ts';

/** The versions the API's request shape accepts (core/api-requests.ts). */
export const OCSF_VERSIONS = ocsfVersion.options;
export type OcsfVersion = (typeof OCSF_VERSIONS)[number];

export interface OcsfOptions {
  version: OcsfVersion;
  product: ConnectorProduct;
}

type Event = Record<string, unknown>;

export const SEVERITY_ID: Record<string, number> = { info: 1, low: 2, medium: 3, high: 4, critical: 5 };
const SEVERITY_NAME = ['Unknown', 'Informational', 'Low', 'Medium', 'High', 'Critical'];

/** The classification attributes every event starts with. */
export function classify(category: [number, string], cls: [number, string], activity: [number, string], severityId: number): Event {
  return {
    activity_id: activity[0],
    activity_name: activity[1],
    category_uid: category[0],
    category_name: category[1],
    class_uid: cls[0],
    class_name: cls[1],
    type_uid: cls[0] * 100 + activity[0],
    type_name: `${cls[1]}: ${activity[1]}`,
    severity_id: severityId,
    severity: SEVERITY_NAME[severityId],
  };
}

function metadata(rec: Rec, o: OcsfOptions): Event {
  return { version: o.version, uid: str(rec, 'id'), product: { vendor_name: o.product.vendor, name: o.product.name }, log_name: str(rec, 'source') };
}

export function eventTime(rec: Rec): number {
  return epochMs(str(rec, 'lastSeen')) ?? epochMs(str(rec, 'firstSeen')) ?? Date.now();
}

/** OCSF's operating system type from the OS name the upstream reported. */
function osObject(name: string | null): Event | null {
  if (!name) return null;
  const types: [RegExp, number, string][] = [
    [/windows/i, 100, 'Windows'],
    [/android/i, 201, 'Android'],
    [/\bios\b|iphone/i, 301, 'iOS'],
    [/ipados|ipad/i, 302, 'iPadOS'],
    [/mac ?os|os x|darwin/i, 300, 'macOS'],
    [/solaris|sunos/i, 400, 'Solaris'],
    [/\baix\b/i, 401, 'AIX'],
    [/hp-?ux/i, 402, 'HP-UX'],
    [/linux|ubuntu|debian|red ?hat|rhel|centos|suse|fedora|rocky|alma|amazon|oracle|kali|gentoo|arch/i, 200, 'Linux'],
  ];
  const hit = types.find(([re]) => re.test(name));
  return { name, type_id: hit ? hit[1] : 99, type: hit ? hit[2] : 'Other' };
}

/**
 * The device a record describes or hangs off: a host (scanner), a CMDB asset, or a correlated asset.
 * `owner` (OCSF 1.3.0 `device.owner`) comes from the record when it carries one (a finding's owner).
 */
export function ocsfDevice(machine: Rec | null, o: OcsfOptions, extra: { owner?: string | null; fallbackUid?: string | null } = {}): Event {
  if (!machine) return { type_id: 0, type: 'Unknown', uid: extra.fallbackUid ?? 'unknown' };
  const device = deviceOf(machine, o.version);
  // A finding's owner (from its correlated asset) names the device's owner where the host has none.
  if (o.version === '1.1.0' || !extra.owner || device.owner) return device;
  return { ...device, owner: { name: extra.owner } };
}

const deviceOf = perRecord((machine, version) => compact(buildDevice(machine, version as OcsfVersion)));

function buildDevice(machine: Rec, version: OcsfVersion): Event {
  const ips = ipAddresses(machine);
  const macs = macAddresses(machine);
  const fqdn = str(machine, 'fqdn');
  const short = str(machine, 'hostname') ?? str(machine, 'netbiosName') ?? list(machine, 'hostnames')[0] ?? str(machine, 'name');
  const hostname = dnsName(fqdn) ?? dnsName(short);
  const owner = str(machine, 'owner') ?? str(machine, 'assignedUser');
  const device: Event = {
    type_id: 0,
    type: 'Unknown',
    uid: str(machine, 'id'),
    uid_alt: str(machine, 'hostUuid') ?? str(machine, 'tenableUuid') ?? str(machine, 'biosUuid'),
    name: short ?? fqdn ?? ips[0] ?? null,
    hostname,
    domain: domainOf(fqdn),
    ip: ips[0] ?? null,
    mac: macs[0] ?? null,
    os: osObject(str(machine, 'os')),
    hw_info: { serial_number: str(machine, 'serialNumber') },
    first_seen_time: epochMs(str(machine, 'firstSeen')),
    last_seen_time: epochMs(str(machine, 'scannerLastSeen') ?? str(machine, 'lastSeen')),
    // Every address as an interface only when there are more than the device's own `ip` and `mac` hold.
    network_interfaces:
      ips.length > 1 || macs.length > 1
        ? [...ips.map((ip) => ({ ip, type_id: 0, type: 'Unknown' })), ...macs.map((mac) => ({ mac, type_id: 0, type: 'Unknown' }))]
        : null,
  };
  if (version !== '1.1.0' && owner) device.owner = { name: owner };
  return device;
}

/**
 * What a machine record has that the device object has no attribute for (in Device Inventory Info;
 * a finding's device is the host's, whose other values its own inventory event carries).
 */
const machineUnmapped = perRecord((machine) =>
  compact({
    manufacturer: str(machine, 'manufacturer'),
    model: str(machine, 'model'),
    netbiosName: str(machine, 'netbiosName'),
    lastLoggedOnUser: str(machine, 'lastLoggedOnUser'),
    repository: str(machine, 'repository'),
    credentialed: bool(machine, 'credentialed'),
    tenableUuid: str(machine, 'tenableUuid'),
    biosUuid: str(machine, 'biosUuid'),
    acrScore: num(machine, 'acrScore'),
    aesScore: num(machine, 'aesScore'),
    ipAddresses: ipAddresses(machine).length > 1 ? ipAddresses(machine) : null,
    department: str(machine, 'department'),
    site: str(machine, 'site'),
    assetTag: str(machine, 'assetTag'),
    businessImpact: str(machine, 'businessImpact'),
  }),
);

/** A finding's status as OCSF finding status and activity (open = new/create, reopened = update, fixed = close). */
export interface FindingLifecycle {
  statusId: number;
  status: string;
  activity: [number, string];
}

/** A finding's OCSF status and activity, by lifecycleOf. */
export const LIFECYCLES: Record<'resolved' | 'suppressed' | 'reopened' | 'new', FindingLifecycle> = {
  resolved: { statusId: 4, status: 'Resolved', activity: [3, 'Close'] },
  suppressed: { statusId: 3, status: 'Suppressed', activity: [2, 'Update'] },
  reopened: { statusId: 99, status: 'Reopened', activity: [2, 'Update'] },
  new: { statusId: 1, status: 'New', activity: [1, 'Create'] },
};

/** Fixed or removed is resolved; else accepted risk is suppressed; else reopened or new. */
export function lifecycleOf(status: string | null, removed: boolean, acceptedRisk: boolean): keyof typeof LIFECYCLES {
  if (status === 'fixed' || removed) return 'resolved';
  if (acceptedRisk) return 'suppressed';
  return status === 'reopened' ? 'reopened' : 'new';
}

const COMPLIANCE: Record<string, [number | null, string, number]> = {
  // result → compliance status id, caption, finding severity
  passed: [1, 'Pass', 1],
  warning: [2, 'Warning', 2],
  failed: [3, 'Fail', 3],
  error: [null, 'Error', 1],
};

/** A compliance result as a Compliance Finding (2003). */
export function ocsfComplianceFinding(rec: Rec, host: Rec | null, o: OcsfOptions): Event {
  const result = str(rec, 'result') ?? '';
  const [statusId, status, severityId] = COMPLIANCE[result] ?? [null, result || 'Unknown', 0];
  const removed = rec.removed === true;
  const ruleId = str(rec, 'ruleId');
  const ruleName = str(rec, 'ruleName');
  const benchmark = str(rec, 'benchmark');
  const title = ruleName ?? ruleId ?? benchmark ?? 'Compliance check';
  return compact({
    ...classify([2, 'Findings'], [2003, 'Compliance Finding'], removed ? [3, 'Close'] : [1, 'Create'], severityId),
    time: eventTime(rec),
    message: title,
    status_id: removed ? 4 : 1,
    status: removed ? 'Resolved' : 'New',
    metadata: metadata(rec, o),
    finding_info: { uid: str(rec, 'id'), title, first_seen_time: epochMs(str(rec, 'firstSeen')), last_seen_time: epochMs(str(rec, 'lastSeen')) },
    compliance: { standards: [benchmark ?? 'unknown'], control: ruleName ?? ruleId, requirements: ruleId ? [ruleId] : null, status_id: statusId, status },
    device: ocsfDevice(host, o, { fallbackUid: str(rec, 'hostId') }),
    unmapped: { source: str(rec, 'source'), result: result || null, ruleId },
  });
}

/** A host, CMDB asset or correlated asset as Device Inventory Info (5001). */
export function ocsfDeviceInventory(rec: Rec, o: OcsfOptions): Event {
  const removed = rec.removed === true;
  return compact({
    ...classify([5, 'Discovery'], [5001, 'Device Inventory Info'], [2, 'Collect'], 1),
    time: eventTime(rec),
    status_id: removed ? 99 : 1,
    status: removed ? 'Removed' : 'Success',
    metadata: metadata(rec, o),
    device: ocsfDevice(rec, o),
    unmapped: {
      source: str(rec, 'source'),
      removed,
      hostIds: list(rec, 'hostIds'),
      cmdbAssetIds: list(rec, 'cmdbAssetIds'),
      matchRule: str(rec, 'matchRule'),
      state: str(rec, 'state'),
      productType: str(rec, 'productType'),
      product: str(rec, 'product'),
      ciType: str(rec, 'ciType'),
      owner: o.version === '1.1.0' ? (str(rec, 'owner') ?? str(rec, 'assignedUser')) : null,
      ...machineUnmapped(rec),
    },
  });
}

/** Installed software as Software Inventory Info (5020; OCSF 1.3.0 has it, 1.1.0 does not). */
export function ocsfSoftwareInventory(rec: Rec, host: Rec | null, o: OcsfOptions): Event {
  return compact({
    ...classify([5, 'Discovery'], [5020, 'Software Inventory Info'], [2, 'Collect'], 1),
    time: eventTime(rec),
    status_id: rec.removed === true ? 99 : 1,
    status: rec.removed === true ? 'Removed' : 'Success',
    metadata: metadata(rec, o),
    device: ocsfDevice(host, o, { fallbackUid: str(rec, 'hostId') }),
    // The package version is required; an upstream that named none gives the empty string.
    package: { name: str(rec, 'name') ?? 'unknown', version: str(rec, 'version') ?? '' },
    unmapped: { source: str(rec, 'source'), recordId: str(rec, 'id'), removed: rec.removed === true },
  });
}
