// Static plugin catalogue: inventory plugins (real IDs the connector keys on), port scanners, a
// generated pool of vulnerability plugins per platform, and compliance checks (IDs >= 1000000).
// Vulnerability text is our own invention; only the IDs/names of inventory plugins mirror real ones.
import { hash32, intIn, unit } from './hash.ts';

export interface Family {
  id: string;
  name: string;
  type: string;
}

export type PluginRole = 'inventory' | 'portscan' | 'vuln' | 'compliance';
export type TextKind =
  | 'sw-windows'
  | 'sw-unix'
  | 'hw-windows'
  | 'hw-unix'
  | 'last-user'
  | 'os'
  | 'macs'
  | 'port'
  | 'kb'
  | 'app'
  | 'pkg'
  | 'remote'
  | 'banner'
  | 'compliance';

export interface PluginDef {
  index: number;
  id: number;
  name: string;
  family: Family;
  role: PluginRole;
  pluginType: 'active' | 'compliance';
  severity: number;
  port: number;
  protocol: 'TCP' | 'UDP';
  checkType: string;
  textKind: TextKind;
  /** Product label used by text builders (package name, application, service banner, KB number). */
  product: string;
  synopsis: string;
  description: string;
  solution: string;
  seeAlso: string;
  cpe: string;
  cve: string;
  xref: string;
  stigSeverity: string;
  version: string;
  baseScore: string;
  temporalScore: string;
  cvssVector: string;
  cvssV3BaseScore: string;
  cvssV3TemporalScore: string;
  cvssV3Vector: string;
  vprScore: string;
  vprContext: string;
  epssScore: string;
  exploitAvailable: string;
  exploitEase: string;
  exploitFrameworks: string;
  vulnPubDate: string;
  patchPubDate: string;
  pluginPubDate: string;
  pluginModDate: string;
  /** Numeric twins of the string scores, for range filters (NaN when absent). */
  vpr: number;
  cvss3: number;
  epss: number;
}

export const SEVERITIES = [
  { id: '0', name: 'Info', description: 'Informative' },
  { id: '1', name: 'Low', description: 'Low Severity' },
  { id: '2', name: 'Medium', description: 'Medium Severity' },
  { id: '3', name: 'High', description: 'High Severity' },
  { id: '4', name: 'Critical', description: 'Critical Severity' },
] as const;
export const RISK_FACTORS = ['None', 'Low', 'Medium', 'High', 'Critical'] as const;

const fam = (id: string, name: string, type = 'active'): Family => ({ id, name, type });
export const FAMILIES = {
  windows: fam('20', 'Windows'),
  bulletins: fam('41', 'Windows : Microsoft Bulletins'),
  general: fam('30', 'General'),
  portScanners: fam('3', 'Port scanners'),
  webServers: fam('11', 'Web Servers'),
  serviceDetection: fam('22', 'Service detection'),
  misc: fam('17', 'Misc.'),
  ubuntu: fam('45', 'Ubuntu Local Security Checks'),
  redhat: fam('2', 'Red Hat Local Security Checks'),
  centos: fam('18', 'CentOS Local Security Checks'),
  debian: fam('8', 'Debian Local Security Checks'),
  compliance: fam('39', 'Policy Compliance', 'compliance'),
} as const;

export const PLUGINS: PluginDef[] = [];

export type Seed = Partial<PluginDef> & Pick<PluginDef, 'id' | 'name' | 'family' | 'role' | 'textKind'>;

const EMPTY_SCORES = {
  cve: '',
  xref: '',
  baseScore: '',
  temporalScore: '',
  cvssVector: '',
  cvssV3BaseScore: '',
  cvssV3TemporalScore: '',
  cvssV3Vector: '',
  vprScore: '',
  vprContext: '[]',
  epssScore: '',
  exploitAvailable: 'No',
  exploitEase: '',
  exploitFrameworks: '',
  vulnPubDate: '-1',
  patchPubDate: '-1',
  vpr: Number.NaN,
  cvss3: Number.NaN,
  epss: Number.NaN,
};

