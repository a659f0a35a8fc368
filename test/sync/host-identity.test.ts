// One host identity whatever the path, checked through the sync runner on both stores against both
// simulators: no software, port, finding or compliance record points to a host that does not exist,
// after a full run, a run resumed mid-stream and an incremental run (API mode), and after a CSV import
// of the same console's exports (file mode); each console host is one host, including the variants
// the Tenable.sc simulator serves (agents, credentialed hosts with and without a Tenable UUID,
// unauthenticated hosts, moved hosts, one address in two repositories, 6.x rows with `hostUUID`).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type AppContext, openApp } from '../../src/app/context.ts';
import { addSource } from '../../src/app/sources.ts';
import { createLogger } from '../../src/core/log.ts';
import type { ModelName } from '../../src/core/models.ts';
import { uploadFiles } from '../../src/filedrop/upload.ts';
import { runSync } from '../../src/sync/runner.ts';
import { type RunningSdpSim, startSdpSim } from '../../sim/servicedesk-plus/index.ts';
import type { VulnDetailColumn } from '../../sim/tenable-sc/export-columns.ts';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { csvText } from '../filedrop/memory-bucket.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';

process.env.TRIBUTARY_MASTER_KEY = Buffer.alloc(32, 3).toString('base64');
process.env.TRIBUTARY_RETRY_BASE_MS = '1';

const HOST_BOUND: ModelName[] = ['software', 'ports', 'vulnerabilities', 'compliance'];
const HOSTS = 84;

async function post(sim: RunningTenableSim, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(sim.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-apikey': `accesskey=${sim.analyst.accessKey}; secretkey=${sim.analyst.secretKey}` },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Record<string, unknown>;
}

async function analysis(sim: RunningTenableSim, tool: string, sourceType = 'cumulative'): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let start = 0; ; start += 1000) {
    const env = await post(sim, '/rest/analysis', {
      type: 'vuln',
      sourceType,
      query: { type: 'vuln', tool, filters: [] },
      startOffset: start,
      endOffset: start + 1000,
    });
    const rows = (env.response as { results: Record<string, unknown>[] }).results;
    out.push(...rows);
    if (rows.length < 1000) return out;
  }
}

async function orphans(app: AppContext, source: string): Promise<Record<string, number>> {
  const s = await app.store.sources.get(source);
  const out: Record<string, number> = {};
  for (const m of HOST_BOUND) out[m] = await app.store.records.orphans(m, s.id);
  return out;
}

const NONE = Object.fromEntries(HOST_BOUND.map((m) => [m, 0]));

async function hostsOf(app: AppContext, source: string) {
  const s = await app.store.sources.get(source);
  return (await app.store.records.query('hosts', { sourceIds: [s.id], limit: 10_000 })).records;
}

