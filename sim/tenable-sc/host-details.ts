// String attributes of a host (names, OS, hardware, software, MACs), built only when a host is rendered.
import { LINUX_DISTROS } from './catalog.ts';
import { HASH_INIT, hex, mix, toUnit, uuidFrom } from './hash.ts';
import { HOST_AGENT, type HostSkeleton } from './hosts.ts';

export interface Hardware {
  manufacturer: string;
  model: string;
  serial: string;
  family: string;
  chassis: string;
  memoryMb: number;
  cpus: number;
}

export interface HostDetails {
  ip: string;
  /** The address before `sk.ipChangedAt` ('' when it never changed). */
  previousIp: string;
  uuid: string;
  hostUUID: string;
  dnsName: string;
  netbiosName: string;
  macAddress: string;
  macs: string[];
  unreliableMacs: string[];
  operatingSystem: string;
  osConfidence: number;
  osMethod: string;
  osCpe: string;
  softwareOsName: string;
  packaging: 'msi' | 'dpkg' | 'rpm' | 'none';
  biosGUID: string;
  hardware: Hardware | null;
  lastUser: string;
  software: string[];
  policyName: string;
}

const WINDOWS_EDITIONS = [
  { name: 'Microsoft Windows Server 2022 Standard', cpe: 'cpe:/o:microsoft:windows_server_2022', server: true },
  { name: 'Microsoft Windows Server 2019 Datacenter', cpe: 'cpe:/o:microsoft:windows_server_2019', server: true },
  { name: 'Microsoft Windows 11 Enterprise', cpe: 'cpe:/o:microsoft:windows_11:22h2', server: false },
  { name: 'Microsoft Windows 10 Enterprise', cpe: 'cpe:/o:microsoft:windows_10:22h2', server: false },
];
const LINUX_OS = [
  { name: 'Linux Kernel 5.15.0-91-generic on Ubuntu 22.04', cpe: 'cpe:/o:canonical:ubuntu_linux:22.04', sw: 'Ubuntu Linux' },
  {
    name: 'Linux Kernel 5.14.0-362.8.1.el9_3.x86_64 on Red Hat Enterprise Linux release 9.3 (Plow)',
    cpe: 'cpe:/o:redhat:enterprise_linux:9',
    sw: 'Red Hat Linux',
  },
  { name: 'Linux Kernel 3.10.0-1160.el7.x86_64 on CentOS Linux release 7.9.2009 (Core)', cpe: 'cpe:/o:centos:centos:7', sw: 'CentOS Linux' },
  { name: 'Linux Kernel 6.1.0-13-amd64 on Debian 12', cpe: 'cpe:/o:debian:debian_linux:12', sw: 'Debian Linux' },
];
const REMOTE_GUESSES = ['Linux Kernel 3.10', 'Microsoft Windows Server 2016', '', 'FreeBSD 13.2', 'Cisco IOS 15.2'];
const SERVER_HW = [
  ['Dell Inc.', 'PowerEdge R650', 'PowerEdge', 'Rack Mount Chassis'],
  ['HPE', 'ProLiant DL380 Gen10', 'ProLiant', 'Rack Mount Chassis'],
  ['VMware, Inc.', 'VMware7,1', 'Virtual Machine', 'Other'],
];
const CLIENT_HW = [
  ['LENOVO', 'ThinkPad T14 Gen 3', 'ThinkPad', 'Notebook'],
  ['Dell Inc.', 'Latitude 5440', 'Latitude', 'Notebook'],
  ['HP', 'EliteDesk 800 G6', 'EliteDesk', 'Desktop'],
];
const WINDOWS_SOFTWARE = [
  'Google Chrome',
  'Mozilla Firefox (x64 en-US)',
  'Microsoft Edge',
  'Adobe Acrobat Reader',
  '7-Zip 23.01 (x64)',
  'Java 8 Update 391',
  'Zoom Workplace',
  'Notepad++ (64-bit x64)',
  'VLC media player',
  'Microsoft 365 Apps for enterprise - en-us',
  'Microsoft .NET Runtime - 8.0.1 (x64)',
  'PuTTY release 0.80 (64-bit)',
  'Microsoft Visual C++ 2015-2022 Redistributable (x64)',
  'Git',
  'Python 3.12.1 (64-bit)',
  'VMware Tools',
  'CrowdStrike Windows Sensor',
  'Microsoft SQL Server 2019',
  'WinRAR 6.24 (64-bit)',
  'Microsoft Teams',
];
const UNIX_PACKAGES = [
  'openssl',
  'bash',
  'coreutils',
  'curl',
  'glibc',
  'openssh-server',
  'sudo',
  'systemd',
  'python3',
  'vim',
  'git',
  'tar',
  'zlib',
  'sqlite',
  'krb5-libs',
  'libxml2',
  'rsyslog',
  'chrony',
  'nginx',
  'postgresql',
  'auditd',
  'less',
  'expat',
  'nss',
];
const FIRST = ['adams', 'baker', 'chen', 'diaz', 'evans', 'fischer', 'garcia', 'huang', 'ito', 'jones'];

const pad = (n: number) => String(n).padStart(5, '0');
const mac = (h: number, salt: number) => `00:50:56:${hex(6, h, salt).match(/../g)!.join(':')}`;

