// The simulator's data set: every record is a pure function of (seed, kind, index, revision), so nothing
// is materialised up front. Mutations between syncs (updates, creations, deletions) live in small
// overlays; sort orders are typed arrays rebuilt only after a mutation. The records themselves are
// built in users.ts, requests.ts, assets.ts and service-categories.ts.
import type { Estate } from '../shared/estate.ts';
import { assetRecord, ciRecord } from './assets.ts';
import { unit } from './generators.ts';
import { type Flavour, type Json, KINDS, type KindName } from './kinds.ts';
import { REQUEST_LIST_FIELDS, requestRecord } from './requests.ts';
import { serviceCategoryRecord } from './service-categories.ts';
import { userRecord, userRef } from './users.ts';

export { hashOf, timeObj } from './generators.ts';
export { type Flavour, idOf, indexOf, isKind, type Json, KINDS, type KindName } from './kinds.ts';
export { CI_TYPES } from './reference-data.ts';

export interface DataOptions {
  seed: number;
  /** Epoch ms the generated history ends at. */
  now: number;
  counts: Record<KindName, number>;
  /** A shared estate: assets are its CMDB records; requests are about them and name these CVEs. */
  estate?: Estate;
  estateCves?: string[];
}

const SPAN_MS = 180 * 24 * 3600_000;

// ---------- the data set ----------

interface KindState {
  baseCount: number;
  /** created time of records appended after start, by index - baseCount. */
  appended: number[];
  updates: Map<number, { lut: number; rev: number }>;
  deleted: Set<number>;
  orders: Map<string, Int32Array>;
}

export class SdpDataset {
  readonly seed: number;
  readonly estate: Estate | null;
  readonly estateCves: readonly string[];
  readonly now: number;
  readonly #kinds = new Map<KindName, KindState>();
  #clock = 0;

  constructor(opts: DataOptions) {
    this.seed = opts.seed;
    this.estate = opts.estate ?? null;
    this.estateCves = opts.estateCves ?? [];
    this.now = opts.now;
    for (const k of KINDS) this.#kinds.set(k, { baseCount: opts.counts[k], appended: [], updates: new Map(), deleted: new Set(), orders: new Map() });
  }

