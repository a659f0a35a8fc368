// The command line against a hostile console: a URL with a query or fragment is refused (exit 2), a
// full sync that would wipe the inventory ends partial (exit 1) saying why, and only
// `sync --full --allow-large-removal` (which needs --full) lets it remove what the guard held back; a
// sync that stored rows with a field cut short (nested too deep) says how many in its summary.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { type RunningSdpSim, startSdpSim } from '../../sim/servicedesk-plus/index.ts';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { type CliResult, cliEnv, runCliAsync, tenableSets } from '../helpers/cli.ts';
import { tempDir } from '../helpers/databases.ts';
import { type HostileConsole, startHostileConsole } from '../helpers/hostile-console.ts';

let sim: RunningTenableSim;
let dsim: RunningSdpSim;
let sc: HostileConsole;
const dataDir = tempDir();
const cli = (...args: string[]): Promise<CliResult> => runCliAsync(['--data-dir', dataDir, ...args], cliEnv());

before(async () => {
  sim = await startTenableSim({ port: 0, hosts: 12, findingsPerHost: 4, seed: 9 });
  dsim = await startSdpSim({ seed: 2, requests: 10, assets: 3, cis: 1, users: 3, technicians: 1 });
  sc = await startHostileConsole(sim.url);
});
after(async () => {
  await sc?.close();
  await sim?.close();
  await dsim?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a URL with a query or a fragment is refused with exit 2 naming the field', async () => {
  const { accessKey, secretKey } = sim.analyst;
  for (const [type, field, url, rest] of [
    ['tenable-sc', 'apiUrl', `${sim.url}/?x=1`, ['--set', `accessKey=${accessKey}`, '--set', `secretKey=${secretKey}`]],
    ['tenable-sc', 'apiUrl', `${sim.url}#/rest/system`, ['--set', `accessKey=${accessKey}`, '--set', `secretKey=${secretKey}`]],
    ['servicedesk-plus', 'serverUrl', `${dsim.url}/?a=b`, ['--set', `apiKey=${dsim.apiKey}`]],
    ['servicedesk-plus', 'accountsUrl', `${dsim.accountsUrl}/#x`, ['--set', `serverUrl=${dsim.url}`, '--set', `apiKey=${dsim.apiKey}`]],
  ] as const) {
    const r = await cli('sources', 'add', type, '--name', 'bad', '--set', `${field}=${url}`, ...rest);
    assert.equal(r.code, 2, `${field}=${url}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`${field}.*must not contain a query \\(\\?…\\) or a fragment \\(#…\\)`));
  }
});

test('a run that would wipe the inventory ends partial (exit 1); --full --allow-large-removal lets it', async () => {
  const add = await cli('sources', 'add', 'tenable-sc', '--name', 'sc', ...tenableSets(sc.url, sim.analyst));
  assert.equal(add.code, 0, add.stderr);
  assert.equal((await cli('sync', 'sc')).code, 0);
  const live = async () => (await cli('query', 'hosts', '--where', 'removed=false', '--format', 'jsonl')).stdout.trim().split('\n').filter(Boolean).length;
  const hosts = await live();
  assert.ok(hosts >= 12, `${hosts} hosts`);

  const alone = await cli('sync', 'sc', '--allow-large-removal');
  assert.equal(alone.code, 2);
  assert.match(alone.stderr, /--allow-large-removal needs --full/);

  sc.mode = 'empty-lying-total';
  try {
    const refused = await cli('--json', 'sync', 'sc', '--full');
    assert.equal(refused.code, 1, refused.stderr);
    const out = JSON.parse(refused.stdout) as { status: string; error: string };
    assert.equal(out.status, 'partial');
    assert.match(
      out.error,
      /did not sweep \(nothing was marked removed or fixed\): hosts: it would mark all of \d+ records removed .*sync --full --allow-large-removal/,
    );
    assert.equal(await live(), hosts, 'no host was marked removed');

    const allowed = await cli('sync', 'sc', '--full', '--allow-large-removal');
    assert.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
    assert.match(allowed.stdout, /^succeeded: full run/);
    assert.equal(await live(), 0, 'the user confirmed the removal');
  } finally {
    sc.mode = 'good';
  }
});

test('a sync that stored rows with a field cut short says so in its summary', async () => {
  sc.mode = 'deep-field';
  try {
    const r = await cli('sync', 'sc', '--full');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^succeeded: full run/);
    assert.match(r.stdout, /\n {2}vulnerabilities +\d+ records, [1-9]\d* with a field truncated/);
  } finally {
    sc.mode = 'good';
  }
});
