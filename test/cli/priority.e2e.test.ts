// End to end (issue 31 §1–2): a sync of the Tenable.sc simulator gives every open finding a decision and
// a priority; `query` filters and sorts by them, `report decisions` counts them and `report remediations`
// groups the findings by fix (table, CSV, JSON and one fix's hosts), as a user runs the commands.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { type CliResult, cliEnv, runCliAsync, tenableSets } from '../helpers/cli.ts';
import { tempDir } from '../helpers/databases.ts';

let sim: RunningTenableSim;
const dataDir = tempDir();
const env = cliEnv();
const cli = (...args: string[]): Promise<CliResult> => runCliAsync(['--data-dir', dataDir, ...args], env);
/** `query --json` prints JSON Lines: one record a line. */
const lines = (r: CliResult): Record<string, unknown>[] =>
  r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

before(async () => {
  sim = await startTenableSim({ port: 0, hosts: 24, findingsPerHost: 12, seed: 7 });
  const add = await cli('sources', 'add', 'tenable-sc', '--name', 'lab', ...tenableSets(sim.url, sim.analyst));
  assert.equal(add.code, 0, add.stderr);
  const sync = await cli('--json', 'sync', 'lab', '--full');
  assert.equal(sync.code, 0, sync.stderr);
});
after(async () => {
  await sim?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('every open finding has a decision and a priority in its band; lists filter and sort by them', async () => {
  const items = lines(await cli('--json', 'query', 'vulnerabilities', '--limit', '10000'));
  assert.ok(items.length > 50);
  const floor: Record<string, number> = { track: 0, 'track-star': 25, attend: 50, act: 75 };
  for (const f of items) {
    assert.ok(typeof f.decision === 'string' && f.decision in floor, `${f.id}: ${f.decision}`);
    const p = f.priority as number;
    assert.ok(p >= floor[f.decision as string]! && p <= floor[f.decision as string]! + 25, `${f.decision} ${p}`);
    assert.match(String(f.priorityReason), /^(Act|Attend|Track\*?): /);
  }
  const sorted = lines(await cli('--json', 'query', 'vulnerabilities', '--sort', 'priority:desc', '--limit', '20')) as { priority: number }[];
  assert.deepEqual(
    sorted.map((s) => s.priority),
    [...sorted.map((s) => s.priority)].sort((a, b) => b - a),
  );
  const attendUp = lines(await cli('--json', 'query', 'vulnerabilities', '--where', 'decision>=attend', '--limit', '10000'));
  assert.equal(attendUp.length, items.filter((f) => f.decision === 'attend' || f.decision === 'act').length);
});

test('report decisions counts the open findings by decision', async () => {
  const r = await cli('--json', 'report', 'decisions');
  assert.equal(r.code, 0, r.stderr);
  const row = (JSON.parse(r.stdout) as { items: { act: number; attend: number; trackStar: number; track: number }[] }).items[0]!;
  const items = lines(await cli('--json', 'query', 'vulnerabilities', '--limit', '10000'));
  const count = (d: string) => items.filter((f) => f.decision === d).length;
  assert.deepEqual([row.act, row.attend, row.trackStar, row.track], [count('act'), count('attend'), count('track-star'), count('track')]);
  const table = await cli('report', 'decisions', '--by', 'owner');
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /^OWNER\s+ACT\s+ATTEND\s+TRACK\*\s+TRACK\s+PRIORITY$/m);
  assert.equal((await cli('report', 'decisions', '--by', 'colour')).code, 2);
  // --limit/--offset: a page of the rows and their number, as the API's ?limit=&offset=.
  const all = JSON.parse((await cli('--json', 'report', 'decisions', '--by', 'assetId')).stdout) as { items: unknown[]; total: number };
  assert.ok(all.total > 3 && all.total === all.items.length, 'the estate has several assets');
  const page = await cli('--json', 'report', 'decisions', '--by', 'assetId', '--limit', '2', '--offset', '1');
  assert.equal(page.code, 0, page.stderr);
  assert.deepEqual(JSON.parse(page.stdout), { items: all.items.slice(1, 3), total: all.total });
  const shown = await cli('report', 'decisions', '--by', 'assetId', '--limit', '2');
  assert.match(shown.stdout, new RegExp(`^1–2 of ${all.total} assets$`, 'm'));
  assert.equal((await cli('report', 'decisions', '--by', 'assetId', '--limit', '0')).code, 2);
});

test('report remediations: one row per fix, as a table, CSV and JSON, and one fix’s hosts', async () => {
  const json = await cli('--json', 'report', 'remediations', '--limit', '1000');
  assert.equal(json.code, 0, json.stderr);
  const r = JSON.parse(json.stdout) as { items: { key: string; findings: number; share: number }[]; total: { findings: number } };
  assert.equal(
    r.items.reduce((s, i) => s + i.findings, 0),
    r.total.findings,
    'every open finding is in one fix',
  );
  assert.deepEqual(
    r.items.map((i) => i.share),
    [...r.items.map((i) => i.share)].sort((a, b) => b - a),
  );
  assert.equal(new Set(r.items.map((i) => i.key)).size, r.items.length);
  const csv = await cli('report', 'remediations', '--format', 'csv');
  assert.equal(csv.code, 0, csv.stderr);
  assert.match(csv.stdout.split('\n')[0]!, /^fix,hosts,hostsExact,findings,act,attend,trackStar,track,owners,priority,share,plugins,key$/);
  const table = await cli('report', 'remediations', '--limit', '5');
  assert.match(table.stdout, /fixes for \d+ open findings/);
  const top = r.items[0]!;
  const hosts = await cli('--json', 'report', 'remediations', '--fix', top.key);
  assert.equal(hosts.code, 0, hosts.stderr);
  const h = JSON.parse(hosts.stdout) as { fix: { findings: number }; hosts: { findings: number }[] };
  assert.equal(
    h.hosts.reduce((s, x) => s + x.findings, 0),
    h.fix.findings,
    'the hosts hold the fix’s findings',
  );
  assert.equal((await cli('report', 'remediations', '--fix', 'no such fix')).code, 2);
  // A page of the fix's hosts: the whole answer's slice, with their number.
  const whole = JSON.parse(hosts.stdout) as { hosts: unknown[]; total: number };
  assert.equal(whole.total, whole.hosts.length);
  assert.ok(whole.total > 2, 'the top fix is on several hosts');
  const paged = await cli('--json', 'report', 'remediations', '--fix', top.key, '--limit', '2', '--offset', '1');
  assert.equal(paged.code, 0, paged.stderr);
  const p = JSON.parse(paged.stdout) as { hosts: unknown[]; total: number };
  assert.deepEqual([p.hosts, p.total], [whole.hosts.slice(1, 3), whole.total]);
  assert.equal((await cli('report', 'remediations', '--offset', '2')).code, 2, '--offset pages one fix’s hosts');
});

test('the contract’s names (interfaces.md 7.3): decision=track-star, priorityFactors, report top-fixes {"fixes": [...]}', async () => {
  const items = lines(await cli('--json', 'query', 'vulnerabilities', '--limit', '10000'));
  const stars = items.filter((f) => f.decision === 'track-star');
  assert.ok(stars.length > 0, 'the simulator gives some findings Track*');
  assert.ok(!items.some((f) => f.decision === 'track*'), 'no finding is written with the old name');
  const filtered = lines(await cli('--json', 'query', 'vulnerabilities', '--where', 'decision=track-star', '--limit', '10000'));
  assert.deepEqual(filtered.map((f) => f.id).sort(), stars.map((f) => f.id).sort());
  const alias = lines(await cli('--json', 'query', 'vulnerabilities', '--where', 'decision=track*', '--limit', '10000'));
  assert.equal(alias.length, stars.length, 'track* is still accepted as a filter value');
  const above = lines(await cli('--json', 'query', 'vulnerabilities', '--where', 'decision>=track-star', '--limit', '10000'));
  assert.equal(above.length, items.filter((f) => f.decision !== 'track' && f.decision !== null).length);
  for (const f of items.filter((x) => x.decision !== null)) {
    const pf = f.priorityFactors as Record<string, unknown>;
    assert.ok(pf && typeof pf === 'object', `${f.id} has priorityFactors`);
    assert.ok(['none', 'poc', 'active'].includes(pf.exploitation as string));
    assert.equal(typeof pf.automatable, 'boolean');
    assert.ok(['partial', 'total'].includes(pf.technicalImpact as string));
    assert.ok(['low', 'medium', 'high'].includes(pf.missionWellbeing as string));
    assert.equal(pf.kev, f.knownExploited === true);
    assert.equal(pf.decision, f.decision);
    assert.equal(pf.priority, f.priority);
  }
  const top = await cli('--json', 'report', 'top-fixes', '--limit', '1000');
  assert.equal(top.code, 0, top.stderr);
  const parsed = JSON.parse(top.stdout) as Record<string, unknown>;
  assert.deepEqual(Object.keys(parsed), ['fixes']);
  const fixes = parsed.fixes as Record<string, unknown>[];
  assert.ok(fixes.length > 0);
  for (const x of fixes) {
    for (const k of ['solution', 'pluginIds', 'hostCount', 'findingCount', 'decisions', 'owners', 'prioritySum', 'priorityShare'])
      assert.ok(k in x, `${k} in a fix`);
    assert.deepEqual(Object.keys(x.decisions as object).sort(), ['act', 'attend', 'track', 'track-star']);
    assert.ok(Array.isArray(x.pluginIds) && (x.pluginIds as unknown[]).length > 0);
  }
  const open = items.filter((f) => f.decision !== null).length;
  assert.equal(
    fixes.reduce((s, x) => s + (x.findingCount as number), 0),
    open,
    'every open finding is in one fix',
  );
  const stared = fixes.reduce((s, x) => s + (x.decisions as Record<string, number>)['track-star']!, 0);
  assert.equal(stared, stars.length);
  assert.equal((JSON.parse((await cli('--json', 'report', 'top-fixes', '--limit', '2')).stdout) as { fixes: unknown[] }).fixes.length, 2);
});
