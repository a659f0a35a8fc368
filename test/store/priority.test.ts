// Decisions and priorities as the store keeps them (docs/priority.md), on both backends: written with
// the findings from the page's hosts' ACR, filtered, sorted and counted; recomputed when a feed import
// makes a finding known exploited and when a CMDB record's business impact reaches its host.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SecretBox } from '../../src/core/secrets.ts';
import { openDriver } from '../../src/store/db/driver.ts';
import { migrate } from '../../src/store/db/migrate.ts';
import { MIGRATIONS } from '../../src/store/db/migrations.ts';
import type { IncomingRecord } from '../../src/core/models.ts';
import { importFeedFiles } from '../../src/feeds/index.ts';
import { openStore, parseFilter, withLiveDefault } from '../../src/store/index.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { labStoreSuite, writeRecords } from '../helpers/store.ts';
import { day, kevCatalog } from '../feeds/fixtures.ts';

const NET = 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
const LOCAL = 'AV:L/AC:L/PR:L/UI:N/S:U/C:L/I:L/A:N';

function finding(key: string, host: string, f: Record<string, unknown>): IncomingRecord {
  return {
    key,
    hostKey: host,
    fields: { pluginId: key, severity: 'critical', status: 'open', cves: [], cvssV3BaseScore: 9.8, cvssV3Vector: NET, exploitAvailable: false, ...f },
  };
}

