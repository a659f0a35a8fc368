// The vulnerabilities stream's pages mapped on its page thread (streams/page-worker.ts) give exactly the
// records, failures and checkpoints that mapping them on the main thread gives, hosts included.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page, StreamContext } from '../../../src/core/connector.ts';
import { silentLogger } from '../../../src/core/log.ts';
import { TenableScClient } from '../../../src/connectors/tenable-sc/client.ts';
import { requireApi } from '../../../src/connectors/tenable-sc/config.ts';
import { type TenableScConfig, tenableScConnector } from '../../../src/connectors/tenable-sc/index.ts';
import { HostResolver } from '../../../src/connectors/tenable-sc/map/host-resolver.ts';
import { PageWorker, resolveHosts } from '../../../src/connectors/tenable-sc/streams/page-worker.ts';
import { complianceStream } from '../../../src/connectors/tenable-sc/streams/inventory.ts';
import { vulnerabilitiesStream } from '../../../src/connectors/tenable-sc/streams/vulnerabilities.ts';

process.env.TRIBUTARY_RETRY_BASE_MS ??= '5';
const { startTenableSim } = (await import(new URL('../../../sim/tenable-sc/index.ts', import.meta.url).href)) as {
  startTenableSim: (o: Record<string, unknown>) => Promise<{ url: string; analyst: { accessKey: string; secretKey: string }; close(): Promise<void> }>;
};

function streamCtx(): StreamContext {
  return {
    sourceName: 'sc',
    log: silentLogger,
    state: { get: async () => ({}), set: async () => {} },
    mode: 'full',
    checkpoint: null,
    resumed: false,
    signal: new AbortController().signal,
  };
}

async function read(config: TenableScConfig, threaded: boolean, stream = vulnerabilitiesStream): Promise<Page[]> {
  const api = requireApi(config);
  // A client without fetchAnalysisPageOn (as a test's fake) keeps the mapping on this thread.
  const client = (): TenableScClient => {
    const real = new TenableScClient(api);
    if (threaded) return real;
    return { fetchAnalysisPage: real.fetchAnalysisPage.bind(real), get: real.get.bind(real), close: () => real.close() } as unknown as TenableScClient;
  };
  const pages: Page[] = [];
  for await (const p of stream({ config: api, client }).read(streamCtx())) pages.push(p);
  return pages;
}

describe('the findings and compliance streams on their page thread', () => {
  let sim: Awaited<ReturnType<typeof startTenableSim>>;
  before(async () => {
    sim = await startTenableSim({ port: 0, hosts: 40, findingsPerHost: 15, seed: 11 });
  });
  after(async () => sim.close());

  test('maps every page as the main thread does: records, hosts, plugins, checkpoints', async () => {
    const config = tenableScConnector.configSchema.parse({
      apiUrl: sim.url,
      accessKey: sim.analyst.accessKey,
      secretKey: sim.analyst.secretKey,
      pageSize: 37,
      includeInformational: true,
    });
    const here = await read(config, false);
    const there = await read(config, true);
    assert.ok(here.length > 10, `pages: ${here.length}`);
    const count = (pages: Page[], m: string) => pages.reduce((n, p) => n + ((p.records as Record<string, unknown[]>)[m]?.length ?? 0), 0);
    assert.ok(count(here, 'vulnerabilities') > 400);
    assert.ok(count(here, 'plugins') > 10);
    assert.equal(there.length, here.length);
    for (let i = 0; i < here.length; i++) {
      // Same records in the same order per model, and the same models in the same order.
      assert.deepEqual(Object.keys(there[i]!.records), Object.keys(here[i]!.records), `page ${i}`);
      assert.deepEqual(there[i], here[i], `page ${i}`);
    }
  });

  test('maps compliance results as the main thread does, their keys and hosts included', async () => {
    const config = tenableScConnector.configSchema.parse({ apiUrl: sim.url, accessKey: sim.analyst.accessKey, secretKey: sim.analyst.secretKey, pageSize: 29 });
    const here = await read(config, false, complianceStream);
    const there = await read(config, true, complianceStream);
    const results = here.flatMap((p) => p.records.compliance ?? []);
    assert.ok(results.length > 50, `results: ${results.length}`);
    assert.ok(results.every((r) => r.key.startsWith(`${r.hostKey}|`)));
    assert.deepEqual(there, here);
  });

  test('a row whose host cannot be resolved is counted and listed, the rows after it still resolved', () => {
    const m = {
      model: 'vulnerabilities',
      records: [
        { key: 'a', hostKey: '', externalId: 'u1', fields: { pluginId: '1' } },
        { key: 'b', hostKey: '', fields: { pluginId: '1' } },
        { key: 'c', hostKey: '', fields: { pluginId: '2' } },
      ],
      plugins: [{ key: '1', fields: {} }],
      hostRows: [{ ip: '10.0.0.1' }, 0, { ip: '10.0.0.2' }] as (Record<string, unknown> | 0)[],
      recordAt: [0, 1, 2],
      pluginAt: [0, -1, -1],
      errors: 1,
      failures: [{ row: 'row 9 of x', field: 'pluginID', reason: 'a row without a pluginID' }],
      warnings: [],
    };
    const resolver = new HostResolver();
    const real = resolver.rowHost.bind(resolver);
    resolver.rowHost = (row, add) => {
      if (row.ip === '10.0.0.1') throw new Error('no such host');
      return real(row, add);
    };
    const out = resolveHosts(m as never, resolver, { what: 'x', firstRow: 1 });
    assert.equal(out.errors, 3);
    assert.deepEqual(
      out.failures.map((f) => f.row),
      ['row 9 of x', 'id u1', 'a row of x'],
    );
    assert.deepEqual(
      (out.records.vulnerabilities ?? []).map((v) => v.key),
      ['c'],
    );
    assert.equal(out.records.vulnerabilities?.[0]?.hostKey, out.records.hosts?.[0]?.key);
    // The plugin record of a failed row is kept (its text is the plugin's, not the row's).
    assert.equal(out.records.plugins?.length, 1);
  });

  test('an answer that is not the API fails as on the main thread, and the thread stops', async () => {
    const pages = new PageWorker({});
    try {
      const r = await pages.parse({ status: 200, headers: { 'content-type': 'text/html' }, text: '<html><title>Sign in</title></html>' }, 'x');
      assert.ok('problem' in r && r.problem.kind === 'not-json', JSON.stringify(r));
      const ok = await pages.parse({ status: 200, headers: {}, text: JSON.stringify({ error_code: 0, response: { results: [{}], totalRecords: '1' } }) }, 'x');
      assert.ok('page' in ok && ok.page.rowCount === 1 && ok.page.total === 1, JSON.stringify(ok));
      const bad = await pages.parse({ status: 200, headers: {}, text: JSON.stringify({ error_code: 0, response: { results: [1] } }) }, 'x');
      assert.ok('refused' in bad, JSON.stringify(bad));
    } finally {
      assert.equal(typeof (await pages.close()), 'number');
    }
  });
});
