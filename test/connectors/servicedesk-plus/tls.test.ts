// ServiceDesk Plus on-premises over HTTPS with a self-signed certificate: refused with a TLS hint while
// verification is on, accepted with verifySsl off.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { servicedeskPlusConnector } from '../../../src/connectors/servicedesk-plus/index.ts';
import type { ConnectorContext } from '../../../src/core/connector.ts';
import { silentLogger } from '../../../src/core/log.ts';
import { type RunningSdpSim, startSdpSim } from '../../../sim/servicedesk-plus/index.ts';

process.env.TRIBUTARY_RETRY_BASE_MS ??= '5';
let sim: RunningSdpSim;
const state: Record<string, unknown> = {};
const ctx: ConnectorContext = {
  sourceName: 'desk-tls',
  log: silentLogger,
  state: { get: async () => state, set: async (p) => void Object.assign(state, p) },
};
before(async () => {
  sim = await startSdpSim({ port: 0, tls: true, requests: 5 });
});
after(() => sim?.close());

test('a self-signed on-prem server fails verification with a hint, and passes with verifySsl off', async () => {
  assert.match(sim.url, /^https:/);
  assert.match(sim.caCertificate ?? '', /BEGIN CERTIFICATE/);
  const verified = servicedeskPlusConnector.configSchema.parse({ serverUrl: sim.url, apiKey: sim.apiKey });
  const failed = await servicedeskPlusConnector.check(verified, ctx);
  const first = failed.find((c) => !c.ok);
  assert.ok(first, 'a check fails');
  assert.match(first.message, /TLS|certificate/i);
  assert.match(first.hint ?? '', /Verify SSL|verif/i);
  const unverified = servicedeskPlusConnector.configSchema.parse({ serverUrl: sim.url, apiKey: sim.apiKey, verifySsl: false });
  const ok = await servicedeskPlusConnector.check(unverified, ctx);
  assert.ok(
    ok.every((c) => c.ok),
    JSON.stringify(ok.filter((c) => !c.ok)),
  );
});