export function registerPlugin(seed: Seed): PluginDef {
  const def: PluginDef = {
    index: PLUGINS.length,
    pluginType: seed.role === 'compliance' ? 'compliance' : 'active',
    severity: 0,
    port: 0,
    protocol: 'TCP',
    checkType: 'local',
    product: '',
    synopsis: '',
    description: '',
    solution: '',
    seeAlso: '',
    cpe: '',
    stigSeverity: '',
    version: `1.${seed.id % 97}`,
    pluginPubDate: String(1100000000 + (hash32(seed.id, 1) % 500000000)),
    pluginModDate: String(1690000000 + (hash32(seed.id, 2) % 60000000)),
    ...EMPTY_SCORES,
    ...seed,
  };
  PLUGINS.push(def);
  return def;
}

// ---- inventory and port-scanner plugins (IDs and output shapes per fact sheet §8) ----
const info = (id: number, name: string, family: Family, textKind: TextKind, port: number, synopsis: string) =>
  registerPlugin({ id, name, family, role: 'inventory', textKind, port, synopsis, description: synopsis, checkType: 'local' });

export const INVENTORY = {
  softwareWindows: info(
    20811,
    'Microsoft Windows Installed Software Enumeration (credentialed check)',
    FAMILIES.windows,
    'sw-windows',
    445,
    'It is possible to enumerate installed software.',
  ),
  hardwareWindows: info(
    24270,
    'Computer Manufacturer Information (WMI)',
    FAMILIES.windows,
    'hw-windows',
    0,
    'It is possible to obtain the computer manufacturer information.',
  ),
  lastUser: info(
    38689,
    'Microsoft Windows SMB Last Logged On User Disclosure',
    FAMILIES.windows,
    'last-user',
    445,
    'Nessus was able to identify the last logged on user.',
  ),
  os: info(11936, 'OS Identification', FAMILIES.general, 'os', 0, 'It is possible to guess the remote operating system.'),
  macs: info(86420, 'Ethernet MAC Addresses', FAMILIES.general, 'macs', 0, 'This plugin gathers MAC addresses from various sources.'),
  softwareUnix: info(22869, 'Software Enumeration (SSH)', FAMILIES.general, 'sw-unix', 0, 'It is possible to enumerate installed software on the remote host.'),
  hardwareUnix: info(
    35351,
    'System Information Enumeration (via DMI)',
    FAMILIES.general,
    'hw-unix',
    0,
    'Information about the remote system hardware can be read.',
  ),
};
const scanner = (id: number, name: string, checkType: string) =>
  registerPlugin({
    id,
    name,
    family: FAMILIES.portScanners,
    role: 'portscan',
    textKind: 'port',
    checkType,
    synopsis: 'The remote port is open.',
    description: 'This plugin reports an open port.',
  });
export const PORT_SCANNERS = {
  wmi: scanner(34220, 'Netstat Portscanner (WMI)', 'local'),
  ssh: scanner(14272, 'Netstat Portscanner (SSH)', 'local'),
  syn: scanner(11219, 'Nessus SYN scanner', 'remote'),
};

// ---- vulnerability plugins ----
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const SEVERITY_WEIGHTS = [0.12, 0.1, 0.3, 0.33, 0.15];

function severityFor(id: number): number {
  let u = unit(id, 77);
  for (let s = 0; s < SEVERITY_WEIGHTS.length; s++) {
    u -= SEVERITY_WEIGHTS[s];
    if (u < 0) return s;
  }
  return 4;
}

const V3_RANGES = [
  [0, 0],
  [1.0, 3.9],
  [4.0, 6.9],
  [7.0, 8.9],
  [9.0, 10.0],
];
const V2_RANGES = [
  [0, 0],
  [1.9, 3.9],
  [4.0, 6.8],
  [6.9, 8.5],
  [9.3, 10.0],
];
const oneDecimal = (lo: number, hi: number, ...parts: number[]) => Math.round((lo + unit(...parts) * (hi - lo)) * 10) / 10;
const fmtScore = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