for (const backend of BACKENDS) {
  describe(`priorities on ${backend.kind}`, { skip: backend.skip }, () => {
    const suite = labStoreSuite(backend, async (store, lab) => {
      await writeRecords(store, lab, {
        hosts: [
          { key: 'crown', fields: { hostname: 'crown', acrScore: 9 } },
          { key: 'kiosk', fields: { hostname: 'kiosk', acrScore: 2 } },
          { key: 'plain', fields: { hostname: 'plain' } },
        ],
        vulnerabilities: [
          // KEV-listed by the scanner, automatable and total, criticality 9: Act.
          finding('kev-crown', 'crown', { scannerKnownExploited: true }),
          // The same on a criticality-2 kiosk: Attend (active, automatable, total, low).
          finding('kev-kiosk', 'kiosk', { scannerKnownExploited: true }),
          // Nothing known of exploitation, automatable and total on the crown: Attend.
          finding('quiet-crown', 'crown', { cves: ['CVE-2026-0001'] }),
          // A local flaw on an unknown host: Track.
          finding('local-plain', 'plain', { severity: 'medium', cvssV3BaseScore: 3.3, cvssV3Vector: LOCAL, cves: ['CVE-2026-0002'] }),
          finding('fixed-crown', 'crown', { status: 'fixed', scannerKnownExploited: true }),
        ],
      });
    });

    const rows = async (where: string[] = [], sort?: { field: string; desc?: boolean }) =>
      (
        await suite.store.records.query('vulnerabilities', {
          filters: withLiveDefault(
            'vulnerabilities',
            where.map((w) => parseFilter(w)),
          ),
          sort,
          limit: 100,
        })
      ).records;
    const byKey = async () => new Map((await rows(['status!=null'])).map((r) => [r.pluginId as string, r]));

    test('written with the finding: decision, priority, the criticality used and the sentence', async () => {
      const f = await byKey();
      assert.deepEqual([...f.values()].map((r) => [r.pluginId, r.decision, r.assetCriticality]).sort(), [
        // (a fixed finding has no decision; the criticality is that of its host when written)
        ['fixed-crown', null, 9],
        ['kev-crown', 'act', 9],
        ['kev-kiosk', 'attend', 2],
        ['local-plain', 'track', null],
        ['quiet-crown', 'attend', 9],
      ]);
      const kev = f.get('kev-crown')!;
      assert.ok((kev.priority as number) >= 75 && (kev.priority as number) <= 100);
      assert.equal(kev.priorityReason, `Act: KEV-listed, network-reachable, automatable, total impact, asset criticality 9/10 (priority ${kev.priority})`);
      assert.equal(f.get('local-plain')!.priorityReason?.toString().startsWith('Track: no known exploitation, not network-reachable'), true);
    });

    test('lists filter by decision (in its order) and priority, and sort by priority', async () => {
      assert.deepEqual(
        (await rows(['decision=act'])).map((r) => r.pluginId),
        ['kev-crown'],
      );
      assert.deepEqual((await rows(['decision>=attend'])).map((r) => r.pluginId).sort(), ['kev-crown', 'kev-kiosk', 'quiet-crown']);
      assert.deepEqual(
        (await rows(['decision=Track'])).map((r) => r.pluginId),
        ['local-plain'],
      );
      assert.deepEqual(
        (await rows(['priority>=75'])).map((r) => r.pluginId),
        ['kev-crown'],
      );
      const sorted = (await rows([], { field: 'priority', desc: true })).map((r) => r.pluginId);
      assert.equal(sorted[0], 'kev-crown');
      assert.equal(sorted.at(-1), 'local-plain');
      await assert.rejects(rows(['decision=urgent']), /decision is one of: track, track-star, attend, act/);
      await assert.rejects(rows(['priorityReason~KEV']), /not|sentence/);
    });

    test('counts by decision', async () => {
      const counts = await suite.store.records.groupCount('vulnerabilities', ['decision'], { filters: withLiveDefault('vulnerabilities', []) });
      assert.deepEqual(Object.fromEntries(counts.map((c) => [c.values.decision, c.count])), { act: 1, attend: 2, track: 1 });
    });

    test('an approved risk exception takes its findings out of the decision counts', async () => {
      const before = (await suite.store.reports.decisionCounts(null))[0]!;
      const kev = (await byKey()).get('kev-crown')!;
      const x = await suite.store.exceptions.propose({ findingId: kev.id, reason: 'compensating control', expiresAt: '2099-01-01' }, 'alice');
      assert.deepEqual((await suite.store.reports.decisionCounts(null))[0]!.act, before.act, 'proposed: still counted');
      await suite.store.exceptions.decide(x.id, 'approve', 'bob');
      const after = (await suite.store.reports.decisionCounts(null))[0]!;
      assert.equal(after.act, before.act - 1);
      assert.ok(after.priority < before.priority);
      await suite.store.exceptions.decide(x.id, 'revoke', 'bob');
      assert.equal((await suite.store.reports.decisionCounts(null))[0]!.act, before.act, 'revoked: counted again');
    });

    test('a feed import that lists a CVE in KEV moves its findings to a higher decision', async () => {
      await importFeedFiles({ store: suite.store }, [
        { name: 'kev.json', data: kevCatalog('2026.11.27', new Date().toISOString(), [{ cve: 'CVE-2026-0001', added: day(-1), due: day(20) }]) },
      ]);
      const f = await byKey();
      assert.equal(f.get('quiet-crown')!.decision, 'act', 'now active: automatable, total, high mission');
      assert.equal(f.get('local-plain')!.decision, 'track', 'not listed: unchanged');
    });

    test("a CMDB record's business impact reaches its host's findings (when the host has no ACR)", async () => {
      const db = suite.store.db;
      const hostId = String((await db.all(`SELECT "id" FROM "rec_hosts" WHERE "hostname" = 'plain'`))[0]!.id);
      await db.run(`UPDATE "rec_hosts" SET "asset_id" = 'asset-1' WHERE "id" = ?`, [hostId]);
      await db.run(
        `INSERT INTO "rec_cmdb_assets" ("id", "source_id", "natural_key", "removed", "name", "business_impact", "asset_id") VALUES ('c1', ?, 'c1', 0, 'plain', 'High', 'asset-1')`,
        [suite.lab.id],
      );
      const r = await suite.store.records.refreshPriorities();
      assert.equal(r.hosts, 1, 'one host changed its criticality');
      assert.deepEqual(r.sourceIds, [suite.lab.id], 'its source, whose summaries were rebuilt');
      // The per-owner/asset counts read the summaries: they follow.
      const owners = await suite.store.reports.decisionCounts('assetId');
      assert.deepEqual(
        owners.filter((o) => o.group === 'asset-1').map((o) => [o.act, o.attend, o.trackStar, o.track]),
        [[0, 0, 0, 1]],
      );
      const f = await byKey();
      assert.equal(f.get('local-plain')!.assetCriticality, 9);
      assert.equal(f.get('local-plain')!.decision, 'track', 'local, partial, no exploitation: Track whatever the mission');
      assert.match(String(f.get('local-plain')!.priorityReason), /asset criticality 9\/10/);
      const perAsset = await suite.store.records.groupCount('vulnerabilities', ['assetId', 'decision'], { filters: withLiveDefault('vulnerabilities', []) });
      assert.deepEqual(
        perAsset.filter((c) => c.values.assetId === 'asset-1').map((c) => [c.values.decision, c.count]),
        [['track', 1]],
      );
      // Nothing changed since: nothing is written again.
      assert.deepEqual(await suite.store.records.refreshPriorities(), { hosts: 0, findings: 0, sourceIds: [] });
    });

    test('a finding written as one row per CVE keeps the highest priority of its rows and its decision', async () => {
      const row = (cve: string, kev: boolean) => finding('per-cve', 'crown', { cves: [cve], scannerKnownExploited: kev });
      // In one page: the KEV row first, then the other.
      await writeRecords(suite.store, suite.lab, { vulnerabilities: [row('CVE-2026-1001', true), row('CVE-2026-1002', false)] });
      let f = (await byKey()).get('per-cve')!;
      assert.deepEqual(f.cves, ['CVE-2026-1001', 'CVE-2026-1002']);
      assert.equal(f.decision, 'act');
      // Across pages of one generation: a later row that is not KEV-listed leaves the higher one.
      await writeRecords(suite.store, suite.lab, { vulnerabilities: [row('CVE-2026-1003', false)] });
      f = (await byKey()).get('per-cve')!;
      assert.equal(f.decision, 'act');
      assert.ok((f.priority as number) >= 75);
    });

    test('a finding written again keeps the stored criticality of its host', async () => {
      await writeRecords(suite.store, suite.lab, { vulnerabilities: [finding('again-plain', 'plain', { scannerKnownExploited: true })] });
      const f = await byKey();
      assert.equal(f.get('again-plain')!.assetCriticality, 9);
      assert.equal(f.get('again-plain')!.decision, 'act');
    });
  });
}

