// End to end, as a user runs it: the `tributary` command against the Tenable.sc simulator —
// add (with every kind of bad input), show, configure, check (good and misconfigured), sync, query,
// an incremental sync after findings move to the patched set, and syncs through injected faults.
// Finally every byte the commands printed or stored is searched for the plaintext keys.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { call, pageAll, vulnQuery } from '../sim/tenable-sc-helpers.ts';
import { type CliResult, cliEnv, runCliAsync, tenableSets } from '../helpers/cli.ts';
import { tempDir } from '../helpers/databases.ts';

let sim: RunningTenableSim;
const dataDir = tempDir();
const transcript: string[] = [];
const env = cliEnv({ TRIBUTARY_LOG_LEVEL: 'debug', TRIBUTARY_RETRY_BASE_MS: '5' });

async function cli(...args: string[]): Promise<CliResult> {
  const r = await runCliAsync(['--data-dir', dataDir, ...args], env);
  transcript.push(r.stdout, r.stderr);
  return r;
}

function json<T = Record<string, unknown>>(r: CliResult): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
  }
}

const jsonl = (r: CliResult) =>
  r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** What the console serves as vulnerabilities: non-info vulndetails rows that are not compliance checks. */
async function nonInfoFindings(sourceType: 'cumulative' | 'patched') {
  const rows = await pageAll(sim, { ...vulnQuery([{ filterName: 'severity', operator: '=', value: '1,2,3,4' }]), sourceType }, 200);
  return rows.filter((r) => r.pluginType !== 'compliance' && r.family?.type !== 'compliance');
}

