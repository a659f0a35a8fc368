// The incremental window from the scan results, through the sync runner on both stores against the
// simulator: a scan that started before the last run and finished importing after it has its findings
// read by the next incremental run, which reads little else; where the role may not list scan results
// the run keeps the 12-hour overlap (and reads them too, and more).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { type AppContext, openApp } from '../../src/app/context.ts';
import { addSource } from '../../src/app/sources.ts';
import { createLogger } from '../../src/core/log.ts';
import { runSync } from '../../src/sync/runner.ts';
import { ipOf } from '../../sim/tenable-sc/hosts.ts';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';

process.env.TRIBUTARY_MASTER_KEY = Buffer.alloc(32, 5).toString('base64');
process.env.TRIBUTARY_RETRY_BASE_MS = '1';

const NOW = 1_763_000_000;
const HOSTS = 40;
const PER_HOST = 8;

async function control(sim: RunningTenableSim, path: string, body: unknown): Promise<void> {
  const res = await fetch(sim.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 200, await res.text());
}

for (const backend of BACKENDS) {
  describe(`incremental window from the scan results on ${backend.kind}`, { skip: backend.skip }, () => {
    const dbs: TestDatabase[] = [];
    const apps: AppContext[] = [];
    const sims: RunningTenableSim[] = [];
    after(async () => {
      for (const a of apps) await a.close();
      for (const d of dbs) await d.drop();
      for (const s of sims) await s.close();
    });

    /** A full run while a scan that started 3 h ago is still importing, then a day on and an incremental run. */
    async function lateImport(forbidden: boolean) {
      const sim = await startTenableSim({
        port: 0,
        seed: 21,
        hosts: HOSTS,
        findingsPerHost: PER_HOST,
        now: NOW,
        scanResultsForbidden: forbidden,
        lastMitigatedFilter: true,
      });
      sims.push(sim);
      const db = await backend.create();
      dbs.push(db);
      const app = await openApp({ dataDir: db.dataDir, db: db.url, log: createLogger({ level: 'silent' }) });
      apps.push(app);
      await addSource(app, 'tenable-sc', 'sc', { apiUrl: sim.url, accessKey: sim.analyst.accessKey, secretKey: sim.analyst.secretKey, pageSize: 100 });
      // A scan of eight hosts started 3 h ago and saw them 2 h ago; its import ends in 1 h.
      const scanned = [1, 2, 3, 4, 5, 6, 7, 8].map(ipOf);
      await control(sim, '/_sim/scan', { hosts: scanned, startedAgo: 3 * 3600, durationSeconds: 2 * 3600, importSeconds: 2 * 3600 });
      const full = await runSync(app, 'sc', { full: true });
      assert.equal(full.status, 'succeeded', full.error ?? '');
      const source = await app.store.sources.get('sc');
      const seenAt = new Date((NOW - 2 * 3600) * 1000).toISOString();
      // The scanned hosts' findings (and the hosts' last scan) that say the late scan saw them.
      const byScan = async () => {
        const all = async (model: 'hosts' | 'vulnerabilities') => (await app.store.records.query(model, { sourceIds: [source.id], limit: 10_000 })).records;
        const hosts = (await all('hosts')).filter((h) => scanned.includes((h.ipAddresses as string[])[0]!));
        const ids = new Set(hosts.map((h) => h.id));
        return {
          vulns: (await all('vulnerabilities')).filter((v) => ids.has(v.hostId as string) && v.lastSeen === seenAt).length,
          hosts: hosts.filter((h) => h.scannerLastSeen === seenAt).length,
        };
      };
      assert.deepEqual(await byScan(), { vulns: 0, hosts: 0 }, 'the full run ran while the scan was importing');
      await control(sim, '/_sim/advance', { seconds: 86400, rescanFraction: 0 });
      const inc = await runSync(app, 'sc');
      assert.equal(inc.status, 'succeeded', inc.error ?? '');
      assert.equal(inc.mode, 'incremental');
      return { full, inc, read: await byScan() };
    }

    test('a scan imported after the last run that started before it: its findings are read, and little else', async () => {
      const { full, inc, read } = await lateImport(false);
      assert.ok(read.vulns > 0, 'the late scan’s findings are read by the incremental run');
      assert.equal(read.hosts, 8, 'and its hosts');
      // The window starts at that scan (3 h 15 min before the last run), not 12 h before it.
      const incVulns = inc.streams.vulnerabilities!.records;
      assert.ok(incVulns < full.streams.vulnerabilities!.records / 4, `${incVulns} of ${full.streams.vulnerabilities!.records} read`);
    });

    test('a role that may not list scan results: the 12-hour overlap, which reads them too', async () => {
      const { inc, read } = await lateImport(true);
      assert.ok(read.vulns > 0);
      assert.equal(read.hosts, 8);
      const narrow = (await lateImport(false)).inc;
      assert.ok(inc.streams.vulnerabilities!.records > narrow.streams.vulnerabilities!.records, 'the overlap reads more than the scan window');
    });
  });
}
