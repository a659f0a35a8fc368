// Analysis filters (fact sheet §5.1, §10): parsed once per request into a compact predicate plus a
// signature string, which keys the cached per-host match counts used for paging.
import type { PluginDef } from './catalog.ts';
import type { HostSkeleton } from './hosts.ts';

export class FilterError extends Error {}

type Range = [number, number];

export interface CompiledFilters {
  severityMask: number;
  pluginIds: { negate: boolean; ranges: Range[] } | null;
  pluginTypeMask: number;
  lastSeen: Range | null;
  firstSeen: Range | null;
  /** When a patched finding was found fixed (only with the lastMitigated filter offered). */
  lastMitigated: Range | null;
  repositories: Set<number> | null;
  ipRanges: Range[] | null;
  exploitAvailable: boolean | null;
  familyIds: Set<string> | null;
  vpr: Range | null;
  cvss3: Range | null;
  epss: Range | null;
  onlyWas: boolean;
  signature: string;
}

const PLUGIN_TYPES: Record<string, number> = { active: 1, passive: 2, compliance: 4, lce: 8, all: 15 };
const BASE_FILTERS = [
  'exploitAvailable',
  'family',
  'familyID',
  'firstSeen',
  'ip',
  'lastSeen',
  'pluginID',
  'pluginType',
  'repository',
  'repositoryIDs',
  'severity',
  'vprScore',
  'cvssV3BaseScore',
  'wasVuln',
];

export function validFilterNames(epss: boolean, lastMitigated = false): string[] {
  return [...BASE_FILTERS, ...(epss ? ['epssScore'] : []), ...(lastMitigated ? ['lastMitigated'] : [])].sort();
}

function listOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => (v && typeof v === 'object' && 'id' in v ? [String((v as { id: unknown }).id)] : listOf(v)));
  if (value && typeof value === 'object' && 'id' in value) return [String((value as { id: unknown }).id)];
  if (typeof value === 'number') return [String(value)];
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  return [];
}

function bad(name: string, value: unknown): never {
  throw new FilterError(`Invalid value ${JSON.stringify(value)} for filter '${name}'.`);
}

/** "0:30" = seen between 0 and 30 days ago, "0:all" = ever; "<start>-<end>" = absolute epoch seconds. */
export function parseTimeRange(name: string, value: unknown, now: number): Range {
  const text = String(value ?? '').trim();
  const rel = /^(\d+|all):(\d+|all)$/.exec(text);
  if (rel) {
    const days = (s: string) => (s === 'all' ? Number.POSITIVE_INFINITY : Number(s));
    const a = days(rel[1]);
    const b = days(rel[2]);
    const newer = Math.min(a, b);
    const older = Math.max(a, b);
    return [
      older === Number.POSITIVE_INFINITY ? Number.NEGATIVE_INFINITY : now - older * 86400,
      newer === Number.POSITIVE_INFINITY ? Number.NEGATIVE_INFINITY : now - newer * 86400,
    ];
  }
  const abs = /^(\d+)-(\d+)$/.exec(text);
  if (abs) return [Number(abs[1]), Number(abs[2])];
  return bad(name, value);
}

function numericRange(name: string, value: unknown): Range {
  const m = /^\s*([\d.]+)\s*-\s*([\d.]+)\s*$/.exec(String(value));
  if (!m) return bad(name, value);
  return [Number(m[1]), Number(m[2])];
}

