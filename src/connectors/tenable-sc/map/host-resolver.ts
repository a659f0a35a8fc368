// Which host a row belongs to, whatever path it came by (sumip, vulndetails, /rest/hosts, CSV exports).
// A host is recognised by every identifier the console gives it, in the console's order of trust
// (asset tracking: Tenable UUID, BIOS UUID, MAC, NetBIOS name, FQDN, IP), plus the SC 6.x `hostUUID`,
// all scoped to the repository. Its record key is chosen once, from the first row that names it (the
// strongest key that row has), and every other identifier maps to it. The index is seeded from the
// hosts the store already holds, so resumed and incremental runs find the same hosts.
import type { KnownHost } from '../../../core/connector.ts';
import type { AddRecord, FieldsOf, RecordOf } from '../../../core/models.ts';
import { rowHostKey } from './identity.ts';
import { hostNames } from './sumip.ts';
import { list, macs, refId, refName, text } from './values.ts';
import { hostFromFindingRow } from './vulndetails.ts';

export interface HostIds {
  /** Repository name; '' when the row does not say. */
  scope: string;
  hostUuid?: string | null;
  tenableUuid?: string | null;
  biosUuid?: string | null;
  macs?: string[];
  netbios?: string | null;
  fqdn?: string | null;
  ips?: string[];
}

type Kind = 'hostUuid' | 'tenableUuid' | 'biosUuid' | 'mac' | 'netbios' | 'fqdn' | 'ip';
/** Lookup order: the console's own host id, then its asset-tracking order of trust. */
const ORDER: Kind[] = ['hostUuid', 'tenableUuid', 'biosUuid', 'mac', 'netbios', 'fqdn', 'ip'];
/** Identifiers a host has at most one of: a different value means a different machine. */
const SINGLE = ['hostUuid', 'tenableUuid', 'biosUuid'] as const;
type Single = (typeof SINGLE)[number];

interface Facts {
  scope: string;
  hostUuid: string | null;
  tenableUuid: string | null;
  biosUuid: string | null;
  fqdn: string | null;
  netbios: string | null;
}

export interface Resolution {
  key: string;
  /** No host had any of the row's identifiers: the caller creates it from the row's own fields. */
  created: boolean;
  /** Identifiers of a known host that the store does not hold yet (to write onto the host). */
  learned: Partial<Record<Single, string>>;
}

/** A host's descriptive facts that any row naming it may fill in (IncomingRecord.fill). */
const FACTS = ['os', 'hostname', 'fqdn', 'netbiosName'] as const;
const ALL_FACTS = (1 << FACTS.length) - 1;

/** Which FACTS a host's fields hold (bit i: FACTS[i]). */
function factBits(fields: Record<string, unknown>): number {
  let bits = 0;
  FACTS.forEach((name, i) => {
    if (fields[name] !== null && fields[name] !== undefined && fields[name] !== '') bits |= 1 << i;
  });
  return bits;
}

/**
 * A host record built from a finding row, split in two: its FACTS as a record that only fills, the
 * rest (addresses, identifiers, last seen) as it was. A Host Assets export then keeps its OS and names
 * whatever order the files are imported in.
 */
export function splitRowFacts(host: RecordOf<'hosts'>): RecordOf<'hosts'>[] {
  const facts: FieldsOf<'hosts'> = {};
  for (const name of FACTS) {
    const v = host.fields[name];
    if (v !== undefined) {
      facts[name] = v;
      delete host.fields[name];
    }
  }
  return Object.keys(facts).length === 0 ? [host] : [host, { key: host.key, fill: true, fields: facts }];
}

/** The FACTS an analysis row carries about its host. */
function rowFacts(row: Record<string, unknown>): Partial<Record<(typeof FACTS)[number], string>> {
  const names = hostNames(row.dnsName, row.netbiosName);
  return {
    os: text(row.operatingSystem) ?? undefined,
    hostname: names.hostname ?? undefined,
    fqdn: names.fqdn ?? undefined,
    netbiosName: text(row.netbiosName) ?? undefined,
  };
}

const GLOBAL = '*';
const lower = (v: unknown): string | null => text(v)?.toLowerCase() ?? null;

/** A NetBIOS name without its domain or workgroup (`CORP\WS01` and `WS01` are one name). */
export function netbiosOf(v: unknown): string | null {
  const s = lower(v);
  if (!s) return null;
  return s.slice(s.lastIndexOf('\\') + 1) || null;
}