export function buildHostDetails(seed: number, sk: HostSkeleton): HostDetails {
  const h = sk.seedHash;
  const r = (salt: number) => toUnit(mix(h, salt));
  const index = sk.index;
  const owner = sk.ipOwner;
  const ip = `10.${20 + (owner >>> 16)}.${(owner >>> 8) & 255}.${owner & 255}`;
  const previousIp = sk.ipChangedAt > 0 ? `10.${120 + (index >>> 16)}.${(index >>> 8) & 255}.${index & 255}` : '';
  const agent = sk.identity === HOST_AGENT;
  const base = {
    ip,
    previousIp,
    hostUUID: uuidFrom(seed, index, 2),
    policyName: agent ? 'Basic Agent Scan' : 'Credentialed Weekly Scan',
    unreliableMacs: [] as string[],
  };
  if (sk.kind === 2) {
    // Unauthenticated: network facts only; no Tenable UUID, and many have no DNS name (none at all
    // for a host sharing another's address, so the repository alone tells the two apart).
    return {
      ...base,
      uuid: '',
      dnsName: owner === index && r(51) < 0.5 ? `host-${pad(index)}.dmz.example` : '',
      netbiosName: '',
      macAddress: '',
      macs: [],
      operatingSystem: REMOTE_GUESSES[mix(h, 52) % REMOTE_GUESSES.length],
      osConfidence: 56,
      osMethod: 'SinFP',
      osCpe: '',
      softwareOsName: '',
      packaging: 'none',
      biosGUID: '',
      hardware: null,
      lastUser: '',
      software: [],
      policyName: 'Discovery Scan (unauthenticated)',
    };
  }
  const windows = sk.kind === 0;
  const edition = WINDOWS_EDITIONS[sk.variant % WINDOWS_EDITIONS.length];
  const linux = LINUX_OS[sk.variant % LINUX_OS.length];
  const server = windows ? edition.server : true;
  const hw = (server ? SERVER_HW : CLIENT_HW)[mix(h, 53) % 3];
  const macs = [mac(h, 54)];
  if (r(55) < 0.3) macs.push(mac(h, 56));
  const shortName = windows ? `${server ? 'WINSRV' : 'WS'}-${pad(index)}` : `lnx-${pad(index)}`;
  const installed = (salt: number) => {
    const d = new Date((sk.hostFirstSeen + Math.floor(r(salt) * (sk.lastScan - sk.hostFirstSeen))) * 1000);
    return `${d.getUTCFullYear()}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${String(d.getUTCDate()).padStart(2, '0')}`;
  };
  const software: string[] = [];
  const list = windows ? WINDOWS_SOFTWARE : UNIX_PACKAGES;
  const distro = LINUX_DISTROS[sk.variant % LINUX_DISTROS.length];
  for (let i = 0; i < list.length; i++) {
    if (r(600 + i) > 0.7) continue;
    const version = `${1 + (mix(h, 700 + i) % 30)}.${mix(h, 800 + i) % 10}.${mix(h, 900 + i) % 200}`;
    if (windows) {
      // Both bracketed parts are optional in real output; drop each now and then.
      const v = r(1000 + i) < 0.1 ? '' : `  [version ${version}]`;
      const d = r(1100 + i) < 0.15 ? '' : `  [installed on ${installed(1200 + i)}]`;
      software.push(`${list[i]}${v}${d}`);
    } else if (distro.packaging === 'dpkg') {
      software.push(`ii  ${list[i]}  ${version}${distro.pkgSuffix}${mix(h, 1300 + i) % 9}  amd64  ${list[i]} package`);
    } else {
      software.push(`${list[i]}-${version}-${1 + (mix(h, 1300 + i) % 40)}${distro.pkgSuffix}${mix(h, 1400 + i) % 9}|${r(1500 + i) < 0.2 ? '1' : '(none)'}`);
    }
  }
  return {
    ...base,
    uuid: sk.identity !== 0 ? uuidFrom(seed, index, 1) : '',
    dnsName: `${shortName.toLowerCase()}.corp.example`,
    netbiosName: windows ? `CORP\\${shortName}` : '',
    macAddress: macs.join(','),
    macs,
    unreliableMacs: r(57) < 0.25 ? [`${mac(h, 58)} (uuid: NIC firmware)`] : [],
    operatingSystem: windows ? edition.name : linux.name,
    osConfidence: windows ? 100 : 95,
    osMethod: windows ? 'SMB' : 'LinuxDistribution',
    osCpe: windows ? edition.cpe : linux.cpe,
    softwareOsName: windows ? 'Windows' : linux.sw,
    packaging: windows ? 'msi' : distro.packaging,
    biosGUID: uuidFrom(seed, index, 3),
    hardware: {
      manufacturer: hw[0],
      model: hw[1],
      family: hw[2],
      chassis: hw[3],
      serial: hex(10, HASH_INIT, seed, index, 4).toUpperCase(),
      memoryMb: [8192, 16384, 32768, 65536][mix(h, 59) % 4],
      cpus: 1 + (mix(h, 60) % 4),
    },
    lastUser: windows ? `CORP\\${FIRST[mix(h, 61) % FIRST.length]}${mix(h, 62) % 100}` : '',
    software,
  };
}
