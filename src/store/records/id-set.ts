// The record ids one run has stored, so live progress counts distinct records as the final summary
// does (a host enriched by five plugins is one host, not five). 64 bits of each id in an
// open-addressing table: 12 bytes a record at most, where a Set of id strings would take ~90.
export class RecordIdSet {
  #hi = new Uint32Array(1024);
  #lo = new Uint32Array(1024);
  #used = new Uint8Array(1024);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Whether the id is in the set. Ids are 32 hex digits; their last 16 are the record's own hash. */
  has(id: string): boolean {
    return this.#slot(hexAt(id, id.length - 16), hexAt(id, id.length - 8)) < 0;
  }

  add(id: string): boolean {
    const hi = hexAt(id, id.length - 16);
    const lo = hexAt(id, id.length - 8);
    const at = this.#slot(hi, lo);
    if (at < 0) return false;
    this.#used[at] = 1;
    this.#hi[at] = hi;
    this.#lo[at] = lo;
    // Grown past three quarters full (linear probing stays short): at a million and a half records of a
    // first import 2^21 slots (18 MB) where half full took 2^22 (36 MB, and 54 MB while growing).
    if (++this.#size * 4 > this.#used.length * 3) this.#grow();
    return true;
  }

  /** The free slot for (hi, lo), or -1 when it is present. */
  #slot(hi: number, lo: number): number {
    const mask = this.#used.length - 1;
    for (let i = (lo ^ Math.imul(hi, 0x9e3779b1)) & mask; ; i = (i + 1) & mask) {
      if (!this.#used[i]) return i;
      if (this.#hi[i] === hi && this.#lo[i] === lo) return -1;
    }
  }

  #grow(): void {
    const { hi, lo, used } = { hi: this.#hi, lo: this.#lo, used: this.#used };
    const cap = used.length * 2;
    this.#hi = new Uint32Array(cap);
    this.#lo = new Uint32Array(cap);
    this.#used = new Uint8Array(cap);
    this.#size = 0;
    for (let i = 0; i < used.length; i++) {
      if (!used[i]) continue;
      const at = this.#slot(hi[i]!, lo[i]!);
      this.#used[at] = 1;
      this.#hi[at] = hi[i]!;
      this.#lo[at] = lo[i]!;
      this.#size++;
    }
  }
}

/** The 32-bit number of the 8 hex digits of `id` from `at` (read in place: millions of calls a run). */
function hexAt(id: string, at: number): number {
  let n = 0;
  for (let i = at; i < at + 8; i++) {
    const c = id.charCodeAt(i);
    // 0-9, a-f, A-F; anything else counts as 0 (ids are hex digits).
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : 0;
    n = n * 16 + d;
  }
  return n >>> 0;
}
