// Check and streams against helper-1's Tenable.sc simulator (sim/tenable-sc), over real HTTP.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { ConnectorContext, Page, StreamContext } from '../../../src/core/connector.ts';
import { silentLogger } from '../../../src/core/log.ts';
import { type TenableScConfig, tenableScConnector } from '../../../src/connectors/tenable-sc/index.ts';
import { TenableScClient } from '../../../src/connectors/tenable-sc/client.ts';
import { requireApi } from '../../../src/connectors/tenable-sc/config.ts';
import type { Cursor } from '../../../src/connectors/tenable-sc/streams/cursor.ts';
import { consoleFindingTotal } from './console-totals.ts';

process.env.TRIBUTARY_RETRY_BASE_MS ??= '5';
const simPath = new URL('../../../sim/tenable-sc/index.ts', import.meta.url);
const simPresent = existsSync(simPath);

interface Sim {
  url: string;
  analyst: { accessKey: string; secretKey: string; username: string };
  admin: { accessKey: string; secretKey: string; username: string };
  caCertificate?: string;
  close(): Promise<void>;
}
type StartSim = (opts: Record<string, unknown>) => Promise<Sim>;
const startSim: StartSim | null = simPresent ? ((await import(simPath.href)) as { startTenableSim: StartSim }).startTenableSim : null;

const ctx: ConnectorContext = { sourceName: 'sc', log: silentLogger, state: { get: async () => ({}), set: async () => {} } };

function configFor(sim: Sim, over: Record<string, unknown> = {}, who: 'analyst' | 'admin' = 'analyst'): TenableScConfig {
  return tenableScConnector.configSchema.parse({ apiUrl: sim.url, accessKey: sim[who].accessKey, secretKey: sim[who].secretKey, pageSize: 25, ...over });
}

function streamCtx(over: Partial<StreamContext> = {}): StreamContext {
  return { ...ctx, mode: 'full', checkpoint: null, resumed: false, signal: new AbortController().signal, ...over };
}

async function readAll(config: TenableScConfig, name: string, over: Partial<StreamContext> = {}) {
  const stream = tenableScConnector.streams(config, ctx).find((s) => s.name === name)!;
  const pages: Page[] = [];
  for await (const p of stream.read(streamCtx(over))) pages.push(p);
  const all = (m: string) => pages.flatMap((p) => (p.records as Record<string, { key: string; fields: Record<string, unknown> }[]>)[m] ?? []);
  return { pages, all, last: pages.at(-1)?.checkpoint as Cursor };
}

