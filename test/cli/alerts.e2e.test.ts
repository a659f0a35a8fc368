// `tributary alerts` end to end on both stores, with a local receiver: add prints the generated secret
// once (stdout) and refuses a file URL (exit 2, one line); list and deliveries; a `feeds import` that makes
// an open finding KEV-listed delivers a signed digest before the command exits; `alerts test` exits 1 when
// the receiver answers 500; remove.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { verifySignature } from '../../src/alerts/index.ts';
import { startReceiver, type Receiver } from '../alerts/receiver.ts';
import { day, kevCatalog } from '../feeds/fixtures.ts';
import { openTestApp } from '../helpers/app.ts';
import { type CliResult, cliEnv, runCliAsync } from '../helpers/cli.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';

for (const backend of BACKENDS) {
  describe(`tributary alerts (${backend.kind})`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let rx: Receiver;
    let secret = '';
    const cli = (args: string[]): Promise<CliResult> =>
      runCliAsync(['--data-dir', db.dataDir, '--db', db.url, ...args], cliEnv({ TRIBUTARY_ALERT_RETRY_MS: '10' }));

    before(async () => {
      db = await backend.create();
      rx = await startReceiver();
      // Two open findings and a fixed one, written to the store as a sync would (none known exploited yet).
      const app = await openTestApp(db);
      try {
        const source = await app.store.sources.create('lab', 'fixture', {}, null);
        const stamp = { sourceId: source.id, sourceName: source.name, runId: 'run-1', generation: 'g1', now: new Date().toISOString() };
        const finding = (key: string, cves: string[], status = 'open') => ({
          key,
          hostKey: 'h1',
          firstSeen: new Date().toISOString(),
          fields: { pluginId: key, pluginName: `Plugin ${key}`, severity: 'high', cves, status },
        });
        await app.store.records.writePage(
          stamp,
          'vulnerabilities',
          'full',
          { vulnerabilities: [finding('p1', ['CVE-2025-0101']), finding('p2', ['CVE-2025-0202']), finding('p3', ['CVE-2025-0101'], 'fixed')] },
          { value: null, complete: false },
        );
      } finally {
        await app.close();
      }
    });
    after(async () => {
      await rx?.close();
      await db?.drop();
    });

    test('add prints the secret once; a file URL exits 2; list shows neither secret nor URL path', async () => {
      const added = await cli(['alerts', 'add', '--name', 'soc', '--url', `${rx.url}/in/secret-path`, '--on', 'kev,sync', '--max-items', '5']);
      assert.equal(added.code, 0, added.stderr);
      secret = added.stdout.trim();
      assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
      assert.match(added.stderr, /added alert 'soc' on kev, sync as json to http:\/\/127\.0\.0\.1:\d+\/…/);
      // The secret first; then the command records what is already true before it ends, and says so.
      assert.match(added.stderr, /recording the findings already true \(not reported\)…\nrecorded in \d+\.\d s\n$/);
      const listed = JSON.parse((await cli(['--json', 'alerts', 'list'])).stdout) as { items: { baselinePending: boolean }[] };
      assert.equal(listed.items[0]!.baselinePending, false);
      const refused = await cli(['alerts', 'add', '--name', 'x', '--url', `file://${db.dataDir}/drop/x`, '--on', 'kev']);
      assert.equal(refused.code, 2);
      assert.equal(refused.stderr.trim().split('\n').length, 1);
      assert.match(refused.stderr, /webhook URL refused/);
      const bad = await cli(['alerts', 'add', '--name', 'x', '--url', rx.url, '--on', 'kev,rain']);
      assert.equal(bad.code, 2);
      const list = await cli(['--json', 'alerts', 'list']);
      assert.equal(list.code, 0);
      assert.ok(!list.stdout.includes(secret) && !list.stdout.includes('secret-path'));
      assert.deepEqual(
        (JSON.parse(list.stdout) as { items: { name: string; on: string[] }[] }).items.map((a) => [a.name, a.on]),
        [['soc', ['kev', 'sync']]],
      );
      const human = await cli(['alerts', 'list']);
      assert.match(human.stdout, /soc\s+kev,sync\s+json\s+http:\/\/127\.0\.0\.1:\d+\/…\s+never/);
      // §7.3's options in full: every rule kind, a format, a secret of one's own (not printed back).
      const own = 'a-secret-of-our-own-0123456789';
      const full = await cli([
        'alerts',
        'add',
        '--name',
        'all',
        '--url',
        `${rx.url}/all`,
        '--on',
        'kev,act,sla,sync,coverage',
        '--format',
        'teams',
        '--secret',
        own,
      ]);
      assert.equal(full.code, 0, full.stderr);
      assert.ok(!full.stdout.includes(own));
      const both = JSON.parse((await cli(['--json', 'alerts', 'list'])).stdout) as { items: { name: string; on: string[]; format: string }[] };
      assert.deepEqual(both.items.map((a) => [a.name, a.on, a.format]).sort(), [
        ['all', ['kev', 'act', 'sla', 'sync', 'coverage'], 'teams'],
        ['soc', ['kev', 'sync'], 'json'],
      ]);
      assert.equal((await cli(['alerts', 'remove', 'all'])).code, 0);
    });

    test('feeds import delivers the known-exploited digest before the command exits', async () => {
      const file = join(db.dataDir, 'kev.json');
      writeFileSync(file, kevCatalog('2026.11.27', new Date().toISOString(), [{ cve: 'CVE-2025-0101', added: day(-1), due: day(30) }]));
      const r = await cli(['feeds', 'import', file]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(rx.received.length, 1);
      const m = rx.received[0]!;
      assert.equal(m.path, '/in/secret-path');
      assert.ok(verifySignature(secret, m.body, m.headers['x-tributary-signature'] as string));
      const doc = JSON.parse(m.body) as { rule: string; total: number; items: { id: string; pluginId: string; knownExploitedBy: string }[] };
      assert.ok(
        doc.items.every((i) => typeof i.id === 'string' && i.id.length > 0),
        'each item names its record by id',
      );
      assert.equal(doc.rule, 'kev');
      assert.equal(doc.total, 1, 'the open finding; not the fixed one, nor the one whose CVE is not listed');
      assert.deepEqual(
        doc.items.map((i) => [i.pluginId, i.knownExploitedBy]),
        [['p1', 'feed']],
      );
      const log = JSON.parse((await cli(['--json', 'alerts', 'deliveries'])).stdout) as {
        items: { alert: string; status: string; attempts: number; total: number }[];
      };
      assert.deepEqual(
        log.items.map((d) => [d.alert, d.status, d.attempts, d.total]),
        [['soc', 'delivered', 1, 1]],
      );
    });

    test('alerts test exits 1 with the reason when the receiver fails; remove', async () => {
      rx.answers.push(500);
      const t = await cli(['alerts', 'test', 'soc']);
      assert.equal(t.code, 1);
      assert.match(t.stderr, /not delivered: HTTP 500/);
      const ok = await cli(['alerts', 'test', 'soc']);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /delivered a test message of 'soc' \(HTTP 200\)/);
      const human = await cli(['alerts', 'deliveries', '--alert', 'soc']);
      assert.match(human.stdout, /failed\s+1\s+500\s+HTTP 500/);
      assert.equal((await cli(['alerts', 'remove', 'soc'])).code, 0);
      const gone = await cli(['alerts', 'remove', 'soc']);
      assert.notEqual(gone.code, 0);
      assert.match(gone.stderr, /no alert named 'soc'/);
    });
  });
}
