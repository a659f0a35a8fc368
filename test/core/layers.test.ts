// Issue 13: no folder of src imports from a layer above it (../shared/design/architecture.md, with the
// folders the sketch does not name placed where their imports put them).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/**
 * Lower imports nothing of higher. `correlate/` is pure matching logic the store's correlation runs on;
 * `feeds/` recognises feed files in the buckets (to refuse them) as a connector recognises its files; `app/` wires the
 * layers together for the entry points.
 */
const LAYER: Record<string, number> = {
  core: 0,
  correlate: 1,
  store: 2,
  filedrop: 3,
  connectors: 4,
  feeds: 4,
  alerts: 4,
  export: 5,
  sync: 5,
  tickets: 5,
  app: 6,
  cli: 7,
  server: 7,
  web: 7,
};

/** The folder name `relative` gives a file outside src. */
const OUTSIDE = '..';

const IMPORT = /(?:import|export)\s[^;]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : /\.(tsx?|m?js)$/.test(e.name) ? [p] : [];
  });
}

/** The folder of src a path is in (OUTSIDE for a path outside src). */
const folderOf = (path: string) => relative(src, path).split('/')[0]!;

/** Each relative import that leaves its folder: the importing file, the folders from and to. */
function crossings(): { file: string; from: string; to: string; spec: string }[] {
  return sourceFiles(src).flatMap((file) => {
    const from = folderOf(file);
    return [...readFileSync(file, 'utf8').matchAll(IMPORT)].flatMap((m) => {
      const spec = (m[1] ?? m[2])!;
      const to = folderOf(resolve(dirname(file), spec));
      return to === from ? [] : [{ file: relative(src, file), from, to, spec }];
    });
  });
}

test('every folder of src has a layer', () => {
  const folders = readdirSync(src, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  assert.deepEqual(
    folders.filter((f) => !(f in LAYER)),
    [],
  );
});

test('no folder of src imports from a layer above it', () => {
  const all = crossings();
  // The scan sees the imports it is meant to judge (a broken pattern would find none and pass).
  assert.ok(all.some((c) => c.from === 'store' && c.to === 'core'));
  assert.ok(all.some((c) => c.from === 'sync' && c.to === 'store'));
  const upward = all.filter((c) => c.to !== OUTSIDE && (LAYER[c.to] ?? Infinity) > (LAYER[c.from] ?? -1)).map((c) => `${c.file} imports ${c.to}/`);
  assert.deepEqual(upward, []);
});

test('src reaches outside itself only for the simulators of the CLI command `tributary sim` (interfaces.md)', () => {
  const outside = crossings().filter((c) => c.to === OUTSIDE);
  assert.deepEqual(
    outside.map((c) => `${c.file} ${c.spec}`),
    ['cli/serve.ts ../../sim/index.ts'],
  );
});

test('the scan catches an upward import (a store file importing the sync layer)', () => {
  const line = `import { x } from '../sync/runner.ts';`;
  const m = [...line.matchAll(IMPORT)][0];
  assert.equal(m?.[1], '../sync/runner.ts');
  const to = folderOf(resolve(join(src, 'store'), m![1]!));
  assert.ok(LAYER[to]! > LAYER.store!);
});

/** The store's one entrance (issue 29): outside src/store (and the store's own tests) only store/index.ts is imported. */
const root = resolve(src, '..');
const storeDir = join(src, 'store');
const STORE_ENTRANCE = join(storeDir, 'index.ts');

/** Each import of a store module other than its entrance, by a file outside src/store and test/store. */
function storeSideDoors(): string[] {
  const outside = ['src', 'bench', 'sim', 'bin', 'test']
    .flatMap((d) => sourceFiles(join(root, d)))
    .filter((f) => !f.startsWith(storeDir + '/') && !f.startsWith(join(root, 'test', 'store') + '/'));
  return outside.flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(IMPORT)].flatMap((m) => {
      const target = resolve(dirname(file), (m[1] ?? m[2])!);
      return target.startsWith(storeDir + '/') && target !== STORE_ENTRANCE ? [`${relative(root, file)} imports ${relative(root, target)}`] : [];
    }),
  );
}

test('outside src/store, only store/index.ts is imported', () => {
  assert.deepEqual(storeSideDoors(), []);
});

test('the store-entrance scan sees the entrance and catches a side door', () => {
  const entrance = `import { Store } from '../store/index.ts';
`;
  const side = `const { MIGRATIONS } = await import('../store/db/migrations.ts');`;
  const at = join(src, 'cli');
  const targets = [entrance, side].map((line) => resolve(at, [...line.matchAll(IMPORT)][0]![2] ?? [...line.matchAll(IMPORT)][0]![1]!));
  assert.deepEqual(targets, [STORE_ENTRANCE, join(storeDir, 'db', 'migrations.ts')]);
});
