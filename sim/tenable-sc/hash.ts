// Stateless deterministic randomness: every generated value is a pure function of (seed, coordinates),
// so row N can be rebuilt on demand without materialising the data set or keeping RNG state.

import { fmix32 } from '../shared/hash.ts';

export const HASH_INIT = 0x9e3779b9;
/** Starting state of the second lane of `hex`. */
const HASH_INIT_B = 0x85ebca77;

/** Folds one integer into a running hash; allocation-free building block for hot loops. */
export function mix(h: number, value: number): number {
  return fmix32(h ^ fmix32(value + 0x6a09e667));
}

/** Maps a 32-bit hash to [0, 1). */
export function toUnit(h: number): number {
  return h / 4294967296;
}

/** 32-bit hash of a list of integers (order matters); equals folding `mix` from HASH_INIT. */
export function hash32(...parts: number[]): number {
  let h = HASH_INIT;
  for (const p of parts) h = mix(h, p);
  return h;
}

/** Uniform number in [0, 1) derived from the parts. */
export function unit(...parts: number[]): number {
  return hash32(...parts) / 4294967296;
}

/** Integer in [min, max] inclusive. */
export function intIn(min: number, max: number, ...parts: number[]): number {
  return min + (hash32(...parts) % (max - min + 1));
}

/** Picks one element of a non-empty list. */
export function pick<T>(list: readonly T[], ...parts: number[]): T {
  return list[hash32(...parts) % list.length];
}

/** Hash of a short string, so string salts can be mixed into integer coordinates. */
export function strHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * `count` lowercase hex digits derived from the parts. Words alternate between two hash lanes with
 * different starting states, so identifiers carry 64 bits of the parts, not 32 (a million UUIDs from
 * one 32-bit state would repeat about once in ten thousand).
 */
export function hex(count: number, ...parts: number[]): string {
  const laneA = hash32(...parts);
  let laneB = HASH_INIT_B;
  for (const p of parts) laneB = mix(laneB, p ^ 0x5bd1e995);
  let out = '';
  for (let i = 0; out.length < count; i++)
    out += mix(i % 2 === 0 ? laneA : laneB, i)
      .toString(16)
      .padStart(8, '0');
  return out.slice(0, count);
}

/** RFC 4122 version-4 shaped UUID derived from the parts. */
export function uuidFrom(...parts: number[]): string {
  const h = hex(32, ...parts);
  const variant = '89ab'[Number.parseInt(h[16], 16) & 3];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Seeded PRNG (mulberry32) for sequences such as fault decisions, where order is the coordinate. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