/** A Vulnerability Detail List and a Host Assets export of what the console serves (SC's column names). */
async function exportsOf(sim: RunningTenableSim, dir: string): Promise<string[]> {
  const date = (epoch: unknown) =>
    new Date(Number(epoch) * 1000).toUTCString().replace(/^\w+, (\d+) (\w+) (\d+) ([\d:]+) GMT$/, (_, d, m, y, t) => `${m} ${Number(d)}, ${y} ${t} UTC`);
  const sev = ['Info', 'Low', 'Medium', 'High', 'Critical'];
  // Each row names its columns: a subset of a real export's, in the same order.
  const rows = (await analysis(sim, 'vulndetails')).map(
    (r): Partial<Record<VulnDetailColumn, string>> => ({
      Plugin: String(r.pluginID),
      'Plugin Name': String(r.pluginName),
      Family: String((r.family as { name: string }).name),
      Severity: sev[Number((r.severity as { id: string }).id)]!,
      'IP Address': String(r.ip),
      Protocol: String(r.protocol),
      Port: String(r.port),
      Repository: String((r.repository as { name: string }).name),
      'MAC Address': String(r.macAddress),
      'DNS Name': String(r.dnsName),
      'NetBIOS Name': String(r.netbiosName),
      'Plugin Output': `Plugin Output: ${String(r.pluginText).replace(/<\/?plugin_output>/g, '')}`,
      CVE: String(r.cve),
      'First Discovered': date(r.firstSeen),
      'Last Observed': date(r.lastSeen),
      'Agent ID': String(r.uuid),
      'Host ID': String(r.hostUUID ?? ''),
    }),
  );
  const vulnHeader = Object.keys(rows[0] ?? {}) as VulnDetailColumn[];
  const res = await fetch(`${sim.url}/rest/hosts?fields=uuid,tenableUUID,name,ipAddress,macAddress,repID,netBios,lastSeen&limit=10000`, {
    headers: { 'x-apikey': `accesskey=${sim.analyst.accessKey}; secretkey=${sim.analyst.secretKey}` },
  });
  const repoNames: Record<string, string> = { '1': 'Datacenter', '2': 'Workstations' };
  const hostRows = ((await res.json()) as { response: Record<string, string>[] }).response.map((h) => [
    h.ipAddress!,
    h.name === h.ipAddress ? '' : h.name!,
    h.netBios ?? '',
    h.macAddress ?? '',
    repoNames[h.repID!] ?? '',
    h.tenableUUID ?? '',
    date(h.lastSeen),
  ]);
  const files = [join(dir, 'hosts.csv'), join(dir, 'vulns.csv')];
  // The host list is uploaded first: the order files arrive in must not matter.
  writeFileSync(files[0]!, csvText(['IP Address', 'DNS Name', 'NetBIOS Name', 'MAC Address', 'Repository', 'UUID', 'Last Seen'], hostRows));
  writeFileSync(
    files[1]!,
    csvText(
      vulnHeader,
      rows.map((r) => vulnHeader.map((c) => r[c] ?? '')),
    ),
  );
  return files;
}