/** Scores, CVEs, exploit and KEV metadata for a vulnerability plugin of a given severity. */
function vulnMetadata(id: number, severity: number, year: number): Partial<PluginDef> {
  if (severity === 0) return { severity };
  const v3 = oneDecimal(V3_RANGES[severity][0], V3_RANGES[severity][1], id, 3);
  const hasV2 = unit(id, 4) < 0.75;
  const v2 = oneDecimal(V2_RANGES[severity][0], V2_RANGES[severity][1], id, 5);
  const exploit = unit(id, 6) < 0.15 + severity * 0.1;
  const vpr = oneDecimal(Math.max(1, v3 - 3), Math.min(9.9, v3 + 1), id, 7);
  const epss = Math.round(unit(id, 8) ** 3 * (exploit ? 1 : 0.2) * 10000) / 10000;
  const cves = Array.from({ length: intIn(1, 4, id, 9) }, (_, i) => `CVE-${year}-${intIn(1000, 49999, id, 10, i)}`);
  const xrefs = [`IAVA #${year}-A-${String(intIn(1, 600, id, 11)).padStart(4, '0')}`];
  if (severity >= 3 && exploit && unit(id, 12) < 0.45) {
    const due = new Date(Date.UTC(year, intIn(0, 11, id, 13), intIn(1, 28, id, 14))).toISOString().slice(0, 10).replace(/-/g, '/');
    xrefs.push(`CISA-KNOWN-EXPLOITED #${due}`);
  }
  if (unit(id, 15) < 0.3) xrefs.push(`CWE #${intIn(20, 900, id, 16)}`);
  const published = Date.UTC(year, intIn(0, 11, id, 17), intIn(1, 28, id, 18)) / 1000;
  const maturity = exploit ? (unit(id, 19) < 0.5 ? 'Functional' : 'High') : 'Unproven';
  const vprContext = JSON.stringify([
    {
      id: 'age_of_vuln',
      name: 'Vulnerability Age',
      type: 'string',
      value: pickLabel(['0 - 7 days', '30 - 60 days', '60 - 180 days', '180 - 365 days', '365 - 730 days'], id, 20),
    },
    { id: 'cvssV3_impactScore', name: 'CVSS v3 Impact Score', type: 'number', value: Math.min(6, Math.round((v3 / 1.6) * 10) / 10) },
    { id: 'exploit_code_maturity', name: 'Exploit Code Maturity', type: 'string', value: maturity },
    { id: 'threat_recency', name: 'Threat Recency', type: 'string', value: pickLabel(['No recorded events', 'Less than 7 days', '30 to 120 days'], id, 21) },
  ]);
  return {
    severity,
    cve: cves.join(','),
    xref: xrefs.join(','),
    baseScore: hasV2 ? fmtScore(v2) : '',
    temporalScore: hasV2 ? fmtScore(Math.max(0, Math.round((v2 - 1.1) * 10) / 10)) : '',
    cvssVector: hasV2 ? `AV:N/AC:${severity > 2 ? 'L' : 'M'}/Au:N/C:P/I:P/A:${severity > 3 ? 'C' : 'P'}/E:${exploit ? 'F' : 'U'}/RL:OF/RC:C` : '',
    cvssV3BaseScore: fmtScore(v3),
    cvssV3TemporalScore: fmtScore(Math.max(0, Math.round((v3 - 0.7) * 10) / 10)),
    cvssV3Vector: `AV:N/AC:L/PR:${severity > 3 ? 'N' : 'L'}/UI:N/S:U/C:H/I:${severity > 2 ? 'H' : 'L'}/A:H/E:${exploit ? 'F' : 'U'}/RL:O/RC:C`,
    vprScore: fmtScore(vpr),
    vprContext,
    epssScore: epss.toFixed(4),
    exploitAvailable: exploit ? 'Yes' : 'No',
    exploitEase: exploit ? 'Exploits are available' : 'No known exploits are available',
    exploitFrameworks: exploit && unit(id, 22) < 0.4 ? 'Metasploit' : '',
    vulnPubDate: String(published),
    patchPubDate: String(published + intIn(0, 30, id, 23) * 86400),
    pluginPubDate: String(published + intIn(1, 40, id, 24) * 86400),
    stigSeverity: severity >= 3 && unit(id, 25) < 0.3 ? 'I' : '',
    vpr,
    cvss3: v3,
    epss,
  };
}

function pickLabel(list: string[], ...parts: number[]): string {
  return list[hash32(...parts) % list.length];
}

function vuln(seed: Seed, year: number): PluginDef {
  const severity = seed.severity ?? severityFor(seed.id);
  return registerPlugin({ ...vulnMetadata(seed.id, severity, year), ...seed, severity });
}

const WINDOWS_APPS = [
  'Google Chrome',
  'Mozilla Firefox',
  'Microsoft Edge (Chromium)',
  'Adobe Acrobat Reader',
  '7-Zip',
  'Oracle Java SE',
  'Zoom Client',
  'Notepad++',
  'VLC Media Player',
  'Microsoft Office',
  'Microsoft .NET Core',
  'PuTTY',
  'WinRAR',
];