async function simJson(sim: Sim, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(sim.url + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as Record<string, unknown>;
}

const byId = (checks: { id: string; ok: boolean; message: string; hint: string | null }[], id: string) => checks.find((c) => c.id === id);

describe('against the simulator', { skip: simPresent ? false : 'simulator absent (sim/tenable-sc/index.ts)' }, () => {
  let sim: Sim;
  before(async () => {
    sim = await startSim!({ port: 0, hosts: 30, findingsPerHost: 12, seed: 7 });
  });
  after(async () => {
    await sim?.close();
  });

  test('check: the analyst passes every check and sees the group repositories', async () => {
    const checks = await tenableScConnector.check(configFor(sim, { expectedUsername: sim.analyst.username }), ctx);
    assert.deepEqual(
      checks.filter((c) => !c.ok),
      [],
    );
    assert.deepEqual(
      checks.map((c) => c.id),
      ['connection', 'version', 'credentials', 'user', 'role', 'organization', 'group', 'data-access', 'repositories', 'scan-results'],
    );
    assert.match(byId(checks, 'scan-results')!.message, /can list the scan results \(\d+ in the last 30 days\)/);
    assert.match(byId(checks, 'repositories')!.message, /repositories to import: .+\(id \d+\)/);
    assert.match(byId(checks, 'version')!.message, /\/rest\/hosts are available/);
  });

  test('check: Administrator → role message, no organization, analysis denied as missing permission', async () => {
    const checks = await tenableScConnector.check(configFor(sim, {}, 'admin'), ctx);
    const role = byId(checks, 'role')!;
    assert.equal(role.ok, false);
    assert.match(role.message, /Administrator/);
    assert.match(role.hint ?? '', /organizational user with role Security Analyst/);
    assert.equal(byId(checks, 'organization')!.ok, false);
    const data = byId(checks, 'data-access')!;
    assert.equal(data.ok, false);
    assert.match(data.message, /missing permission, not a console outage/);
  });

  test('check: expected organization/group mismatches are reported', async () => {
    const checks = await tenableScConnector.check(
      configFor(sim, { expectedOrganization: 'Other Org', expectedGroup: 'Other Group', expectedUsername: 'bob' }),
      ctx,
    );
    assert.match(byId(checks, 'user')!.message, /not 'bob'/);
    assert.match(byId(checks, 'organization')!.message, /not 'Other Org'/);
    assert.match(byId(checks, 'group')!.message, /not 'Other Group'/);
  });

  test('check: wrong keys → a new pair revokes the old one', async () => {
    const checks = await tenableScConnector.check(configFor(sim, { accessKey: 'f'.repeat(32), secretKey: 'e'.repeat(32) }), ctx);
    const failed = checks.find((c) => !c.ok)!;
    assert.equal(failed.id, 'credentials');
    assert.match(failed.message, /rejected the API keys/);
    assert.match(failed.hint ?? '', /new pair revokes the previous one/);
  });

  test('check: unreachable console', async () => {
    const checks = await tenableScConnector.check(configFor(sim, { apiUrl: 'http://127.0.0.1:1' }), ctx);
    assert.equal(checks.length, 1);
    assert.equal(checks[0]!.id, 'connection');
    assert.equal(checks[0]!.ok, false);
    assert.match(checks[0]!.hint ?? '', /URL/);
  });

  test('streams: counts match the console, each page bounded, patched → fixed', async () => {
    const config = configFor(sim);
    const state = await simJson(sim, 'GET', '/_sim/state');
    const hosts = await readAll(config, 'hosts');
    assert.equal(new Set(hosts.all('hosts').map((h) => h.key)).size, 30);
    assert.equal(hosts.last.phase, 'done');
    const vulns = await readAll(config, 'vulnerabilities');
    for (const p of vulns.pages) assert.ok((p.records.vulnerabilities?.length ?? 0) <= 25);
    const recs = vulns.all('vulnerabilities');
    assert.ok(recs.length > 0);
    assert.ok(recs.some((r) => r.fields.status === 'fixed'));
    assert.ok(recs.some((r) => r.fields.status === 'open'));
    assert.ok(recs.every((r) => r.fields.severity !== 'info'));
    const withInfo = await readAll(configFor(sim, { includeInformational: true }), 'vulnerabilities');
    assert.ok(withInfo.all('vulnerabilities').length > recs.length);
    assert.ok(Number(state.cumulative) > 0);
    // Exactly what the console holds: non-compliance findings of severity Low..Critical, both sets.
    const client = new TenableScClient(requireApi(config));
    try {
      const total = (sourceType: 'cumulative' | 'patched') => consoleFindingTotal(client, sourceType);
      assert.equal(recs.filter((r) => r.fields.status === 'fixed').length, await total('patched'));
      assert.equal(recs.filter((r) => r.fields.status !== 'fixed').length, await total('cumulative'));
    } finally {
      await client.close();
    }
    const sw = await readAll(config, 'software');
    assert.ok(sw.all('software').length > 0);
    const ports = await readAll(config, 'ports');
    assert.ok(ports.all('ports').every((p) => Number.isInteger(p.fields.port) && (p.fields.protocol === 'tcp' || p.fields.protocol === 'udp')));
    const comp = await readAll(config, 'compliance');
    assert.ok(comp.all('compliance').every((c) => ['passed', 'failed', 'warning', 'error'].includes(String(c.fields.result))));
  });

  test('paging terminates without totalRecords and survives 503s', async () => {
    const config = configFor(sim);
    const normal = (await readAll(config, 'vulnerabilities')).all('vulnerabilities').length;
    await simJson(sim, 'POST', '/_sim/faults', { missingTotalRecords: true, serverError: { every: 4, status: 503 }, resetMidBody: { every: 5 } });
    try {
      const faulty = (await readAll(config, 'vulnerabilities')).all('vulnerabilities').length;
      assert.equal(faulty, normal);
      const injected = (await simJson(sim, 'GET', '/_sim/stats')).faultsInjected as Record<string, number>;
      assert.ok(injected.serverError! > 0 && injected.resetMidBody! > 0 && injected.missingTotalRecords! > 0, JSON.stringify(injected));
    } finally {
      await simJson(sim, 'DELETE', '/_sim/faults');
    }
  });

  test('incremental run asks only for the window after the last run; resume continues', async () => {
    const config = configFor(sim);
    const full = await readAll(config, 'vulnerabilities');
    const inc = await readAll(config, 'vulnerabilities', { mode: 'incremental', checkpoint: full.last });
    assert.ok(inc.last.since !== null);
    assert.ok(inc.all('vulnerabilities').length <= full.all('vulnerabilities').length);
    const mid = full.pages[1]!.checkpoint as Cursor;
    const resumed = await readAll(config, 'vulnerabilities', { resumed: true, checkpoint: mid });
    const rest = full.pages.slice(2).reduce((n, p) => n + (p.records.vulnerabilities?.length ?? 0), 0);
    assert.equal(resumed.all('vulnerabilities').length, rest);
  });

  test('hosts resumed past sumip map /rest/hosts rows onto the hosts sumip gave, adding none', async () => {
    const config = configFor(sim);
    const full = await readAll(config, 'hosts');
    const keys = new Set(full.all('hosts').map((r) => r.key));
    const phases = full.pages.map((p) => (p.checkpoint as Cursor).phase);
    // Every stored page after sumip is a place a crash can leave the stream.
    const resumePoints = full.pages
      .filter((p, i) => i > 0 && phases[i - 1] !== 'sumip' && (p.checkpoint as Cursor).phase !== 'done')
      .map((p) => p.checkpoint as Cursor);
    const fromInventory = full.pages.find((p) => (p.checkpoint as Cursor).phase === 'inventory')!.checkpoint as Cursor;
    for (const cp of [fromInventory, ...resumePoints]) {
      const resumed = await readAll(config, 'hosts', { resumed: true, checkpoint: cp });
      const extra = resumed.all('hosts').filter((r) => !keys.has(r.key));
      assert.deepEqual(
        extra.map((r) => r.key),
        [],
        `resumed at ${cp.phase}/${cp.offset}`,
      );
    }
    // Some /rest/hosts dates did arrive after a resume (the phase ran and matched hosts).
    const atHostsApi = full.pages.find((p) => (p.checkpoint as Cursor).phase === 'hosts-api');
    const cp = (atHostsApi ?? full.pages.find((p) => (p.checkpoint as Cursor).phase === 'done'))!;
    const fromApi = await readAll(config, 'hosts', { resumed: true, checkpoint: { ...(cp.checkpoint as Cursor), phase: 'hosts-api', offset: 0 } });
    assert.ok(
      fromApi.all('hosts').some((r) => r.fields.scannerLastSeen),
      'last-seen dates after a resume into /rest/hosts',
    );
  });

  test('incremental after a scan day: only rescanned findings and the patched set, patched → fixed', async () => {
    const config = configFor(sim);
    const full = await readAll(config, 'vulnerabilities');
    const fullFixed = full.all('vulnerabilities').filter((r) => r.fields.status === 'fixed').length;
    const advanced = await simJson(sim, 'POST', '/_sim/advance', { seconds: 86400, rescanFraction: 0.3, patchFraction: 0.2 });
    assert.equal(full.last.until, Number(advanced.now) - 86400, 'the checkpoint carries the console clock');
    const inc = await readAll(config, 'vulnerabilities', { mode: 'incremental', checkpoint: full.last });
    const incRecs = inc.all('vulnerabilities');
    assert.equal(inc.last.until, Number(advanced.now));
    assert.ok(incRecs.length > 0 && incRecs.length < full.all('vulnerabilities').length);
    // The simulator has no lastMitigated filter: the incremental run reads the whole patched set.
    const incFixed = incRecs.filter((r) => r.fields.status === 'fixed').length;
    assert.ok(incFixed > fullFixed);
    const full2 = await readAll(config, 'vulnerabilities');
    assert.equal(full2.all('vulnerabilities').filter((r) => r.fields.status === 'fixed').length, incFixed);
  });

  test('only GET and POST /rest/analysis reach the console', async () => {
    const stats = await simJson(sim, 'GET', '/_sim/stats');
    const routes = Object.keys(stats.byRoute as Record<string, number>);
    assert.ok(routes.length > 0);
    for (const r of routes) assert.ok(r.startsWith('GET ') || r === 'POST /rest/analysis', r);
  });
});

describe('a console that rejects the lastMitigated filter', { skip: simPresent ? false : 'simulator absent (sim/tenable-sc/index.ts)' }, () => {
  test('an incremental run still fixes a finding whose last vulnerable sighting is older than the window', async () => {
    // The simulator offers no `lastMitigated` filter (error 146, like consoles that lack it), and here a
    // mitigated finding keeps its last vulnerable sighting as lastSeen.
    const sim = await startSim!({ port: 0, hosts: 6, findingsPerHost: 8, seed: 11, mitigatedLastSeen: 'last-vulnerable' });
    try {
      const config = configFor(sim);
      const full = await readAll(config, 'vulnerabilities');
      const target = full.all('vulnerabilities').find((r) => r.fields.status === 'open')!;
      const pluginId = String(target.fields.pluginId);
      // Three days without a scan, an incremental run (its window now starts after the findings' lastSeen)…
      await simJson(sim, 'POST', '/_sim/advance', { seconds: 3 * 86400, rescanFraction: 0 });
      const inc1 = await readAll(config, 'vulnerabilities', { mode: 'incremental', checkpoint: full.last });
      assert.ok(!inc1.all('vulnerabilities').some((r) => r.key === target.key && r.fields.status === 'fixed'));
      // …then the finding is patched, and the next incremental run must see it fixed.
      await simJson(sim, 'POST', '/_sim/patch', { pluginIDs: [Number(pluginId)] });
      await simJson(sim, 'POST', '/_sim/advance', { seconds: 60, rescanFraction: 0 });
      const inc2 = await readAll(config, 'vulnerabilities', { mode: 'incremental', checkpoint: inc1.last });
      assert.ok(inc2.last.since! > Number(full.last.until), 'the window starts after the finding was last seen');
      const fixed = inc2.all('vulnerabilities').find((r) => r.key === target.key);
      assert.equal(fixed?.fields.status, 'fixed');
    } finally {
      await sim.close();
    }
  });
});

describe('a console that offers the lastMitigated filter (--last-mitigated-filter)', {
  skip: simPresent ? false : 'simulator absent (sim/tenable-sc/index.ts)',
}, () => {
  test('an incremental run reads only the findings fixed since the window, and sees them fixed', async () => {
    const sim = await startSim!({ port: 0, hosts: 30, findingsPerHost: 12, seed: 7, lastMitigatedFilter: true });
    try {
      const config = configFor(sim);
      const full = await readAll(config, 'vulnerabilities');
      const fullFixed = full.all('vulnerabilities').filter((r) => r.fields.status === 'fixed');
      assert.ok(fullFixed.length > 0);
      await simJson(sim, 'POST', '/_sim/advance', { seconds: 86400, rescanFraction: 0.3, patchFraction: 0.2 });
      const inc = await readAll(config, 'vulnerabilities', { mode: 'incremental', checkpoint: full.last });
      const incFixed = new Set(
        inc
          .all('vulnerabilities')
          .filter((r) => r.fields.status === 'fixed')
          .map((r) => r.key),
      );
      const full2 = await readAll(config, 'vulnerabilities');
      const fixedNow = full2.all('vulnerabilities').filter((r) => r.fields.status === 'fixed');
      // Every finding fixed since the full read is read fixed by the incremental run…
      const wasOpen = new Set(
        full
          .all('vulnerabilities')
          .filter((r) => r.fields.status === 'open')
          .map((r) => r.key),
      );
      const newlyFixed = fixedNow.filter((r) => wasOpen.has(r.key));
      assert.ok(newlyFixed.length > 0);
      for (const r of newlyFixed) assert.ok(incFixed.has(r.key), `${r.key} fixed since the last run`);
      // …but not the whole patched set again (only what the window's overlap re-reads).
      assert.ok(incFixed.size < fixedNow.length, `${incFixed.size} of ${fixedNow.length} fixed findings read`);
      assert.ok(fullFixed.length > 0);
      // Without the option the filter is refused (error 146), as before.
      const plain = await startSim!({ port: 0, hosts: 2, seed: 7 });
      try {
        const res = await fetch(`${plain.url}/rest/analysis`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-apikey': `accesskey=${plain.analyst.accessKey}; secretkey=${plain.analyst.secretKey};` },
          body: JSON.stringify({
            type: 'vuln',
            sourceType: 'patched',
            query: { type: 'vuln', tool: 'vulndetails', filters: [{ filterName: 'lastMitigated', operator: '=', value: '0-1' }] },
          }),
        });
        assert.equal(((await res.json()) as { error_code: number }).error_code, 146);
      } finally {
        await plain.close();
      }
    } finally {
      await sim.close();
    }
  });
});

