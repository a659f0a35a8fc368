// `tributary tickets plan|apply|log` through the command (issue 32): a service desk source with tickets off
// plans but refuses to apply (naming the setting), `sources check` then says whether the key may write,
// and with findings of another source in the store the apply creates their requests in the simulator.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { openApp } from '../../src/app/context.ts';
import { silentLogger } from '../../src/core/log.ts';
import { type RunningSdpSim, startSdpSim } from '../../sim/servicedesk-plus/index.ts';
import { type CliResult, cliEnv, runCliAsync } from '../helpers/cli.ts';
import { tempDir } from '../helpers/databases.ts';

let sim: RunningSdpSim;
const dataDir = tempDir();
const env = cliEnv();
const cli = (...args: string[]): Promise<CliResult> => runCliAsync(['--data-dir', dataDir, ...args], env);

before(async () => {
  sim = await startSdpSim({ port: 0, seed: 4, requests: 20, assets: 10, users: 5, technicians: 2 });
});
after(async () => {
  await sim?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('plan while off, apply refused, check, then apply and log', async () => {
  const add = await cli('sources', 'add', 'servicedesk-plus', '--name', 'desk', '--set', `serverUrl=${sim.url}`, '--set', `apiKey=${sim.apiKey}`);
  assert.equal(add.code, 0, add.stderr);
  // Findings of a scanner source, written into the same store (a sync would write the same rows).
  const app = await openApp({ dataDir, env, log: silentLogger });
  const store = app.store;
  try {
    const scan = await store.sources.create('scan', 'fixture', {}, null);
    const stamp = { sourceId: scan.id, sourceName: 'scan', runId: 'r', generation: 'g', now: new Date().toISOString() };
    await store.records.writePage(
      stamp,
      's',
      'full',
      {
        hosts: [{ key: 'h1', externalId: 'h1', fields: { hostname: 'web1', department: 'Finance' } }],
        vulnerabilities: [{ key: 'h1|9', hostKey: 'h1', fields: { pluginId: '9', pluginName: 'Fix nine', severity: 'critical', status: 'open' } }],
      },
      { value: null, complete: false },
    );
  } finally {
    await app.close();
  }
  const plan = await cli('tickets', 'plan', 'desk');
  assert.equal(plan.code, 0, plan.stderr);
  assert.match(plan.stdout, /remediation tickets are off for desk/);
  assert.match(plan.stdout, /1 ticketed finding in 1 group .*1 to create/);
  const refused = await cli('tickets', 'apply', 'desk');
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /remediationTickets\.enabled/);
  assert.equal(sim.stats().writes.create, 0);

  assert.equal((await cli('sources', 'configure', 'desk', '--set', 'remediationTickets={"enabled":true}')).code, 0);
  const check = await cli('sources', 'check', 'desk');
  assert.match(check.stdout, /remediation-create: requests may be created/);
  assert.equal(sim.written.size, 0, 'the check creates nothing');

  const applied = await cli('tickets', 'apply', 'desk');
  assert.equal(applied.code, 0, applied.stderr);
  assert.match(applied.stdout, /1 created/);
  assert.equal(sim.written.size, 1);
  assert.match(String(sim.written.all()[0]!.subject), /^Remediate: Fix nine \(1 hosts, Finance\) \[TRB-[0-9a-f]{12}\]$/);
  const log = await cli('--json', 'tickets', 'log', 'desk');
  const items = (JSON.parse(log.stdout) as { items: { action: string; requestId: string }[] }).items;
  assert.deepEqual(
    items.map((i) => [i.action, i.requestId]),
    [['create', String(sim.written.all()[0]!.id)]],
  );
  const again = await cli('tickets', 'plan', 'desk');
  assert.match(again.stdout, /nothing to write/);
});

test('the contract names (interfaces.md 7.4): boolean remediationTickets and top-level keys, plan --json buckets, log without a source', async () => {
  // Runs after the test above: desk has written one request, the store holds one critical finding.
  const add = await cli(
    'sources',
    'add',
    'servicedesk-plus',
    '--name',
    'desk2',
    '--set',
    `serverUrl=${sim.url}`,
    '--set',
    `apiKey=${sim.apiKey}`,
    '--set',
    'remediationTickets=true',
    '--set',
    'ticketDecisions=act,attend,track-star,track',
  );
  assert.equal(add.code, 0, add.stderr);
  const conf = await cli('sources', 'configure', 'desk2', '--set', 'remediationTickets=true', '--set', 'ticketGroupBy=fix', '--set', 'ticketMaxPerRun=0');
  assert.equal(conf.code, 0, conf.stderr);
  const plan = await cli('--json', 'tickets', 'plan', 'desk2');
  assert.equal(plan.code, 0, plan.stderr);
  const p = JSON.parse(plan.stdout) as Record<string, { key: string; findingIds: string[]; deferred: boolean }[]> & { enabled: boolean };
  for (const k of ['create', 'update', 'resolve', 'reopen']) assert.ok(Array.isArray(p[k]), `${k} is an array`);
  assert.equal(p.enabled, true);
  assert.deepEqual(
    p.create!.map((a) => [a.key, a.findingIds.length, a.deferred]),
    [['fix=9', 1, true]],
    'grouped per fix (ticketGroupBy) and past the per-run cap (ticketMaxPerRun=0)',
  );
  assert.deepEqual([p.update!.length, p.resolve!.length, p.reopen!.length], [0, 0, 0]);
  const bad = await cli('sources', 'configure', 'desk2', '--set', 'ticketGroupBy=per-cve');
  assert.notEqual(bad.code, 0);

  // `tickets log` without a source: every source's log (desk's create from the test above).
  const log = await cli('--json', 'tickets', 'log');
  assert.equal(log.code, 0, log.stderr);
  const items = (JSON.parse(log.stdout) as { items: { action: string; requestId: string }[] }).items;
  assert.deepEqual(
    items.map((i) => i.action),
    ['create'],
  );
  const text = await cli('tickets', 'log');
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /create/);
});