function buildWindowsPool(): number[] {
  const pool: number[] = [];
  for (let i = 0; i < 97; i++) {
    const id = 180000 + i * 7;
    const year = 2021 + (i % 5);
    if (i % 3 === 0) {
      const kb = 5000000 + intIn(1000, 49999, id);
      pool.push(
        vuln(
          {
            id,
            name: `KB${kb}: Windows Security Update (${MONTHS[i % 12]} ${year})`,
            family: FAMILIES.bulletins,
            role: 'vuln',
            textKind: 'kb',
            product: `KB${kb}`,
            port: 445,
            synopsis: 'The remote Windows host is missing a security update.',
            description: `The remote Windows host lacks cumulative update KB${kb}, which fixes several memory-safety and privilege flaws.`,
            solution: `Apply security update KB${kb}.`,
            seeAlso: `https://support.microsoft.com/help/${kb}`,
            cpe: 'cpe:/o:microsoft:windows',
          },
          year,
        ).index,
      );
    } else {
      const app = WINDOWS_APPS[i % WINDOWS_APPS.length];
      const fixed = `${intIn(2, 120, id)}.${intIn(0, 9, id, 1)}.${intIn(0, 99, id, 2)}`;
      pool.push(
        vuln(
          {
            id,
            name: `${app} < ${fixed} Multiple Vulnerabilities`,
            family: FAMILIES.windows,
            role: 'vuln',
            textKind: 'app',
            product: `${app}|${fixed}`,
            port: 445,
            synopsis: `An application installed on the remote Windows host is affected by multiple vulnerabilities.`,
            description: `The version of ${app} installed on the remote host is earlier than ${fixed} and is affected by several flaws.`,
            solution: `Upgrade ${app} to ${fixed} or later.`,
            seeAlso: `https://vendor.example/advisories/${id}`,
          },
          year,
        ).index,
      );
    }
  }
  return pool;
}

export interface LinuxDistro {
  label: string;
  family: Family;
  advisory: string;
  packaging: 'dpkg' | 'rpm';
  pkgSuffix: string;
}
export const LINUX_DISTROS: LinuxDistro[] = [
  { label: 'Ubuntu 22.04 LTS', family: FAMILIES.ubuntu, advisory: 'USN', packaging: 'dpkg', pkgSuffix: '-0ubuntu0.22.04.' },
  { label: 'RHEL 9', family: FAMILIES.redhat, advisory: 'RHSA', packaging: 'rpm', pkgSuffix: '.el9_' },
  { label: 'CentOS 7', family: FAMILIES.centos, advisory: 'CESA', packaging: 'rpm', pkgSuffix: '.el7_' },
  { label: 'Debian 12', family: FAMILIES.debian, advisory: 'DSA', packaging: 'dpkg', pkgSuffix: '+deb12u' },
];
const LINUX_PACKAGES = [
  'openssl',
  'kernel',
  'glibc',
  'sudo',
  'openssh',
  'curl',
  'libxml2',
  'python3',
  'bind',
  'nss',
  'systemd',
  'vim',
  'git',
  'expat',
  'zlib',
  'sqlite',
  'krb5',
  'libtiff',
  'less',
  'tar',
];

function buildLinuxPool(distroIndex: number): number[] {
  const d = LINUX_DISTROS[distroIndex];
  const pool: number[] = [];
  for (let i = 0; i < 61; i++) {
    const id = 200000 + distroIndex * 1000 + i * 11;
    const pkg = LINUX_PACKAGES[i % LINUX_PACKAGES.length];
    const year = 2020 + (i % 6);
    const advisory =
      d.advisory === 'USN'
        ? `USN-${intIn(5000, 7200, id)}-1`
        : d.advisory === 'DSA'
          ? `DSA-${intIn(5000, 5900, id)}-1`
          : `${d.advisory}-${year}:${intIn(1000, 9999, id)}`;
    pool.push(
      vuln(
        {
          id,
          name: `${d.label} : ${pkg} (${advisory})`,
          family: d.family,
          role: 'vuln',
          textKind: 'pkg',
          product: pkg,
          synopsis: `The remote ${d.label} host is missing a security update for ${pkg}.`,
          description: `The installed ${pkg} package is affected by vulnerabilities described in advisory ${advisory}.`,
          solution: `Update the affected ${pkg} packages.`,
          seeAlso: `https://security.example/${advisory}`,
          cpe: `p-cpe:/a:linux:${pkg}<br/>cpe:/o:linux:${d.label.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`,
        },
        year,
      ).index,
    );
  }
  return pool;
}

