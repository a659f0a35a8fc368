// One generated estate both simulators can serve (`--estate SEED[:MACHINES]` or a JSON file
// `{"seed": n, "machines": n}`): the same machines appear as scanner hosts and as CMDB assets, with
// the drift real estates have: CMDB records without serials, replaced NICs, renamed hosts, short names
// vs FQDNs, DHCP-reused addresses, duplicate names, machines in one system only, and requests that are
// associated with assets or name CVEs and host names. Everything is a pure function of (seed, index).
import { readFileSync } from 'node:fs';
import { fmix32 } from './hash.ts';

export const ESTATE_DOMAIN = 'corp.example';
const DEPARTMENTS = [
  { prefix: 'fin', name: 'Finance' },
  { prefix: 'hr', name: 'Human Resources' },
  { prefix: 'eng', name: 'Engineering' },
  { prefix: 'ops', name: 'Operations' },
  { prefix: 'sal', name: 'Sales' },
];
const SITES = ['Paris HQ', 'Lyon', 'Boston'];
const TYPES = [
  { code: 'lt', productType: 'Laptop' },
  { code: 'ws', productType: 'Workstation' },
  { code: 'srv', productType: 'Server' },
] as const;

function h(seed: number, ...parts: (number | string)[]): number {
  let x = fmix32(seed ^ 0x5bd1e995);
  for (const p of parts) {
    if (typeof p === 'number') x = fmix32(x ^ fmix32(p + 0x9e3779b9));
    else for (let i = 0; i < p.length; i++) x = fmix32(x ^ p.charCodeAt(i));
  }
  return x;
}
const u = (seed: number, ...parts: (number | string)[]) => h(seed, ...parts) / 4294967296;
const hex = (seed: number, n: number, ...parts: (number | string)[]) => {
  let s = '';
  for (let i = 0; s.length < n; i++)
    s += h(seed, ...parts, i)
      .toString(16)
      .padStart(8, '0');
  return s.slice(0, n);
};

/** The scanner's address of machine i (the Tenable simulator's ipOf: host index = machine index). */
export function scannedIp(i: number): string {
  return `10.${20 + (i >>> 16)}.${(i >>> 8) & 255}.${i & 255}`;
}

export interface Machine {
  index: number;
  /** Canonical short host name, lower case (`fin-lt-00042`). */
  name: string;
  fqdn: string;
  serial: string;
  biosUuid: string;
  /** The NICs it has now (the scanner sees these). */
  macs: string[];
  ip: string;
  productType: (typeof TYPES)[number]['productType'];
  department: string;
  site: string;
}

/** How the two systems disagree about a machine. */
export interface Drift {
  scanned: boolean;
  inCmdb: boolean;
  cmdbNoSerial: boolean;
  nicReplaced: boolean;
  /** The scanner sees a new name; the CMDB still has the old one. */
  renamed: boolean;
  /** The CMDB names it by FQDN (else by short name, upper case as people type them). */
  cmdbFqdn: boolean;
  /** The CMDB record carries an address DHCP has since given to another scanned machine. */
  staleIp: boolean;
  /** A second, stale CMDB record with the same name (no serial, no MAC). */
  duplicate: boolean;
}

/** What the CMDB holds: one record per machine in it, plus stale duplicates. */
export interface CmdbEntry {
  machine: number;
  name: string;
  fqdn: string | null;
  serial: string | null;
  biosUuid: string | null;
  macs: string[];
  ip: string | null;
  productType: Machine['productType'];
  department: string;
  site: string;
  stale: boolean;
}

/** A scanned machine's identifiers as a host record holds them. */
export interface HostIdentity {
  hostname: string;
  fqdn: string;
  netbiosName: string | null;
  serialNumber: string | null;
  macAddresses: string[];
  ipAddresses: string[];
  repository: string;
}