/** Identifiers of an analysis row (sumip, vulndetails, or a CSV row in that shape). */
export function rowHostIds(row: Record<string, unknown>): HostIds {
  const ip = text(row.ip);
  const ips = ip ? [ip, ...list(row.ips, /[\s,]+/).filter((x) => x !== ip)] : list(row.ips, /[\s,]+/);
  return {
    scope: refName(row.repository) ?? '',
    hostUuid: lower(row.hostUUID),
    tenableUuid: lower(row.uuid),
    biosUuid: lower(row.biosGUID),
    macs: macs(row.macAddress),
    netbios: netbiosOf(row.netbiosName),
    fqdn: hostNames(row.dnsName, null).fqdn,
    ips,
  };
}

/** The fields of a stored host that `seed` reads (its identifiers and which FACTS it has): nothing else decides a resolution. */
export const SEED_FIELDS: readonly string[] = [
  'repository',
  'hostUuid',
  'tenableUuid',
  'biosUuid',
  'macAddresses',
  'netbiosName',
  'fqdn',
  'ipAddresses',
  ...FACTS,
];

/** A stored host cut to SEED_FIELDS: seeds a resolver exactly as the whole host does, in a fraction of its memory. */
export function seedOnly(h: KnownHost): KnownHost {
  const fields: Record<string, unknown> = {};
  for (const f of SEED_FIELDS) if (h.fields[f] !== undefined) fields[f] = h.fields[f];
  return { key: h.key, fields };
}

/** The identifiers seeding reads of a stored host. */
function seedIds(h: KnownHost): HostIds {
  const f = h.fields;
  return {
    scope: text(f.repository) ?? '',
    hostUuid: lower(f.hostUuid),
    tenableUuid: lower(f.tenableUuid),
    biosUuid: lower(f.biosUuid),
    macs: Array.isArray(f.macAddresses) ? macs(f.macAddresses.join(',')) : [],
    netbios: netbiosOf(f.netbiosName),
    fqdn: lower(f.fqdn),
    ips: Array.isArray(f.ipAddresses) ? f.ipAddresses.map(String) : [],
  };
}

export class HostResolver {
  /**
   * scope → kind → value → host key, or null where two hosts share it (then it decides nothing). Nested
   * rather than keyed by one joined string: a host has a dozen or more aliases, and joined keys would be
   * concatenated strings kept for the whole run, plus one built per lookup.
   */
  readonly #aliases = new Map<string, Map<Kind, Map<string, string | null>>>();
  /** Alias maps shared with the resolver this one was cloned from (never written here: copied first). */
  readonly #borrowed = new Set<Map<string, string | null>>();
  readonly #hosts = new Map<string, Facts>();
  readonly #runIps = new Map<string, string[]>();
  /** Host key → the address key (`addr:…`) it has as a console host: its own, or the first row's without a UUID that landed on it. */
  readonly #claims = new Map<string, string>();
  /** Repository ids → names, learned from rows that carry both (for /rest/hosts rows, which give the id). */
  readonly repositoryNames = new Map<string, string>();
  /** Host key → which of FACTS the host has (bit i: FACTS[i]), so a finding row fills only what is missing. */
  readonly #factsKnown = new Map<string, number>();

  /**
   * Seeds the index with the hosts the store holds for this source, read a page at a time with only
   * SEED_FIELDS: the resolver is what is kept of them.
   */
  static async load(knownHosts: ((fields: readonly string[]) => AsyncIterable<KnownHost[]>) | undefined): Promise<HostResolver> {
    const r = new HostResolver();
    if (knownHosts) for await (const page of knownHosts(SEED_FIELDS)) for (const h of page) r.seed(h);
    return r;
  }

  /** A resolver seeded with these hosts. */
  static seeded(hosts: readonly KnownHost[]): HostResolver {
    const r = new HostResolver();
    for (const h of hosts) r.seed(h);
    return r;
  }

