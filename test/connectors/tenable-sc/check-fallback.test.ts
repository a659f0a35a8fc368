// A console that will not list repositories (helper endpoints refused) still passes the check: the
// data probe proved access; the repositories item says it could not list them. Likewise scan results.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { tenableScConnector } from '../../../src/connectors/tenable-sc/index.ts';
import type { ConnectorContext } from '../../../src/core/connector.ts';
import { silentLogger } from '../../../src/core/log.ts';
import { type RunningTenableSim, startTenableSim } from '../../../sim/tenable-sc/index.ts';

process.env.TRIBUTARY_RETRY_BASE_MS ??= '5';
const ctx: ConnectorContext = { sourceName: 'sc', log: silentLogger, state: { get: async () => ({}), set: async () => {} } };
let sim: RunningTenableSim;
before(async () => {
  sim = await startTenableSim({ port: 0, hosts: 4, findingsPerHost: 2, serverError: { every: 1, status: 500 }, paths: ['/rest/group', '/rest/repository'] });
});
after(() => sim?.close());

test('repositories that cannot be listed do not fail the check', async () => {
  const config = tenableScConnector.configSchema.parse({ apiUrl: sim.url, accessKey: sim.analyst.accessKey, secretKey: sim.analyst.secretKey });
  const checks = await tenableScConnector.check(config, ctx);
  assert.ok(
    checks.every((c) => c.ok),
    JSON.stringify(checks.filter((c) => !c.ok)),
  );
  const repos = checks.find((c) => c.id === 'repositories');
  assert.match(repos?.message ?? '', /could not list the repositories/);
  assert.match(repos?.hint ?? '', /Access section/);
});

test('scan results the role may not list do not fail the check: it says incremental runs keep the 12-hour overlap', async () => {
  const closed = await startTenableSim({ port: 0, hosts: 4, findingsPerHost: 2, scanResultsForbidden: true });
  try {
    const config = tenableScConnector.configSchema.parse({ apiUrl: closed.url, accessKey: closed.analyst.accessKey, secretKey: closed.analyst.secretKey });
    const checks = await tenableScConnector.check(config, ctx);
    assert.ok(checks.every((c) => c.ok));
    const scans = checks.find((c) => c.id === 'scan-results');
    assert.match(scans?.message ?? '', /could not list the scan results \(.*error 143.*\): incremental runs re-read the 12 hours/);
  } finally {
    await closed.close();
  }
});
