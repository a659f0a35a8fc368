// A MatchContext for the full pass, holding a whole CMDB side in little memory: each record's
// identifiers packed into one string, and the index from identifier values to records a sorted typed
// array of 30-bit hashes of (kind, value) rather than the values themselves (a hash shared by two
// values is told apart by checking the record's own values). Answers exactly as MemoryContext does. Pure.
import { type HostEntry, HostsByIp, IDENT_KINDS, type IdentKind, type MatchContext } from './engine.ts';
import type { Identifiers } from './normalize.ts';

const KIND = '\u0001';
const VALUE = '\u0002';
const NONE: string[] = Object.freeze([]) as unknown as string[];
const KIND_POS = new Map<IdentKind, number>(IDENT_KINDS.map((k, i) => [k, i]));
/** Records per index pair: a pair is hash · PAIR + record, below 2^53. */
const PAIR = 2 ** 23;

/** FNV-1a over the kind's position and the value, folded to 30 bits (a small integer in V8). */
export function keyOf(kind: number, value: string): number {
  let h = (0x811c9dc5 ^ kind) >>> 0;
  for (let i = 0; i < value.length; i++) {
    h ^= value.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 2;
}

export class CompactContext implements MatchContext {
  readonly #ids: string[] = [];
  /** Per record: its identifiers packed (kinds in IDENT_KINDS order, then the scope), or the object when a value holds a separator. */
  readonly #packed: (string | Identifiers)[] = [];
  readonly #byId = new Map<string, number>();
  /** The index: (hash, record) pairs as hash · 2^23 + record (exact in a double), sorted once all records are in. */
  #pending: number[] = [];
  #keys = new Int32Array(0);
  #recs = new Int32Array(0);
  readonly #hostIps = new HostsByIp();
  readonly #claims = new Map<string, string[]>();
  readonly #links = new Map<string, string[]>();
  readonly #unlinks = new Map<string, Set<string>>();

  constructor(overrides: { hostId: string; cmdbAssetId: string; action: 'link' | 'unlink' }[] = []) {
    for (const o of overrides) {
      if (o.action === 'link') {
        const a = this.#links.get(o.hostId);
        if (a) a.push(o.cmdbAssetId);
        else this.#links.set(o.hostId, [o.cmdbAssetId]);
      } else {
        let s = this.#unlinks.get(o.hostId);
        if (!s) {
          s = new Set();
          this.#unlinks.set(o.hostId, s);
        }
        s.add(o.cmdbAssetId);
      }
    }
  }

  /** Adds a CMDB record (each id once). */
  addCmdb(c: Identifiers): void {
    const n = this.#ids.length;
    if (n >= PAIR) throw new Error(`the correlation index holds at most ${PAIR} CMDB records`);
    this.#ids.push(c.id);
    this.#byId.set(c.id, n);
    const parts: string[] = [];
    let plain = c.scope === null || !c.scope.includes(KIND);
    for (let k = 0; k < IDENT_KINDS.length; k++) {
      const values = c[IDENT_KINDS[k]!];
      for (const v of values) {
        if (v === '' || v.includes(KIND) || v.includes(VALUE)) plain = false;
        this.#pending.push(keyOf(k, v) * PAIR + n);
      }
      parts.push(values.join(VALUE));
    }
    parts.push(c.scope ?? '');
    // One flat string (join), holding none of the value strings it was made of.
    this.#packed.push(plain ? parts.join(KIND) : { ...c });
  }

  /** Makes a host's addresses known to hostsWithIp. */
  addHost(h: Pick<Identifiers, 'id' | 'ip' | 'scope'>): void {
    this.#hostIps.add(h);
  }

  #values(n: number, kind: number): string[] {
    const p = this.#packed[n]!;
    if (typeof p !== 'string') return p[IDENT_KINDS[kind]!];
    let from = 0;
    for (let k = 0; k < kind; k++) from = p.indexOf(KIND, from) + 1;
    const seg = p.slice(from, p.indexOf(KIND, from));
    return seg === '' ? NONE : seg.split(VALUE);
  }

  /** Sorts the pairs added since the last lookup into the index (records in the order they were added). */
  #seal(): void {
    const pairs = new Float64Array(this.#keys.length + this.#pending.length);
    for (let i = 0; i < this.#keys.length; i++) pairs[i] = this.#keys[i]! * PAIR + this.#recs[i]!;
    pairs.set(this.#pending, this.#keys.length);
    this.#pending = [];
    pairs.sort();
    this.#keys = new Int32Array(pairs.length);
    this.#recs = new Int32Array(pairs.length);
    for (let i = 0; i < pairs.length; i++) {
      const key = Math.floor(pairs[i]! / PAIR);
      this.#keys[i] = key;
      this.#recs[i] = pairs[i]! - key * PAIR;
    }
  }

  cmdbWith(kind: IdentKind, value: string): string[] {
    if (this.#pending.length > 0) this.#seal();
    const k = KIND_POS.get(kind)!;
    const key = keyOf(k, value);
    const keys = this.#keys;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= keys.length || keys[lo] !== key) return NONE;
    const out: string[] = [];
    for (let i = lo; i < keys.length && keys[i] === key; i++) {
      const n = this.#recs[i]!;
      if (this.#values(n, k).includes(value)) out.push(this.#ids[n]!);
    }
    return out;
  }

  /** The position of a CMDB record in the order they were added, or undefined. */
  indexOf(id: string): number | undefined {
    return this.#byId.get(id);
  }

  cmdb(id: string): Identifiers | undefined {
    const n = this.#byId.get(id);
    if (n === undefined) return undefined;
    const p = this.#packed[n]!;
    if (typeof p !== 'string') return p;
    const parts = p.split(KIND);
    const list = (i: number) => (parts[i] === '' ? NONE : parts[i]!.split(VALUE));
    return { id, serial: list(0), biosUuid: list(1), mac: list(2), fqdn: list(3), hostname: list(4), ip: list(5), scope: parts[6] === '' ? null : parts[6]! };
  }

  hostsWithIp(ip: string): HostEntry[] {
    return this.#hostIps.get(ip);
  }

  claimedBy(cmdbId: string): string[] {
    return this.#claims.get(cmdbId) ?? [];
  }

  claim(cmdbId: string, hostId: string): void {
    const a = this.#claims.get(cmdbId);
    if (a) a.push(hostId);
    else this.#claims.set(cmdbId, [hostId]);
  }

  linked(hostId: string): string[] {
    return (this.#links.get(hostId) ?? []).filter((id) => this.#byId.has(id));
  }

  unlinked(hostId: string): Set<string> {
    return this.#unlinks.get(hostId) ?? EMPTY;
  }
}

const EMPTY = new Set<string>();
