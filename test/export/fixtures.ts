// Stored records as the store returns them, for the export mapper tests: one with every field (those
// of later model versions too, which the mappers read when present) and one with the least a record has.
import type { ConnectorProduct } from '../../src/core/connector.ts';
import type { StoredRecord } from '../../src/core/models.ts';

export const PRODUCT: ConnectorProduct = { vendor: 'Tenable', name: 'Tenable Security Center', namespace: 'tenable' };

const common = (id: string, extra: Record<string, unknown>): StoredRecord => ({
  id,
  source: 'lab',
  externalId: null,
  firstSeen: '2026-10-01T08:00:00.000Z',
  lastSeen: '2026-11-20T09:30:00.000Z',
  removed: false,
  ...extra,
});

export const HOST = common('a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6', {
  externalId: '0d5f2c1e-8b7a-4c3d-9e2f-1a2b3c4d5e6f',
  ipAddresses: ['10.0.4.17', 'fe80::1'],
  macAddresses: ['00-50-56-A1-B2-C3'],
  hostname: 'web-01',
  fqdn: 'web-01.corp.example.com',
  netbiosName: 'WEB-01',
  os: 'Microsoft Windows Server 2019 Standard',
  manufacturer: 'VMware, Inc.',
  model: 'VMware Virtual Platform',
  serialNumber: 'VMware-42 1a 2b',
  lastLoggedOnUser: 'CORP\\alice',
  repository: 'Internal',
  credentialed: true,
  scannerLastSeen: '2026-11-20T09:00:00.000Z',
  tenableUuid: '0d5f2c1e-8b7a-4c3d-9e2f-1a2b3c4d5e6f',
  hostUuid: 'b7c8d9e0-1111-2222-3333-444455556666',
  biosUuid: '421A2B3C-4D5E-6F70-8192-A3B4C5D6E7F8',
  acrScore: 7,
  aesScore: 612,
});

/** A host with an underscore in its name (not a DNS name) and nothing else. */
export const BARE_HOST = common('b1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6', {
  ipAddresses: null,
  macAddresses: null,
  hostname: 'LAB_PC_7',
  fqdn: null,
  netbiosName: null,
  os: null,
  manufacturer: null,
  model: null,
  serialNumber: null,
  lastLoggedOnUser: null,
  repository: null,
  credentialed: null,
  scannerLastSeen: null,
});

export const FINDING = common(`${HOST.id.slice(0, 12)}0123456789abcdef0123`, {
  hostId: HOST.id,
  pluginId: '156032',
  pluginName: 'Apache Log4j 2.x < 2.16.0 RCE',
  severity: 'critical',
  cves: ['CVE-2021-44228', 'CVE-2021-45046'],
  cvssV2BaseScore: 9.3,
  cvssV3BaseScore: 10,
  cvssV3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H',
  epssScore: 0.97565,
  epssPercentile: 0.99996,
  epssSource: 'feed',
  scannerEpssScore: 0.9,
  vprScore: 9.9,
  knownExploited: true,
  knownExploitedBy: 'both',
  scannerKnownExploited: true,
  status: 'reopened',
  port: 443,
  protocol: 'tcp',
  pluginFamily: 'Web Servers',
  synopsis: 'A logging library on the remote host is affected by a remote code execution flaw.',
  solution: 'Upgrade to Apache Log4j 2.16.0 or later.',
  proof: 'Path : /opt/app/lib/log4j-core-2.14.1.jar',
  proofTruncated: false,
  exploitAvailable: true,
  acceptedRisk: false,
  recastRisk: false,
  vprKeyDrivers: { exploitCodeMaturity: 'HIGH', threatRecency: { lowerBound: 0, upperBound: 7 } },
  vulnUniqueness: 'abc123',
  seolDate: null,
  fixedAt: '2026-10-20T00:00:00.000Z',
  reopenedAt: '2026-11-01T00:00:00.000Z',
  dueAt: '2026-11-15T00:00:00.000Z',
  overdue: true,
  kevDateAdded: '2021-12-10',
  kevDueDate: '2021-12-24',
  owner: 'alice@example.com',
  department: 'Web Platform',
});

/** A finding of the current model only: no CVE, no scores. */
export const BARE_FINDING = common(`${BARE_HOST.id.slice(0, 12)}aaaaaaaaaaaaaaaaaaaa`, {
  hostId: BARE_HOST.id,
  pluginId: '19506',
  pluginName: 'Nessus Scan Information',
  severity: 'info',
  cves: null,
  cvssV2BaseScore: null,
  cvssV3BaseScore: null,
  epssScore: null,
  vprScore: null,
  knownExploited: null,
  status: 'open',
  port: 0,
  protocol: 'tcp',
});

export const FIXED_FINDING = {
  ...BARE_FINDING,
  id: `${BARE_HOST.id.slice(0, 12)}bbbbbbbbbbbbbbbbbbbb`,
  status: 'fixed',
  severity: 'medium',
  cves: ['CVE-2020-0001'],
  cvssV2BaseScore: 5,
};

export const COMPLIANCE = (result: string | null): StoredRecord =>
  common(`${HOST.id.slice(0, 12)}cccccccccccccccccc${result ? result.slice(0, 2) : 'nn'}`, {
    hostId: HOST.id,
    benchmark: 'CIS Microsoft Windows Server 2019 L1',
    ruleId: '1.1.1',
    ruleName: "Ensure 'Enforce password history' is set to '24 or more password(s)'",
    result,
  });

export const SOFTWARE = common(`${HOST.id.slice(0, 12)}dddddddddddddddddddd`, { hostId: HOST.id, name: 'OpenSSL', version: '3.0.2' });
export const SOFTWARE_NO_VERSION = { ...SOFTWARE, id: `${HOST.id.slice(0, 12)}eeeeeeeeeeeeeeeeeeee`, version: null };

export const CMDB_ASSET = common('f1f2c3d4e5f6a7b8c9d0e1f2a3b4c5d6', {
  name: 'LAPTOP-0042',
  assetTag: 'A-0042',
  serialNumber: '5CG1234XYZ',
  productType: 'Workstation',
  product: 'HP EliteBook 840 G8',
  state: 'In Use',
  ipAddresses: ['192.168.10.42'],
  macAddresses: ['3c:52:82:aa:bb:cc'],
  assignedUser: 'Bob Jones',
  department: 'Finance',
  site: 'Berlin',
  ciType: null,
  attributes: { os: 'Windows 11' },
});