function ipToInt(ip: string): number {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return Number.NaN;
  return ((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3];
}

function ipRanges(value: unknown): Range[] {
  return listOf(value).map((item) => {
    const [addr, bits] = item.split('/');
    if (addr.includes('-')) {
      const [a, b] = addr.split('-').map(ipToInt);
      if (Number.isNaN(a) || Number.isNaN(b)) bad('ip', value);
      return [a, b] as Range;
    }
    const base = ipToInt(addr);
    if (Number.isNaN(base)) bad('ip', value);
    const size = bits === undefined ? 1 : 2 ** (32 - Number(bits));
    const start = Math.floor(base / size) * size;
    return [start, start + size - 1] as Range;
  });
}

export function hostIpInt(index: number): number {
  return ((10 << 24) >>> 0) + ((20 + (index >>> 16)) << 16) + (((index >>> 8) & 255) << 8) + (index & 255);
}

export interface FilterInput {
  filterName?: unknown;
  operator?: unknown;
  value?: unknown;
}

export function compileFilters(filters: FilterInput[], rootWasVuln: unknown, now: number, epss: boolean, lastMitigated = false): CompiledFilters {
  const valid = validFilterNames(epss, lastMitigated);
  const byName = new Map<string, FilterInput>();
  for (const f of filters) {
    const name = String(f?.filterName ?? '');
    if (!valid.includes(name)) {
      throw new FilterError(`Invalid parameters specified for vuln query.  The filter '${name}' is invalid (valid filters: ${valid.join(', ')}).`);
    }
    byName.set(name, f); // one filter per name: the last one wins
  }
  const out: CompiledFilters = {
    severityMask: 31,
    pluginIds: null,
    pluginTypeMask: 15,
    lastSeen: null,
    firstSeen: null,
    lastMitigated: null,
    repositories: null,
    ipRanges: null,
    exploitAvailable: null,
    familyIds: null,
    vpr: null,
    cvss3: null,
    epss: null,
    onlyWas: false,
    signature: '',
  };
  let was = rootWasVuln;
  for (const [name, f] of byName) {
    const op = String(f.operator ?? '=');
    const value = f.value;
    switch (name) {
      case 'severity': {
        let mask = 0;
        for (const s of listOf(value)) {
          const n = Number(s);
          if (!Number.isInteger(n) || n < 0 || n > 4) bad(name, value);
          mask |= 1 << n;
        }
        out.severityMask = op === '!=' ? 31 & ~mask : mask;
        break;
      }
      case 'pluginID': {
        const items = listOf(value);
        const ranges = items.map((item): Range => {
          const m = /^(\d+)(?:-(\d+))?$/.exec(item);
          if (!m) bad(name, value);
          return [Number(m[1]), Number(m[2] ?? m[1])];
        });
        if (op === '>=' || op === '<=') ranges.splice(0, ranges.length, op === '>=' ? [ranges[0][0], Number.MAX_SAFE_INTEGER] : [0, ranges[0][0]]);
        out.pluginIds = { negate: op === '!=', ranges };
        break;
      }
      case 'pluginType':
        out.pluginTypeMask = listOf(value).reduce((m, t) => m | (PLUGIN_TYPES[t] ?? bad(name, value)), 0);
        break;
      case 'lastSeen':
      case 'firstSeen':
      case 'lastMitigated':
        out[name] = parseTimeRange(name, value, now);
        break;
      case 'repository':
      case 'repositoryIDs':
        out.repositories = new Set(listOf(value).map(Number));
        break;
      case 'ip':
        out.ipRanges = ipRanges(value);
        break;
      case 'exploitAvailable':
        out.exploitAvailable = String(value).toLowerCase() === 'true';
        break;
      case 'family':
      case 'familyID':
        out.familyIds = new Set(listOf(value));
        break;
      case 'vprScore':
        out.vpr = numericRange(name, value);
        break;
      case 'cvssV3BaseScore':
        out.cvss3 = numericRange(name, value);
        break;
      case 'epssScore':
        out.epss = numericRange(name, value);
        break;
      case 'wasVuln':
        was = value;
        break;
    }
  }
  if (was !== undefined && was !== null && !['excludeWas', 'onlyWas', 'includeWas'].includes(String(was))) bad('wasVuln', was);
  out.onlyWas = was === 'onlyWas'; // the simulated console holds no web-application (WAS) findings
  out.signature = JSON.stringify(out, (_k, v) =>
    v instanceof Set ? [...v].sort() : v === Number.POSITIVE_INFINITY ? 'inf' : v === Number.NEGATIVE_INFINITY ? '-inf' : v,
  );
  return out;
}

const inRange = (r: Range, v: number) => v >= r[0] && v <= r[1];

/** Host-level part of the predicate, checked once per host. */
export function hostMatches(f: CompiledFilters, sk: HostSkeleton): boolean {
  if (f.onlyWas) return false;
  if (f.repositories && !f.repositories.has(sk.repository)) return false;
  if (f.ipRanges) {
    const ip = hostIpInt(sk.index);
    if (!f.ipRanges.some((r) => inRange(r, ip))) return false;
  }
  return true;
}

/** Finding-level part; lastSeen and mitigatedAt (0: not mitigated) are the lifecycle-adjusted values. */
export function findingMatches(f: CompiledFilters, sk: HostSkeleton, slot: number, def: PluginDef, lastSeen: number, mitigatedAt = 0): boolean {
  if ((f.severityMask & (1 << sk.severity[slot])) === 0) return false;
  if ((f.pluginTypeMask & (def.pluginType === 'compliance' ? 4 : 1)) === 0) return false;
  if (f.pluginIds) {
    const hit = f.pluginIds.ranges.some((r) => inRange(r, def.id));
    if (hit === f.pluginIds.negate) return false;
  }
  if (f.lastSeen && !inRange(f.lastSeen, lastSeen)) return false;
  if (f.lastMitigated && (mitigatedAt === 0 || !inRange(f.lastMitigated, mitigatedAt))) return false;
  if (f.firstSeen && !inRange(f.firstSeen, sk.firstSeen[slot])) return false;
  if (f.exploitAvailable !== null && (def.exploitAvailable === 'Yes') !== f.exploitAvailable) return false;
  if (f.familyIds && !f.familyIds.has(def.family.id)) return false;
  if (f.vpr && !inRange(f.vpr, def.vpr)) return false;
  if (f.cvss3 && !inRange(f.cvss3, def.cvss3)) return false;
  if (f.epss && !inRange(f.epss, def.epss)) return false;
  return true;
}