  #k(kind: KindName): KindState {
    return this.#kinds.get(kind)!;
  }

  count(kind: KindName): number {
    const k = this.#k(kind);
    return k.baseCount + k.appended.length;
  }

  exists(kind: KindName, i: number): boolean {
    return i >= 0 && i < this.count(kind) && !this.#k(kind).deleted.has(i);
  }

  /** A mutation time strictly after every timestamp handed out so far. */
  #tick(): number {
    this.#clock = Math.max(Date.now(), this.#clock + 1, this.now + 1);
    return this.#clock;
  }

  createdAt(kind: KindName, i: number): number {
    const k = this.#k(kind);
    if (i >= k.baseCount) return k.appended[i - k.baseCount]!;
    const step = SPAN_MS / Math.max(1, k.baseCount);
    return Math.floor(this.now - SPAN_MS + step * (i + 0.9 * unit(this.seed, kind, i, 'created')));
  }

  /** last_updated_time (ms) or null for never-edited requests (as on-prem shows). */
  updatedAt(kind: KindName, i: number): number | null {
    const k = this.#k(kind);
    const u = k.updates.get(i);
    if (u) return u.lut;
    const created = this.createdAt(kind, i);
    if (i >= k.baseCount) return created;
    if (kind === 'service_categories') return null;
    if (kind === 'requests' && unit(this.seed, kind, i, 'never-edited') < 0.08) return null;
    return created + Math.floor(unit(this.seed, kind, i, 'edited') * Math.min(20 * 24 * 3600_000, Math.max(0, this.now - 1 - created)));
  }

  rev(kind: KindName, i: number): number {
    return this.#k(kind).updates.get(i)?.rev ?? 0;
  }

  update(kind: KindName, indexes: number[]): number[] {
    const k = this.#k(kind);
    const done: number[] = [];
    for (const i of indexes) {
      if (!this.exists(kind, i)) continue;
      k.updates.set(i, { lut: this.#tick(), rev: (k.updates.get(i)?.rev ?? 0) + 1 });
      done.push(i);
    }
    k.orders.clear();
    return done;
  }

  /** Picks `n` existing records deterministically (for "update N records"). */
  sample(kind: KindName, n: number, salt: number): number[] {
    const total = this.count(kind);
    const out: number[] = [];
    for (let j = 0; out.length < Math.min(n, total - this.#k(kind).deleted.size) && j < total * 4; j++) {
      const i = Math.floor(unit(this.seed, kind, 'sample', salt, j) * total);
      if (this.exists(kind, i) && !out.includes(i)) out.push(i);
    }
    return out;
  }

  create(kind: KindName, n: number): number[] {
    const k = this.#k(kind);
    const out: number[] = [];
    for (let j = 0; j < n; j++) {
      k.appended.push(this.#tick());
      out.push(k.baseCount + k.appended.length - 1);
    }
    k.orders.clear();
    return out;
  }

  delete(kind: KindName, indexes: number[]): number[] {
    const k = this.#k(kind);
    const done = indexes.filter((i) => this.exists(kind, i));
    for (const i of done) k.deleted.add(i);
    k.orders.clear();
    return done;
  }

  /** Existing indexes sorted by a field (nulls first when ascending, like SQL), ties by index. */
  order(kind: KindName, field: string, dir: 'asc' | 'desc'): Int32Array {
    const k = this.#k(kind);
    const key = `${field}:${dir}`;
    const cached = k.orders.get(key);
    if (cached) return cached;
    const total = this.count(kind);
    const idx = new Int32Array(total - k.deleted.size);
    let n = 0;
    for (let i = 0; i < total; i++) if (!k.deleted.has(i)) idx[n++] = i;
    if (field !== 'id') {
      const vals = new Float64Array(total);
      for (let i = 0; i < total; i++) {
        if (k.deleted.has(i)) continue;
        const v = this.sortValue(kind, i, field);
        vals[i] = v === null ? Number.NEGATIVE_INFINITY : v;
      }
      idx.sort((a, b) => vals[a]! - vals[b]! || a - b);
    }
    if (dir === 'desc') idx.reverse();
    k.orders.set(key, idx);
    return idx;
  }

  sortValue(kind: KindName, i: number, field: string): number | null {
    if (field === 'last_updated_time') return this.updatedAt(kind, i);
    if (field === 'created_time') return this.createdAt(kind, i);
    return i;
  }

  // ---------- record builders (each delegates to the module-level builder of the same name) ----------

  /** A user reference as embedded in requests and assets. */
  userRef(kind: 'technicians' | 'requesters', i: number, flavour: Flavour): Json {
    return userRef(this, kind, i, flavour);
  }

  userRecord(kind: 'technicians' | 'requesters', i: number, flavour: Flavour): Json {
    return userRecord(this, kind, i, flavour);
  }

  requestRecord(i: number, flavour: Flavour): Json {
    return requestRecord(this, i, flavour);
  }

  /** The reduced field set list rows carry by default (as the recorded on-prem list shows). */
  static readonly REQUEST_LIST_FIELDS = REQUEST_LIST_FIELDS;

  assetRecord(i: number, flavour: Flavour): Json {
    return assetRecord(this, i, flavour);
  }

  ciRecord(kind: KindName, i: number, flavour: Flavour): Json {
    return ciRecord(this, kind, i, flavour);
  }

  serviceCategoryRecord(i: number, flavour: Flavour): Json {
    return serviceCategoryRecord(this, i, flavour);
  }

  record(kind: KindName, i: number, flavour: Flavour): Json {
    switch (kind) {
      case 'requests':
        return this.requestRecord(i, flavour);
      case 'assets':
        return this.assetRecord(i, flavour);
      case 'technicians':
      case 'requesters':
        return this.userRecord(kind, i, flavour);
      case 'service_categories':
        return this.serviceCategoryRecord(i, flavour);
      default:
        return this.ciRecord(kind, i, flavour);
    }
  }
}
