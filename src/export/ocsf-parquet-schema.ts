// The Parquet schema of each OCSF event class Tributary writes (ocsf.ts), with OCSF's nested objects
// as nested groups and its arrays as Parquet LISTs (what Amazon Security Lake reads). Every attribute
// the mappers emit has a column; `unmapped.vprKeyDrivers` (free-form upstream JSON) is a JSON string
// column. OCSF integers (ids, epoch-millisecond times) are INT64 where OCSF types them long, else INT32.
import type { ModelName } from '../core/models.ts';
import type { OcsfVersion } from './ocsf.ts';

/** A column's type, a nested object (group) or an array of one shape (LIST). */
export type Shape = 'STRING' | 'INT32' | 'INT64' | 'DOUBLE' | 'BOOLEAN' | 'JSON' | { [name: string]: Shape } | [Shape];

const S: Shape = 'STRING';
const I: Shape = 'INT32';
const L: Shape = 'INT64';
const D: Shape = 'DOUBLE';
const B: Shape = 'BOOLEAN';

const CVSS: Shape = { version: S, base_score: D, vector_string: S };

const CLASSIFICATION: Record<string, Shape> = {
  activity_id: I,
  activity_name: S,
  category_uid: I,
  category_name: S,
  class_uid: I,
  class_name: S,
  type_uid: L,
  type_name: S,
  severity_id: I,
  severity: S,
  time: L,
  message: S,
  status_id: I,
  status: S,
  status_detail: S,
  metadata: { version: S, uid: S, product: { vendor_name: S, name: S }, log_name: S },
};

function device(version: OcsfVersion): Shape {
  return {
    type_id: I,
    type: S,
    uid: S,
    uid_alt: S,
    name: S,
    hostname: S,
    domain: S,
    ip: S,
    mac: S,
    os: { name: S, type_id: I, type: S },
    hw_info: { serial_number: S },
    first_seen_time: L,
    last_seen_time: L,
    network_interfaces: [{ ip: S, mac: S, type_id: I, type: S }],
    ...(version === '1.1.0' ? {} : { owner: { name: S } }),
  };
}

const VULNERABILITY_UNMAPPED: Shape = {
  source: S,
  pluginId: S,
  port: I,
  protocol: S,
  vprScore: D,
  vprKeyDrivers: 'JSON',
  vulnUniqueness: S,
  seolDate: S,
  cvss: [CVSS],
  epssScore: D,
  knownExploited: B,
  knownExploitedBy: S,
  epssSource: S,
  kevDateAdded: S,
  kevDueDate: S,
  dueAt: S,
  overdue: B,
  acceptedRisk: B,
  recastRisk: B,
  excepted: B,
  exceptionId: S,
  exceptionState: S,
  exceptionExpiresAt: S,
  fixedAt: S,
  reopenedAt: S,
  proof: S,
  proofTruncated: B,
  ticketIds: [S],
  assetId: S,
  owner: S,
  department: S,
  status: S,
};

const DEVICE_UNMAPPED: Shape = {
  source: S,
  removed: B,
  hostIds: [S],
  cmdbAssetIds: [S],
  matchRule: S,
  state: S,
  productType: S,
  product: S,
  ciType: S,
  owner: S,
  manufacturer: S,
  model: S,
  netbiosName: S,
  lastLoggedOnUser: S,
  repository: S,
  credentialed: B,
  tenableUuid: S,
  biosUuid: S,
  acrScore: D,
  aesScore: D,
  ipAddresses: [S],
  department: S,
  site: S,
  assetTag: S,
  businessImpact: S,
};

/** The event shape of a model's OCSF class in a schema version. */
export function ocsfShape(model: ModelName, version: OcsfVersion): Record<string, Shape> {
  const times: Record<string, Shape> = { first_seen_time: L, last_seen_time: L };
  if (model === 'vulnerabilities') {
    return {
      ...CLASSIFICATION,
      finding_info: { uid: S, title: S, desc: S, types: [S], analytic: { uid: S, name: S, type_id: I, type: S }, ...times, modified_time: L },
      vulnerabilities: [
        {
          cve: { uid: S, cvss: [CVSS], epss: { score: S, percentile: D } },
          title: S,
          desc: S,
          severity: S,
          ...times,
          is_exploit_available: B,
          remediation: { desc: S },
          vendor_name: S,
        },
      ],
      device: device(version),
      unmapped: VULNERABILITY_UNMAPPED,
    };
  }
  if (model === 'compliance') {
    return {
      ...CLASSIFICATION,
      finding_info: { uid: S, title: S, ...times },
      compliance: { standards: [S], control: S, requirements: [S], status_id: I, status: S },
      device: device(version),
      unmapped: { source: S, result: S, ruleId: S },
    };
  }
  if (model === 'software') {
    return { ...CLASSIFICATION, device: device(version), package: { name: S, version: S }, unmapped: { source: S, recordId: S, removed: B } };
  }
  return { ...CLASSIFICATION, device: device(version), unmapped: DEVICE_UNMAPPED };
}
