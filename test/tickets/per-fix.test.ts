// Remediation requests per fix (issue 32 §1 "one request per fix and owner group", the fix of issue 31
// §2), on both stores against the ServiceDesk Plus simulator: successive upgrades of one product (its
// advisories' plugins) are one request named by the newest upgrade, plugins sharing a solution are one,
// a plugin without a solution or without a plugin record is a fix of its own; a fixed advisory is noted,
// the request resolved only when every plugin's findings are fixed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { IncomingRecord } from '../../src/core/models.ts';
import { remediationTicketsSchema } from '../../src/core/tickets.ts';
import type { SourceRecord, Store } from '../../src/store/index.ts';
import { ticketPlan } from '../../src/tickets/index.ts';
import { type RunningSdpSim, startSdpSim } from '../../sim/servicedesk-plus/index.ts';
import { applyOnSim } from './apply-on-sim.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { openTestStore, writeRecords } from '../helpers/store.ts';

const SETTINGS = remediationTicketsSchema.parse({ enabled: true });

const host = (key: string, department: string): IncomingRecord => ({
  key,
  externalId: key,
  fields: { hostname: key, ipAddresses: [`10.3.0.${key.replace(/\D/g, '')}`], department },
});
const vuln = (hostKey: string, pluginId: string, status = 'open'): IncomingRecord => ({
  key: `${hostKey}|${pluginId}`,
  hostKey,
  fields: { pluginId, pluginName: `Plugin ${pluginId}`, severity: 'critical', status, cves: [`CVE-2026-${pluginId}`] },
});
const plugin = (pluginId: string, name: string, solution: string): IncomingRecord => ({ key: pluginId, fields: { pluginId, name, solution } });

for (const backend of BACKENDS) {
  describe(`remediation requests per fix on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let store: Store;
    let sim: RunningSdpSim;
    let lab: SourceRecord;
    let desk: SourceRecord;
    const apply = async () => {
      return applyOnSim(store, desk, SETTINGS, sim);
    };
    const ids = async (pairs: [string, string][]) => {
      const open = await store.tickets.openFindings({ severities: ['critical'], knownExploited: false });
      const hosts = await store.records.hostLabels([...new Set(open.map((f) => f.hostId))]);
      const nameOf = new Map(hosts.map((h) => [h.id, h.hostname]));
      return open
        .filter((f) => pairs.some(([h, p]) => nameOf.get(f.hostId) === h && f.pluginId === p))
        .map((f) => f.id)
        .sort();
    };

    before(async () => {
      db = await backend.create();
      store = await openTestStore(db);
      sim = await startSdpSim({ seed: 14, requests: 5 });
      lab = await store.sources.create('lab', 'fixture', {}, null);
      desk = await store.sources.create('desk', 'fixture', {}, null);
      await writeRecords(store, lab, {
        hosts: [host('h1', 'Finance'), host('h2', 'Finance'), host('h3', 'HR')],
        plugins: [
          plugin('100', 'Google Chrome < 119.0.2 Multiple Vulnerabilities', 'Upgrade Google Chrome to 119.0.2 or later.'),
          plugin('101', 'Google Chrome < 120.1.0 Multiple Vulnerabilities', 'Upgrade Google Chrome to 120.1.0 or later.'),
          plugin('200', 'Ubuntu 22.04 LTS : openssl (USN-6001-1)', 'Update the affected openssl packages.'),
          plugin('201', 'Ubuntu 22.04 LTS : openssl (USN-6101-1)', 'Update the  affected openssl packages'),
          plugin('300', 'SSL Self-Signed Certificate', 'n/a'),
        ],
        vulnerabilities: [
          vuln('h1', '100'),
          vuln('h1', '101'),
          vuln('h2', '101'),
          vuln('h3', '101'),
          vuln('h1', '200'),
          vuln('h2', '201'),
          vuln('h1', '300'),
          // No plugin record: its own fix, by plugin.
          vuln('h2', '900'),
        ],
      });
    });
    after(async () => {
      await store?.close();
      await sim?.close();
      await db?.drop();
    });

    test('one request per fix and owner group: upgrades of a product and plugins of one solution merge', async () => {
      const plan = await ticketPlan(store, desk, SETTINGS);
      const creates = plan.actions.filter((a) => a.kind === 'create');
      assert.deepEqual(creates.map((a) => [a.key, a.findingIds.length]).sort(), [
        ['fix=900;owner=finance', 1],
        ['fix=plugin:lab:300;owner=finance', 1],
        ['fix=update the affected openssl packages;owner=finance', 2],
        ['fix=upgrade:google chrome;owner=finance', 3],
        ['fix=upgrade:google chrome;owner=hr', 1],
      ]);
      const chrome = creates.find((a) => a.key === 'fix=upgrade:google chrome;owner=finance')!;
      assert.deepEqual(
        chrome.findingIds,
        await ids([
          ['h1', '100'],
          ['h1', '101'],
          ['h2', '101'],
        ]),
      );
      assert.match(
        chrome.draft!.subject,
        /^Remediate: Upgrade Google Chrome to 120\.1\.0 or later \(2 hosts, Finance\) \[TRB-[0-9a-f]{12}\]$/,
        'named by the newest upgrade',
      );
      const single = creates.find((a) => a.key === 'fix=upgrade:google chrome;owner=hr')!;
      assert.match(single.draft!.subject, /^Remediate: Plugin 101 \(1 hosts, HR\)/, 'one plugin: named by the check (the finding names it)');
      const r = await apply();
      assert.equal(r.created, 5);
      assert.equal((await apply()).writes, 0, 'nothing changed: no write');
    });

    test("an advisory fixed on every host is noted on the product's request; the request resolves when every finding is", async () => {
      const key = 'fix=upgrade:google chrome;owner=finance';
      const row = (await store.tickets.get(desk.id, key))!;
      await writeRecords(store, lab, { vulnerabilities: [vuln('h1', '100', 'fixed')] });
      const plan = await ticketPlan(store, desk, SETTINGS);
      assert.deepEqual(
        plan.actions.map((a) => [a.kind, a.key, a.fixed.length]),
        [['note', key, 1]],
      );
      assert.equal((await apply()).noted, 1);
      assert.equal((sim.written.get(row.requestId!)!.status as { name: string }).name, 'Open');
      await writeRecords(store, lab, { vulnerabilities: [vuln('h1', '101', 'fixed'), vuln('h2', '101', 'fixed')] });
      const r = await apply();
      assert.equal(r.resolved, 1);
      assert.equal((sim.written.get(row.requestId!)!.status as { name: string }).name, 'Resolved');
      assert.equal((await store.tickets.get(desk.id, 'fix=upgrade:google chrome;owner=hr'))!.state, 'open', "HR's request is its own");
    });
  });
}
