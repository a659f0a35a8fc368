// End to end through the `tributary` command against the ServiceDesk Plus simulator: a cloud source
// whose authorization code is exchanged on save (and never stored), an on-premises source with a
// technician key, check, sync, query, removal with token revocation; then a search of every printed
// and stored byte for the secrets.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningSdpSim, startSdpSim } from '../../sim/servicedesk-plus/index.ts';
import { type CliResult, cliEnv, runCliAsync } from '../helpers/cli.ts';
import { tempDir } from '../helpers/databases.ts';

let sim: RunningSdpSim;
const dataDir = tempDir();
const transcript: string[] = [];
const secrets: string[] = [];
const env = cliEnv({ TRIBUTARY_LOG_LEVEL: 'debug' });

async function cli(...args: string[]): Promise<CliResult> {
  const r = await runCliAsync(['--data-dir', dataDir, ...args], env);
  transcript.push(r.stdout, r.stderr);
  return r;
}
const json = <T = Record<string, unknown>>(r: CliResult): T => JSON.parse(r.stdout) as T;
const jsonl = (r: CliResult) =>
  r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

before(async () => {
  sim = await startSdpSim({ port: 0, seed: 3, requests: 130, assets: 40, users: 25, technicians: 5 });
  secrets.push(sim.clientSecret, sim.apiKey);
});
after(async () => {
  await sim?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a cloud source exchanges its code on save; a used or expired code is refused with advice', async () => {
  const code = sim.mintAuthorizationCode();
  secrets.push(code);
  const cloud = [
    '--set',
    `accountsUrl=${sim.accountsUrl}`,
    '--set',
    `serverUrl=${sim.url}`,
    '--set',
    `portal=${sim.portal}`,
    '--set',
    `clientId=${sim.clientId}`,
    '--set',
    `clientSecret=${sim.clientSecret}`,
  ];
  const add = await cli(
    'sources',
    'add',
    'servicedesk-plus',
    '--name',
    'desk',
    ...cloud,
    '--set',
    `authorizationCode=${code}`,
    '--set',
    'revokeTokenOnDeletion=true',
  );
  assert.equal(add.code, 0, add.stderr);
  const shown = json<{ config: Record<string, unknown> }>(await cli('sources', 'show', 'desk'));
  assert.equal(shown.config.clientSecret, '********');
  assert.equal('authorizationCode' in shown.config, false, 'the code is never stored');

  const reused = await cli('sources', 'add', 'servicedesk-plus', '--name', 'desk2', ...cloud, '--set', `authorizationCode=${code}`);
  assert.equal(reused.code, 2);
  assert.match(reused.stderr, /new code|few minutes/i);
  const expired = sim.mintAuthorizationCode(undefined, { ttlSeconds: -1 });
  const late = await cli('sources', 'add', 'servicedesk-plus', '--name', 'desk3', ...cloud, '--set', `authorizationCode=${expired}`);
  assert.equal(late.code, 2);
  assert.match(late.stderr, /few minutes/i);
  const missing = await cli('sources', 'add', 'servicedesk-plus', '--name', 'desk4', ...cloud);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /authorizationCode/);
});

test('check, sync and query the cloud source', async () => {
  const check = await cli('--json', 'sources', 'check', 'desk');
  assert.equal(check.code, 0, check.stdout + check.stderr);
  assert.equal(json<{ ok: boolean }>(check).ok, true);
  const sync = await cli('--json', 'sync', 'desk');
  assert.equal(sync.code, 0, sync.stdout + sync.stderr);
  const result = json<{ status: string; streams: Record<string, { records: number }> }>(sync);
  assert.equal(result.status, 'succeeded');
  assert.equal(result.streams.tickets.records, 130);
  assert.ok(result.streams['cmdb-assets'].records >= 40);
  assert.ok(result.streams.users.records >= 30);
  assert.ok(result.streams.services.records > 0);
  const tickets = jsonl(await cli('query', 'tickets', '--json'));
  assert.equal(tickets.length, 130);
  for (const t of tickets) {
    assert.ok(t.kind === 'request' || t.kind === 'incident');
    assert.ok(typeof t.subject === 'string' && t.subject !== '');
    assert.match(String(t.createdAt), /^\d{4}-\d\d-\d\dT/);
  }
  assert.ok(tickets.some((t) => t.kind === 'incident'));
  const techs = jsonl(await cli('query', 'users', '--json', '--where', 'isTechnician=true'));
  assert.equal(techs.length, 5);
});

test('an on-premises source uses the technician key', async () => {
  const add = await cli('sources', 'add', 'servicedesk-plus', '--name', 'onprem', '--set', `serverUrl=${sim.url}`, '--set', `apiKey=${sim.apiKey}`);
  assert.equal(add.code, 0, add.stderr);
  const check = await cli('sources', 'check', 'onprem');
  assert.equal(check.code, 0, check.stdout);
  const sync = json<{ status: string; streams: Record<string, { records: number }> }>(await cli('--json', 'sync', 'onprem'));
  assert.equal(sync.status, 'succeeded');
  assert.equal(sync.streams.tickets.records, 130);
});

test('the client secret does not follow a changed accounts server or region to another host', async () => {
  // A collector standing in for an accounts server of the attacker's choosing: it must hear nothing.
  const heard: string[] = [];
  const collector = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      heard.push(`${req.method} ${req.url} ${body}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"x","refresh_token":"y","expires_in":3600}');
    });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  const port = (collector.address() as AddressInfo).port;
  try {
    const moved = await cli('sources', 'configure', 'desk', '--set', `accountsUrl=http://127.0.0.1:${port}`, '--set', 'authorizationCode=1000.made-up.code');
    assert.equal(moved.code, 2, moved.stderr);
    assert.match(moved.stderr, /changing accountsUrl changes where the stored clientSecret is sent: enter clientSecret again/);
    const region = await cli('sources', 'configure', 'desk', '--set', 'region=eu');
    assert.equal(region.code, 2);
    assert.match(region.stderr, /changing region .*clientSecret/);
    assert.deepEqual(heard, [], 'nothing was sent to the new address');
    const check = await cli('--json', 'sources', 'check', 'desk');
    assert.equal(json<{ ok: boolean }>(check).ok, true, 'the source still talks to the accounts server it was set up with');
  } finally {
    await new Promise((r) => collector.close(r));
  }
});

test('removing the cloud source revokes its refresh token', async () => {
  const revokesBefore = sim.stats().tokens.revoke;
  const r = await cli('sources', 'remove', 'desk');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(sim.stats().tokens.revoke, revokesBefore + 1);
  assert.equal(jsonl(await cli('query', 'tickets', '--json', '--source', 'onprem')).length, 130);
});

test('no secret appears in anything printed or stored', () => {
  const out = transcript.join('\n');
  for (const s of secrets) assert.equal(out.includes(s), false, 'printed a secret');
  const walk = (d: string): string[] => readdirSync(d).flatMap((e) => (statSync(join(d, e)).isDirectory() ? walk(join(d, e)) : [join(d, e)]));
  for (const f of walk(dataDir)) {
    const bytes = readFileSync(f);
    for (const s of secrets) assert.equal(bytes.includes(Buffer.from(s)), false, `${f} holds a secret`);
  }
});
