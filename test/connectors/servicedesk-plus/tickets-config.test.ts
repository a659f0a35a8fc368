// Remediation tickets on a ServiceDesk Plus source (issue 32 §1): the `remediationTickets` section (off by
// default, its defaults, JSON from a form), and `sources check` saying whether writing is allowed from the
// token's scopes (cloud) or the key's role (on-prem) without creating anything.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ticketSettingsOf } from '../../../src/connectors/servicedesk-plus/config.ts';
import sdp from '../../../src/connectors/servicedesk-plus/index.ts';
import { type RunningSdpSim, startSdpSim } from '../../../sim/servicedesk-plus/index.ts';
import { connectorCtx, memState, parseConfig } from './helpers.ts';

const READ = ['SDPOnDemand.requests.READ', 'SDPOnDemand.assets.READ', 'SDPOnDemand.cmdb.READ', 'SDPOnDemand.users.READ', 'SDPOnDemand.setup.READ'];

describe('servicedesk-plus remediation tickets: configuration', () => {
  test('off by default with its defaults; a form sends JSON text; unknown keys and bad values are refused', () => {
    const plain = parseConfig({ serverUrl: 'https://sdp.example.com', apiKey: 'k' });
    assert.equal(plain.remediationTickets, undefined);
    assert.equal(ticketSettingsOf(plain).enabled, false);
    const on = ticketSettingsOf(parseConfig({ serverUrl: 'https://sdp.example.com', apiKey: 'k', remediationTickets: '{"enabled": true}' }));
    assert.equal(on.enabled, true);
    assert.equal(on.grouping, 'fix-owner');
    assert.equal(on.maxCreatesPerRun, 50);
    assert.equal(on.minSeverity, 'high');
    assert.equal(on.template.priority.critical, 'High');
    const set = ticketSettingsOf(
      parseConfig({
        serverUrl: 'https://sdp.example.com',
        apiKey: 'k',
        remediationTickets: { enabled: 'yes', grouping: 'asset', maxCreatesPerRun: '5', departments: 'Finance, HR' },
      }),
    );
    assert.deepEqual([set.enabled, set.grouping, set.maxCreatesPerRun, set.departments], [true, 'asset', 5, ['Finance', 'HR']]);
    assert.throws(
      () => parseConfig({ serverUrl: 'https://sdp.example.com', apiKey: 'k', remediationTickets: { enabled: true, grouping: 'per-cve' } }),
      /grouping/,
    );
    assert.throws(() => parseConfig({ serverUrl: 'https://sdp.example.com', apiKey: 'k', remediationTickets: { enabled: true, bogus: 1 } }), /bogus/);
    // File mode never writes.
    assert.equal(ticketSettingsOf(parseConfig({ inputMode: 'file', remediationTickets: { enabled: true } })).enabled, false);
  });
});

describe('servicedesk-plus remediation tickets: the contract keys (interfaces.md 7.4)', () => {
  const base = { serverUrl: 'https://sdp.example.com', apiKey: 'k' };
  test('remediationTickets as a boolean: false by default, true = on with the defaults, ticketing the act decisions', () => {
    assert.equal(ticketSettingsOf(parseConfig(base)).enabled, false);
    assert.equal(ticketSettingsOf(parseConfig({ ...base, remediationTickets: false })).enabled, false);
    assert.equal(ticketSettingsOf(parseConfig({ ...base, remediationTickets: 'false' })).enabled, false);
    for (const v of [true, 'true']) {
      const on = ticketSettingsOf(parseConfig({ ...base, remediationTickets: v }));
      assert.deepEqual([on.enabled, on.grouping, on.maxCreatesPerRun, on.decisions], [true, 'fix-owner', 50, ['act']]);
    }
    // The object form without ticketDecisions still selects by severity.
    assert.equal(ticketSettingsOf(parseConfig({ ...base, remediationTickets: { enabled: true } })).decisions, undefined);
  });

  test('top-level ticketDecisions, ticketGroupBy, ticketMaxPerRun win over the object section', () => {
    const s = ticketSettingsOf(
      parseConfig({
        ...base,
        remediationTickets: { enabled: true, grouping: 'asset', maxCreatesPerRun: 5 },
        ticketDecisions: 'act, attend,track-star',
        ticketGroupBy: 'fix',
        ticketMaxPerRun: '7',
      }),
    );
    assert.deepEqual([s.enabled, s.grouping, s.maxCreatesPerRun, s.decisions], [true, 'fix', 7, ['act', 'attend', 'track-star']]);
    const arr = ticketSettingsOf(parseConfig({ ...base, remediationTickets: true, ticketDecisions: ['track'], ticketGroupBy: 'asset' }));
    assert.deepEqual([arr.decisions, arr.grouping], [['track'], 'asset']);
    assert.throws(() => parseConfig({ ...base, ticketDecisions: 'act,urgent' }), /ticketDecisions/);
    assert.throws(() => parseConfig({ ...base, ticketGroupBy: 'per-cve' }), /ticketGroupBy/);
    assert.throws(() => parseConfig({ ...base, ticketMaxPerRun: -1 }), /ticketMaxPerRun/);
  });
});

