// The V8 flags `tributary` runs with (the shebang of bin/tributary.js): what the benchmarks give both
// the floor and Tributary unless --node-flags says otherwise, so the figures are those of the product
// as launched.
import { readFileSync } from 'node:fs';

export function launchFlags(): string[] {
  const shebang = readFileSync(new URL('../bin/tributary.js', import.meta.url), 'utf8').split('\n', 1)[0]!;
  return shebang.split(/\s+/).filter((a) => a.startsWith('--'));
}
