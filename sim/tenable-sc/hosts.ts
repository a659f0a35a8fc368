// Host templates: everything about host N derives from (seed, N). A skeleton holds the numeric slot
// layout (which plugin/port/severity sits in finding slot k) and is cheap enough to rebuild for all
// hosts when counting; strings (names, software, hardware) are filled in lazily for rendering only.
import { INVENTORY, LINUX_POOLS, PLUGINS, PORT_SCANNERS, REMOTE_POOL, WINDOWS_POOL } from './catalog.ts';
import { type ComplianceCheck, COMPLIANCE_RESULTS, LINUX_COMPLIANCE, RESULT_SEVERITY, WINDOWS_COMPLIANCE } from './compliance.ts';
import { HASH_INIT, mix, toUnit } from './hash.ts';
import type { Estate } from '../shared/estate.ts';
import { buildHostDetails, type HostDetails } from './host-details.ts';
import { type CommonPatchSet, drawOrder } from './patch-sets.ts';

export const KIND_WINDOWS = 0;
export const KIND_LINUX = 1;
export const KIND_UNAUTH = 2;

export const FLAG_PATCHABLE = 1;
/** Finding was mitigated once and came back before the simulation started ("Resurfaced"). */
export const FLAG_RESURFACED = 2;

const DAY = 86400;

export interface HostSkeleton {
  index: number;
  seedHash: number;
  kind: number;
  /** Windows edition or Linux distro index. */
  variant: number;
  repository: number;
  /** Slots [0, openSlots) start open; [openSlots, slotCount) start in the patched set. */
  openSlots: number;
  slotCount: number;
  plugin: Int32Array;
  port: Int32Array;
  severity: Int8Array;
  flags: Uint8Array;
  /** Port-scan row: index into ports (-1 = summary row). Compliance: check index * 16 + result codes. */
  aux: Int32Array;
  firstSeen: Float64Array;
  lastSeen: Float64Array;
  hostFirstSeen: number;
  lastScan: number;
  ports: number[];
  /**
   * How the console knows the host (fact sheet §6-7): HOST_AGENT hosts have a Tenable UUID from their
   * agent; credentialed scans give some hosts one (HOST_UUID); unauthenticated ones have none.
   */
  identity: number;
  /** The host whose address this one has: itself, or (same IP in two repositories) the one before it. */
  ipOwner: number;
  /** When the host's address changed (findings last seen before then carry the old one); 0 = never. */
  ipChangedAt: number;
  details?: HostDetails;
}

export const HOST_AGENT = 1;
export const HOST_UUID = 2;

const WINDOWS_PORTS = [135, 139, 445, 3389];
const WINDOWS_EXTRA = [80, 443, 1433, 5985];
const LINUX_EXTRA = [80, 443, 3306, 5432, 8080, 111];
const UNAUTH_PORTS = [22, 80, 443, 8080, 8443, 3389, 23, 21];

export function ipOf(index: number): string {
  return `10.${20 + (index >>> 16)}.${(index >>> 8) & 255}.${index & 255}`;
}

/** Inverse of ipOf; -1 when the address is not one of ours. */
export function indexOfIp(ip: string): number {
  const m = /^10\.(\d+)\.(\d+)\.(\d+)$/.exec(ip.trim());
  if (!m) return -1;
  const hi = Number(m[1]) - 20;
  if (hi < 0) return -1;
  return (hi << 16) + (Number(m[2]) << 8) + Number(m[3]);
}

