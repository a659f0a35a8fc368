// The SDP simulator on the wire: envelopes like the recorded responses, list_info handling, scopes,
// Zoho token endpoint behaviour, control endpoints and the CLI's first line.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type RunningSdpSim, startSdpSim } from '../../sim/servicedesk-plus/index.ts';

// biome-ignore lint/suspicious/noExplicitAny: wire JSON read loosely in assertions
type Json = Record<string, any>;

describe('servicedesk-plus simulator', () => {
  let sim: RunningSdpSim;
  const q = (li: unknown) => `input_data=${encodeURIComponent(JSON.stringify({ list_info: li }))}`;
  const onprem = async (path: string, li?: unknown, key?: string) => {
    const r = await fetch(`${sim.url}/api/v3/${path}${li ? `?${q(li)}` : ''}`, { headers: { authtoken: key ?? sim.apiKey } });
    return { status: r.status, body: (await r.json()) as Json };
  };
  const token = async (form: Record<string, string>) => {
    const r = await fetch(`${sim.accountsUrl}/oauth/v2/token`, { method: 'POST', body: new URLSearchParams(form) });
    return { status: r.status, body: (await r.json()) as Json };
  };
  before(async () => {
    sim = await startSdpSim({ seed: 3, requests: 150, now: Date.now() - 86400_000 });
  });
  after(() => sim?.close());

  test('lists: array response_status, list_info echo, reduced on-prem rows with string ids', async () => {
    const { status, body } = await onprem('requests', { row_count: 10 });
    assert.equal(status, 200);
    assert.deepEqual(body.response_status, [{ status_code: 2000, status: 'success' }]);
    assert.deepEqual(body.list_info, { has_more_rows: true, start_index: 1, sort_field: 'created_time', sort_order: 'desc', row_count: 10 });
    const row = body.requests[0];
    assert.equal(Object.keys(row).length, 19, 'the 19 list fields of the recorded list');
    assert.equal(typeof row.id, 'string');
    assert.equal('last_updated_time' in row, false);
    assert.equal(typeof row.requester.is_vipuser, 'boolean');
    assert.match(row.created_time.value, /^\d{13}$/);
    assert.match(row.created_time.display_value, /^[A-Z][a-z]{2} \d{1,2}, \d{4} \d\d:\d\d (AM|PM)$/);
    const single = await onprem(`requests/${row.id}`);
    assert.deepEqual(single.body.response_status, { status_code: 2000, status: 'success' });
    assert.equal(single.body.request.id, row.id);
  });

  test('row_count is capped at 100; search criteria and sort; bad input answers 4001 with the field', async () => {
    const all = await onprem('requests', {
      row_count: 500,
      sort_field: 'last_updated_time',
      sort_order: 'asc',
      get_total_count: true,
      fields_required: ['last_updated_time'],
    });
    assert.equal(all.body.requests.length, 100);
    assert.equal(all.body.list_info.total_count, 150);
    const luts = all.body.requests.map((r: Json) => (r.last_updated_time ? Number(r.last_updated_time.value) : -1));
    assert.deepEqual(
      luts,
      [...luts].sort((a: number, b: number) => a - b),
    );
    const pivot = luts[60];
    const since = await onprem('requests', {
      row_count: 100,
      sort_field: 'last_updated_time',
      sort_order: 'asc',
      fields_required: ['last_updated_time'],
      search_criteria: [{ field: 'last_updated_time', condition: 'greater or equal', value: String(pivot) }],
    });
    assert.ok(since.body.requests.every((r: Json) => Number(r.last_updated_time.value) >= pivot));
    const bad = await onprem('requests', { sort_field: 'nope' });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.response_status.messages[0], { status_code: 4001, field: 'sort_field', type: 'failed', message: 'Invalid Input' });
    assert.equal((await onprem('requests/99999')).body.response_status.messages[0].status_code, 4007);
    assert.equal((await onprem('requests', undefined, 'wrong')).status, 401);
  });

  test('OAuth: single-use codes, scopes inherited by tokens, refresh limit, revoke', async () => {
    const code = sim.mintAuthorizationCode(['SDPOnDemand.requests.READ']);
    const form = { grant_type: 'authorization_code', client_id: sim.clientId, client_secret: sim.clientSecret, code };
    const ok = await token(form);
    assert.deepEqual(Object.keys(ok.body).sort(), ['access_token', 'api_domain', 'expires_in', 'refresh_token', 'token_type']);
    assert.equal(ok.body.expires_in, 3600);
    assert.deepEqual((await token(form)).body, { error: 'invalid_code' }, 'single use, HTTP 200 error body');
    const at = ok.body.access_token;
    const get = (path: string) => fetch(`${sim.url}/app/${sim.portal}/api/v3/${path}`, { headers: { authorization: `Zoho-oauthtoken ${at}` } });
    assert.equal((await get('requests')).status, 200);
    const denied = await get('assets');
    assert.equal(denied.status, 401);
    assert.equal(((await denied.json()) as Json).response_status.messages[0].status_code, 4002);
    assert.equal((await fetch(`${sim.url}/app/other/api/v3/requests`, { headers: { authorization: `Zoho-oauthtoken ${at}` } })).status, 404, 'wrong portal');
    const refresh = { grant_type: 'refresh_token', client_id: sim.clientId, client_secret: sim.clientSecret, refresh_token: ok.body.refresh_token };
    for (let i = 0; i < 10; i++) assert.ok((await token(refresh)).body.access_token);
    const blocked = await token(refresh);
    assert.equal(blocked.body.error, 'Access Denied');
    assert.match(blocked.body.error_description, /too many requests/);
    const rv = await fetch(`${sim.accountsUrl}/oauth/v2/token/revoke?token=${ok.body.refresh_token}`, { method: 'POST' });
    assert.deepEqual(await rv.json(), { status: 'success' });
    assert.equal((await get('requests')).status, 401, 'revoking the refresh token revokes its access tokens');
  });

  test('control: update bumps last_updated_time, delete removes, faults switch, stats count paths', async () => {
    const post = (p: string, b: unknown) => fetch(`${sim.url}/_sim/${p}`, { method: 'POST', body: JSON.stringify(b) }).then((r) => r.json() as Promise<Json>);
    const before = (await onprem('requests/7')).body.request;
    const u = await post('update', { kind: 'requests', ids: ['7'] });
    assert.deepEqual(u.ids, ['7']);
    const afterUpdate = (await onprem('requests/7')).body.request;
    assert.ok(Number(afterUpdate.last_updated_time.value) > Number(before.last_updated_time?.value ?? 0));
    await post('delete', { kind: 'requests', ids: ['8'] });
    assert.equal((await onprem('requests/8')).status, 404);
    await post('faults', { rateLimit: { times: 1 } });
    const limited = await onprem('requests');
    assert.equal(limited.body.response_status.messages[0].status_code, 4015);
    assert.equal((await onprem('requests')).status, 200);
    const stats = (await fetch(`${sim.url}/_sim/stats`).then((r) => r.json())) as Json;
    assert.ok(stats.requests['/api/v3/requests'] >= 4);
    assert.equal(stats.faults.rateLimit, 1);
  });

  test('the CLI prints one JSON line with URLs and credentials, then serves until SIGTERM', async () => {
    const entry = fileURLToPath(new URL('../../sim/servicedesk-plus/index.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', `import(${JSON.stringify(entry)}).then((m) => m.runSdpSimCli(['--requests', '5', '--seed', '9']))`],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const line = await new Promise<string>((resolve) => {
      let buf = '';
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        if (buf.includes('\n')) resolve(buf.split('\n')[0]!);
      });
    });
    const info = JSON.parse(line) as Json;
    for (const k of ['url', 'accountsUrl', 'portal', 'clientId', 'clientSecret', 'authorizationCode', 'apiKey']) assert.ok(info[k], k);
    const r = await fetch(`${info.url}/api/v3/requests`, { headers: { authtoken: info.apiKey } });
    assert.equal(((await r.json()) as Json).requests.length, 5);
    // The start line says how long the code lasts and how to get another (the command it prints works).
    assert.equal(info.authorizationCodeExpiresInSeconds, 180);
    const again = spawnSync('sh', ['-c', String(info.newAuthorizationCode)], { encoding: 'utf8' });
    assert.match(JSON.parse(again.stdout).code, /^1000\./, again.stderr);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  });
});
