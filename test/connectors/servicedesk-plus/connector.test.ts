// The connector against the simulator: OAuth code exchange, token refresh and limits, revocation, the
// credential check, on-prem API keys, paging, incremental runs, resume and 4015 retries.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { servicedeskPlusConnector as sdp } from '../../../src/connectors/servicedesk-plus/index.ts';
import { TokenManager, type TokenState } from '../../../src/connectors/servicedesk-plus/oauth.ts';
import type { SdpCheckpoint } from '../../../src/connectors/servicedesk-plus/streams/paging.ts';
import type { Stream } from '../../../src/core/connector.ts';
import { InputError, UpstreamError } from '../../../src/core/errors.ts';
import { silentLogger } from '../../../src/core/log.ts';
import { type RunningSdpSim, startSdpSim } from '../../../sim/servicedesk-plus/index.ts';
import { connectorCtx, drain, memState, parseConfig, streamCtx } from './helpers.ts';

process.env.TRIBUTARY_RETRY_BASE_MS = '1';
const DAY = 24 * 3600_000;
const stream = (streams: Stream[], name: string) => streams.find((s) => s.name === name)!;

describe('servicedesk-plus connector against the simulator', () => {
  let sim: RunningSdpSim;
  const cloudInput = (extra: Record<string, unknown> = {}) => ({
    clientId: sim.clientId,
    clientSecret: sim.clientSecret,
    accountsUrl: sim.accountsUrl,
    serverUrl: sim.url,
    portal: sim.portal,
    ...extra,
  });
  const onpremInput = (extra: Record<string, unknown> = {}) => ({ serverUrl: sim.url, apiKey: sim.apiKey, ...extra });

  /** A cloud source saved with a fresh code: returns its config and state. */
  async function saveCloud(scopes?: string[]) {
    const state = memState();
    const config = parseConfig(cloudInput({ authorizationCode: sim.mintAuthorizationCode(scopes) }));
    const saved = await sdp.onSave!(config, null, connectorCtx(state));
    return { config: parseConfig(saved), saved, state };
  }

  before(async () => {
    sim = await startSdpSim({ seed: 7, now: Date.now() - 2 * DAY, requests: 230, assets: 40, cis: 12, users: 30, technicians: 5 });
  });
  after(async () => {
    await sim?.close();
  });

  test('onSave exchanges the code once; the stored config has no code; the refresh token is in state', async () => {
    const before = sim.stats().tokens.authorization_code;
    const code = sim.mintAuthorizationCode();
    const state = memState();
    const saved = await sdp.onSave!(parseConfig(cloudInput({ authorizationCode: code })), null, connectorCtx(state));
    assert.equal('authorizationCode' in saved, false);
    assert.equal(sim.stats().tokens.authorization_code, before + 1);
    const st = state.peek() as TokenState;
    assert.match(st.refreshToken ?? '', /^1000\./);
    assert.ok((st.accessTokenExpiresAt ?? 0) > Date.now() + 3000_000, 'access token valid ~1 h');
    // Saving again without a code keeps the token; a reused code is refused with the fix.
    assert.deepEqual(await sdp.onSave!(parseConfig(saved), parseConfig(saved), connectorCtx(state)), parseConfig(saved));
    await assert.rejects(sdp.onSave!(parseConfig(cloudInput({ authorizationCode: code })), null, connectorCtx(memState())), (err: unknown) => {
      assert.ok(err instanceof InputError);
      assert.match(err.message, /expired or was already used/);
      assert.match(err.message, /valid for a few minutes/);
      assert.equal(err.field, 'authorizationCode');
      return true;
    });
  });

  test('expired code, code of another data centre, missing code and wrong secret are refused clearly', async () => {
    const expired = sim.mintAuthorizationCode(undefined, { ttlSeconds: -1 });
    await assert.rejects(
      sdp.onSave!(parseConfig(cloudInput({ authorizationCode: expired })), null, connectorCtx(memState())),
      /generate a new code|Generate a new code/i,
    );
    const eu = sim.mintAuthorizationCode(undefined, { dc: 'eu' });
    await assert.rejects(sdp.onSave!(parseConfig(cloudInput({ authorizationCode: eu })), null, connectorCtx(memState())), (err: unknown) => {
      assert.ok(err instanceof InputError);
      assert.match(err.message, /invalid_client/);
      assert.match(err.message, /region 'us'/);
      assert.match(err.message, /api-console\.zoho\.eu → eu/);
      return true;
    });
    await assert.rejects(sdp.onSave!(parseConfig(cloudInput()), null, connectorCtx(memState())), /authorizationCode is required.*SDPOnDemand\.requests\.READ/);
    await assert.rejects(
      sdp.onSave!(parseConfig(cloudInput({ clientSecret: 'wrong', authorizationCode: sim.mintAuthorizationCode() })), null, connectorCtx(memState())),
      /Client ID or Client Secret is wrong/,
    );
  });

  test('the check passes with all scopes; the access token is refreshed before expiry and then cached', async () => {
    const { config, state } = await saveCloud();
    await state.set({ accessTokenExpiresAt: Date.now() + 30_000 });
    const refreshes = sim.stats().tokens.refresh_token;
    const checks = await sdp.check(config, connectorCtx(state));
    assert.deepEqual(
      checks.map((c) => [c.id, c.ok]),
      [
        ['token', true],
        ['region', true],
        ['reachability', true],
        ['authentication', true],
        ['tickets', true],
        ['cmdb', true],
        ['asset-api', true],
        ['users', true],
        ['services', true],
      ],
      JSON.stringify(checks),
    );
    assert.equal(sim.stats().tokens.refresh_token, refreshes + 1, 'refreshed because it expired within the margin');
    await sdp.check(config, connectorCtx(state));
    assert.equal(sim.stats().tokens.refresh_token, refreshes + 1, 'the refreshed token is cached in state');
  });

  test('a token without a scope: the check names the missing scope; the stream fails with it', async () => {
    const { config, state } = await saveCloud(['SDPOnDemand.requests.READ']);
    const checks = Object.fromEntries((await sdp.check(config, connectorCtx(state))).map((c) => [c.id, c]));
    assert.equal(checks.tickets!.ok, true);
    assert.equal(checks.cmdb!.ok, false);
    assert.match(checks.cmdb!.message, /missing scope SDPOnDemand\.assets\.READ/);
    assert.match(checks.cmdb!.hint ?? '', /new authorization code/);
    assert.match(checks.users!.message, /SDPOnDemand\.users\.READ/);
    assert.match(checks.services!.message, /SDPOnDemand\.setup\.READ/);
    const refreshes = sim.stats().tokens.refresh_token;
    await assert.rejects(drain(stream(sdp.streams(config, connectorCtx(state)), 'cmdb-assets'), streamCtx(state)), /missing scope SDPOnDemand\.assets\.READ/);
    assert.equal(sim.stats().tokens.refresh_token, refreshes, 'a scope denial does not trigger a refresh');
  });

  test('wrong region is reported from api_domain', async () => {
    const eu = await startSdpSim({ dc: 'eu', requests: 3 });
    try {
      const state = memState();
      const input = { clientId: eu.clientId, clientSecret: eu.clientSecret, accountsUrl: eu.accountsUrl, serverUrl: eu.url, portal: eu.portal, region: 'us' };
      const saved = await sdp.onSave!(parseConfig({ ...input, authorizationCode: eu.mintAuthorizationCode() }), null, connectorCtx(state));
      const region = (await sdp.check(parseConfig(saved), connectorCtx(state))).find((c) => c.id === 'region')!;
      assert.equal(region.ok, false);
      assert.match(region.message, /'eu' data centre/);
      assert.equal(region.hint, 'Set region to eu');
    } finally {
      await eu.close();
    }
  });

  test('a 401 refreshes once and the stream continues; concurrent callers share one refresh', async () => {
    const { config, state } = await saveCloud();
    await fetch(`${sim.url}/_sim/expire-tokens`, { method: 'POST' });
    const refreshes = sim.stats().tokens.refresh_token;
    const { records } = await drain(stream(sdp.streams(config, connectorCtx(state)), 'services'), streamCtx(state));
    assert.ok(records.length > 0);
    assert.equal(sim.stats().tokens.refresh_token, refreshes + 1);

    await state.set({ accessTokenExpiresAt: Date.now() - 1 });
    const tm = new TokenManager(config, state, silentLogger);
    const tokens = await Promise.all(Array.from({ length: 6 }, () => tm.accessToken()));
    assert.equal(new Set(tokens).size, 1);
    assert.equal(tm.refreshes, 1);
    assert.equal(sim.stats().tokens.refresh_token, refreshes + 2);
  });

  test('never more than 10 token requests per 10 minutes (Zoho would block the client)', async () => {
    const { config, state } = await saveCloud();
    const tm = new TokenManager(config, state, silentLogger);
    const throttled = sim.stats().tokens.throttled;
    let token = await tm.accessToken();
    let refused: unknown = null;
    for (let i = 0; i < 12 && !refused; i++) {
      tm.invalidate(token);
      try {
        token = await tm.accessToken();
      } catch (err) {
        refused = err;
      }
    }
    assert.ok(refused instanceof UpstreamError, 'the connector stops asking');
    assert.match(refused.message, /not requesting another access token: 10 were requested/);
    assert.equal(tm.refreshes, 9, 'the code exchange counts as the first of ten');
    assert.equal(sim.stats().tokens.throttled, throttled, 'Zoho never had to throttle');
  });

  test('removal revokes the refresh token when revokeTokenOnDeletion is set', async () => {
    const { config, state } = await saveCloud();
    const rt = (state.peek() as TokenState).refreshToken!;
    await sdp.onRemove!(config, connectorCtx(state));
    assert.equal(sim.accounts.isRevoked(rt), false, 'not revoked by default');
    await sdp.onRemove!(parseConfig({ ...config, revokeTokenOnDeletion: 'true' }), connectorCtx(state));
    assert.equal(sim.accounts.isRevoked(rt), true);
    assert.equal((state.peek() as TokenState).refreshToken, null);
  });

  test('on-prem: authtoken header, all checks pass, four streams page through the data', async () => {
    const config = parseConfig(onpremInput());
    const state = memState();
    const checks = await sdp.check(config, connectorCtx(state));
    assert.ok(
      checks.every((c) => c.ok),
      JSON.stringify(checks),
    );
    assert.equal(
      checks.some((c) => c.id === 'token'),
      false,
    );
    await fetch(`${sim.url}/_sim/reset-stats`, { method: 'POST' });
    const streams = sdp.streams(config, connectorCtx(state));
    assert.deepEqual(
      streams.map((s) => s.name),
      ['tickets', 'cmdb-assets', 'users', 'services'],
    );
    const t = await drain(stream(streams, 'tickets'), streamCtx(state));
    assert.deepEqual(
      t.pages.map((p) => (p.records.tickets ?? []).length),
      [100, 100, 30],
    );
    assert.equal(sim.stats().requests['/api/v3/requests'], 3);
    assert.equal(new Set(t.records.map((r) => r.key)).size, 230);
    const first = t.records.find((r) => r.externalId === '1')!;
    assert.equal(first.key, 'request:1');
    assert.ok(['incident', 'request'].includes(String(first.fields.kind)), 'fields_required brings request_type');
    assert.match(String(first.fields.createdAt), /^\d{4}-\d\d-\d\dT.*Z$/);
    const last = t.pages.at(-1)!.checkpoint as SdpCheckpoint;
    assert.deepEqual(last.done, ['requests']);
    assert.equal(last.cursor, null);
    assert.equal(typeof last.watermarks.requests, 'number');

    const a = await drain(stream(streams, 'cmdb-assets'), streamCtx(state));
    assert.equal(a.records.filter((r) => r.key.startsWith('asset:')).length, 40);
    assert.equal(a.records.filter((r) => r.key.startsWith('ci:')).length, 24, 'computers and databases; business services go to services');
    const asset = a.records.find((r) => r.key.startsWith('asset:') && (r.fields.ipAddresses as string[]).length > 0)!;
    assert.match((asset.fields.macAddresses as string[])[0]!, /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/);
    const u = await drain(stream(streams, 'users'), streamCtx(state));
    const techs = u.records.filter((r) => r.fields.isTechnician === true);
    assert.ok(techs.some((r) => r.fields.name === 'administrator'));
    const s = await drain(stream(streams, 'services'), streamCtx(state));
    assert.equal(s.records.filter((r) => r.key.startsWith('business_service:')).length, 4);
    assert.equal(s.records.filter((r) => r.key.startsWith('service_category:')).length, 8);
  });

  test('on-prem: a technician without permission is named in the check', async () => {
    const denied = await startSdpSim({ apiKeyDenied: ['assets'], requests: 2 });
    try {
      const checks = await sdp.check(parseConfig({ serverUrl: denied.url, apiKey: denied.apiKey }), connectorCtx(memState()));
      const cmdb = checks.find((c) => c.id === 'cmdb')!;
      assert.equal(cmdb.ok, false);
      assert.match(cmdb.message, /technician of this API key may not read assets/);
      const bad = await sdp.check(parseConfig({ serverUrl: denied.url, apiKey: 'nope' }), connectorCtx(memState()));
      assert.deepEqual(
        bad.map((c) => [c.id, c.ok]),
        [
          ['reachability', true],
          ['authentication', false],
        ],
      );
      assert.match(bad[1]!.message, /API key was refused/);
    } finally {
      await denied.close();
    }
  });

  test('incremental: only what changed since the watermark (inclusive), including created records', async () => {
    const config = parseConfig(onpremInput());
    const state = memState();
    const tickets = stream(sdp.streams(config, connectorCtx(state)), 'tickets');
    const full = await drain(tickets, streamCtx(state));
    const cp = full.pages.at(-1)!.checkpoint;
    const post = (path: string, body: unknown) =>
      fetch(`${sim.url}/_sim/${path}`, { method: 'POST', body: JSON.stringify(body) }).then((r) => r.json() as Promise<{ ids: string[] }>);
    const updated = await post('update', { kind: 'requests', ids: ['5', '17', '150'] });
    const created = await post('create', { kind: 'requests', count: 2 });
    assert.deepEqual(updated.ids, ['5', '17', '150']);
    const inc = await drain(tickets, streamCtx(state, 'incremental', cp));
    const ids = inc.records.map((r) => r.externalId);
    for (const id of [...updated.ids, ...created.ids]) assert.ok(ids.includes(id), `${id} re-read`);
    assert.ok(ids.length <= 7, `only changes and the inclusive boundary (${ids.length})`);
    assert.match(String(inc.records.find((r) => r.externalId === '5')!.fields.subject), /\(update 1\)/);
    const next = inc.pages.at(-1)!.checkpoint as SdpCheckpoint;
    assert.ok(next.watermarks.requests! > (cp as SdpCheckpoint).watermarks.requests!);
    // Nothing changed since: the next run re-reads only changes inside the overlap window before its start.
    const again = await drain(tickets, streamCtx(state, 'incremental', next));
    assert.ok(
      again.records.every((r) => ids.includes(r.externalId)),
      'nothing outside the last changes',
    );
    assert.ok(next.watermarks.requests! <= Date.now() - 4 * 60_000, 'the watermark never reaches past the run start minus the overlap');
  });

  test('resume continues after the last stored page', async () => {
    const config = parseConfig(onpremInput());
    const state = memState();
    const tickets = stream(sdp.streams(config, connectorCtx(state)), 'tickets');
    const firstPage = await drain(tickets, streamCtx(state), 1);
    const cp = firstPage.pages[0]!.checkpoint as SdpCheckpoint;
    assert.equal(cp.cursor?.skip, 100);
    const rest = await drain(tickets, streamCtx(state, 'full', cp, true));
    const all = new Set([...firstPage.records, ...rest.records].map((r) => r.key));
    assert.equal(all.size, 232);
    assert.equal(firstPage.records.length + rest.records.length, 232, 'no page read twice');
  });

  test('4015 rate limiting and 503s are retried with backoff', async () => {
    const config = parseConfig(onpremInput());
    const state = memState();
    sim.setFaults({ rateLimit: { times: 2 }, serverError: { times: 1 } });
    const before = sim.stats().faults;
    const { records } = await drain(stream(sdp.streams(config, connectorCtx(state)), 'users'), streamCtx(state));
    const after = sim.stats().faults;
    sim.setFaults({});
    assert.equal(new Set(records.map((r) => r.key)).size, 35, 'on-prem /users lists technicians too; same keys');
    assert.equal((after.rateLimit ?? 0) - (before.rateLimit ?? 0), 2);
    assert.equal((after.serverError ?? 0) - (before.serverError ?? 0), 1);
  });

  test('cloud streams read through the portal path with the OAuth token', async () => {
    const { config, state } = await saveCloud();
    await fetch(`${sim.url}/_sim/reset-stats`, { method: 'POST' });
    const { records } = await drain(stream(sdp.streams(config, connectorCtx(state)), 'cmdb-assets'), streamCtx(state));
    assert.ok(
      records.every((r) => /^\d{18}$/.test(String(r.externalId))),
      'cloud ids are long strings',
    );
    const paths = Object.keys(sim.stats().requests);
    assert.ok(paths.includes('/app/itdesk/api/v3/product_types'));
    assert.ok(paths.includes('/app/itdesk/api/v3/asset_laptops'), 'the simulator serves both asset APIs; the per-product-type one is preferred');
    assert.ok(!paths.includes('/app/itdesk/api/v3/assets'));
    assert.ok(paths.includes('/app/itdesk/api/v3/cmdb/ci_types'));
    assert.ok(paths.includes('/app/itdesk/api/v3/cmdb/ci_computer'));
  });
});
