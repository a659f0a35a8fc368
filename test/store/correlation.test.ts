// Correlation in the store on both backends: every rule, the veto, the ambiguity, DHCP reuse, owners on
// hosts and findings, ticket links, manual overrides that survive later syncs, the incremental pass
// after a run, and the coverage report.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { IncomingRecord, ModelName, StoredRecord } from '../../src/core/models.ts';
import { SecretBox } from '../../src/core/secrets.ts';
import { recordId } from '../../src/store/records/upsert.ts';
import { applyOwnerMoves, MOVES_MIN } from '../../src/store/reports/plugin-owners.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';

const box = new SecretBox(Buffer.alloc(32, 7));

const HOSTS: IncomingRecord[] = [
  { key: 'serial', fields: { hostname: 'new-a', serialNumber: 's1', ipAddresses: ['10.9.0.1'], repository: 'Main' } },
  { key: 'mac', fields: { hostname: 'mac-host', macAddresses: ['00-11-22-33-44-55'], ipAddresses: ['10.9.0.2'] } },
  { key: 'fqdn', fields: { fqdn: 'web01.corp.example.', ipAddresses: ['10.9.0.3'] } },
  { key: 'name', fields: { netbiosName: 'CORP\\FIN-LT-7', ipAddresses: ['10.9.0.4'] } },
  { key: 'ip', fields: { ipAddresses: ['10.9.9.9'] } },
  { key: 'veto', fields: { serialNumber: 'X1', macAddresses: ['aa:aa:aa:aa:aa:01'] } },
  { key: 'dup', fields: { hostname: 'dup-1' } },
  { key: 'dhcp', fields: { hostname: 'newbox', ipAddresses: ['10.9.9.10'] } },
];

const CMDB: IncomingRecord[] = [
  { key: 'c-serial', externalId: '101', fields: { name: 'old-a', serialNumber: 'S1', assignedUser: 'Bo Chen', site: 'HQ', state: 'In Use' } },
  { key: 'c-mac', externalId: '102', fields: { name: 'mac-box', macAddresses: ['001122334455'], owner: 'Ana Ruiz', department: 'IT' } },
  { key: 'c-fqdn', externalId: '103', fields: { name: 'WEB01.corp.example' } },
  { key: 'c-name', externalId: '104', fields: { name: 'fin-lt-7' } },
  { key: 'c-ip', externalId: '105', fields: { ipAddresses: ['10.9.9.9'] } },
  { key: 'c-veto', externalId: '106', fields: { serialNumber: 'X2', macAddresses: ['aa:aa:aa:aa:aa:01'] } },
  { key: 'c-dup1', externalId: '107', fields: { name: 'dup-1' } },
  { key: 'c-dup2', externalId: '108', fields: { name: 'DUP-1.corp.example' } },
  { key: 'c-dhcp', externalId: '109', fields: { name: 'oldbox', ipAddresses: ['10.9.9.10'] } },
  { key: 'c-never', externalId: '110', fields: { name: 'spare-ws', ipAddresses: ['10.9.7.7'], state: 'In Store' } },
];

const hostId = (k: string) => recordId('scan', 'hosts', k);
const cmdbId = (k: string) => recordId('desk', 'cmdb-assets', k);

