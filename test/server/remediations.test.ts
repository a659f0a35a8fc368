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
      assert.deepEqual(none.data, { fix: null, hosts: [] });
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
