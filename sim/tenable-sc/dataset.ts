// Query engine over the lazily generated data: per query signature it keeps one small array of
// per-host match counts (prefix sums), so any page [start, end) is found by binary search and only
// the hosts on that page are generated and rendered. Memory is O(hosts) per cached query, never O(rows).
import { PLUGINS } from './catalog.ts';
import { type CompiledFilters, findingMatches, hostMatches } from './filters.ts';
import type { HostCache, HostSkeleton } from './hosts.ts';
import type { Lifecycle } from './lifecycle.ts';

export type SourceType = 'cumulative' | 'patched';

interface CountIndex {
  /** findingPrefix[h] = matching findings on hosts [0, h). */
  findingPrefix: Float64Array;
  /** hostPrefix[h] = hosts in [0, h) with at least one matching finding. */
  hostPrefix: Int32Array;
}

export interface FindingVisit {
  sk: HostSkeleton;
  slot: number;
  lastSeen: number;
  resurfaced: boolean;
}

const INDEX_CACHE_SIZE = 16;

export class Dataset {
  readonly hostCount: number;
  readonly cache: HostCache;
  private readonly lifecycle: Lifecycle;
  private readonly indexes = new Map<string, CountIndex>();

  constructor(hostCount: number, cache: HostCache, lifecycle: Lifecycle) {
    this.hostCount = hostCount;
    this.cache = cache;
    this.lifecycle = lifecycle;
  }

  /** Calls `visit` for each matching finding of a host, in slot order; stops when it returns false. */
  private eachMatch(f: CompiledFilters, source: SourceType, sk: HostSkeleton, visit: (slot: number) => boolean): void {
    if (!hostMatches(f, sk)) return;
    const lc = this.lifecycle;
    const wantOpen = source === 'cumulative';
    for (let slot = 0; slot < sk.slotCount; slot++) {
      lc.evaluate(sk, slot);
      if (lc.open !== wantOpen) continue;
      if (!findingMatches(f, sk, slot, PLUGINS[sk.plugin[slot]], lc.lastSeen, lc.mitigatedAt)) continue;
      if (!visit(slot)) return;
    }
  }

  countMatches(f: CompiledFilters, source: SourceType, sk: HostSkeleton): number {
    let n = 0;
    this.eachMatch(f, source, sk, () => {
      n++;
      return true;
    });
    return n;
  }

  private index(f: CompiledFilters, source: SourceType): CountIndex {
    const key = `${source}|${this.lifecycle.version}|${f.signature}`;
    const hit = this.indexes.get(key);
    if (hit) {
      this.indexes.delete(key);
      this.indexes.set(key, hit);
      return hit;
    }
    const findingPrefix = new Float64Array(this.hostCount + 1);
    const hostPrefix = new Int32Array(this.hostCount + 1);
    for (let h = 0; h < this.hostCount; h++) {
      const n = this.countMatches(f, source, this.cache.get(h));
      findingPrefix[h + 1] = findingPrefix[h] + n;
      hostPrefix[h + 1] = hostPrefix[h] + (n > 0 ? 1 : 0);
    }
    const built = { findingPrefix, hostPrefix };
    this.indexes.set(key, built);
    if (this.indexes.size > INDEX_CACHE_SIZE) this.indexes.delete(this.indexes.keys().next().value as string);
    return built;
  }

  totalFindings(f: CompiledFilters, source: SourceType): number {
    return this.index(f, source).findingPrefix[this.hostCount];
  }

  totalHosts(f: CompiledFilters, source: SourceType): number {
    return this.index(f, source).hostPrefix[this.hostCount];
  }

  /** Matching findings with global position in [start, end). */
  findings(f: CompiledFilters, source: SourceType, start: number, end: number): FindingVisit[] {
    const prefix = this.index(f, source).findingPrefix;
    const out: FindingVisit[] = [];
    if (start >= prefix[this.hostCount] || end <= start) return out;
    let h = upperBound(prefix, start) - 1;
    let skip = start - prefix[h];
    const lc = this.lifecycle;
    for (; h < this.hostCount && out.length < end - start; h++) {
      if (prefix[h + 1] === prefix[h]) continue;
      const sk = this.cache.get(h);
      this.eachMatch(f, source, sk, (slot) => {
        if (skip > 0) {
          skip--;
          return true;
        }
        out.push({ sk, slot, lastSeen: lc.lastSeen, resurfaced: lc.resurfaced });
        return out.length < end - start;
      });
    }
    return out;
  }

  /** Hosts having at least one matching finding, positions [start, end). */
  hosts(f: CompiledFilters, source: SourceType, start: number, end: number): HostSkeleton[] {
    const prefix = this.index(f, source).hostPrefix;
    const out: HostSkeleton[] = [];
    if (start >= prefix[this.hostCount] || end <= start) return out;
    for (let h = upperBound(prefix, start) - 1; h < this.hostCount && out.length < end - start; h++) {
      if (prefix[h + 1] > prefix[h]) out.push(this.cache.get(h));
    }
    return out;
  }

  /** Severity counts (index = severity id) of a host's matching findings, for sumip rows. */
  severityCounts(f: CompiledFilters, source: SourceType, sk: HostSkeleton): number[] {
    const counts = [0, 0, 0, 0, 0];
    this.eachMatch(f, source, sk, (slot) => {
      counts[sk.severity[slot]]++;
      return true;
    });
    return counts;
  }
}

/** First index i with prefix[i] > value (prefix is non-decreasing, prefix[0] = 0). */
function upperBound(prefix: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = prefix.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (prefix[mid] > value) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
