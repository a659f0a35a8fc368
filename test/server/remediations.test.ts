// Top remediations (issue 31 §2) and decision counts: the fix of a plugin's solution (with the
// simulator's plugins), and the report, its hosts drill-down and its export through the API on both stores.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { IncomingRecord } from '../../src/core/models.ts';
import { fixOf } from '../../src/store/index.ts';
import { PLUGINS } from '../../sim/tenable-sc/catalog.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { call, serverOn } from './helpers.ts';

const p = (pluginId: string) => ({ source: 'lab', pluginId, name: `plugin ${pluginId}` });

test('a fix: the solution normalised; upgrades of one product are one fix, the newest version wins', () => {
  assert.deepEqual(fixOf('  Update the affected  openssl packages. ', p('1')), {
    key: 'update the affected openssl packages',
    text: 'Update the affected openssl packages.',
  });
  const older = fixOf('Upgrade Google Chrome to 119.0.2 or later.', p('2'));
  const newer = fixOf('Upgrade Google Chrome to 120.1.0 or later.', p('3'));
  assert.equal(older.key, 'upgrade:google chrome');
  assert.equal(newer.key, older.key);
  assert.deepEqual(newer.version, [120, 1, 0]);
  // The remote form names the product after "to", with its version family ("nginx 1.x") dropped.
  assert.equal(fixOf('Upgrade to nginx 1.25 or later.', p('4')).key, 'upgrade:nginx');
  assert.equal(fixOf('Upgrade to OpenSSH 9.6 or later.', p('5')).key, fixOf('Upgrade to OpenSSH 8.1 or later', p('6')).key);
  // No supersedence the plugins do not state: each KB is its own fix.
  assert.notEqual(fixOf('Apply security update KB5031356.', p('7')).key, fixOf('Apply security update KB5032189.', p('8')).key);
  assert.deepEqual(fixOf('n/a', p('9')), { key: 'plugin:lab:9', text: '(no solution given) plugin 9' });
  assert.equal(fixOf(null, p('10')).key, 'plugin:lab:10');
});

test("the simulator's plugins: each product's upgrade advisories group into one fix per product", () => {
  const upgrades = PLUGINS.filter((d) => /^Upgrade /.test(d.solution));
  assert.ok(upgrades.length > 20, 'the catalog has upgrade plugins');
  const byProduct = new Map<string, Set<string>>();
  for (const d of upgrades) {
    const product = d.product?.split('|')[0] ?? '';
    const key = fixOf(d.solution, { source: 'lab', pluginId: String(d.id), name: d.name }).key;
    assert.match(key, /^upgrade:/, d.solution);
    byProduct.set(product, (byProduct.get(product) ?? new Set()).add(key));
  }
  for (const [product, keys] of byProduct) assert.equal(keys.size, 1, `${product}: ${[...keys].join(', ')}`);
  // Distinct products stay distinct fixes.
  assert.equal(new Set([...byProduct.values()].map((k) => [...k][0])).size, byProduct.size);
});

const NET = 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
function finding(host: string, pluginId: string, f: Record<string, unknown> = {}): IncomingRecord {
  return {
    key: `${host}-${pluginId}`,
    hostKey: host,
    fields: { pluginId, severity: 'high', status: 'open', cves: [], cvssV3BaseScore: 8, cvssV3Vector: NET, ...f },
  };
}

