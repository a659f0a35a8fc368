// The Tenable.sc simulator's common patch sets (sim/tenable-sc/patch-sets.ts): with `commonPatchSet`,
// the hosts of a platform miss mostly the same plugins, in the share the corpus shows (the top 40 % of
// the plugins hold 81.9 % of the findings); without it, every plugin of a pool is about as common.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LINUX_POOLS, PLUGINS, WINDOWS_POOL } from '../../sim/tenable-sc/catalog.ts';
import { buildSkeleton, KIND_LINUX, KIND_WINDOWS } from '../../sim/tenable-sc/hosts.ts';
import { parseSimArgs } from '../../sim/tenable-sc/cli.ts';
import { CORPUS_PATCH_SET, type CommonPatchSet, drawOrder, parseCommonPatchSet } from '../../sim/tenable-sc/patch-sets.ts';

/** Share of the vulnerability findings (open slots) of `kind` hosts held by the top `top` share of the plugins seen. */
function topShare(set: CommonPatchSet | undefined, kind: number, top: number): { share: number; hosts: number } {
  const counts = new Map<number, number>();
  let total = 0;
  let hosts = 0;
  for (let i = 3; i < 3000; i++) {
    const sk = buildSkeleton(7, i, 40, 1_800_000_000, true, set);
    if (sk.kind !== kind || (kind === KIND_LINUX && sk.variant !== 0)) continue;
    hosts++;
    for (let s = 0; s < sk.openSlots; s++) {
      const p = sk.plugin[s]!;
      if (PLUGINS[p]!.role !== 'vuln') continue;
      counts.set(p, (counts.get(p) ?? 0) + 1);
      total++;
    }
  }
  const sorted = [...counts.values()].sort((a, b) => b - a);
  const head = sorted.slice(0, Math.round(sorted.length * top)).reduce((a, b) => a + b, 0);
  return { share: head / total, hosts };
}

test('with the corpus patch set, the top 40 % of plugins hold about 82 % of a platform’s findings; uniform far less', () => {
  for (const kind of [KIND_WINDOWS, KIND_LINUX]) {
    const corpus = topShare(CORPUS_PATCH_SET, kind, 0.4);
    const uniform = topShare(undefined, kind, 0.4);
    assert.ok(corpus.hosts > 200, `enough hosts (${corpus.hosts})`);
    assert.ok(corpus.share > 0.74 && corpus.share < 0.88, `corpus: ${corpus.share.toFixed(3)}`);
    assert.ok(uniform.share < 0.6, `uniform: ${uniform.share.toFixed(3)}`);
  }
});

test('the common set is the same for every host of a platform and a seed, and differs between seeds', () => {
  const firstFive = (seed: number, hostHash: number) => drawOrder(WINDOWS_POOL, seed, hostHash, CORPUS_PATCH_SET).slice(0, 5);
  // A host's whole draw is a permutation of its pool.
  assert.deepEqual([...drawOrder(LINUX_POOLS[1]!, 3, 99, CORPUS_PATCH_SET)].sort(), [...LINUX_POOLS[1]!].sort());
  // The plugins hosts draw first come mostly from one set of 40 % of the pool, another for another seed.
  const head = (seed: number) => {
    const n = new Map<number, number>();
    for (let h = 0; h < 400; h++) for (const p of firstFive(seed, h * 7919)) n.set(p, (n.get(p) ?? 0) + 1);
    const top = [...n].sort((x, y) => y[1] - x[1]).slice(0, Math.round(WINDOWS_POOL.length * 0.4));
    return { plugins: new Set(top.map(([p]) => p)), share: top.reduce((t, [, c]) => t + c, 0) / 2000 };
  };
  const three = head(3);
  assert.ok(three.share > 0.75, `the top 40 % hold ${three.share.toFixed(3)} of the first draws`);
  const four = head(4);
  const shared = [...three.plugins].filter((p) => four.plugins.has(p)).length;
  assert.ok(shared < three.plugins.size * 0.7, `seeds 3 and 4 share ${shared} of ${three.plugins.size}`);
  // Without the option the skeleton is the uniform walk it always was (the same host, the same plugins).
  const a = buildSkeleton(7, 11, 30, 1_800_000_000, true);
  const b = buildSkeleton(7, 11, 30, 1_800_000_000, true, undefined);
  assert.deepEqual([...a.plugin], [...b.plugin]);
});

test('--common-patch-set reads corpus or PLUGINS:FINDINGS shares', () => {
  assert.deepEqual(parseCommonPatchSet('corpus'), { plugins: 0.4, findings: 0.819 });
  assert.deepEqual(parseCommonPatchSet('0.25:0.9'), { plugins: 0.25, findings: 0.9 });
  assert.throws(() => parseCommonPatchSet('40:82'), /--common-patch-set/);
  assert.deepEqual(parseSimArgs(['--common-patch-set', 'corpus']).commonPatchSet, CORPUS_PATCH_SET);
  assert.equal(parseSimArgs([]).commonPatchSet, undefined);
});