/** A CMDB record's identifiers as a CMDB asset record holds them. */
export function cmdbIdentity(c: CmdbEntry): {
  name: string;
  fqdn: string | null;
  serialNumber: string | null;
  macAddresses: string[];
  ipAddresses: string[];
  site: string;
} {
  return { name: c.name, fqdn: c.fqdn, serialNumber: c.serial, macAddresses: c.macs, ipAddresses: c.ip ? [c.ip] : [], site: c.site };
}

export class Estate {
  readonly seed: number;
  readonly machines: number;
  /** Machines [0, scanned) are seen by the scanner; the rest are in the CMDB only. */
  readonly scanned: number;
  #cmdb: CmdbEntry[] | null = null;

  constructor(seed: number, machines: number) {
    if (!Number.isInteger(machines) || machines < 4) throw new Error('an estate has at least 4 machines');
    this.seed = seed;
    this.machines = machines;
    this.scanned = Math.max(3, Math.round(machines * 0.9));
  }

  machine(i: number): Machine {
    const s = this.seed;
    const dept = DEPARTMENTS[h(s, i, 'dept') % DEPARTMENTS.length]!;
    const type = TYPES[u(s, i, 'type') < 0.5 ? 0 : u(s, i, 'type') < 0.8 ? 1 : 2]!;
    const name = `${dept.prefix}-${type.code}-${String(i).padStart(5, '0')}`;
    const mac = (salt: string) => `00:50:56:${hex(s, 6, i, salt).match(/../g)!.join(':')}`;
    const macs = [mac(this.drift(i).nicReplaced ? 'mac-new' : 'mac')];
    if (type.code === 'srv') macs.push(mac('mac2'));
    const b = hex(s, 32, i, 'bios');
    return {
      index: i,
      name,
      fqdn: `${name}.${ESTATE_DOMAIN}`,
      serial: hex(s, 10, i, 'serial').toUpperCase(),
      biosUuid: `${b.slice(0, 8)}-${b.slice(8, 12)}-${b.slice(12, 16)}-${b.slice(16, 20)}-${b.slice(20)}`,
      macs,
      ip: i < this.scanned ? scannedIp(i) : `10.99.${(i >>> 8) & 255}.${i & 255}`,
      productType: type.productType,
      department: dept.name,
      site: SITES[h(s, i, 'site') % SITES.length]!,
    };
  }

  drift(i: number): Drift {
    const s = this.seed;
    const scanned = i < this.scanned;
    // Machine 1 always shows the ambiguity: no serial in the CMDB, a new NIC, and a stale twin record.
    const showcase = i === 1;
    return {
      scanned,
      inCmdb: !scanned || showcase || u(s, i, 'cmdb?') >= 0.12,
      cmdbNoSerial: showcase || u(s, i, 'noserial') < 0.12,
      nicReplaced: showcase || u(s, i, 'nic') < 0.1,
      renamed: !showcase && u(s, i, 'renamed') < 0.06,
      cmdbFqdn: u(s, i, 'fqdn') < 0.5,
      staleIp: !showcase && scanned && u(s, i, 'dhcp') < 0.04,
      duplicate: showcase || u(s, i, 'dup') < 0.02,
    };
  }

  /** The name the scanner resolves for machine i (a renamed machine's new name). */
  scannerName(i: number): string {
    const m = this.machine(i);
    return this.drift(i).renamed ? m.name.replace(/^[a-z]+-/, 'new-') : m.name;
  }

  /** What a credentialed scan of machine i reports. */
  scannerView(i: number): { dnsName: string; netbiosName: string; macs: string[]; serial: string; biosUuid: string } {
    const m = this.machine(i);
    const name = this.scannerName(i);
    return { dnsName: `${name}.${ESTATE_DOMAIN}`, netbiosName: `CORP\\${name.toUpperCase()}`, macs: m.macs, serial: m.serial, biosUuid: m.biosUuid };
  }

