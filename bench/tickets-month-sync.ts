// `bench/tickets-month --through-sync`: the month of remediation tickets driven through real syncs. Both
// simulators serve one generated estate (sim/shared/estate.ts); each simulated day the Tenable.sc
// simulator moves a day on, rescans every host, patches 4 % of the open findings, brings back 1 % of
// the fixed ones and moves a thirtieth of a fifth of the machines to a new address (`moveHosts`), and
// then `runSync` runs the scanner's source and the service desk's (each applies the tickets after its
// correlation, as a deployment does). After each day's syncs: duplicates (two requests with one marker,
// or more requests than keys), agreement of each request's state with the store's findings of its group
// (open while any selected finding is open, resolved once all are fixed; a request a person closed is
// flagged by design and not counted), requests against ticketed findings, and mid-month a CVE of a
// medium finding added to the KEV feed: its group must have a request after the next sync.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type AppContext, openApp } from '../src/app/context.ts';
import { addSource } from '../src/app/sources.ts';
import { createLogger } from '../src/core/log.ts';
import { importFeedFiles } from '../src/feeds/index.ts';
import { runSync } from '../src/sync/runner.ts';
import { groupKey, type TicketFinding } from '../src/tickets/index.ts';
import { startSdpSim } from '../sim/servicedesk-plus/index.ts';
import { Estate, scannedIp } from '../sim/shared/estate.ts';
import { type CommonPatchSet, startTenableSim } from '../sim/tenable-sc/index.ts';

export interface MonthOptions {
  machines: number;
  days: number;
  findingsPerHost: number;
  /** The scanner synced before the service desk on the first day (no departments yet when requests are first planned). */
  scannerFirst?: boolean;
  /** The scanner's common patch set per platform (sim/tenable-sc/patch-sets.ts); unset: uniform. */
  commonPatchSet?: CommonPatchSet;
}

/** A seeded generator (mulberry32): the month is the same every run (both modes of bench/tickets-month). */
export function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type OpenRow = Awaited<ReturnType<AppContext['store']['tickets']['openFindings']>>[number];

/** The store's open findings with their plugins' fixes (the keys the planner groups by). */
async function withFixes(app: AppContext, rows: OpenRow[]): Promise<(OpenRow & { fix: string | null })[]> {
  const ids = [...new Set(rows.map((r) => r.pluginId))];
  const fixes = new Map(ids.length ? (await app.store.tickets.pluginFixes(ids)).map((p) => [p.pluginId, p.fix]) : []);
  return rows.map((r) => ({ ...r, fix: fixes.get(r.pluginId) ?? null }));
}