describe('servicedesk-plus remediation tickets: sources check', () => {
  let sim: RunningSdpSim;
  let readOnly: RunningSdpSim;
  before(async () => {
    sim = await startSdpSim({ seed: 8, requests: 20, assets: 10, cis: 3, users: 5, technicians: 2 });
    readOnly = await startSdpSim({
      seed: 8,
      requests: 20,
      assets: 10,
      cis: 3,
      users: 5,
      technicians: 2,
      apiKeyRole: { addRequests: false, editRequests: true },
    });
  });
  after(async () => {
    await sim?.close();
    await readOnly?.close();
  });

  const checksOf = async (config: ReturnType<typeof parseConfig>, state = memState()) =>
    Object.fromEntries((await sdp.check(config, connectorCtx(state))).map((c) => [c.id, c]));

  async function cloud(scopes: string[]) {
    const state = memState();
    const input = {
      clientId: sim.clientId,
      clientSecret: sim.clientSecret,
      accountsUrl: sim.accountsUrl,
      serverUrl: sim.url,
      portal: sim.portal,
      remediationTickets: { enabled: true },
    };
    const saved = await sdp.onSave!(parseConfig({ ...input, authorizationCode: sim.mintAuthorizationCode(scopes) }), null, connectorCtx(state));
    return { config: parseConfig(saved), state };
  }

  test('off: no write probe at all', async () => {
    const checks = await checksOf(parseConfig({ serverUrl: sim.url, apiKey: sim.apiKey }));
    assert.equal(checks['remediation-create'], undefined);
    assert.equal(sim.stats().requests['/api/v3/requests/0'] ?? 0, 0);
  });

  test('cloud: read scopes only → both refused naming the scope; with CREATE and UPDATE → allowed; nothing created', async () => {
    const ro = await cloud(READ);
    const denied = await checksOf(ro.config, ro.state);
    assert.equal(denied['remediation-create']!.ok, false);
    assert.match(denied['remediation-create']!.hint ?? '', /SDPOnDemand\.requests\.CREATE/);
    assert.equal(denied['remediation-update']!.ok, false);
    assert.match(denied['remediation-update']!.hint ?? '', /SDPOnDemand\.requests\.UPDATE/);
    assert.equal(denied.tickets!.ok, true, 'reading still works');
    const rw = await cloud([...READ, 'SDPOnDemand.requests.CREATE', 'SDPOnDemand.requests.UPDATE']);
    const allowed = await checksOf(rw.config, rw.state);
    assert.equal(allowed['remediation-create']!.ok, true, JSON.stringify(allowed['remediation-create']));
    assert.equal(allowed['remediation-update']!.ok, true);
    assert.equal(sim.written.size, 0, 'the probes created nothing');
    assert.equal(sim.stats().writes.create, 0);
  });

  test('on-prem: the key role decides; a role that may edit but not add is told so', async () => {
    const full = await checksOf(parseConfig({ serverUrl: sim.url, apiKey: sim.apiKey, remediationTickets: { enabled: true } }));
    assert.deepEqual([full['remediation-create']!.ok, full['remediation-update']!.ok], [true, true]);
    const part = await checksOf(parseConfig({ serverUrl: readOnly.url, apiKey: readOnly.apiKey, remediationTickets: { enabled: true } }));
    assert.equal(part['remediation-create']!.ok, false);
    assert.match(part['remediation-create']!.message, /may not add requests/);
    assert.equal(part['remediation-update']!.ok, true);
    assert.equal(readOnly.written.size + sim.written.size, 0);
  });
});