  /**
   * The identifying fields of scanned machine i under the host model's names, with the gaps of a real
   * scan: every other host without a NetBIOS name, every fifth without a serial.
   */
  hostIdentity(i: number): HostIdentity {
    const v = this.scannerView(i);
    const m = this.machine(i);
    return {
      hostname: v.dnsName.split('.')[0]!,
      fqdn: v.dnsName,
      netbiosName: i % 2 ? v.netbiosName : null,
      serialNumber: i % 5 === 4 ? null : v.serial,
      macAddresses: v.macs,
      ipAddresses: [m.ip],
      repository: m.site,
    };
  }

  /** The CMDB's records, in a stable order (their index is the CMDB asset index). */
  cmdb(): CmdbEntry[] {
    if (this.#cmdb) return this.#cmdb;
    const out: CmdbEntry[] = [];
    for (let i = 0; i < this.machines; i++) {
      const d = this.drift(i);
      if (!d.inCmdb) continue;
      const m = this.machine(i);
      const oldMac = d.nicReplaced ? [`00:50:56:${hex(this.seed, 6, i, 'mac').match(/../g)!.join(':')}`] : m.macs;
      const stale = d.staleIp ? scannedIp((i + 7) % this.scanned) : m.ip;
      out.push({
        machine: i,
        name: d.cmdbFqdn ? m.fqdn : m.name.toUpperCase(),
        fqdn: d.cmdbFqdn ? m.fqdn : null,
        serial: d.cmdbNoSerial ? null : m.serial,
        biosUuid: null,
        macs: oldMac,
        ip: stale,
        productType: m.productType,
        department: m.department,
        site: m.site,
        stale: false,
      });
      if (d.duplicate)
        out.push({
          machine: i,
          name: m.name.toUpperCase(),
          fqdn: null,
          serial: null,
          biosUuid: null,
          macs: [],
          ip: null,
          productType: m.productType,
          department: m.department,
          site: m.site,
          stale: true,
        });
    }
    this.#cmdb = out;
    return out;
  }

  /** What request i is about: a CMDB asset it is associated with, a host name and a CVE it names. */
  request(i: number, cves: readonly string[]): { asset: number | null; namesHost: number | null; cve: string | null } {
    const s = this.seed;
    const cmdb = this.cmdb();
    const asset = u(s, i, 'req-asset') < 0.4 ? h(s, i, 'req-asset-i') % cmdb.length : null;
    const namesHost = u(s, i, 'req-host') < 0.25 ? h(s, i, 'req-host-i') % this.scanned : null;
    const cve = cves.length > 0 && u(s, i, 'req-cve') < 0.3 ? cves[h(s, i, 'req-cve-i') % cves.length]! : null;
    return { asset, namesHost, cve };
  }
}

/** `SEED`, `SEED:MACHINES`, or a JSON file `{"seed": n, "machines": n}`; 200 machines by default. */
export function parseEstate(spec: string): Estate {
  const m = /^(\d+)(?::(\d+))?$/.exec(spec.trim());
  if (m) return new Estate(Number(m[1]), m[2] ? Number(m[2]) : 200);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(spec, 'utf8'));
  } catch (err) {
    throw new Error(`--estate: '${spec}' is neither SEED[:MACHINES] nor a readable JSON file (${err instanceof Error ? err.message : err})`);
  }
  const o = parsed as { seed?: unknown; machines?: unknown };
  if (typeof o.seed !== 'number' || (o.machines !== undefined && typeof o.machines !== 'number'))
    throw new Error(`--estate file ${spec}: expected {"seed": number, "machines": number}`);
  return new Estate(o.seed, (o.machines as number | undefined) ?? 200);
}

let cveCache: string[] | null = null;

/** CVEs of the scanner simulator's critical and high plugins: what requests about an estate name. */
export async function estateCves(): Promise<string[]> {
  if (cveCache) return cveCache;
  const { PLUGINS } = await import('../tenable-sc/catalog.ts');
  cveCache = [...new Set(PLUGINS.filter((p) => p.severity >= 3 && p.cve).flatMap((p) => p.cve.split(',').slice(0, 1)))].sort();
  return cveCache;
}