const REMOTE_FIXED: Array<[number, string, number, number, TextKind, string]> = [
  // [id, name, severity, port, textKind, product]
  [10107, 'HTTP Server Type and Version', 0, 80, 'banner', 'Apache/2.4.57 (Unix)'],
  [22964, 'Service Detection', 0, 443, 'banner', 'A TLS-wrapped web server is running on this port.'],
  [10287, 'Traceroute Information', 0, 0, 'remote', 'traceroute'],
  [10114, 'ICMP Timestamp Request Remote Date Disclosure', 1, 0, 'remote', 'icmp'],
  [51192, 'SSL Certificate Cannot Be Trusted', 2, 443, 'remote', 'tls'],
  [57582, 'SSL Self-Signed Certificate', 2, 443, 'remote', 'tls'],
  [104743, 'TLS Version 1.0 Protocol Detection', 2, 443, 'remote', 'tls'],
  [90317, 'SSH Weak Algorithms Supported', 2, 22, 'remote', 'ssh'],
  [57608, 'SMB Signing not required', 2, 445, 'remote', 'smb'],
  [41028, 'SNMP Agent Default Community Name (public)', 3, 161, 'remote', 'snmp'],
  [42873, 'SSL Medium Strength Cipher Suites Supported (SWEET32)', 3, 443, 'remote', 'tls'],
];
const REMOTE_VERSIONED = [
  'Apache HTTP Server 2.4.x',
  'OpenSSH',
  'nginx 1.x',
  'PHP 8.x',
  'Apache Tomcat 9.0.x',
  'Microsoft IIS',
  'OpenSSL 3.x',
  'Samba 4.x',
  'ISC BIND 9',
  'Exim',
];
const REMOTE_PORTS = [80, 22, 80, 443, 8080, 443, 443, 445, 53, 25];
/** Remote products that only run on one platform, so a credentialed host's findings stay plausible. */
const WINDOWS_ONLY = new Set(['Microsoft IIS']);
const UNIX_ONLY = new Set(['Samba 4.x', 'ISC BIND 9', 'Exim']);

function buildRemotePool(): number[] {
  const pool: number[] = [];
  for (const [id, name, severity, port, textKind, product] of REMOTE_FIXED) {
    pool.push(
      vuln(
        {
          id,
          name,
          family: severity === 0 ? FAMILIES.serviceDetection : FAMILIES.misc,
          role: 'vuln',
          textKind,
          product,
          port,
          severity,
          checkType: 'remote',
          synopsis: `${name} was observed on the remote host.`,
          description: `The remote service exhibits the condition "${name}".`,
          solution: severity === 0 ? 'n/a' : 'Reconfigure the affected service.',
        },
        2019,
      ).index,
    );
  }
  for (let i = 0; i < 50; i++) {
    const id = 160000 + i * 13;
    const svc = REMOTE_VERSIONED[i % REMOTE_VERSIONED.length];
    const fixed = `${intIn(1, 9, id)}.${intIn(0, 60, id, 1)}`;
    pool.push(
      vuln(
        {
          id,
          name: `${svc} < ${fixed} Multiple Vulnerabilities`,
          family: FAMILIES.webServers,
          role: 'vuln',
          textKind: 'remote',
          product: svc,
          port: REMOTE_PORTS[i % REMOTE_PORTS.length],
          checkType: 'remote',
          synopsis: `The remote ${svc} service is affected by multiple vulnerabilities.`,
          description: `According to its self-reported version, the remote ${svc} is older than ${fixed}.`,
          solution: `Upgrade to ${svc.split(' ')[0]} ${fixed} or later.`,
        },
        2020 + (i % 6),
      ).index,
    );
  }
  return pool;
}

export const REMOTE_POOL = buildRemotePool();
const remoteFor = (exclude: Set<string>) => REMOTE_POOL.filter((index) => !exclude.has(PLUGINS[index].product ?? ''));
export const WINDOWS_POOL = [...buildWindowsPool(), ...remoteFor(UNIX_ONLY)];
export const LINUX_POOLS = LINUX_DISTROS.map((_, i) => [...buildLinuxPool(i), ...remoteFor(WINDOWS_ONLY)]);