function subset(list: readonly number[], h: number, salt: number, probability: number): number[] {
  return list.filter((_, i) => toUnit(mix(mix(h, salt), i)) < probability);
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** Repository of host `index` (1 or 2), without building it. */
function repositoryOf(seed: number, index: number): number {
  return toUnit(mix(mix(mix(HASH_INIT, seed), index), 3)) < 0.6 ? 1 : 2;
}

/** Every 40th host (from 39) is an unauthenticated one at the address of the host before it, in the other repository. */
export function sharesAddress(index: number): boolean {
  return index >= 3 && index % 40 === 39;
}

/**
 * `addressDrift`: the same address in two repositories and hosts that moved (off on a shared estate,
 * whose own drift says which machine has which address).
 */
export function buildSkeleton(seed: number, index: number, findingsPerHost: number, now: number, addressDrift = true, patchSet?: CommonPatchSet): HostSkeleton {
  const h = mix(mix(HASH_INIT, seed), index);
  const r = (salt: number) => toUnit(mix(h, salt));
  const kindRoll = r(1);
  const shared = addressDrift && sharesAddress(index);
  // The first three hosts cover every kind, so even tiny data sets exercise all code paths.
  const kind = index < 3 ? index : shared ? KIND_UNAUTH : kindRoll < 0.4 ? KIND_WINDOWS : kindRoll < 0.75 ? KIND_LINUX : KIND_UNAUTH;
  const variant = mix(h, 2) % (kind === KIND_LINUX ? LINUX_POOLS.length : 4);
  const repository = shared ? 3 - repositoryOf(seed, index - 1) : repositoryOf(seed, index);
  // Agents on 30 % of the credentialed hosts; half the others got a Tenable UUID from a credentialed
  // scan (host 0: agent, host 1: credentialed without one, host 2: unauthenticated).
  const idRoll = r(70);
  const identity = kind === KIND_UNAUTH ? 0 : index === 0 || (index >= 3 && idRoll < 0.3) ? HOST_AGENT : index >= 3 && idRoll < 0.65 ? HOST_UUID : 0;
  const hostFirstSeen = now - Math.floor((60 + r(4) * 660) * DAY);
  const stale = index >= 3 && r(5) < 0.12;
  const lastScan = now - Math.floor(stale ? (20 + r(6) * 70) * DAY : r(6) * 5 * DAY) - 60;

  let ports: number[];
  let scanner: number;
  let inventory: number[];
  let checks: ComplianceCheck[] = [];
  let pool: number[];
  if (kind === KIND_WINDOWS) {
    ports = [...WINDOWS_PORTS, ...subset(WINDOWS_EXTRA, h, 7, 0.3)];
    scanner = PORT_SCANNERS.wmi.index;
    inventory = [INVENTORY.softwareWindows, INVENTORY.hardwareWindows, INVENTORY.lastUser, INVENTORY.os, INVENTORY.macs].map((p) => p.index);
    checks = WINDOWS_COMPLIANCE;
    pool = WINDOWS_POOL;
  } else if (kind === KIND_LINUX) {
    ports = [22, ...subset(LINUX_EXTRA, h, 7, 0.3)];
    scanner = PORT_SCANNERS.ssh.index;
    inventory = [INVENTORY.softwareUnix, INVENTORY.hardwareUnix, INVENTORY.os, INVENTORY.macs].map((p) => p.index);
    checks = LINUX_COMPLIANCE;
    pool = LINUX_POOLS[variant];
  } else {
    ports = subset(UNAUTH_PORTS, h, 7, 0.35);
    if (ports.length === 0) ports = [443];
    scanner = PORT_SCANNERS.syn.index;
    inventory = [];
    pool = REMOTE_POOL;
  }

  const F = findingsPerHost;
  const P = Math.max(1, Math.floor(F / 10));
  const S = F + P;
  // One host in ten (credentialed, from host 3) moved to another address some weeks before its last scan.
  const ipChangedAt = addressDrift && kind !== KIND_UNAUTH && index >= 3 && r(71) < 0.1 ? lastScan - Math.floor((3 + r(72) * 20) * DAY) : 0;
  const sk: HostSkeleton = {
    index,
    seedHash: h,
    kind,
    variant,
    repository,
    openSlots: F,
    slotCount: S,
    plugin: new Int32Array(S),
    port: new Int32Array(S),
    severity: new Int8Array(S),
    flags: new Uint8Array(S),
    aux: new Int32Array(S),
    firstSeen: new Float64Array(S),
    lastSeen: new Float64Array(S),
    hostFirstSeen,
    lastScan,
    ports,
    identity,
    ipOwner: shared ? index - 1 : index,
    ipChangedAt,
  };
  const span = lastScan - hostFirstSeen;
  let k = 0;
  const put = (plugin: number, port: number, severity: number, aux: number, firstSeen: number) => {
    sk.plugin[k] = plugin;
    sk.port[k] = port;
    sk.severity[k] = severity;
    sk.aux[k] = aux;
    sk.firstSeen[k] = firstSeen;
    sk.lastSeen[k] = lastScan;
    k++;
  };
  for (const p of inventory) if (k < F) put(p, PLUGINS[p].port, 0, 0, hostFirstSeen);
  for (let i = 0; i < ports.length && k < F; i++) put(scanner, ports[i], 0, i, hostFirstSeen + Math.floor(r(100 + i) * span));
  // Netstat scanners also report a port-0 summary row; a parser must not take it for an open port.
  if (kind !== KIND_UNAUTH && k < F) put(scanner, 0, 0, -1, hostFirstSeen);
  const complianceCount = Math.min(checks.length, Math.max(0, F - k), Math.max(2, Math.round(F * 0.2)));
  for (let i = 0; i < complianceCount; i++) {
    const check = (mix(h, 9) + i) % checks.length;
    const first = resultCode(mix(mix(h, 10), check));
    const second = checks[check].duplicated ? resultCode(mix(mix(h, 11), check)) : 0;
    const severity = Math.max(RESULT_SEVERITY[COMPLIANCE_RESULTS[first]], checks[check].duplicated ? RESULT_SEVERITY[COMPLIANCE_RESULTS[second]] : 0);
    put(checks[check].plugin.index, 0, severity, check * 16 + first * 4 + second, hostFirstSeen + Math.floor(r(200 + i) * span));
  }
  // Vulnerabilities walk a host-specific permutation of the pool, so plugin IDs never repeat on a
  // host until the pool is exhausted; later rounds move to another port to keep finding keys unique.
  // With a common patch set (patch-sets.ts) the permutation favours the platform's common plugins.
  let stride = 1 + (mix(h, 12) % (pool.length - 1));
  while (gcd(stride, pool.length) !== 1) stride++;
  const start = mix(h, 13) % pool.length;
  const order = patchSet ? drawOrder(pool, seed, h, patchSet) : null;
  for (let j = 0; k < S; j++) {
    const plugin = order ? order[j % pool.length]! : pool[(start + j * stride) % pool.length];
    const round = Math.floor(j / pool.length);
    const def = PLUGINS[plugin];
    const initiallyPatched = k >= F;
    const fs = hostFirstSeen + Math.floor(r(300 + j) * span * (initiallyPatched ? 0.5 : 1));
    put(plugin, def.port + round * 1000, def.severity, 0, fs);
    sk.flags[k - 1] = FLAG_PATCHABLE | (!initiallyPatched && r(400 + j) < 0.04 ? FLAG_RESURFACED : 0);
    if (initiallyPatched) sk.lastSeen[k - 1] = Math.max(fs + DAY, lastScan - Math.floor((1 + r(500 + j) * 44) * DAY));
  }
  return sk;
}

/** PASSED 55 %, FAILED 30 %, WARNING 10 %, ERROR 5 %. */
function resultCode(h: number): number {
  const u = toUnit(h);
  return u < 0.55 ? 0 : u < 0.85 ? 1 : u < 0.95 ? 2 : 3;
}

export function complianceCheckOf(sk: HostSkeleton, slot: number): { check: ComplianceCheck; results: string[] } {
  const aux = sk.aux[slot];
  const check = (sk.kind === KIND_WINDOWS ? WINDOWS_COMPLIANCE : LINUX_COMPLIANCE)[aux >> 4];
  const results = [COMPLIANCE_RESULTS[(aux >> 2) & 3]];
  if (check.duplicated) results.push(COMPLIANCE_RESULTS[aux & 3]);
  return { check, results };
}

/** A host of a shared estate: its machine's names, NICs, serial and BIOS UUID (an unauthenticated scan sees only a DNS name, now and then). */
function estateDetails(d: HostDetails, sk: HostSkeleton, estate: Estate | undefined): HostDetails {
  if (!estate) return d;
  const v = estate.scannerView(sk.index);
  if (sk.kind === KIND_UNAUTH) return { ...d, dnsName: d.dnsName ? v.dnsName : '' };
  const windows = sk.kind === KIND_WINDOWS;
  return {
    ...d,
    dnsName: v.dnsName,
    netbiosName: windows ? v.netbiosName : '',
    macs: v.macs,
    macAddress: v.macs.join(','),
    biosGUID: v.biosUuid,
    hardware: d.hardware ? { ...d.hardware, serial: v.serial } : d.hardware,
  };
}

/** Small LRU of host skeletons; a page touches ~20 hosts, counting passes stream through all of them. */
export class HostCache {
  private readonly entries = new Map<number, HostSkeleton>();
  private readonly seed: number;
  private readonly findingsPerHost: number;
  private readonly now: number;
  private readonly capacity: number;

  private readonly estate: Estate | undefined;
  private readonly patchSet: CommonPatchSet | undefined;

  constructor(seed: number, findingsPerHost: number, now: number, capacity = 1024, estate?: Estate, patchSet?: CommonPatchSet) {
    this.estate = estate;
    this.patchSet = patchSet;
    this.seed = seed;
    this.findingsPerHost = findingsPerHost;
    this.now = now;
    this.capacity = capacity;
  }

  get(index: number): HostSkeleton {
    const hit = this.entries.get(index);
    if (hit) {
      this.entries.delete(index);
      this.entries.set(index, hit);
      return hit;
    }
    const sk = buildSkeleton(this.seed, index, this.findingsPerHost, this.now, !this.estate, this.patchSet);
    this.entries.set(index, sk);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as number);
    return sk;
  }

  /** Skeleton plus its lazily built string details. */
  withDetails(index: number): HostSkeleton & { details: HostDetails } {
    const sk = this.get(index);
    sk.details ??= estateDetails(buildHostDetails(this.seed, sk), sk, this.estate);
    return sk as HostSkeleton & { details: HostDetails };
  }

  get size(): number {
    return this.entries.size;
  }
}
