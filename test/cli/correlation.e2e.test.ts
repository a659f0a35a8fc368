// End to end through the `tributary` command: both simulators serve one generated estate; syncing both
// correlates hosts with CMDB assets (no asset ever mixes two machines, whatever the drift), owners
// reach findings, tickets link to assets, the coverage report adds up, and a manual link survives the
// next sync.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { after, before, test } from 'node:test';
import { type RunningSdpSim, startSdpSim } from '../../sim/servicedesk-plus/index.ts';
import { Estate } from '../../sim/shared/estate.ts';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { addTenableArgs, type CliResult, cliEnv, runCliAsync } from '../helpers/cli.ts';
import { tempDir } from '../helpers/databases.ts';

const estate = new Estate(11, 60);
let scanner: RunningTenableSim;
let desk: RunningSdpSim;
const dataDir = tempDir();
const env = cliEnv({});
const cli = (...args: string[]): Promise<CliResult> => runCliAsync(['--data-dir', dataDir, ...args], env);
const jsonl = (r: CliResult) =>
  r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** The estate machine a CMDB record or host stands for: by CMDB name, or by the scanner's address. */
const machineOfCmdb = new Map(estate.cmdb().map((e) => [e.name.toLowerCase(), e.machine]));
const machineOfHost = (h: Record<string, unknown>) => {
  const ip = (h.ipAddresses as string[])[0]!;
  const [, a, b, c] = ip.split('.').map(Number) as [number, number, number, number];
  return ((a - 20) << 16) + (b << 8) + c;
};

