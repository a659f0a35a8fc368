// Issue 31 §4, alerts, on both stores with a local receiver (node:http): rules added with what is
// already true recorded (nothing old is reported), a digest per rule and evaluation (up to maxItems
// items and the total), the HMAC signature verified as a receiver would, the known-exploited rule firing
// after a feed import that makes open findings KEV-listed (and not twice), the SLA, coverage and sync
// rules, retries after HTTP 500 with the delivery log, and the secret and URL sealed and never shown.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  alertAfterFeedImport,
  addAlert,
  checkWebhookUrl,
  describeAlerts,
  drainAlerts,
  removeAlert,
  testAlert,
  verifySignature,
} from '../../src/alerts/index.ts';
import type { AppContext } from '../../src/app/context.ts';
import { addSource } from '../../src/app/sources.ts';
import { SIGNATURE_HEADER } from '../../src/core/alerts.ts';
import { InputError } from '../../src/core/errors.ts';
import { importFeedFiles } from '../../src/feeds/index.ts';
import { runSync } from '../../src/sync/runner.ts';
import { day, kevCatalog } from '../feeds/fixtures.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { newControl, openFixtureApp } from '../helpers/fixture-connector.ts';
import { type Received, type Receiver, startReceiver } from './receiver.ts';

const header = (r: Received, name: string) => {
  const v = r.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};

test('webhook URLs: http and https only; the service’s own intake paths and the file drop’s S3 endpoint are refused; private addresses are allowed', () => {
  const app = { env: { TRIBUTARY_FILE_DROP: 's3:', TRIBUTARY_S3_ENDPOINT: 'http://minio.local:9000' } };
  for (const ok of ['http://10.0.0.5:8080/hook', 'https://hooks.slack.com/services/T0/B0/XXXX', 'http://127.0.0.1:9/x', 'https://example.com/api/v1/alerts'])
    assert.equal(checkWebhookUrl(app, ok), ok);
  for (const bad of [
    'file:///var/lib/tributary/drop/x',
    'ftp://example.com/x',
    'javascript:alert(1)',
    'not a url',
    'http://tributary.local/api/v1/upload/vuln-scanner/x.csv',
    'http://tributary.local/api/v1/sources/lab/files',
    'http://tributary.local//api/v1/sources/lab/file-drop',
    'http://tributary.local/api/v1/%66eeds',
    'http://minio.local:9000/vuln-scanner/x.json',
    `https://example.com/${'x'.repeat(2100)}`,
  ])
    assert.throws(() => checkWebhookUrl(app, bad), InputError, bad);
});