for (const backend of BACKENDS) {
  describe(`correlation on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let store: Store;
    let scan: string;
    let desk: string;
    let run = 0;
    const write = async (source: 'scan' | 'desk', records: Partial<Record<ModelName, IncomingRecord[]>>) => {
      const runId = `r${++run}`;
      await store.records.writePage(
        { sourceId: source === 'scan' ? scan : desk, sourceName: source, runId, generation: `g${run}`, now: new Date().toISOString() },
        'x',
        'incremental',
        records,
        { value: null, complete: false },
      );
      return runId;
    };
    const all = async (model: ModelName, where: { field: string; op: '='; value: string }[] = []): Promise<StoredRecord[]> =>
      (await store.records.query(model, { filters: where, limit: 1000 })).records;
    const assetOfHost = async (k: string) => (await store.records.get('hosts', hostId(k))).assetId as string | null;
    const assetOf = async (k: string) => store.records.get('assets', (await assetOfHost(k))!);

    before(async () => {
      db = await backend.create();
      store = await openStore(db.url, box, () => []);
      scan = (await store.sources.create('scan', 'fixture', {}, null)).id;
      desk = (await store.sources.create('desk', 'fixture', {}, null)).id;
      await write('scan', {
        hosts: HOSTS,
        vulnerabilities: [
          { key: 'v1', hostKey: 'serial', fields: { pluginId: '1001', severity: 'critical', status: 'open', cves: ['CVE-2024-0001'] } },
          { key: 'v2', hostKey: 'serial', fields: { pluginId: '1002', severity: 'low', status: 'open', cves: [] } },
          { key: 'v3', hostKey: 'dup', fields: { pluginId: '1003', severity: 'high', status: 'open', scannerKnownExploited: true, cves: [] } },
        ],
      });
      await write('desk', {
        'cmdb-assets': CMDB,
        users: [{ key: 'u1', fields: { name: 'Bo Chen', department: 'Finance' } }],
        tickets: [
          { key: 't1', fields: { subject: 'Patch CVE-2024-0001 on new-a', status: 'Open', description: '<div>urgent</div>' } },
          { key: 't2', fields: { subject: 'Laptop slow', status: 'Open', associatedAssets: [{ id: '104', name: 'fin-lt-7' }] } },
        ],
      });
      await store.correlation.correlateAll();
    });
    after(async () => {
      await store?.close();
      await db?.drop();
    });

    test('every rule links its pair and records why', async () => {
      const expect: [string, string, string, Record<string, unknown>][] = [
        ['serial', 'c-serial', 'serial', { serial: ['S1'] }],
        ['mac', 'c-mac', 'mac', { mac: ['00:11:22:33:44:55'] }],
        ['fqdn', 'c-fqdn', 'fqdn', { fqdn: ['web01.corp.example'] }],
        ['name', 'c-name', 'hostname', { hostname: ['fin-lt-7'] }],
        ['ip', 'c-ip', 'ip', { ip: ['10.9.9.9'] }],
      ];
      for (const [h, c, rule, matched] of expect) {
        const a = await assetOf(h);
        assert.deepEqual([a.hostIds, a.cmdbAssetIds, a.matchRule], [[hostId(h)], [cmdbId(c)], rule], h);
        const link = (a.matchDetails as { links: { matched: unknown }[] }).links[0]!;
        assert.deepEqual(link.matched, matched, h);
        assert.equal((await store.records.get('cmdb-assets', cmdbId(c))).assetId, a.id);
      }
    });

    test('a disagreeing serial vetoes the MAC match; DHCP reuse merges nothing; duplicate names stay ambiguous with both candidates', async () => {
      const veto = await assetOf('veto');
      assert.deepEqual([veto.cmdbAssetIds, veto.matchRule], [[], 'none']);
      const vetoed = (veto.matchDetails as { unmatched: { vetoed: { cmdbAssetId: string; conflict: { kind: string } }[] }[] }).unmatched[0]!.vetoed[0]!;
      assert.deepEqual([vetoed.cmdbAssetId, vetoed.conflict.kind], [cmdbId('c-veto'), 'serial']);
      assert.deepEqual((await assetOf('dhcp')).cmdbAssetIds, []);
      const dup = await assetOf('dup');
      assert.deepEqual(dup.cmdbAssetIds, []);
      const u = (dup.matchDetails as { unmatched: { status: string; candidates: string[] }[] }).unmatched[0]!;
      assert.deepEqual([u.status, u.candidates], ['ambiguous', [cmdbId('c-dup1'), cmdbId('c-dup2')].sort()]);
      // Every host and CMDB record sits in exactly one asset.
      const assets = await all('assets');
      assert.equal(assets.flatMap((a) => a.hostIds as string[]).length, HOSTS.length);
      assert.equal(assets.flatMap((a) => a.cmdbAssetIds as string[]).length, CMDB.length);
    });

    test('owners, departments and sites reach hosts and findings, and filter them', async () => {
      const h = await store.records.get('hosts', hostId('serial'));
      assert.deepEqual([h.owner, h.department, h.site], ['Bo Chen', 'Finance', 'HQ']);
      const bo = await all('vulnerabilities', [{ field: 'owner', op: '=', value: 'Bo Chen' }]);
      assert.deepEqual(bo.map((v) => v.pluginId).sort(), ['1001', '1002']);
      assert.ok(bo.every((v) => v.department === 'Finance' && v.assetId === h.assetId));
      // Read from the host, so they sort and group like the finding's own fields (unplaced ones last).
      const byOwner = (await store.records.query('vulnerabilities', { sort: { field: 'owner', desc: false }, limit: 100 })).records.map((v) => v.owner);
      assert.deepEqual(
        byOwner.filter((o) => o !== null),
        [...byOwner.filter((o) => o !== null)].sort(),
      );
      assert.ok(byOwner.indexOf(null) === -1 || byOwner.slice(byOwner.indexOf(null)).every((o) => o === null));
      const departments = await store.records.groupCount('vulnerabilities', ['department']);
      assert.equal(departments.find((g) => g.values.department === 'Finance')?.count, bo.length);
      const mac = await assetOf('mac');
      assert.deepEqual([mac.owner, mac.department], ['Ana Ruiz', 'IT']);
    });

    test('tickets link by associated asset first, then by names and CVEs, each with its reason', async () => {
      const t1 = await store.records.get('tickets', recordId('desk', 'tickets', 't1'));
      const serialAsset = await assetOfHost('serial');
      assert.deepEqual(t1.assetIds, [serialAsset]);
      assert.deepEqual(t1.findingIds, [(await all('vulnerabilities', [{ field: 'pluginId', op: '=', value: '1001' }]))[0]!.id]);
      assert.deepEqual(
        (t1.assetLinks as { reason: string }[]).map((l) => l.reason),
        ['hostname'],
      );
      const t2 = await store.records.get('tickets', recordId('desk', 'tickets', 't2'));
      // Associated and naming no CVE or plugin: it covers every finding of that asset.
      assert.deepEqual(t2.assetLinks, [{ assetId: await assetOfHost('name'), reason: 'associated', value: 'fin-lt-7', covers: true }]);
    });

    test('coverage: never-scanned CMDB records, hosts absent from the CMDB, urgent findings without ticket, tickets whose findings are fixed', async () => {
      const report = await store.reports.coverage(30);
      // c-veto, c-dup1, c-dup2, c-dhcp, c-never (c-veto has a MAC; the dup records have no address and no host: not networked).
      const notScanned = (await store.reports.coverageList('cmdbNotScanned', 30)).map((r) => r.id).sort();
      assert.deepEqual(notScanned, [cmdbId('c-veto'), cmdbId('c-dhcp'), cmdbId('c-never')].sort());
      assert.equal(report.cmdbNotScanned, 3);
      assert.deepEqual(
        (await store.reports.coverageList('scannedNotInCmdb', 30)).map((r) => r.id).sort(),
        [hostId('veto'), hostId('dup'), hostId('dhcp')].sort(),
      );
      // v1 is critical but ticket t1 names it; v3 is known-exploited with no ticket.
      assert.deepEqual(
        (await store.reports.coverageList('findingsWithoutTicket', 30)).map((r) => r.pluginId),
        ['1003'],
      );
      assert.equal(report.findingsWithoutTicket, 1, 'counted from the summaries as the list reads the records');
      assert.equal(report.ticketsForFixedFindings, 0);
      await write('scan', { vulnerabilities: [{ key: 'v1', hostKey: 'serial', fields: { status: 'fixed' } }] });
      assert.deepEqual(
        (await store.reports.coverageList('ticketsForFixedFindings', 30)).map((r) => r.id),
        [recordId('desk', 'tickets', 't1')],
      );
      assert.deepEqual(await store.reports.coverage(30), {
        cmdbNotScanned: 3,
        scannedNotInCmdb: 3,
        findingsWithoutTicket: 1,
        ticketsForFixedFindings: 1,
        ticketsClosedFindingsOpen: 0,
        days: 30,
      });
      // Another critical finding on the host t1 names: t1 names a CVE this one lacks, so it does not cover
      // it (a ticket about one fix is no ticket for every finding of its machine); the report counts what
      // the lists hold.
      await write('scan', {
        vulnerabilities: [{ key: 'v4', hostKey: 'serial', fields: { pluginId: '1004', severity: 'critical', status: 'open', cves: [] } }],
      });
      const again = await store.reports.coverage(30);
      for (const kind of ['cmdbNotScanned', 'scannedNotInCmdb', 'findingsWithoutTicket', 'ticketsForFixedFindings'] as const)
        assert.equal(again[kind], (await store.reports.coverageList(kind, 30)).length, kind);
      assert.deepEqual((await store.reports.coverageList('findingsWithoutTicket', 30)).map((r) => r.pluginId).sort(), ['1003', '1004']);
    });

    test('a manual link beats the ambiguity and an unlink forbids a serial match, across later syncs and full recomputes', async () => {
      await store.correlation.setOverride(hostId('dup'), cmdbId('c-dup1'), 'link', 'alice');
      await store.correlation.setOverride(hostId('serial'), cmdbId('c-serial'), 'unlink');
      const linkedAt = (await store.correlation.overrides()).find((o) => o.action === 'link')!.createdAt;
      const check = async () => {
        const dup = await assetOf('dup');
        assert.deepEqual([dup.cmdbAssetIds, dup.matchRule], [[cmdbId('c-dup1')], 'manual']);
        // Who made the link and when stay with it through every pass.
        const made = (dup.matchDetails as { links: Record<string, unknown>[] }).links[0]!;
        assert.deepEqual([made.rule, made.by, made.at], ['manual', 'alice', linkedAt]);
        const s = await assetOf('serial');
        assert.deepEqual(s.cmdbAssetIds, []);
        assert.equal((await store.records.get('hosts', hostId('serial'))).owner, null);
        assert.equal((await all('vulnerabilities', [{ field: 'owner', op: '=', value: 'Bo Chen' }])).length, 0);
      };
      await check();
      const r1 = await write('scan', { hosts: HOSTS });
      await store.correlation.correlateRun(scan, r1, 0);
      await check();
      const r2 = await write('desk', { 'cmdb-assets': CMDB });
      await store.correlation.correlateRun(desk, r2, 0);
      await check();
      await store.correlation.correlateAll();
      await check();
      // Lifting the unlink with a link puts the pair back, as manual.
      await store.correlation.setOverride(hostId('serial'), cmdbId('c-serial'), 'link');
      assert.deepEqual((await assetOf('serial')).matchRule, 'manual');
    });

    test('the incremental pass after a run links new records and fills in owners on the findings it wrote', async () => {
      const r1 = await write('desk', {
        'cmdb-assets': [{ key: 'c-late', externalId: '111', fields: { name: 'late-box', serialNumber: 'L-1', assignedUser: 'Bo Chen' } }],
      });
      const res1 = await store.correlation.correlateRun(desk, r1, 0);
      assert.equal(res1?.mode, 'incremental');
      const r2 = await write('scan', {
        hosts: [{ key: 'late', fields: { hostname: 'late-box-renamed', serialNumber: 'l1' } }],
        vulnerabilities: [{ key: 'v9', hostKey: 'late', fields: { pluginId: '1009', severity: 'high', status: 'open', cves: [] } }],
      });
      const res2 = await store.correlation.correlateRun(scan, r2, 0);
      assert.equal(res2?.mode, 'incremental');
      const a = await assetOf('late');
      assert.deepEqual([a.cmdbAssetIds, a.matchRule, a.openFindings], [[cmdbId('c-late')], 'serial', { high: 1 }]);
      const v9 = (await all('vulnerabilities', [{ field: 'pluginId', op: '=', value: '1009' }]))[0]!;
      assert.deepEqual([v9.assetId, v9.owner, v9.department], [a.id, 'Bo Chen', 'Finance']);
      // The incremental result equals a full recompute's.
      const before = (await all('assets')).map((x) => [x.id, x.hostIds, x.cmdbAssetIds, x.matchRule]);
      await store.correlation.correlateAll();
      assert.deepEqual(
        (await all('assets')).map((x) => [x.id, x.hostIds, x.cmdbAssetIds, x.matchRule]),
        before,
      );
    });

    test('a ticket covers only what it is about; one naming the whole estate is broad and covers nothing by its text', async () => {
      const urgent = async () => (await store.reports.coverageList('findingsWithoutTicket', 30)).map((r) => r.pluginId).sort();
      await write('scan', {
        vulnerabilities: [
          { key: 'sd', hostKey: 'mac', fields: { pluginId: '2001', pluginName: 'Debian 12: systemd', severity: 'critical', status: 'open', cves: [] } },
        ],
      });
      const before = await urgent();
      assert.ok(before.includes('2001'));
      const ips = Array.from({ length: 30 }, (_, i) => `10.9.0.${i + 1}`).join(' ');
      const cves = Array.from({ length: 30 }, (_, i) => `CVE-2024-${String(i + 1).padStart(4, '0')}`).join(', ');
      await write('desk', {
        tickets: [
          // Associated with the machine of the systemd finding, but about another CVE.
          { key: 'patch', fields: { subject: 'Patch CVE-2020-1871', status: 'Closed', associatedAssets: [{ id: '102', name: 'mac-box' }] } },
          { key: 'paste', fields: { subject: 'Quarterly sweep', status: 'Open', description: `<div>${ips}</div><div>${cves}</div>` } },
        ],
      });
      await store.correlation.correlateAll();
      const patch = await store.records.get('tickets', recordId('desk', 'tickets', 'patch'));
      assert.deepEqual(patch.findingIds, [], 'no finding of its asset carries CVE-2020-1871');
      assert.deepEqual(
        (patch.assetLinks as { reason: string; covers?: boolean }[]).map((l) => [l.reason, l.covers ?? false]),
        [['associated', false]],
        'tied to the asset, covering none of its findings',
      );
      const paste = await store.records.get('tickets', recordId('desk', 'tickets', 'paste'));
      assert.equal(paste.broad, true);
      assert.deepEqual([paste.assetIds, paste.findingIds], [[], []], 'a broad ticket links by association only');
      assert.deepEqual(await urgent(), before, 'neither ticket covers an urgent finding');
      assert.equal((await store.reports.coverage(30)).findingsWithoutTicket, before.length);
    });

    test('the decisions per owner, department and asset (read from the host summaries) equal the findings counted through their hosts, after each correlation', async () => {
      const direct = async (col: 'owner' | 'department' | 'asset_id') => {
        const rows = await store.db.all(
          `SELECT h."${col}" AS "g", r."decision" AS "d", COUNT(*) AS "n", SUM(COALESCE(r."priority", 0)) AS "p"
           FROM "rec_vulnerabilities" r JOIN "rec_hosts" h ON h."id" = r."host_id"
           WHERE r."removed" = 0 AND r."status" IN ('open', 'reopened') GROUP BY h."${col}", r."decision"`,
        );
        const out = new Map<string | null, number[]>();
        const at = { act: 0, attend: 1, 'track-star': 2, track: 3 } as Record<string, number>;
        for (const r of rows) {
          const g = (r.g ?? null) as string | null;
          const v = out.get(g) ?? [0, 0, 0, 0, 0];
          if (r.d !== null) v[at[String(r.d)]!]! += Number(r.n);
          v[4] = Math.round((v[4]! + Number(r.p)) * 10) / 10;
          out.set(g, v);
        }
        return [...out].filter(([, v]) => v.slice(0, 4).some((n) => n > 0)).sort(([a], [b]) => String(a).localeCompare(String(b)));
      };
      const agree = async (what: string) => {
        for (const [by, col] of [
          ['owner', 'owner'],
          ['department', 'department'],
          ['assetId', 'asset_id'],
        ] as const) {
          const got = (await store.reports.decisionCounts(by))
            .map((o) => [o.group, [o.act, o.attend, o.trackStar, o.track, o.priority]] as const)
            .sort(([a], [b]) => String(a).localeCompare(String(b)));
          assert.deepEqual(got, await direct(col), `${what}: by ${by}`);
        }
      };
      const serialOwner = async () => (await store.records.get('hosts', hostId('serial'))).owner;
      await agree('after the passes so far');
      assert.ok(
        (await direct('owner')).some(([g]) => g === 'Bo Chen'),
        'a host of an owner has open findings with a decision',
      );
      // The incremental pass after a CMDB run moves a host to another owner (the scanner's summaries are not rebuilt).
      const serial = CMDB.find((c) => c.key === 'c-serial')!;
      const r1 = await write('desk', { 'cmdb-assets': [{ ...serial, fields: { ...serial.fields, assignedUser: 'Di Park' } }] });
      assert.equal((await store.correlation.correlateRun(desk, r1, 0))?.mode, 'incremental');
      assert.equal(await serialOwner(), 'Di Park');
      await agree('after an owner change by the incremental pass');
      // A full recompute after another change.
      await write('desk', { 'cmdb-assets': [{ ...serial, fields: { ...serial.fields, assignedUser: 'Bo Chen' } }] });
      await store.correlation.correlateAll();
      assert.equal(await serialOwner(), 'Bo Chen');
      await agree('after an owner change by a full recompute');
      // Unlinked, the host has no owner: its findings count under none.
      await store.correlation.setOverride(hostId('serial'), cmdbId('c-serial'), 'unlink');
      assert.equal(await serialOwner(), null);
      await agree('after an unlink');
    });

    test("the top remediations' owners follow the hosts' owners as soon as correlation moves a host, and agree with the decisions per owner", async () => {
      // Straight from the findings: each plugin's owners through its open findings' hosts as they are now.
      const direct = async () => {
        const out = new Map<string, Set<string>>();
        for (const r of await store.db.all(
          `SELECT DISTINCT r."plugin_id", h."owner" FROM "rec_vulnerabilities" r JOIN "rec_hosts" h ON h."id" = r."host_id"
           WHERE r."removed" = 0 AND r."status" IN ('open', 'reopened') AND h."owner" IS NOT NULL`,
        ))
          out.set(String(r.plugin_id), (out.get(String(r.plugin_id)) ?? new Set()).add(String(r.owner)));
        return out;
      };
      const agree = async (what: string) => {
        const byPlugin = await direct();
        const report = await store.reports.remediations({ limit: 1000 });
        assert.ok(report.items.length > 0, `${what}: the report lists fixes`);
        const listed = new Set<string>();
        for (const fix of report.items) {
          const want = [...new Set(fix.plugins.flatMap((p) => [...(byPlugin.get(p.pluginId) ?? [])]))].sort();
          assert.deepEqual(fix.owners, want, `${what}: owners of ${fix.fix}`);
          // The drill-down reads each host's owner as it is: the same owners.
          const hosts = await store.reports.remediationHosts(fix.key);
          assert.deepEqual([...new Set(hosts.hosts.flatMap((h) => (h.owner === null ? [] : [h.owner])))].sort(), want, `${what}: drill-down of ${fix.fix}`);
          for (const o of fix.owners) listed.add(o);
        }
        // Every owner with open findings is an owner of some fix, and no other.
        const perOwner = (await store.reports.decisionCounts('owner')).flatMap((o) => (o.group === null ? [] : [o.group]));
        assert.deepEqual([...listed].sort(), perOwner.sort(), `${what}: the owners the decisions per owner count`);
      };
      const serial = CMDB.find((c) => c.key === 'c-serial')!;
      const owner = async () => (await store.records.get('hosts', hostId('serial'))).owner;
      await store.correlation.setOverride(hostId('serial'), cmdbId('c-serial'), 'link');
      // A plugin only the serial host has open (the reads below rebuild the scanner's summaries with it).
      await write('scan', { vulnerabilities: [{ key: 'own', hostKey: 'serial', fields: { pluginId: '3001', severity: 'high', status: 'open', cves: [] } }] });
      assert.equal(await owner(), 'Bo Chen');
      await agree('to begin with');
      // The scanner's summaries are not rebuilt below (checked at the end): what changes is correlation's alone.
      const refreshed = async () => (await store.db.all(`SELECT "refreshed_at" FROM sum_state WHERE "source_id" = ?`, [scan]))[0]?.refreshed_at;
      const since = await refreshed();
      assert.ok(since);
      assert.deepEqual([...((await direct()).get('3001') ?? [])], ['Bo Chen']);
      // A CMDB run gives the host another owner: the incremental pass after it.
      const r1 = await write('desk', { 'cmdb-assets': [{ ...serial, fields: { ...serial.fields, assignedUser: 'Di Park' } }] });
      assert.equal((await store.correlation.correlateRun(desk, r1, 0))?.mode, 'incremental');
      assert.equal(await owner(), 'Di Park');
      await agree('after an owner change by the incremental pass');
      assert.deepEqual([...((await direct()).get('3001') ?? [])], ['Di Park']);
      // Back by a full recompute.
      await write('desk', { 'cmdb-assets': [{ ...serial, fields: { ...serial.fields, assignedUser: 'Bo Chen' } }] });
      await store.correlation.correlateAll();
      assert.equal(await owner(), 'Bo Chen');
      await agree('after an owner change by a full recompute');
      // Unlinked, the host has no owner: its plugins lose it where no other host of that owner has them.
      await store.correlation.setOverride(hostId('serial'), cmdbId('c-serial'), 'unlink');
      assert.equal(await owner(), null);
      await agree('after an unlink');
      assert.equal((await direct()).get('3001'), undefined);
      assert.equal(await refreshed(), since, "the scanner's summaries were not rebuilt");
      // A pass that moves more hosts than movesMax (MOVES_MIN for these few) counts the owners per plugin again from the findings.
      await store.db.run(`DELETE FROM sum_plugin_owners`);
      const many = Array.from({ length: MOVES_MIN + 1 }, (_, i) => ({ hostId: `nowhere-${i}`, from: null, to: 'Nobody' }));
      await store.db.transaction((tx) => applyOwnerMoves(tx, many));
      await agree('after a recount of every source');
    });
  });
}
