// The 32-bit finalizer both simulators build their deterministic randomness on.

/** Final avalanche of MurmurHash3; good enough diffusion for simulation data. */
export function fmix32(input: number): number {
  let h = input | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