  /**
   * A resolver holding what this one holds, changed apart from it: a run's streams each start from the
   * same seeded hosts, and copying the index costs a fraction of seeding it again (issue 30: five
   * seedings of 20,000 hosts were seconds of an incremental run). This one must not change afterwards
   * (the copy shares its alias maps until it writes one).
   */
  clone(): HostResolver {
    const r = new HostResolver();
    // The alias maps (most of its memory) are shared until the copy writes one: it then copies that one.
    for (const [scope, kinds] of this.#aliases) {
      r.#aliases.set(scope, new Map(kinds));
      for (const values of kinds.values()) r.#borrowed.add(values);
    }
    for (const [key, f] of this.#hosts) r.#hosts.set(key, { ...f });
    for (const [key, ips] of this.#runIps) r.#runIps.set(key, [...ips]);
    for (const [key, claim] of this.#claims) r.#claims.set(key, claim);
    for (const [id, name] of this.repositoryNames) r.repositoryNames.set(id, name);
    for (const [key, bits] of this.#factsKnown) r.#factsKnown.set(key, bits);
    return r;
  }

  /**
   * Whether `now` (a stored host as it is now) only adds to `before` (as this resolver was seeded with
   * it) what seeding reads: the same repository, each single identifier as it was or newly there,
   * every address and MAC still there, and no legacy key whose UUIDs changed. Then seeding `now` on
   * top of `before` leaves what a seeding with `now` alone leaves (an alias is its one host's, or no
   * one's when two claim it, whatever the order; a host's facts are its own).
   */
  static onlyAdds(before: KnownHost | undefined, now: KnownHost): boolean {
    if (!before) return true;
    const a = seedIds(before);
    const b = seedIds(now);
    if (a.scope !== b.scope) return false;
    for (const k of ['hostUuid', 'tenableUuid', 'biosUuid', 'netbios', 'fqdn'] as const) if (a[k] && a[k] !== b[k]) return false;
    if (/^uuid:[^|]+$/.test(now.key) && (a.tenableUuid !== b.tenableUuid || a.hostUuid !== b.hostUuid)) return false;
    return (a.macs ?? []).every((m) => b.macs?.includes(m)) && (a.ips ?? []).every((ip) => b.ips?.includes(ip));
  }

  seed(h: KnownHost): void {
    const f = h.fields;
    const ids = seedIds(h);
    this.#add(h.key, ids);
    this.#factsKnown.set(h.key, factBits(f));
    // A host keyed by its address is that console host: another address without a UUID is another one.
    if (h.key.startsWith('addr:')) this.#claims.set(h.key, h.key);
    // Hosts stored before their identifiers had fields of their own: a `uuid:` key names one.
    const legacy = /^uuid:([^|]+)$/.exec(h.key)?.[1];
    if (legacy && !ids.tenableUuid && !ids.hostUuid) {
      this.#alias(ids.scope, 'tenableUuid', legacy, h.key);
      this.#alias(ids.scope, 'hostUuid', legacy, h.key);
    }
  }

  /** The last row and the key its host-identifying values resolved to: a host's rows come together. */
  #lastRow: Record<string, unknown> | null = null;
  #lastKey = '';

  /**
   * The host key of an analysis row. A host no identifier names is created from the row's own host
   * fields (so no record ever points to a host that does not exist); a known host gets the
   * identifiers it lacked. Either record goes to `add`.
   */
  rowHost(row: Record<string, unknown>, add: AddRecord): string {
    if (this.#lastRow !== null && sameHostValues(row, this.#lastRow)) return this.#lastKey;
    this.learnRepository(row.repository);
    const res = this.resolve(rowHostIds(row), rowHostKey(row));
    if (res.created) {
      const host = hostFromFindingRow(row, res.key);
      this.#factsKnown.set(res.key, factBits(host.fields));
      add('hosts', host);
    } else {
      if (Object.keys(res.learned).length > 0) add('hosts', { key: res.key, fields: { ...res.learned } });
      this.#fillFacts(res.key, row, add);
    }
    this.#lastRow = row;
    this.#lastKey = res.key;
    return res.key;
  }

  /** A host record with these fields is written (a host summary, a Host Assets row): its facts need no filling. */
  noteFacts(key: string, fields: Record<string, unknown>): void {
    this.#factsKnown.set(key, (this.#factsKnown.get(key) ?? 0) | factBits(fields));
  }

  /**
   * Facts a known host lacks that this row carries (every finding row repeats its host's OS and names),
   * written to fill only: a host created from a row without them (sumip without an OS) gets them from
   * the next row that has them, and a stronger source's value is never overwritten.
   */
  #fillFacts(key: string, row: Record<string, unknown>, add: AddRecord): void {
    const known = this.#factsKnown.get(key) ?? 0;
    if (known === ALL_FACTS) return;
    const offered = rowFacts(row);
    const fields: FieldsOf<'hosts'> = {};
    let bits = known;
    FACTS.forEach((name, i) => {
      const v = offered[name];
      if (v && (known & (1 << i)) === 0) {
        fields[name] = v;
        bits |= 1 << i;
      }
    });
    if (bits === known) return;
    this.#factsKnown.set(key, bits);
    add('hosts', { key, fill: true, fields });
  }

  /** What is known of a host (its repository and single-valued identifiers), or undefined. */
  facts(key: string): Readonly<Facts> | undefined {
    return this.#hosts.get(key);
  }

  /** Whether a host with this key is known (stored, or created by this run). */
  has(key: string): boolean {
    return this.#hosts.has(key);
  }

  /** The known host the identifiers name, or null. `preferred` (the row's natural key) is tried first. */
  find(ids: HostIds, preferred?: string): string | null {
    if (preferred && this.#hosts.has(preferred) && !this.#conflicts(preferred, ids, 'key')) return preferred;
    for (const kind of ORDER) {
      for (const value of valuesOf(ids, kind)) {
        const hit = this.#lookup(ids.scope, kind, value);
        if (hit && !this.#conflicts(hit, ids, kind) && !this.#claimedByAnother(hit, kind, preferred)) return hit;
      }
    }
    return null;
  }

  /**
   * Two rows the console itself tells apart by address (its uniqueness: repository, IP, DNS name, for
   * rows without a UUID) stay two hosts, in one run or across runs, whatever weaker identifier they
   * share: a MAC or a NetBIOS name joins rows from different paths, never two of the console's own hosts.
   */
  #claimedByAnother(key: string, via: Kind, preferred: string | undefined): boolean {
    if (!preferred?.startsWith('addr:') || via === 'hostUuid' || via === 'tenableUuid' || via === 'biosUuid') return false;
    const claim = this.#claims.get(key);
    return claim !== undefined && !sameAddress(claim, preferred);
  }

  #claim(key: string, preferred: string): void {
    if (preferred.startsWith('addr:') && !this.#claims.has(key)) this.#claims.set(key, preferred);
  }

  /**
   * The host a row belongs to: a known one when any identifier names it (and none contradicts it),
   * else a new one keyed by `preferred` (made unique within the source when another host holds it).
   */
  resolve(ids: HostIds, preferred: string): Resolution {
    const found = this.find(ids, preferred);
    if (found) {
      this.#noteAddresses(found, ids.ips);
      this.#claim(found, preferred);
      return { key: found, created: false, learned: this.#add(found, ids) };
    }
    let key = preferred;
    if (this.#hosts.has(key)) key = `${preferred}|${ids.scope}`;
    for (let n = 2; this.#hosts.has(key); n++) key = `${preferred}|${ids.scope}|${n}`;
    this.#add(key, ids);
    this.#noteAddresses(key, ids.ips);
    this.#claim(key, preferred);
    return { key, created: true, learned: {} };
  }

  /** The addresses rows of this run gave the host, first seen first (a host may have several). */
  addressesOf(key: string): string[] {
    return this.#runIps.get(key) ?? [];
  }

  /** Remembers a repository's name for its id, from a row's `{id, name}` object. */
  learnRepository(repository: unknown): void {
    const id = refId(repository);
    const name = refName(repository);
    if (id && name) this.repositoryNames.set(id, name);
  }

  #lookup(scope: string, kind: Kind, value: string): string | null {
    if (scope) {
      const hit = this.#aliases.get(scope)?.get(kind)?.get(value);
      if (hit !== undefined) return hit;
      // A host stored without a repository (a Host Assets row that named none) matches any scope.
      const any = this.#aliases.get(GLOBAL)?.get(kind)?.get(value);
      return any && this.#hosts.get(any)?.scope === '' ? any : null;
    }
    return this.#aliases.get(GLOBAL)?.get(kind)?.get(value) ?? null;
  }

  /** A match through `via` is refused when a stronger identifier says it is another machine. */
  #conflicts(key: string, ids: HostIds, through: Kind | 'key'): boolean {
    let via = through;
    const f = this.#hosts.get(key);
    if (!f) return false;
    if (ids.scope && f.scope && ids.scope !== f.scope) return true;
    for (const k of SINGLE) {
      const mine = ids[k];
      if (mine && f[k] && mine !== f[k]) return true;
    }
    // A MAC (shared by virtual adapters), a name or an address: another name says another machine.
    // A key is as strong as what it was made of (a UUID, or the address).
    if (via === 'key') via = key.startsWith('addr:') ? 'ip' : 'tenableUuid';
    if (via !== 'mac' && via !== 'netbios' && via !== 'ip') return false;
    if (ids.fqdn && f.fqdn && ids.fqdn !== f.fqdn) return true;
    return via !== 'netbios' && !!ids.netbios && !!f.netbios && ids.netbios !== f.netbios;
  }

  #alias(scope: string, kind: Kind, value: string, key: string): void {
    for (const s of scope ? [scope, GLOBAL] : [GLOBAL]) {
      let kinds = this.#aliases.get(s);
      if (!kinds) {
        kinds = new Map();
        this.#aliases.set(s, kinds);
      }
      let values = kinds.get(kind);
      if (!values) {
        values = new Map();
        kinds.set(kind, values);
      }
      const old = values.get(value);
      // (the alias as it was, or already ambiguous: nothing to write)
      if (old === key || old === null) continue;
      if (this.#borrowed.has(values)) {
        this.#borrowed.delete(values);
        values = new Map(values);
        kinds.set(kind, values);
      }
      values.set(value, old === undefined ? key : null);
    }
  }

  /** Records the identifiers on the host; returns the single-valued ones it did not have. */
  #add(key: string, ids: HostIds): Partial<Record<Single, string>> {
    let f = this.#hosts.get(key);
    if (!f) {
      f = { scope: ids.scope, hostUuid: null, tenableUuid: null, biosUuid: null, fqdn: null, netbios: null };
      this.#hosts.set(key, f);
    }
    const learned: Partial<Record<Single, string>> = {};
    for (const k of SINGLE) {
      const v = ids[k];
      if (v && !f[k]) {
        f[k] = v;
        learned[k] = v;
      }
    }
    if (!f.scope && ids.scope) f.scope = ids.scope;
    if (!f.fqdn && ids.fqdn) f.fqdn = ids.fqdn;
    if (!f.netbios && ids.netbios) f.netbios = ids.netbios;
    const scope = f.scope;
    for (const kind of ORDER) for (const v of valuesOf(ids, kind)) this.#alias(scope, kind, v, key);
    return learned;
  }

  #noteAddresses(key: string, ips: string[] | undefined): void {
    if (!ips?.length) return;
    const seen = this.#runIps.get(key);
    if (!seen) this.#runIps.set(key, [...ips]);
    else for (const ip of ips) if (!seen.includes(ip)) seen.push(ip);
  }
}

/** Two address keys name one console host: same IP and DNS name, and same repository where both name one. */
function sameAddress(a: string, b: string): boolean {
  if (a === b) return true;
  const [ra, ...restA] = a.slice(5).split('|');
  const [rb, ...restB] = b.slice(5).split('|');
  return restA.join('|') === restB.join('|') && (!ra || !rb || ra === rb);
}

function valuesOf(ids: HostIds, kind: Kind): string[] {
  switch (kind) {
    case 'mac':
      return ids.macs ?? [];
    case 'ip':
      return ids.ips ?? [];
    default: {
      const v = ids[kind];
      return v ? [v] : [];
    }
  }
}

/** The row fields rowHost resolves a host from. */
const HOST_VALUES = ['uuid', 'hostUUID', 'ip', 'dnsName', 'netbiosName', 'macAddress', 'biosGUID', 'repositoryID'] as const;

/**
 * Every field of an analysis row that rowHost reads (identifiers, names, facts, scores): a row cut to
 * these resolves as the whole row does (the vulnerabilities stream's page thread sends only these).
 */
const HOST_ROW_FIELDS = [...HOST_VALUES, 'repository', 'ips', 'operatingSystem', 'lastSeen', 'acrScore', 'assetExposureScore'] as const;

/** A row cut to the fields rowHost reads (HOST_ROW_FIELDS). */
export function hostRowOf(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of HOST_ROW_FIELDS) if (row[f] !== undefined) out[f] = row[f];
  return out;
}

/** Whether two rows carry the same host-identifying values (compared as sent: a miss only costs a lookup). */
export function sameHostValues(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  for (const f of HOST_VALUES) if (a[f] !== b[f]) return false;
  const ra = a.repository as { id?: unknown; name?: unknown } | null | undefined;
  const rb = b.repository as { id?: unknown; name?: unknown } | null | undefined;
  return ra === rb || (!!ra && !!rb && typeof ra === 'object' && typeof rb === 'object' && ra.id === rb.id && ra.name === rb.name);
}