for (const backend of BACKENDS) {
  describe(`top remediations on ${backend.kind}`, { skip: backend.skip }, () => {
    const ctx = serverOn(backend, async (h) => {
      const lab = await h.app.store.sources.create('lab', 'fixture', {}, null);
      const stamp = { sourceId: lab.id, sourceName: 'lab', runId: 'r1', generation: 'g', now: new Date().toISOString() };
      await h.app.store.records.writePage(
        stamp,
        's',
        'full',
        {
          hosts: [
            { key: 'a', fields: { hostname: 'a', acrScore: 9 } },
            { key: 'b', fields: { hostname: 'b', acrScore: 9 } },
            { key: 'c', fields: { hostname: 'c', acrScore: 2 } },
          ],
          plugins: [
            {
              key: '100',
              fields: { pluginId: '100', name: 'Google Chrome < 119.0.2 Multiple Vulnerabilities', solution: 'Upgrade Google Chrome to 119.0.2 or later.' },
            },
            {
              key: '101',
              fields: { pluginId: '101', name: 'Google Chrome < 120.1.0 Multiple Vulnerabilities', solution: 'Upgrade Google Chrome to 120.1.0 or later.' },
            },
            { key: '200', fields: { pluginId: '200', name: 'Ubuntu : openssl', solution: 'Update the affected openssl packages.' } },
            { key: '300', fields: { pluginId: '300', name: 'SSL Self-Signed Certificate', solution: 'n/a' } },
          ],
          vulnerabilities: [
            // Chrome: two advisories on host a (one fix, one host), the newer on b; a and b are KEV-listed: Act.
            finding('a', '100', { scannerKnownExploited: true }),
            finding('a', '101', { scannerKnownExploited: true }),
            finding('b', '101', { scannerKnownExploited: true }),
            finding('c', '200'),
            finding('c', '300', { severity: 'medium', cvssV3BaseScore: 5, cvssV3Vector: 'AV:L/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N' }),
            finding('b', '300', { status: 'fixed' }),
          ],
        },
        { value: null, complete: false },
      );
    });

    test('one row per fix, largest share of priority first', async () => {
      const res = await call(ctx.h.server, { method: 'GET', url: '/api/v1/reports/remediations', headers: ctx.auth });
      assert.equal(res.statusCode, 200, res.body);
      const r = res.data as {
        items: { key: string; fix: string; hosts: number; hostsExact: boolean; findings: number; decisions: Record<string, number>; share: number }[];
        total: { fixes: number; findings: number };
      };
      assert.deepEqual(r.total.fixes, 3);
      assert.equal(r.total.findings, 5, 'the fixed finding is not counted');
      const chrome = r.items[0]!;
      assert.equal(chrome.key, 'upgrade:google chrome');
      assert.equal(chrome.fix, 'Upgrade Google Chrome to 120.1.0 or later.', 'the newest advisory wins');
      // Two plugins: the list sums their hosts (a has both) and says so; the drill-down counts each host once.
      assert.deepEqual([chrome.hosts, chrome.hostsExact, chrome.findings, chrome.decisions.act], [3, false, 3, 3]);
      assert.equal(r.items[1]!.hostsExact, true, 'one plugin: its hosts exactly');
      assert.ok(chrome.share > 0.6 && chrome.share < 1);
      assert.ok(Math.abs(r.items.reduce((s, i) => s + i.share, 0) - 1) < 0.001, 'the shares add up to the whole');
      assert.deepEqual(
        r.items.map((i) => i.key),
        ['upgrade:google chrome', 'update the affected openssl packages', 'plugin:lab:300'],
      );
    });

    test("the contract's names (interfaces.md 7.3): top-fixes rows, priorityFactors, decision=track-star", async () => {
      const res = await call(ctx.h.server, { method: 'GET', url: '/api/v1/reports/top-fixes?limit=2', headers: ctx.auth });
      assert.equal(res.statusCode, 200, res.body);
      const fixes = (res.data as { fixes: Record<string, unknown>[] }).fixes;
      assert.equal(fixes.length, 2);
      const chrome = fixes[0]!;
      assert.equal(chrome.solution, 'Upgrade Google Chrome to 120.1.0 or later.');
      assert.deepEqual((chrome.pluginIds as string[]).sort(), ['100', '101']);
      assert.deepEqual([chrome.hostCount, chrome.findingCount], [3, 3]);
      assert.deepEqual(chrome.decisions, { act: 3, attend: 0, 'track-star': 0, track: 0 });
      assert.deepEqual(chrome.owners, []);
      assert.ok((chrome.prioritySum as number) > 0 && (chrome.priorityShare as number) > 0.6 && (chrome.priorityShare as number) < 1);
      const list = await call(ctx.h.server, { method: 'GET', url: '/api/v1/vulnerabilities?where=decision%3Dact', headers: ctx.auth });
      const f = (list.data as { items: { priority: number; priorityFactors: Record<string, unknown> }[] }).items[0]!;
      assert.deepEqual(
        [f.priorityFactors.exploitation, f.priorityFactors.automatable, f.priorityFactors.technicalImpact, f.priorityFactors.kev, f.priorityFactors.cvss],
        ['active', true, 'total', true, 8],
      );
      assert.equal(f.priorityFactors.priority, f.priority);
      for (const where of ['decision%3Dtrack-star', 'decision%3Dtrack*']) {
        const stars = await call(ctx.h.server, { method: 'GET', url: `/api/v1/vulnerabilities?where=${where}`, headers: ctx.auth });
        assert.equal(stars.statusCode, 200, stars.body);
        assert.equal((stars.data as { items: unknown[] }).items.length, 0);
      }
      const up = await call(ctx.h.server, { method: 'GET', url: '/api/v1/vulnerabilities?where=decision%3E%3Dtrack-star', headers: ctx.auth });
      assert.equal((up.data as { items: unknown[] }).items.length, 3, 'track-star ranks above track: the three Act findings');
    });

    test('the drill-down names the hosts; the export is CSV or JSON', async () => {
      const res = await call(ctx.h.server, {
        method: 'GET',
        url: `/api/v1/reports/remediations/hosts?fix=${encodeURIComponent('upgrade:google chrome')}`,
        headers: ctx.auth,
      });
      assert.equal(res.statusCode, 200, res.body);
      const d = res.data as { fix: { hosts: number; hostsExact: boolean }; hosts: { name: string; findings: number; decision: string }[] };
      assert.deepEqual([d.fix.hosts, d.fix.hostsExact], [2, true]);
      assert.deepEqual(
        d.hosts.map((h) => [h.name, h.findings, h.decision]),
        [
          ['a', 2, 'act'],
          ['b', 1, 'act'],
        ],
      );
      const csv = await call(ctx.h.server, { method: 'GET', url: '/api/v1/reports/remediations/export?format=csv', headers: ctx.auth });
      assert.equal(csv.statusCode, 200);
      assert.match(String(csv.headers['content-type']), /text\/csv/);
      const lines = csv.body.trim().split('\n');
      assert.equal(lines[0], 'fix,hosts,hostsExact,findings,act,attend,trackStar,track,owners,priority,share,plugins,key');
      assert.match(lines[1]!, /^Upgrade Google Chrome to 120\.1\.0 or later\.,3,false,3,3,0,0,0,,/);
      const json = await call(ctx.h.server, { method: 'GET', url: '/api/v1/reports/remediations/export?format=json', headers: ctx.auth });
      assert.equal((json.data as { items: unknown[] }).items.length, 3);
      const none = await call(ctx.h.server, { method: 'GET', url: '/api/v1/reports/remediations/hosts?fix=nothing', headers: ctx.auth });
      assert.deepEqual(none.data, { fix: null, hosts: [], total: 0 });
    });

    test('decision counts in all and per placement; the findings list filters and sorts by them', async () => {
      const all = await call(ctx.h.server, { method: 'GET', url: '/api/v1/reports/decisions', headers: ctx.auth });
      assert.equal(all.statusCode, 200, all.body);
      const row = (all.data as { items: { act: number; attend: number; trackStar: number; track: number }[] }).items[0]!;
      assert.deepEqual([row.act, row.attend, row.trackStar, row.track], [3, 0, 0, 2]);
      const bad = await call(ctx.h.server, { method: 'GET', url: '/api/v1/reports/decisions?by=colour', headers: ctx.auth });
      assert.equal(bad.statusCode, 400);
      const list = await call(ctx.h.server, { method: 'GET', url: '/api/v1/vulnerabilities?where=decision%3Dact&sort=-priority', headers: ctx.auth });
      assert.equal(list.statusCode, 200, list.body);
      const items = (list.data as { items: { pluginId: string; decision: string; priorityReason: string }[] }).items;
      assert.equal(items.length, 3);
      assert.ok(items.every((i) => i.decision === 'act' && i.priorityReason.startsWith('Act: KEV-listed')));
      const counts = await call(ctx.h.server, { method: 'GET', url: '/api/v1/vulnerabilities/counts?by=decision', headers: ctx.auth });
      assert.equal(counts.statusCode, 200, counts.body);
    });
  });
}