before(async () => {
  scanner = await startTenableSim({ port: 0, seed: 5, findingsPerHost: 8, estate });
  desk = await startSdpSim({ port: 0, seed: 4, requests: 120, users: 20, technicians: 4, estate });
  assert.equal((await cli(...addTenableArgs('scan', scanner, 'verifySsl=false'))).code, 0);
  assert.equal((await cli('sources', 'add', 'servicedesk-plus', '--name', 'desk', '--set', `serverUrl=${desk.url}`, '--set', `apiKey=${desk.apiKey}`)).code, 0);
  for (const s of ['scan', 'desk']) {
    const r = await cli('--json', 'sync', s);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).status, 'succeeded');
  }
});
after(async () => {
  await scanner?.close();
  await desk?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('both simulators on one estate: hosts and CMDB assets correlate, and no asset mixes two machines', async () => {
  const hosts = new Map(jsonl(await cli('--json', 'query', 'hosts')).map((h) => [h.id as string, h]));
  const cmdb = new Map(jsonl(await cli('--json', 'query', 'cmdb-assets')).map((c) => [c.id as string, c]));
  const assets = jsonl(await cli('--json', 'query', 'assets'));
  // Every scanned machine is a host (counted by machine: the scanner keys a host by UUID or by address).
  assert.equal(new Set([...hosts.values()].map(machineOfHost)).size, estate.scanned);
  // The estate's assets (the CMDB also holds database and business-service CIs).
  assert.equal([...cmdb.values()].filter((c) => machineOfCmdb.has(String(c.name).toLowerCase())).length, estate.cmdb().length);
  assert.equal(assets.flatMap((a) => a.hostIds as string[]).length, hosts.size, 'each host in one asset');
  assert.equal(assets.flatMap((a) => a.cmdbAssetIds as string[]).length, cmdb.size, 'each CMDB record in one asset');
  const rules = new Map<string, number>();
  for (const a of assets) {
    rules.set(a.matchRule as string, (rules.get(a.matchRule as string) ?? 0) + 1);
    const machines = new Set([
      ...(a.hostIds as string[]).map((id) => machineOfHost(hosts.get(id)!)),
      ...(a.cmdbAssetIds as string[]).map((id) => machineOfCmdb.get(String(cmdb.get(id)!.name).toLowerCase())),
    ]);
    assert.equal(machines.size, 1, `asset ${a.name} (${a.matchRule}) mixes machines ${[...machines]}: ${JSON.stringify(a.matchDetails)}`);
  }
  // Most scanned machines the CMDB knows are linked; serials do most of it, and renamed machines too.
  const linked = assets.filter((a) => (a.hostIds as string[]).length > 0 && (a.cmdbAssetIds as string[]).length > 0).length;
  const known = [...hosts.values()].filter((h) => estate.drift(machineOfHost(h)).inCmdb).length;
  assert.ok(linked >= known * 0.6, `${linked} of ${known} scanned machines in the CMDB linked (${JSON.stringify([...rules])})`);
  assert.ok((rules.get('serial') ?? 0) > 0);
  // Machines the CMDB lacks are never linked.
  for (const a of assets) for (const id of a.hostIds as string[]) if (!estate.drift(machineOfHost(hosts.get(id)!)).inCmdb) assert.deepEqual(a.cmdbAssetIds, []);
});

test('the asset page shows both sources side by side with the reason; owners reach findings', async () => {
  const assets = jsonl(await cli('--json', 'query', 'assets', '--where', 'matchRule=serial'));
  const shown = JSON.parse((await cli('--json', 'assets', 'show', assets[0]!.id as string)).stdout) as {
    asset: Record<string, unknown>;
    hosts: unknown[];
    cmdbAssets: unknown[];
  };
  assert.equal(shown.hosts.length, 1);
  assert.equal(shown.cmdbAssets.length, 1);
  assert.deepEqual(Object.keys((shown.asset.matchDetails as { links: { matched: object }[] }).links[0]!.matched), ['serial']);
  // For people: the reason in a sentence naming both records and the serial, not the JSON.
  const human = await cli('assets', 'show', assets[0]!.id as string);
  assert.equal(human.code, 0, human.stderr);
  const serial = (shown.asset.matchDetails as { links: { matched: { serial: string[] } }[] }).links[0]!.matched.serial.join(', ');
  assert.match(human.stdout, new RegExp(`^why:\n  host \\S+ ↔ CMDB record \\S+: same serial ${serial}$`, 'm'));
  assert.doesNotMatch(human.stdout, /[{}]|"/, 'no JSON');
  const owned = jsonl(await cli('--json', 'query', 'vulnerabilities', '--where', 'department!=null', '--limit', '50'));
  assert.ok(owned.length > 0, 'findings carry their asset’s department');
  for (const v of owned) assert.equal(typeof v.assetId, 'string');
});

test('tickets link to their associated assets first and to the hosts and CVEs they name, with reasons', async () => {
  const tickets = jsonl(await cli('--json', 'query', 'tickets'));
  const reasons = new Set(tickets.flatMap((t) => ((t.assetLinks as { reason: string }[] | null) ?? []).map((l) => l.reason)));
  assert.ok(reasons.has('associated'), [...reasons].join());
  assert.ok(reasons.has('hostname') || reasons.has('fqdn'), [...reasons].join());
  const associated = tickets.find((t) => (t.associatedAssets as unknown[] | null)?.length);
  assert.ok(associated && (associated.assetIds as string[]).length > 0);
});

test('report coverage: the four numbers of interfaces.md, and --list prints the records behind each', async () => {
  const r = await cli('--json', 'report', 'coverage', '--days', '30');
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as Record<string, number>;
  assert.deepEqual(Object.keys(report).sort(), [
    'cmdbNotScanned',
    'days',
    'findingsWithoutTicket',
    'scannedNotInCmdb',
    'ticketsClosedFindingsOpen',
    'ticketsForFixedFindings',
  ]);
  assert.equal(report.days, 30);
  const missing = Array.from({ length: estate.scanned }, (_, i) => i).filter((i) => !estate.drift(i).inCmdb).length;
  assert.ok(report.scannedNotInCmdb! >= missing);
  const listed = jsonl(await cli('--json', 'report', 'coverage', '--list', 'scannedNotInCmdb'));
  assert.equal(listed.length, report.scannedNotInCmdb);
  assert.ok(report.cmdbNotScanned! >= estate.machines - estate.scanned, 'CMDB-only machines are never scanned');
  const bad = await cli('report', 'coverage', '--list', 'everything');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /cmdbNotScanned/);
});

test('a manual link survives the next sync of either source', async () => {
  const lonely = jsonl(await cli('--json', 'report', 'coverage', '--list', 'scannedNotInCmdb'))[0]!;
  const spare = jsonl(await cli('--json', 'report', 'coverage', '--list', 'cmdbNotScanned'))[0]!;
  const link = await cli('--json', 'assets', 'link', lonely.id as string, spare.id as string);
  assert.equal(link.code, 0, link.stderr);
  const check = async () => {
    const host = jsonl(await cli('--json', 'query', 'hosts', '--where', `id=${lonely.id}`))[0]!;
    const asset = jsonl(await cli('--json', 'query', 'assets', '--where', `id=${host.assetId}`))[0]!;
    assert.deepEqual([asset.matchRule, asset.cmdbAssetIds], ['manual', [spare.id]]);
    // Who linked the pair (the local user, from the command line) and when.
    const shown = await cli('assets', 'show', String(host.assetId));
    assert.match(shown.stdout, new RegExp(`: linked manually by ${userInfo().username} \\(command line\\) on \\d{4}-\\d{2}-\\d{2}$`, 'm'));
  };
  await check();
  for (const s of ['scan', 'desk']) assert.equal((await cli('sync', s)).code, 0);
  await check();
  assert.equal((await cli('assets', 'link', 'no-such-host', spare.id as string)).code, 2);
});