for (const backend of BACKENDS) {
  test(`on ${backend.kind}, open findings stored before migration 27 get their decision after the next refresh`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    try {
      const raw = await openDriver(db.url);
      await migrate(
        raw,
        MIGRATIONS.filter((m) => m.version < 27),
      );
      await raw.run(`INSERT INTO "sources" ("id", "name", "type", "config", "created_at", "updated_at") VALUES ('s', 'lab', 'fixture', '{}', 't', 't')`);
      await raw.run(`INSERT INTO "rec_hosts" ("id", "source_id", "natural_key", "removed", "acr_score") VALUES ('h1', 's', 'h1', 0, 9)`);
      for (const [id, status, kev] of [
        ['open-kev', 'open', 1],
        ['fixed', 'fixed', 1],
      ] as const)
        await raw.run(
          `INSERT INTO "rec_vulnerabilities" ("id", "source_id", "natural_key", "removed", "host_id", "status", "severity", "cvss_v3_base_score", "scanner_known_exploited") VALUES (?, 's', ?, 0, 'h1', ?, 'critical', 9.8, ?)`,
          [id, id, status, kev],
        );
      await raw.close();
      const store = await openStore(db.url, new SecretBox(Buffer.alloc(32, 3)), () => []);
      try {
        const r = await store.records.refreshPriorities();
        assert.deepEqual([r.hosts, r.findings], [1, 1], 'the host gets its criticality (ACR 9); the open finding its decision');
        const rows = await store.db.all(`SELECT "id", "decision", "asset_criticality" FROM "rec_vulnerabilities" ORDER BY "id"`);
        // Known exploited, no vector (critical: total impact, not automatable), high mission: Act.
        assert.deepEqual(
          rows.map((x) => [x.id, x.decision, Number(x.asset_criticality ?? -1)]),
          [
            ['fixed', null, -1],
            ['open-kev', 'act', 9],
          ],
        );
        assert.deepEqual(await store.records.refreshPriorities(), { hosts: 0, findings: 0, sourceIds: [] }, 'once');
      } finally {
        await store.close();
      }
    } finally {
      await db.drop();
    }
  });
}

for (const backend of BACKENDS) {
  test(`on ${backend.kind}, migration 36 renames a stored Track* decision 'track*' to 'track-star'`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    try {
      const raw = await openDriver(db.url);
      await migrate(
        raw,
        MIGRATIONS.filter((m) => m.version < 36),
      );
      await raw.run(`INSERT INTO "sources" ("id", "name", "type", "config", "created_at", "updated_at") VALUES ('s', 'lab', 'fixture', '{}', 't', 't')`);
      for (const [id, decision] of [
        ['star', 'track*'],
        ['act', 'act'],
      ] as const)
        await raw.run(
          `INSERT INTO "rec_vulnerabilities" ("id", "source_id", "natural_key", "removed", "status", "severity", "decision") VALUES (?, 's', ?, 0, 'open', 'high', ?)`,
          [id, id, decision],
        );
      await raw.close();
      const store = await openStore(db.url, new SecretBox(Buffer.alloc(32, 3)), () => []);
      try {
        const rows = await store.db.all(`SELECT "id", "decision" FROM "rec_vulnerabilities" ORDER BY "id"`);
        assert.deepEqual(
          rows.map((x) => [x.id, x.decision]),
          [
            ['act', 'act'],
            ['star', 'track-star'],
          ],
        );
      } finally {
        await store.close();
      }
    } finally {
      await db.drop();
    }
  });
}