for (const backend of BACKENDS) {
  describe(`alerts on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let app: AppContext;
    let rx: Receiver;
    const control = newControl({
      hosts: ['alpha', 'beta'],
      findings: [
        { host: 'alpha', plugin: '101', severity: 'critical' },
        { host: 'alpha', plugin: '102' },
        { host: 'beta', plugin: '101', severity: 'critical' },
        { host: 'beta', plugin: '109', status: 'fixed' },
      ],
      pageSize: 10,
    });
    const secrets: Record<string, string> = {};
    const at = (path: string) => rx.received.filter((r) => r.path === path);
    const json = (r: Received) => JSON.parse(r.body) as Record<string, unknown>;

    before(async () => {
      db = await backend.create();
      rx = await startReceiver();
      app = await openFixtureApp(db, control, { ...process.env, TRIBUTARY_ALERT_RETRY_MS: '10', TRIBUTARY_ALERT_ATTEMPTS: '4' });
      await addSource(app, 'fixture', 'lab', { url: 'https://up.example', token: 'good-token-123' });
    });
    after(async () => {
      await app?.close();
      await rx?.close();
      await db?.drop();
    });

    test('rules are added with a generated secret (shown once), sealed at rest with their URL, and listed without either', async () => {
      const kev = await addAlert(app, { name: 'kev-hook', url: `${rx.url}/kev?token=hush-url-token`, kinds: ['kev'], maxItems: 2 });
      const ops = await addAlert(app, { name: 'ops', url: `${rx.url}/ops`, kinds: ['sync,coverage'], format: 'slack' });
      const sla = await addAlert(app, { name: 'sla-teams', url: `${rx.url}/sla`, kinds: ['sla'], format: 'teams', secret: 'a-secret-of-my-own-choosing' });
      // Each answers at once; what is already true is recorded beside the caller (nothing yet here).
      assert.deepEqual([kev.alert.baselinePending, ops.alert.baselinePending, sla.alert.baselinePending], [true, false, true]);
      await Promise.all([kev.baseline, ops.baseline, sla.baseline]);
      assert.deepEqual(
        (await describeAlerts(app)).map((a) => a.baselinePending),
        [false, false, false],
      );
      secrets['kev-hook'] = kev.secret;
      secrets.ops = ops.secret;
      secrets['sla-teams'] = sla.secret;
      assert.ok(kev.secret.length >= 40, 'a generated secret of 32 random bytes');
      assert.equal(sla.secret, 'a-secret-of-my-own-choosing');
      assert.deepEqual(kev.alert.kinds, ['kev']);
      assert.deepEqual(ops.alert.kinds, ['sync', 'coverage']);
      const raw = await app.store.db.all(`SELECT "url", "secret", "url_shown" FROM "alert_rules" ORDER BY "name"`);
      for (const r of raw) {
        assert.match(String(r.url), /^enc:v1:/);
        assert.match(String(r.secret), /^enc:v1:/);
      }
      const listed = JSON.stringify(await describeAlerts(app));
      for (const s of [kev.secret, ops.secret, 'a-secret-of-my-own-choosing', 'hush-url-token', '/kev'])
        assert.ok(!listed.includes(s), `the list shows no ${s}`);
      assert.equal((await describeAlerts(app)).find((a) => a.name === 'kev-hook')!.urlShown, `${rx.url}/…`);
      await assert.rejects(addAlert(app, { name: 'bad', url: 'file:///etc/passwd', kinds: ['kev'] }), InputError);
      await assert.rejects(addAlert(app, { name: 'bad', url: rx.url, kinds: ['kev', 'weather'] }), /unknown alert kind 'weather'/);
      await assert.rejects(addAlert(app, { name: 'kev-hook', url: rx.url, kinds: ['kev'] }), /exists already/);
    });

    test('a sync: one digest per rule with what is new (findings newly past due, a coverage count that grew), signed', async () => {
      const r = await runSync(app, 'lab');
      assert.equal(r.status, 'succeeded');
      await drainAlerts(app);
      assert.equal(at('/kev?token=hush-url-token').length, 0, 'no finding is known exploited yet');
      // SLA: the three open findings (first seen 2026-01-01) are past due; the fixed one is not. One message.
      const sla = at('/sla');
      assert.equal(sla.length, 1);
      assert.ok(verifySignature(secrets['sla-teams']!, sla[0]!.body, header(sla[0]!, SIGNATURE_HEADER)));
      const card = json(sla[0]!) as { type: string; attachments: { contentType: string; content: { type: string; body: { text: string }[] } }[] };
      assert.equal(card.type, 'message');
      assert.equal(card.attachments[0]!.contentType, 'application/vnd.microsoft.card.adaptive');
      assert.equal(card.attachments[0]!.content.type, 'AdaptiveCard');
      const texts = card.attachments[0]!.content.body.map((b) => b.text);
      assert.match(texts[0]!, /'sla-teams': 3 open findings newly past their due date after a sync of lab/);
      assert.equal(texts.length, 4, 'a heading and one line per finding');
      assert.ok(texts.slice(1).every((t) => /due 2026-/.test(t)));
      // Coverage: scanned hosts not in the CMDB went from 0 to 2 (Slack text).
      const ops = at('/ops');
      assert.equal(ops.length, 1);
      const slack = json(ops[0]!) as { text: string };
      assert.deepEqual(Object.keys(slack), ['text']);
      assert.match(slack.text, /scanned hosts not in the CMDB: 0 → 2/);
      assert.ok(verifySignature(secrets.ops!, ops[0]!.body, header(ops[0]!, SIGNATURE_HEADER)));
      assert.ok(!verifySignature(secrets.ops!, `${ops[0]!.body} `, header(ops[0]!, SIGNATURE_HEADER)), 'a changed body fails');
    });

    test('a feed import that makes open findings KEV-listed fires the known-exploited rule once, as one digest of at most maxItems', async () => {
      const before = rx.received.length;
      const kev = kevCatalog('2026.11.27', new Date().toISOString(), [{ cve: 'CVE-2024-0001', added: day(-1), due: day(20) }]);
      const res = await importFeedFiles(app, [{ name: 'kev.json', data: kev }]);
      assert.equal(res.imported[0]!.status, 'imported');
      alertAfterFeedImport(app);
      await drainAlerts(app);
      const got = at('/kev?token=hush-url-token');
      assert.equal(got.length, 1);
      const m = got[0]!;
      assert.equal(header(m, 'content-type'), 'application/json; charset=utf-8');
      assert.equal(header(m, 'x-tributary-event'), 'kev');
      assert.match(header(m, SIGNATURE_HEADER)!, /^sha256=[0-9a-f]{64}$/);
      assert.ok(verifySignature(secrets['kev-hook']!, m.body, header(m, SIGNATURE_HEADER)));
      // §7.3 in its own words: X-Tributary-Signature is `sha256=` and the hex HMAC-SHA256 of the raw body.
      assert.equal(SIGNATURE_HEADER, 'X-Tributary-Signature');
      assert.equal(header(m, 'x-tributary-signature'), `sha256=${createHmac('sha256', secrets['kev-hook']!).update(m.body).digest('hex')}`);
      assert.ok(!m.body.includes(secrets['kev-hook']!), 'no secret in the payload');
      const doc = json(m) as {
        alert: string;
        rule: string;
        runId: string | null;
        at: string;
        cause: string;
        total: number;
        truncated: boolean;
        items: Record<string, unknown>[];
      };
      for (const k of ['alert', 'rule', 'runId', 'at', 'items']) assert.ok(k in doc, `the JSON delivery names ${k}`);
      assert.equal(doc.alert, 'kev-hook');
      assert.equal(doc.rule, 'kev');
      assert.equal(doc.cause, 'feed-import');
      assert.equal(doc.runId, null);
      assert.ok(!Number.isNaN(Date.parse(doc.at)));
      assert.equal(doc.total, 3, 'the three open findings; not the fixed one');
      assert.equal(doc.truncated, true);
      assert.equal(doc.items.length, 2, 'maxItems 2');
      const open = (await app.store.records.query('vulnerabilities', { limit: 100 })).records;
      const openIds = new Set(open.map((r) => r.id));
      for (const i of doc.items) {
        assert.ok(openIds.has(i.id as string), 'each item names an open finding by id');
        assert.equal(i.severity, 'critical', 'most severe first');
        assert.equal(i.knownExploitedBy, 'feed');
        assert.deepEqual(i.cves, ['CVE-2024-0001']);
      }
      // Coverage got worse too: the high finding is now known exploited and has no ticket. Nothing else
      // (the KEV due date is later than the findings' own: no SLA news).
      const ops = at('/ops');
      assert.equal(ops.length, 2);
      assert.match((json(ops[1]!) as { text: string }).text, /after a feed import\*\n• open critical or known-exploited findings without a ticket: 2 → 3$/);
      assert.equal(rx.received.length, before + 2);
      // A newer catalog listing the same CVE, and a sync that sees the same findings: nothing again.
      await importFeedFiles(app, [{ name: 'kev2.json', data: kevCatalog('2026.11.28', new Date().toISOString(), [{ cve: 'CVE-2024-0001', added: day(-1) }]) }]);
      alertAfterFeedImport(app);
      assert.equal((await runSync(app, 'lab')).status, 'succeeded');
      await drainAlerts(app);
      assert.equal(rx.received.length, before + 2, 'an item is delivered once per rule');
      const log = await app.store.alerts.deliveries({ rule: 'kev-hook' });
      assert.equal(log.length, 1);
      assert.deepEqual([log[0]!.status, log[0]!.attempts, log[0]!.items, log[0]!.total, log[0]!.cause], ['delivered', 1, 2, 3, 'feed-import']);
    });

    test('a failed sync is reported; HTTP 500 is retried with backoff and the log keeps the attempts and last error', async () => {
      rx.answers.push(500, 500);
      control.failFindingsAtPage = 0;
      const r = await runSync(app, 'lab');
      control.failFindingsAtPage = undefined;
      // The hosts stream read, the findings stream failed: a partial run.
      assert.equal(r.status, 'partial');
      await drainAlerts(app);
      const tries = at('/ops').slice(2);
      assert.equal(tries.length, 3, 'two 500s, then delivered');
      assert.equal(new Set(tries.map((t) => t.body)).size, 1, 'the same body each time');
      assert.equal(new Set(tries.map((t) => header(t, 'x-tributary-delivery'))).size, 1);
      assert.match((json(tries[0]!) as { text: string }).text, new RegExp(`lab: run ${r.runId} partial: .*upstream refused page 0`));
      const [d] = await app.store.alerts.deliveries({ rule: 'ops', limit: 1 });
      assert.equal(d!.status, 'delivered');
      assert.equal(d!.attempts, 3);
      assert.equal(d!.runId, r.runId);
      assert.match(d!.lastError ?? '', /HTTP 500/);
      assert.ok(d!.deliveredAt);
      const listed = (await describeAlerts(app)).find((a) => a.name === 'ops')!;
      assert.equal(listed.lastDelivery!.id, d!.id);
    });

    test('a receiver that refuses (4xx) fails the delivery at once; `alerts test` sends one signed test message', async () => {
      rx.answers.push(404);
      const failed = await testAlert(app, 'kev-hook');
      assert.deepEqual([failed.status, failed.attempts, failed.httpStatus, failed.cause], ['failed', 1, 404, 'test']);
      assert.match(failed.lastError!, /HTTP 404.*receiver says no/);
      const ok = await testAlert(app, 'kev-hook');
      assert.equal(ok.status, 'delivered');
      const last = rx.received.at(-1)!;
      assert.ok(verifySignature(secrets['kev-hook']!, last.body, header(last, SIGNATURE_HEADER)));
      assert.equal((json(last) as { cause: string }).cause, 'test');
    });

    test('a rule added over findings already true reports none of them; one another process is still recording is left alone, one abandoned is recorded by the next evaluation', async () => {
      const marks = async (name: string) =>
        Number(
          (await app.store.db.all(`SELECT COUNT(*) AS "n" FROM "alert_marks" m JOIN "alert_rules" r ON r."id" = m."rule_id" WHERE r."name" = ?`, [name]))[0]!.n,
        );
      const added = await addAlert(app, { name: 'late', url: `${rx.url}/late`, kinds: ['kev', 'sla'] });
      assert.equal(added.alert.baselinePending, true);
      await added.baseline;
      assert.equal((await describeAlerts(app)).find((a) => a.name === 'late')!.baselinePending, false);
      assert.equal(await marks('late'), 6, 'the three open findings, known exploited and past due: marked for both kinds');
      alertAfterFeedImport(app);
      await drainAlerts(app);
      assert.equal(at('/late').length, 0, 'what was already true is not reported');
      // A rule whose baseline another process is recording (its pending mark, written with the rule).
      const other = await app.store.alerts.create({
        name: 'other',
        kinds: ['kev'],
        format: 'json',
        url: `${rx.url}/other`,
        secret: 'a-secret-of-16+chars',
        maxItems: 5,
        createdBy: null,
      });
      alertAfterFeedImport(app);
      await drainAlerts(app);
      assert.equal(await marks('other'), 0, 'its findings are left alone meanwhile');
      assert.equal(at('/other').length, 0);
      assert.equal((await describeAlerts(app)).find((a) => a.name === 'other')!.baselinePending, true);
      // That process stopped 6 minutes ago: the next evaluation records the baseline, sending nothing.
      await app.store.db.run(`UPDATE "alert_state" SET "at" = ? WHERE "rule_id" = ? AND "kind" = 'baseline'`, [
        new Date(Date.now() - 6 * 60_000).toISOString(),
        other.id,
      ]);
      alertAfterFeedImport(app);
      await drainAlerts(app);
      assert.equal(await marks('other'), 3);
      assert.equal(at('/other').length, 0);
      assert.equal((await describeAlerts(app)).find((a) => a.name === 'other')!.baselinePending, false);
      // What becomes true afterwards is reported to both, once: a finding new in a sync, with the KEV-listed CVE.
      control.findings.push({ host: 'beta', plugin: '150' });
      assert.equal((await runSync(app, 'lab')).status, 'succeeded');
      await drainAlerts(app);
      const fresh = (await app.store.records.query('vulnerabilities', { limit: 100 })).records.find((r) => r.pluginId === '150')!;
      for (const path of ['/late', '/other']) {
        const kevs = at(path).filter((m) => json(m).rule === 'kev');
        assert.equal(kevs.length, 1, path);
        const doc = json(kevs[0]!) as { rule: string; total: number; items: { id: string }[] };
        assert.deepEqual([doc.rule, doc.total, doc.items.map((i) => i.id)], ['kev', 1, [fresh.id]], path);
      }
      // `late` also watches the SLA: the new finding (first seen 2026-01-01) is past due, once.
      assert.deepEqual(
        // (the two digests are delivered at once: their arrival order is not theirs to keep)
        at('/late')
          .map((m) => [json(m).rule, json(m).total])
          .sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
        [
          ['kev', 1],
          ['sla', 1],
        ],
      );
      alertAfterFeedImport(app);
      await drainAlerts(app);
      assert.equal(at('/late').length + at('/other').length, 3, 'nothing again');
      // A rule removed while its baseline may still be under way leaves no marks behind.
      const brief = await addAlert(app, { name: 'brief', url: `${rx.url}/brief`, kinds: ['kev', 'sla'] });
      const briefId = (await app.store.alerts.get('brief')).id;
      await removeAlert(app, 'brief');
      await brief.baseline;
      // Its marks go after the next evaluation (removal itself deletes none of them: a rule's id is never reused).
      alertAfterFeedImport(app);
      await drainAlerts(app);
      const left = await app.store.db.all(`SELECT COUNT(*) AS "n" FROM "alert_marks" WHERE "rule_id" = ?`, [briefId]);
      assert.equal(Number(left[0]!.n), 0);
      assert.equal((await app.store.db.all(`SELECT * FROM "alert_removed"`)).length, 0);
    });

    test('an answer that never ends is not read to its end: its status decides', async () => {
      const endless = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 'x');
        const pump = () => {
          while (res.write(chunk)) if (res.destroyed) return;
        };
        res.on('drain', pump);
        pump();
      });
      await new Promise<void>((r) => endless.listen(0, '127.0.0.1', r));
      try {
        const { port } = endless.address() as AddressInfo;
        await addAlert(app, { name: 'endless', url: `http://127.0.0.1:${port}/`, kinds: ['sync'] });
        const started = Date.now();
        const d = await testAlert(app, 'endless');
        assert.equal(d.status, 'delivered');
        assert.ok(Date.now() - started < 5000, 'not waiting for the answer to end');
      } finally {
        endless.closeAllConnections();
        await new Promise((r) => endless.close(r));
      }
    });
  });
}