type HostsAnswer = { fix: { hosts: number } | null; hosts: { hostId: string; name: string; findings: number; priority: number }[]; total: number };
type DecisionsAnswer = { items: { group: string | null; act: number; attend: number; trackStar: number; track: number; priority: number }[]; total: number };

/** The order the decisions report promises: most Act, most priority, then the group (none last). */
function inDecisionOrder(items: DecisionsAnswer['items']): boolean {
  return items.every((b, i) => {
    const a = items[i - 1];
    if (!a) return true;
    if (a.act !== b.act) return a.act > b.act;
    if (a.priority !== b.priority) return a.priority > b.priority;
    return b.group === null ? a.group !== null : a.group !== null && a.group < b.group;
  });
}

for (const backend of BACKENDS) {
  describe(`a fix's hosts and the decisions per asset in pages on ${backend.kind}`, { skip: backend.skip }, () => {
    // Seven hosts of one fix (two plugins with one solution: h1 and h2 have both), of varied criticality;
    // placed on five assets (h0 and h1 share one, h3 and h4 are alike: a tie broken by the asset, h6 has none).
    const acr = [9, 9, 7, 5, 5, 3, 8];
    const kev = [true, false, true, true, true, false, true];
    const assets = ['asset-a', 'asset-a', 'asset-b', 'asset-d', 'asset-c', 'asset-e', null];
    const ctx = serverOn(backend, async (h) => {
      const lab = await h.app.store.sources.create('lab', 'fixture', {}, null);
      const stamp = { sourceId: lab.id, sourceName: 'lab', runId: 'r1', generation: 'g', now: new Date().toISOString() };
      await h.app.store.records.writePage(
        stamp,
        's',
        'full',
        {
          hosts: acr.map((a, i) => ({ key: `h${i}`, fields: { hostname: `h${i}`, acrScore: a } })),
          plugins: [
            { key: '400', fields: { pluginId: '400', name: 'Vendor advisory 1', solution: 'Apply the vendor patch.' } },
            { key: '401', fields: { pluginId: '401', name: 'Vendor advisory 2', solution: 'Apply the vendor patch.' } },
          ],
          vulnerabilities: [
            ...acr.map((_, i) => finding(`h${i}`, '400', kev[i] ? { scannerKnownExploited: true } : {})),
            finding('h1', '401'),
            finding('h2', '401', { severity: 'medium', cvssV3BaseScore: 5 }),
          ],
        },
        { value: null, complete: false },
      );
      for (const [i, asset] of assets.entries()) await h.app.store.db.run(`UPDATE "rec_hosts" SET "asset_id" = ? WHERE "hostname" = ?`, [asset, `h${i}`]);
      await h.app.store.reports.refreshSummaries(lab.id);
    });
    const get = async <T>(url: string) => {
      const res = await call(ctx.h.server, { method: 'GET', url, headers: ctx.auth });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      return res.data as T;
    };
    const fixHosts = '/api/v1/reports/remediations/hosts?fix=apply%20the%20vendor%20patch';

    test("a fix's hosts: each page is the slice of the whole answer, and total counts them all", async () => {
      const all = await get<HostsAnswer>(fixHosts);
      assert.equal(all.hosts.length, 7, 'every host once, though h1 and h2 have both plugins');
      assert.deepEqual([all.total, all.fix?.hosts], [7, 7]);
      assert.deepEqual(
        all.hosts.filter((x) => x.name === 'h1' || x.name === 'h2').map((x) => x.findings),
        [2, 2],
      );
      assert.ok(
        all.hosts.every(
          (b, i) => i === 0 || all.hosts[i - 1]!.priority > b.priority || (all.hosts[i - 1]!.priority === b.priority && all.hosts[i - 1]!.hostId < b.hostId),
        ),
        'most priority first, then by host id',
      );
      for (const [limit, offset] of [
        [1, 0],
        [3, 0],
        [3, 3],
        [3, 6],
        [10, 2],
        [2, 7],
        [5, 100],
      ] as const) {
        const page = await get<HostsAnswer>(`${fixHosts}&limit=${limit}&offset=${offset}`);
        assert.deepEqual(page.hosts, all.hosts.slice(offset, offset + limit), `limit ${limit} offset ${offset}`);
        assert.deepEqual([page.total, page.fix?.hosts], [7, 7], `limit ${limit} offset ${offset}: the total`);
      }
      assert.deepEqual((await get<HostsAnswer>(`${fixHosts}&offset=4`)).hosts, all.hosts.slice(4), 'an offset alone: the rest');
      assert.deepEqual(await get<HostsAnswer>('/api/v1/reports/remediations/hosts?fix=nothing&limit=5'), { fix: null, hosts: [], total: 0 });
      for (const q of ['limit=0', 'limit=10001', 'limit=ten', 'offset=-1', 'limit=2.5']) {
        const bad = await call(ctx.h.server, { method: 'GET', url: `${fixHosts}&${q}`, headers: ctx.auth });
        assert.equal(bad.statusCode, 400, `${q}: ${bad.body}`);
      }
    });

    test('the decisions per asset: pages are slices of the whole, in a total order, with and without an exception to subtract', async () => {
      const pages = async (what: string) => {
        const all = await get<DecisionsAnswer>('/api/v1/reports/decisions?by=assetId');
        assert.equal(all.total, all.items.length, `${what}: total`);
        assert.ok(inDecisionOrder(all.items), `${what}: ${JSON.stringify(all.items)}`);
        for (const [limit, offset] of [
          [1, 0],
          [2, 1],
          [2, 4],
          [3, 5],
          [4, 50],
        ] as const) {
          const page = await get<DecisionsAnswer>(`/api/v1/reports/decisions?by=assetId&limit=${limit}&offset=${offset}`);
          assert.deepEqual(page.items, all.items.slice(offset, offset + limit), `${what}: limit ${limit} offset ${offset}`);
          assert.equal(page.total, all.items.length, `${what}: limit ${limit} offset ${offset}: the total`);
        }
        return all;
      };
      const before = await pages('no exception');
      const groups = before.items.map((i) => i.group);
      assert.deepEqual([...groups].sort(), ['asset-a', 'asset-b', 'asset-c', 'asset-d', 'asset-e', null]);
      const c = before.items[groups.indexOf('asset-c')]!;
      const d = before.items[groups.indexOf('asset-d')]!;
      assert.deepEqual([c.act, c.priority], [d.act, d.priority], 'asset-c and asset-d are alike');
      assert.equal(groups.indexOf('asset-d'), groups.indexOf('asset-c') + 1, 'a tie: the asset breaks it');
      assert.equal(groups.at(-1), 'asset-e', 'no Act finding: last');
      const one = await get<DecisionsAnswer>('/api/v1/reports/decisions');
      assert.deepEqual([one.items.length, one.total], [1, 1], 'without by: one row of every finding');

      // An approved exception on asset-a's Act finding (h0's) takes it out of asset-a's counts.
      const list = await get<{ items: { id: string; hostId: string; pluginId: string; decision: string }[] }>(
        '/api/v1/vulnerabilities?where=pluginId%3D400&limit=100',
      );
      const h0 = (await ctx.h.app.store.db.all(`SELECT "id" FROM "rec_hosts" WHERE "hostname" = 'h0'`))[0]!.id;
      const f = list.items.find((x) => x.hostId === h0)!;
      assert.equal(f.decision, 'act');
      const x = await ctx.h.app.store.exceptions.propose({ findingId: f.id, reason: 'compensating control', expiresAt: '2099-01-01' }, 'alice');
      await ctx.h.app.store.exceptions.decide(x.id, 'approve', 'bob');
      try {
        const after = await pages('an approved exception');
        const a0 = before.items.find((i) => i.group === 'asset-a')!;
        const a1 = after.items.find((i) => i.group === 'asset-a')!;
        assert.equal(a1.act, a0.act - 1, 'the excepted Act finding is subtracted');
        assert.ok(a1.priority < a0.priority);
        assert.deepEqual(
          after.items.filter((i) => i.group !== 'asset-a'),
          before.items.filter((i) => i.group !== 'asset-a'),
          'the other assets unchanged',
        );
        const firstPage = await get<DecisionsAnswer>('/api/v1/reports/decisions?by=assetId&limit=2');
        assert.deepEqual(firstPage.items, after.items.slice(0, 2), 'the first page orders by the counts after the subtraction');
      } finally {
        await ctx.h.app.store.exceptions.decide(x.id, 'revoke', 'bob');
      }
      assert.deepEqual(await get<DecisionsAnswer>('/api/v1/reports/decisions?by=assetId'), before, 'revoked: as before');
      for (const q of ['limit=0', 'limit=10001', 'offset=-3', 'offset=x']) {
        const bad = await call(ctx.h.server, { method: 'GET', url: `/api/v1/reports/decisions?by=assetId&${q}`, headers: ctx.auth });
        assert.equal(bad.statusCode, 400, `${q}: ${bad.body}`);
      }
    });
  });
}