export async function monthThroughSync(kind: string, url: string, o: MonthOptions): Promise<string> {
  // `machines` scanned machines (the estate's CMDB also knows a tenth more the scanner never sees).
  const estate = new Estate(23, Math.ceil(o.machines / 0.9));
  const scanner = await startTenableSim({
    port: 0,
    seed: 5,
    findingsPerHost: o.findingsPerHost,
    estate,
    ...(o.commonPatchSet ? { commonPatchSet: o.commonPatchSet } : {}),
  });
  const desk = await startSdpSim({ port: 0, seed: 4, requests: 200, users: 50, technicians: 6, estate });
  const dataDir = mkdtempSync(join(tmpdir(), 'tributary-month-'));
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  const app = await openApp({ dataDir, db: url, log: createLogger({ level: 'warn', destination: sink }), env: {} });
  const rand = rng(42);
  const control = async (path: string, body: object) => {
    const res = await fetch(`${scanner.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  };
  const sync = async (name: string) => {
    const r = await runSync(app, name);
    if (r.status !== 'succeeded') throw new Error(`sync ${name}: ${r.status} ${r.error ?? ''}`);
    return r;
  };
  try {
    await addSource(app, 'tenable-sc', 'scan', { apiUrl: scanner.url, accessKey: scanner.analyst.accessKey, secretKey: scanner.analyst.secretKey });
    await addSource(app, 'servicedesk-plus', 'desk', {
      serverUrl: desk.url,
      apiKey: desk.apiKey,
      remediationTickets: { enabled: true, maxCreatesPerRun: 10_000 },
    });
    const deskId = (await app.store.sources.get('desk')).id;
    const settings = { severities: ['critical', 'high'], knownExploited: true };
    const movers = Array.from({ length: estate.scanned }, (_, i) => i).filter((i) => i % 5 === 0);
    const moved = new Set<number>();
    const ticketed = new Set<string>();
    const closedByPerson = new Set<string>();
    let worst = 0;
    let disagreeTotal = 0;
    let checked = 0;
    let kev: { cve: string; findingIds: Set<string>; day: number } | null = null;
    let kevOk = 'not checked';
    let syncSeconds = 0;
    const started = Date.now();
    for (let day = 0; day < o.days; day++) {
      const t0 = Date.now();
      if (day > 0) {
        // A fifth of the machines change address over the month, a few each day.
        const today = movers.filter((i) => (i / 5) % o.days === day % o.days);
        for (const i of today) moved.add(i);
        await control('/_sim/advance', { seconds: 86_400, rescanFraction: 1, patchFraction: 0.04, reopenFraction: 0.01, moveHosts: today.map(scannedIp) });
      }
      // The service desk first on the first day (its CMDB gives the findings their departments before
      // any request is planned) unless --scanner-first; then each day the scan, and the service desk.
      if (day === 0 && !o.scannerFirst) await sync('desk');
      await sync('scan');
      await sync('desk');
      syncSeconds += (Date.now() - t0) / 1000;
      // What every request should be now: open while any selected finding of its group is open (the store's
      // findings), grouped per fix (the plugins' fixes, as the report of top remediations groups them).
      const open = await withFixes(app, await app.store.tickets.openFindings(settings));
      const expected = new Map<string, number>();
      for (const f of open) {
        const g = groupKey('fix-owner', f as unknown as TicketFinding);
        expected.set(g, (expected.get(g) ?? 0) + 1);
        ticketed.add(f.id);
      }
      const rows = await app.store.tickets.list(deskId);
      const byKey = new Map(rows.map((r) => [r.key, r]));
      let disagree = 0;
      for (const row of rows) {
        if (!row.requestId || row.state === 'closed-upstream' || closedByPerson.has(row.requestId)) continue;
        const status = String((desk.written.get(row.requestId)?.status as { name?: string } | undefined)?.name ?? '');
        if (!/^(resolved|closed|canceled)$/i.test(status) !== (expected.get(row.key) ?? 0) > 0) {
          disagree++;
          if (process.env.BENCH_DEBUG)
            process.stderr.write(`day ${day}: ${row.key} ${row.state} ${status} expected ${expected.get(row.key) ?? 0} stored ${row.findingIds.length}\n`);
        }
      }
      for (const g of expected.keys())
        if (!byKey.get(g)?.requestId) {
          disagree++;
          if (process.env.BENCH_DEBUG) process.stderr.write(`day ${day}: ${g} has no request (${byKey.get(g)?.state ?? 'no row'})\n`);
        }
      const denominator = new Set([...rows.filter((x) => x.requestId).map((x) => x.key), ...expected.keys()]).size;
      checked += denominator;
      disagreeTotal += disagree;
      worst = Math.max(worst, denominator ? disagree / denominator : 0);
      if (kev && day === kev.day + 1) {
        // Every finding the feed made known exploited that is still open has its group's request, and
        // the request was written with it.
        const still = open.filter((f) => kev!.findingIds.has(f.id));
        const missing = still.filter((f) => !byKey.get(groupKey('fix-owner', f as unknown as TicketFinding))?.findingIds.includes(f.id));
        kevOk = `${still.length - missing.length} of ${still.length} still open`;
        for (const f of missing.slice(0, 5)) {
          const key = groupKey('fix-owner', f as unknown as TicketFinding);
          const row = byKey.get(key);
          process.stderr.write(
            `KEV ${kev.cve}: finding ${f.id} (${key}, ${f.severity}, ${f.status}, knownExploited ${f.knownExploited}) ` +
              `row ${row ? `${row.state} ${row.requestId} ${row.findingIds.length} pending ${JSON.stringify(row.pending)}` : 'none'}\n`,
          );
        }
      }
      // Midway, a CVE of an open medium finding nobody tickets joins the KEV feed: the next sync tickets it.
      if (day === Math.floor(o.days / 2)) {
        const medium = (await app.store.tickets.openFindings({ severities: ['medium'], knownExploited: false })).filter((f) => !f.knownExploited);
        for (const f of medium.slice(0, 200)) {
          const rec = (await app.store.records.getMany('vulnerabilities', [f.id]))[0] as { cves?: string[] } | undefined;
          const cve = rec?.cves?.[0];
          if (!cve) continue;
          const known = new Set((await app.store.tickets.openFindings({ severities: [], knownExploited: true })).map((x) => x.id));
          const feed = {
            title: 'CISA Catalog of Known Exploited Vulnerabilities',
            catalogVersion: `2026.11.${day}`,
            dateReleased: new Date().toISOString(),
            count: 1,
            vulnerabilities: [{ cveID: cve, dateAdded: new Date().toISOString().slice(0, 10), dueDate: '2026-12-31', vulnerabilityName: 'bench' }],
          };
          const imported = await importFeedFiles(app, [{ name: 'kev.json', data: Buffer.from(JSON.stringify(feed)) }]);
          const made = (await app.store.tickets.openFindings({ severities: [], knownExploited: true })).filter((x) => !known.has(x.id));
          kev = { cve, findingIds: new Set(made.map((x) => x.id)), day };
          if (process.env.BENCH_DEBUG)
            process.stderr.write(`KEV ${cve}: ${imported.findingsUpdated} finding(s) updated, ${made.length} newly known exploited and open\n`);
          break;
        }
      }
      // A person closes a few open requests now and then (flagged, never reopened: not a disagreement).
      for (const row of rows)
        if (row.state === 'open' && row.requestId && rand() < 0.002) {
          desk.written.setStatus(row.requestId, 'Closed');
          closedByPerson.add(row.requestId);
        }
      // The month so far, one line a day on stderr (a month on a loaded machine may outlast its slot).
      const made = desk.written.size;
      const marks = new Set(desk.written.all().map((w) => /TRB-[0-9a-f]{12}/.exec(String(w.description))?.[0])).size;
      const withId = rows.filter((r) => r.requestId).length;
      process.stderr.write(
        `day ${day + 1}/${o.days} (${((Date.now() - started) / 1000).toFixed(0)} s, load ${loadavg()[0]!.toFixed(1)}): ${made} requests for ` +
          `${ticketed.size} ticketed findings (1 per ${(ticketed.size / Math.max(1, made)).toFixed(1)}); duplicates ` +
          `${Math.max(0, made - withId) + (made - marks)}; disagreeing ${disagreeTotal} of ${checked} request-days (worst ${(worst * 100).toFixed(3)} %); KEV ${kevOk}\n`,
      );
    }
    const rows = await app.store.tickets.list(deskId);
    const requests = desk.written.size;
    const markers = new Set(desk.written.all().map((w) => /TRB-[0-9a-f]{12}/.exec(String(w.description))?.[0]));
    const keysWithRequest = rows.filter((r) => r.requestId).length;
    const duplicates = Math.max(0, requests - keysWithRequest) + (requests - markers.size);
    const log = await app.store.tickets.logEntries(deskId, 10_000);
    const writes = log.filter((e) => e.ok && ['create', 'note', 'flag-closed', 'resolve', 'close', 'reopen'].includes(e.action)).length;
    const hosts = await app.store.records.count('hosts', (await app.store.sources.get('scan')).id, { live: true });
    // The default grouping is per fix and owner group: the owner group is the CMDB's department.
    const owned = rows.filter((r) => r.requestId && !/;owner=$/.test(r.key)).length;
    const merged = rows.filter((r) => r.requestId && !/^fix=\d+;/.test(r.key)).length;
    return (
      `${kind}: ${estate.scanned} scanned machines (${moved.size} moved), ${o.days} days through real syncs (${((Date.now() - started) / 1000).toFixed(0)} s, ` +
      `syncs ${syncSeconds.toFixed(0)} s, load ${loadavg()[0]!.toFixed(1)}): ${requests} requests for ${ticketed.size} ticketed findings ` +
      `(1 per ${(ticketed.size / Math.max(1, requests)).toFixed(1)}), ${writes} logged writes; duplicates ${duplicates}; disagreeing after a sync: worst ` +
      `${(worst * 100).toFixed(3)} %, ${disagreeTotal} of ${checked} request-days; ${closedByPerson.size} closed by a person (flagged); ` +
      `${log.filter((e) => e.ok && e.action === 'close').length} closed as their findings moved or were excepted; ` +
      `requests with an owner group (a CMDB department): ${owned} of ${keysWithRequest}; keyed by a fix of the plugins' solutions: ${merged}; ` +
      `scanner hosts stored: ${hosts}; KEV ${kev?.cve ?? 'none'}: findings newly known exploited with their request after the next sync: ${kevOk}\n`
    );
  } finally {
    await app.close();
    await scanner.close();
    await desk.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
