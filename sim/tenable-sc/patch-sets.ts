// Which vulnerability plugins a host of a platform draws first: by default a host-specific walk through
// its platform's pool (every plugin about as common as any other); with `commonPatchSet`, each platform
// (Windows, each Linux distro, unauthenticated) has a common patch set, the plugins most of its hosts
// miss, and a long tail, as real consoles show.
//
// Calibration (docs/architecture.md, "The simulator's plugin concentration"), from the recordings of a real console in the
// shared corpus (pyTenable cassettes, Tenable.sc 5.8, 33 hosts, 1,629 findings over 358 plugins):
// - `sumid`: the ten plugins it returns (ordered by plugin ID, so not chosen by size) have 26, 24, 22, 14,
//   11, 2, 2, 2, 1, 1 findings on 19, 24, 22, 14, 10, 2, 2, 2, 1, 1 hosts: the top 40 % of the plugins
//   hold 81.9 % of the findings (86 of 105), the top 20 % 47.6 %; half the plugins are on at most 2 hosts.
// - `listsoftware`: 1,286 package versions in 5,323 installs; the first ten listed (CentOS 7 base packages)
//   are each on 13 hosts: the hosts of one OS release share their packages, so they miss the same updates.
// A Zipf law over the pool does not fit that sample (best exponent 0.7–0.75, squared error 0.09 on its
// ten-point concentration curve): it is two classes, common and rare. So `CORPUS_PATCH_SET` puts 40 % of
// each platform's pool in its common set and gives that set 81.9 % of the draws. The sample is ten plugins
// of one home lab, mostly informational: a calibration of shape, not a measurement of every estate.
import { HASH_INIT, mix, toUnit } from './hash.ts';

export interface CommonPatchSet {
  /** Share (0..1) of a platform's plugin pool in its common patch set. */
  plugins: number;
  /** Share (0..1) of a host's vulnerability findings drawn from the common set. */
  findings: number;
}

/** The corpus figures above: the top 40 % of plugins hold 81.9 % of the findings. */
export const CORPUS_PATCH_SET: CommonPatchSet = { plugins: 0.4, findings: 0.819 };

/** Reads `PLUGINS:FINDINGS` (e.g. `0.4:0.819`) or `corpus`. */
export function parseCommonPatchSet(v: string): CommonPatchSet {
  if (v === 'corpus') return CORPUS_PATCH_SET;
  const m = /^(0?\.\d+|1(?:\.0*)?|0):(0?\.\d+|1(?:\.0*)?|0)$/.exec(v.trim());
  if (!m) throw new Error(`--common-patch-set must be corpus or PLUGINS:FINDINGS shares such as 0.4:0.819, got '${v}'`);
  return { plugins: Number(m[1]), findings: Number(m[2]) };
}

const rankings = new WeakMap<readonly number[], Map<number, Float64Array>>();

/**
 * Weight of each pool position: a seeded choice of the platform's common set (the same for every host of
 * the pool) weighs `findings·(1-plugins) / (plugins·(1-findings))` times a tail plugin, so the set gets
 * `findings` of the draws while a host's draws are few beside the pool.
 */
function weights(pool: readonly number[], seed: number, set: CommonPatchSet): Float64Array {
  let bySeed = rankings.get(pool);
  if (!bySeed) {
    bySeed = new Map();
    rankings.set(pool, bySeed);
  }
  const id = (seed * 1009 + Math.round(set.plugins * 1000)) * 1009 + Math.round(set.findings * 1000);
  const hit = bySeed.get(id);
  if (hit) return hit;
  const order = pool.map((plugin, i) => ({ i, u: toUnit(mix(mix(mix(HASH_INIT, seed), 0x7a7c), plugin)) })).sort((a, b) => a.u - b.u);
  const common = Math.max(1, Math.round(pool.length * set.plugins));
  const tail = pool.length - common;
  const heavy = tail === 0 || set.findings >= 1 ? 1 : (set.findings * tail) / (common * Math.max(1e-9, 1 - set.findings));
  const w = new Float64Array(pool.length);
  order.forEach((o, rank) => {
    w[o.i] = rank < common ? heavy : 1;
  });
  bySeed.set(id, w);
  return w;
}

/**
 * The order a host draws its pool in: weighted sampling without replacement (Efraimidis–Spirakis: each
 * position's key is -ln(u)/weight, smallest first), `u` from the host's hash.
 */
export function drawOrder(pool: readonly number[], seed: number, hostHash: number, set: CommonPatchSet): number[] {
  const w = weights(pool, seed, set);
  const keys = pool.map((_, i) => ({ i, k: -Math.log(toUnit(mix(mix(hostHash, 14), i)) || 1e-12) / w[i]! }));
  keys.sort((a, b) => a.k - b.k);
  return keys.map((x) => pool[x.i]!);
}
