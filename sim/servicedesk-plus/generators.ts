// Shared generators: deterministic randomness (every value is a hash of seed, kind, index and a salt)
// and SDP's time objects.
import { fmix32 } from '../shared/hash.ts';

export function hashOf(...parts: (string | number)[]): number {
  let h = 0x811c9dc5;
  const s = parts.join('\u0001');
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

export const unit = (...parts: (string | number)[]): number => hashOf(...parts) / 4294967296;
export const pick = <T>(list: readonly T[], ...parts: (string | number)[]): T => list[Math.floor(unit(...parts) * list.length)]!;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `{display_value, value}` with the value as epoch ms in a string, display like "Aug 3, 2022 01:11 AM" (UTC). */
export function timeObj(ms: number | null): { display_value: string; value: string } | null {
  if (ms === null) return null;
  const d = new Date(ms);
  const h = d.getUTCHours();
  const hh = String(h % 12 === 0 ? 12 : h % 12).padStart(2, '0');
  const mm = String(d.getUTCMinutes()).padStart(2, '0');
  return { display_value: `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()} ${hh}:${mm} ${h < 12 ? 'AM' : 'PM'}`, value: String(ms) };
}