for (const backend of BACKENDS) {
  describe(`host identity on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let app: AppContext;
    let sim: RunningTenableSim;
    let sdp: RunningSdpSim;

    before(async () => {
      sim = await startTenableSim({ port: 0, hosts: HOSTS, findingsPerHost: 10, seed: 3, version: '6.4.0' });
      sdp = await startSdpSim({ seed: 11, requests: 30, assets: 8, cis: 3, users: 6, technicians: 2 });
      db = await backend.create();
      app = await openApp({ dataDir: db.dataDir, db: db.url, log: createLogger({ level: 'silent' }) });
      await addSource(app, 'tenable-sc', 'sc', { apiUrl: sim.url, accessKey: sim.analyst.accessKey, secretKey: sim.analyst.secretKey, pageSize: 50 });
    });
    after(async () => {
      await app?.close();
      await db?.drop();
      await sim?.close();
      await sdp?.close();
    });

    test('API: every record has its host; each console host is one host, whatever the path', async () => {
      let live: Record<string, { records: number }> = {};
      const full = await runSync(app, 'sc', { full: true, onProgress: (p) => (live = structuredClone(p.counts)) });
      assert.equal(full.status, 'succeeded', full.error ?? '');
      // Live progress shows the figures the summary ends with: distinct records, not writes (a host
      // written by sumip, five inventory plugins and /rest/hosts is one host).
      const records = (c: Record<string, { records: number }>) => Object.fromEntries(Object.entries(c).map(([m, x]) => [m, x.records]));
      assert.deepEqual(records(live), records(full.streams));
      const run = await app.store.runs.get(full.runId);
      assert.deepEqual(records(run.counts), records(full.streams));
      assert.deepEqual(await orphans(app, 'sc'), NONE);
      const sumip = await analysis(sim, 'sumip');
      assert.equal(sumip.length, HOSTS);
      const hosts = await hostsOf(app, 'sc');
      assert.equal(hosts.length, HOSTS, 'one host per sumip row: no second host from vulndetails, /rest/hosts or moved addresses');
      assert.equal(full.streams.hosts!.records, HOSTS);
      // 6.x rows name unauthenticated hosts by hostUUID while sumip gave only their address.
      const unauth = sumip.filter((r) => r.uuid === '' && r.lastAuthRun === '');
      assert.ok(unauth.length > 3);
      for (const r of unauth) {
        const mine = hosts.filter((h) => (h.ipAddresses as string[]).includes(String(r.ip)) && h.repository === (r.repository as { name: string }).name);
        assert.equal(mine.length, 1, `host ${String(r.ip)}`);
        assert.match(String(mine[0]!.hostUuid), /^[0-9a-f-]{36}$/, 'its hostUUID is kept on it');
      }
      // Host 39 has host 38's address in the other repository: two hosts.
      const shared = hosts.filter((h) => (h.ipAddresses as string[]).includes('10.20.0.38'));
      assert.equal(shared.length, 2);
      assert.notEqual(shared[0]!.repository, shared[1]!.repository);
      // Agents and credentialed hosts keep their Tenable UUID and BIOS UUID; 6.4 gives scores.
      assert.ok(hosts.some((h) => h.tenableUuid && h.biosUuid && typeof h.acrScore === 'number' && typeof h.aesScore === 'number'));
      assert.ok(
        hosts.some((h) => h.tenableUuid === null && h.credentialed === true),
        'a credentialed host without a Tenable UUID',
      );
    });

    test('API: a run resumed mid-stream and an incremental run keep every record on one existing host', async () => {
      await fetch(`${sim.url}/_sim/patch`, { method: 'POST', body: JSON.stringify({ fraction: 0.2 }) });
      const drain = new AbortController();
      const stopped = await runSync(app, 'sc', { full: true, drain: drain.signal, onProgress: (p) => p.stream === 'vulnerabilities' && drain.abort() });
      assert.equal(stopped.status, 'interrupted');
      const resumed = await runSync(app, 'sc');
      assert.equal(resumed.status, 'succeeded', resumed.error ?? '');
      assert.ok(resumed.resumedFrom);
      assert.deepEqual(await orphans(app, 'sc'), NONE);
      assert.equal((await hostsOf(app, 'sc')).length, HOSTS);
      await fetch(`${sim.url}/_sim/advance`, { method: 'POST', body: JSON.stringify({ seconds: 3600 }) });
      const inc = await runSync(app, 'sc');
      assert.equal(inc.status, 'succeeded', inc.error ?? '');
      assert.equal(inc.mode, 'incremental');
      assert.deepEqual(await orphans(app, 'sc'), NONE);
      assert.equal((await hostsOf(app, 'sc')).length, HOSTS);
    });

    test('CSV: the same console exported (host list first) gives the same hosts, every record on one', async () => {
      await addSource(app, 'tenable-sc', 'sc-files', { inputMode: 'file', bucket: `sc-files-${backend.kind}` });
      await uploadFiles(app, 'sc-files', await exportsOf(sim, db.dataDir));
      const run = await runSync(app, 'sc-files');
      assert.equal(run.status, 'succeeded', run.error ?? '');
      assert.deepEqual(await orphans(app, 'sc-files'), NONE);
      const hosts = await hostsOf(app, 'sc-files');
      assert.equal(hosts.length, HOSTS, 'Host Assets rows land on the hosts the vulnerability export named');
      assert.ok(hosts.every((h) => h.scannerLastSeen !== null));
    });

    test('CSV: a host list imported alone, then the vulnerability list in a later run: the same hosts', async () => {
      await addSource(app, 'tenable-sc', 'sc-later', { inputMode: 'file', bucket: `sc-later-${backend.kind}` });
      const [hostList, vulnList] = await exportsOf(sim, db.dataDir);
      await uploadFiles(app, 'sc-later', [hostList!]);
      assert.equal((await runSync(app, 'sc-later')).status, 'succeeded');
      assert.equal((await hostsOf(app, 'sc-later')).length, HOSTS);
      await uploadFiles(app, 'sc-later', [vulnList!]);
      const run = await runSync(app, 'sc-later');
      assert.equal(run.status, 'succeeded', run.error ?? '');
      assert.deepEqual(await orphans(app, 'sc-later'), NONE);
      assert.equal((await hostsOf(app, 'sc-later')).length, HOSTS, 'the findings found the hosts the host list created');
    });

    test('ServiceDesk Plus: nothing it stores points to a missing host', async () => {
      await addSource(app, 'servicedesk-plus', 'desk', { serverUrl: sdp.url, apiKey: sdp.apiKey });
      const run = await runSync(app, 'desk');
      assert.equal(run.status, 'succeeded', run.error ?? '');
      assert.deepEqual(await orphans(app, 'desk'), NONE);
    });
  });
}