describe('simulator versions and TLS', { skip: simPresent ? false : 'simulator absent (sim/tenable-sc/index.ts)' }, () => {
  test('version 5.12 → API keys unsupported, file import suggested', async () => {
    const sim = await startSim!({ port: 0, hosts: 3, version: '5.12.0' });
    try {
      const checks = await tenableScConnector.check(configFor(sim), ctx);
      const v = byId(checks, 'version')!;
      assert.equal(v.ok, false);
      assert.match(v.message, /5\.12\.0 does not support API keys/);
      assert.match(v.hint ?? '', /File Import \(CSV files\)/);
    } finally {
      await sim.close();
    }
  });

  test('5.19 console: no /rest/hosts call, hosts still imported', async () => {
    const sim = await startSim!({ port: 0, hosts: 5, version: '5.19.0' });
    try {
      const checks = await tenableScConnector.check(configFor(sim), ctx);
      assert.match(byId(checks, 'version')!.message, /not available \(they need 5\.20/);
      const hosts = await readAll(configFor(sim), 'hosts');
      assert.equal(new Set(hosts.all('hosts').map((h) => h.key)).size, 5);
      const stats = await simJson(sim, 'GET', '/_sim/stats');
      assert.equal((stats.byRoute as Record<string, number>)['GET /rest/hosts'], undefined);
    } finally {
      await sim.close();
    }
  });

  test('self-signed TLS fails with a hint; caCertificate or verifySsl=false pass', async () => {
    const sim = await startSim!({ port: 0, hosts: 3, tls: true });
    try {
      assert.ok(sim.url.startsWith('https://'));
      const bad = await tenableScConnector.check(configFor(sim), ctx);
      assert.equal(bad[0]!.id, 'connection');
      assert.equal(bad[0]!.ok, false);
      assert.match(bad[0]!.message, /TLS verification/);
      assert.match(bad[0]!.hint ?? '', /CA certificate.*Verify SSL Certificate/);
      const withCa = await tenableScConnector.check(configFor(sim, { caCertificate: sim.caCertificate }), ctx);
      assert.deepEqual(
        withCa.filter((c) => !c.ok),
        [],
      );
      const noVerify = await tenableScConnector.check(configFor(sim, { verifySsl: false }), ctx);
      assert.match(noVerify[0]!.message, /not verified/);
      assert.deepEqual(
        noVerify.filter((c) => !c.ok),
        [],
      );
    } finally {
      await sim.close();
    }
  });
});