before(async () => {
  sim = await startTenableSim({ port: 0, hosts: 24, findingsPerHost: 12, seed: 7 });
});
after(async () => {
  await sim?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('bad configurations are refused with exit 2 and a line naming the field', async () => {
  const { accessKey, secretKey } = sim.analyst;
  const cases: [string[], RegExp][] = [
    [['--set', `accessKey=${accessKey}`, '--set', `secretKey=${secretKey}`], /apiUrl/],
    [tenableSets(`${sim.url}/rest`, sim.analyst), /\/rest/],
    [tenableSets('not a url', sim.analyst), /apiUrl/],
    [[...tenableSets(sim.url, sim.analyst), '--set', 'colour=blue'], /colour/],
    [[...tenableSets(sim.url, sim.analyst), '--set', 'verifySsl=perhaps'], /verifySsl/],
    [[...tenableSets(sim.url, sim.analyst), '--set', 'schedule=sometimes'], /schedule/],
  ];
  for (const [args, field] of cases) {
    const r = await cli('sources', 'add', 'tenable-sc', '--name', 'bad', ...args);
    assert.equal(r.code, 2, `${args.join(' ')} → ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, field);
    assert.doesNotMatch(r.stderr, new RegExp(secretKey));
  }
  assert.deepEqual(json(await cli('--json', 'sources', 'list')), [], 'nothing was stored');
});

test('add, show (masked), configure (secret kept), check', async () => {
  const add = await cli('sources', 'add', 'tenable-sc', '--name', 'lab', ...tenableSets(`${sim.url}/`, sim.analyst));
  assert.equal(add.code, 0, add.stderr);
  const shown = json<{ config: Record<string, unknown> }>(await cli('sources', 'show', 'lab'));
  assert.equal(shown.config.secretKey, '********');
  assert.equal(shown.config.accessKey, '********');
  assert.equal(shown.config.apiUrl, sim.url, 'trailing slash removed');
  assert.equal(shown.config.verifySsl, true);
  assert.equal(shown.config.pageSize, 1000);
  const conf = await cli('sources', 'configure', 'lab', '--set', 'pageSize=7', '--set', 'schedule=6h');
  assert.equal(conf.code, 0, conf.stderr);
  const after1 = json<{ config: Record<string, unknown>; schedule: string }>(await cli('sources', 'show', 'lab'));
  assert.equal(after1.config.pageSize, 7);
  assert.equal(after1.schedule, '6h');
  const bad = await cli('sources', 'configure', 'lab', '--set', 'bogus=1');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /bogus/);

  const check = await cli('--json', 'sources', 'check', 'lab');
  assert.equal(check.code, 0, check.stdout + check.stderr);
  const result = json<{ ok: boolean; checks: { id: string; ok: boolean; message: string; hint: string | null }[] }>(check);
  assert.equal(result.ok, true);
  assert.ok(result.checks.length >= 5);
  for (const c of result.checks) {
    assert.equal(typeof c.id, 'string');
    assert.equal(typeof c.message, 'string');
    assert.ok(c.hint === null || typeof c.hint === 'string');
  }
  assert.match(result.checks.find((c) => c.id === 'repositories')?.message ?? '', /Datacenter/);
  const human = await cli('sources', 'check', 'lab');
  assert.equal(human.code, 0);
  assert.match(human.stdout, /✓ version: .*6\.4/);
  const lines = human.stdout.trim().split('\n');
  assert.equal(lines.length, result.checks.length + 1, 'one line per check, then the verdict');
  assert.match(lines.find((l) => l.startsWith('✓ repositories:')) ?? '', / — hint: /);
});

test('misconfigurations of the seed are diagnosed, exit 1', async () => {
  const add = (name: string, keys: { accessKey: string; secretKey: string }) =>
    cli('sources', 'add', 'tenable-sc', '--name', name, ...tenableSets(sim.url, keys));
  assert.equal((await add('as-admin', sim.admin)).code, 0);
  const admin = await cli('--json', 'sources', 'check', 'as-admin');
  assert.equal(admin.code, 1);
  const adminChecks = json<{ checks: { id: string; ok: boolean; message: string; hint: string | null }[] }>(admin).checks;
  const failed = adminChecks.filter((c) => !c.ok);
  assert.ok(
    failed.some((c) => /Administrator/.test(c.message + c.hint) && /Security Analyst/.test(c.message + (c.hint ?? ''))),
    JSON.stringify(failed),
  );

  assert.equal((await add('wrong-keys', { accessKey: 'a'.repeat(32), secretKey: 'b'.repeat(32) })).code, 0);
  const wrong = await cli('sources', 'check', 'wrong-keys');
  assert.equal(wrong.code, 1);
  assert.match(wrong.stdout, /✗/);
  assert.match(wrong.stdout, /new(ly generated)? (API key )?pair|revokes/i);

  const exp = await cli('sources', 'configure', 'lab', '--set', 'expectedUsername=someone-else');
  assert.equal(exp.code, 0);
  const mismatch = await cli('sources', 'check', 'lab');
  assert.equal(mismatch.code, 1);
  assert.match(mismatch.stdout, /someone-else/);
  assert.equal((await cli('sources', 'configure', 'lab', '--set', 'expectedUsername=')).code, 0);
});

test('sync imports what the console serves; query returns it with its values', async () => {
  const sync = await cli('--json', 'sync', 'lab');
  assert.equal(sync.code, 0, sync.stdout + sync.stderr);
  const result = json<{ runId: string; status: string; streams: Record<string, { records: number; errors: number }>; error: string | null }>(sync);
  assert.equal(result.status, 'succeeded');
  assert.equal(result.error, null);
  assert.deepEqual(Object.keys(result.streams).sort(), ['compliance', 'hosts', 'plugins', 'ports', 'software', 'vulnerabilities']);
  const sumip = await call(sim, 'POST', '/rest/analysis', {
    body: { type: 'vuln', sourceType: 'cumulative', query: { type: 'vuln', tool: 'sumip', filters: [] }, startOffset: 0, endOffset: 1000 },
  });
  const simHosts = sumip.json.response.results as Record<string, string>[];
  assert.equal(result.streams.hosts.records, simHosts.length);

  const served = await nonInfoFindings('cumulative');
  const alreadyPatched = await nonInfoFindings('patched');
  assert.equal(result.streams.vulnerabilities.records, served.length + alreadyPatched.length, 'one finding per non-info vulndetails row, open or patched');
  assert.equal(jsonl(await cli('query', 'vulnerabilities', '--json', '--where', 'status=fixed')).length, alreadyPatched.length);

  const hosts = jsonl(await cli('query', 'hosts', '--json'));
  assert.equal(hosts.length, simHosts.length);
  const first = simHosts[0];
  const mine = hosts.find((h) => (h.ipAddresses as string[]).includes(first.ip));
  assert.ok(mine, `host ${first.ip} imported`);
  assert.equal(mine.source, 'lab');
  assert.equal(mine.removed, false);

  const row = served[0];
  const vulns = jsonl(await cli('query', 'vulnerabilities', '--json', '--where', `pluginId=${row.pluginID}`));
  const rowHost = hosts.find((h) => (h.ipAddresses as string[]).includes(row.ip) && h.repository === row.repository.name);
  assert.ok(rowHost, `host ${row.ip} of the finding imported`);
  const v = vulns.find((x) => x.hostId === rowHost.id && x.port === Number(row.port) && x.protocol === String(row.protocol).toLowerCase());
  assert.ok(v, `finding ${row.pluginID} imported`);
  assert.equal(v.pluginName, row.pluginName);
  assert.equal(v.lastSeen, new Date(Number(row.lastSeen) * 1000).toISOString());
  assert.equal(v.status, 'open');
  const kev = jsonl(await cli('query', 'vulnerabilities', '--json', '--where', 'knownExploited=true'));
  assert.ok(kev.length > 0 && kev.every((x) => x.knownExploited === true));
  const csv = await cli('query', 'software', '--format', 'csv', '--limit', '5');
  assert.equal(csv.stdout.trim().split('\n').length, 6);
  for (const model of ['software', 'ports', 'compliance']) assert.ok(jsonl(await cli('query', model, '--json', '--limit', '1')).length === 1, model);
});

test('findings patched on the console become fixed after the next (incremental) sync', async () => {
  const patched = await call(sim, 'POST', '/_sim/patch', { body: { fraction: 0.2 } });
  assert.equal(patched.status, 200, patched.text);
  const sync = json<{ status: string }>(await cli('--json', 'sync', 'lab'));
  assert.equal(sync.status, 'succeeded');
  const runs = await cli('--json', 'sources', 'show', 'lab');
  assert.equal(json<{ lastRun: { mode: string } }>(runs).lastRun.mode, 'incremental');
  const fixed = jsonl(await cli('query', 'vulnerabilities', '--json', '--where', 'status=fixed'));
  const servedPatched = await nonInfoFindings('patched');
  assert.ok(servedPatched.length > 0);
  assert.equal(fixed.length, servedPatched.length);
  // A list holds live findings by default; --all adds the fixed ones.
  const live = jsonl(await cli('query', 'vulnerabilities', '--json'));
  assert.ok(live.length > 0 && live.every((v) => v.status === 'open' || v.status === 'reopened'));
  assert.equal(jsonl(await cli('query', 'vulnerabilities', '--json', '--all')).length, live.length + fixed.length);
  const full = json<{ status: string }>(await cli('--json', 'sync', 'lab', '--full'));
  assert.equal(full.status, 'succeeded');
  assert.equal(jsonl(await cli('query', 'vulnerabilities', '--json', '--where', 'status=fixed')).length, servedPatched.length);
});

test('syncs ride through 429s, 5xx and dropped connections', async () => {
  const faults = await call(sim, 'POST', '/_sim/faults', {
    body: { rateLimit: { every: 5, retryAfter: 0 }, serverError: { every: 7, status: 503 }, resetMidBody: { every: 11 } },
  });
  assert.equal(faults.status, 200, faults.text);
  const r = await cli('--json', 'sync', 'lab', '--full');
  const result = json<{ status: string; error: string | null }>(r);
  assert.equal(result.status, 'succeeded', r.stdout + r.stderr);
  const stats = await call(sim, 'GET', '/_sim/stats');
  assert.ok(Object.values(stats.json.faultsInjected as Record<string, number>).reduce((a, b) => a + b, 0) > 0, 'faults were injected');
  await call(sim, 'POST', '/_sim/faults', { body: { clear: true } });
  const methods = Object.keys(stats.json.byRoute as Record<string, number>);
  assert.ok(
    methods.every((m) => m.startsWith('GET ') || m === 'POST /rest/analysis'),
    methods.join(', '),
  );
});

test('no plaintext key appears in anything the commands printed or stored', () => {
  const needles = [sim.analyst.accessKey, sim.analyst.secretKey, sim.admin.secretKey];
  const out = transcript.join('\n');
  assert.ok(out.length > 1000, 'output was captured');
  assert.match(readFileSync(join(dataDir, 'logs', 'sync.log'), 'utf8'), /"level":20/, 'the syncs wrote debug logs (searched below with every stored file)');
  for (const n of needles) assert.equal(out.includes(n), false, 'printed a key');
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else files.push(p);
    }
  };
  walk(dataDir);
  assert.ok(files.some((f) => f.endsWith('tributary.db')));
  for (const f of files) {
    const bytes = readFileSync(f);
    for (const n of needles) assert.equal(bytes.includes(Buffer.from(n)), false, `${f} holds a key`);
  }
});

test('removing a source deletes it and its records', async () => {
  const before = jsonl(await cli('query', 'vulnerabilities', '--json', '--source', 'lab', '--limit', '1'));
  assert.equal(before.length, 1);
  const r = await cli('sources', 'remove', 'lab');
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await cli('sources', 'show', 'lab')).code, 2);
  for (const model of ['hosts', 'software', 'ports', 'vulnerabilities', 'compliance']) {
    assert.equal(jsonl(await cli('query', model, '--json')).length, 0, model);
  }
  const names = json<{ name: string }[]>(await cli('--json', 'sources', 'list')).map((s) => s.name);
  assert.deepEqual(names.sort(), ['as-admin', 'wrong-keys']);
});
