// Alerts over the API on both stores (issue 31 §4): a rule added with its secret answered once and
// listed without its URL path or secret, refused URLs and kinds, a feed import through POST
// /api/v1/feeds that makes open findings KEV-listed delivering one signed digest to a local receiver,
// the delivery log, a test message, removal, and no secret in any log line.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { verifySignature } from '../../src/alerts/index.ts';
import { startReceiver, type Receiver } from '../alerts/receiver.ts';
import { day, kevCatalog } from '../feeds/fixtures.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { GOOD_TOKEN } from './fixture-connector.ts';
import { apiToken, bearer, call, type Harness, makeHarness, type Res, waitForRun } from './helpers.ts';

type Json = Record<string, unknown>;

for (const backend of BACKENDS) {
  describe(`alerts over the API (${backend.kind})`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let h: Harness;
    let rx: Receiver;
    let token = '';
    let secret = '';
    const auth = (opts: InjectOptions): Promise<Res> => call(h.server, { ...opts, headers: { ...bearer(token), ...(opts.headers ?? {}) } });

    before(async () => {
      db = await backend.create();
      rx = await startReceiver();
      h = await makeHarness({ db: db.url });
      token = await apiToken(h.server);
      const src = await auth({
        method: 'POST',
        url: '/api/v1/sources',
        payload: { name: 'lab', type: 'fixture', config: { url: 'https://fixture.example.test', token: GOOD_TOKEN } },
      });
      assert.equal(src.statusCode, 201);
      const res = await auth({ method: 'POST', url: '/api/v1/sources/lab/sync', payload: { full: true } });
      assert.equal((await waitForRun(h.server, token, (res.data as { runId: string }).runId)).status, 'succeeded');
    });
    after(async () => {
      await h?.close();
      await rx?.close();
      await db?.drop();
    });

    it('adds a rule, answers its secret once and lists it without URL path or secret; refuses bad URLs and kinds', async () => {
      const res = await auth({
        method: 'POST',
        url: '/api/v1/alerts',
        payload: { name: 'soc', url: `${rx.url}/hooks/soc-path-token`, on: ['kev', 'sync'], maxItems: 5 },
      });
      assert.equal(res.statusCode, 201, res.body);
      const created = res.data as { alert: Json; secret: string };
      secret = created.secret;
      assert.ok(secret.length >= 40);
      assert.deepEqual(created.alert.on, ['kev', 'sync']);
      assert.equal(created.alert.url, `${rx.url}/…`);
      assert.equal(created.alert.format, 'json');
      assert.match(String(created.alert.createdBy), /API token/);
      // Answered before what is already true is recorded (in the background); the list says when it is.
      assert.equal(created.alert.baselinePending, true);
      let pending = true;
      for (let i = 0; i < 100 && pending; i++) {
        pending = ((await auth({ method: 'GET', url: '/api/v1/alerts' })).data as { items: Json[] }).items[0]!.baselinePending === true;
        if (pending) await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(pending, false, 'the baseline is recorded');
      const list = await auth({ method: 'GET', url: '/api/v1/alerts' });
      assert.equal(list.statusCode, 200);
      assert.ok(!list.body.includes(secret) && !list.body.includes('soc-path-token'));
      assert.equal((list.data as { items: Json[] }).items.length, 1);
      for (const [payload, why] of [
        [{ name: 'x', url: 'file:///tmp/drop', on: ['kev'] }, /http: or https:/],
        [{ name: 'x', url: 'http://127.0.0.1:8080/api/v1/upload/vuln-scanner/a.csv', on: ['kev'] }, /upload endpoint/],
        [{ name: 'x', url: rx.url, on: ['weather'] }, /./],
        [{ name: 'soc', url: rx.url, on: ['kev'] }, /exists already/],
      ] as const) {
        const r = await auth({ method: 'POST', url: '/api/v1/alerts', payload });
        assert.ok(r.statusCode === 400 || r.statusCode === 409, `${JSON.stringify(payload)}: ${r.statusCode}`);
        assert.match(r.body, why);
      }
    });

    it('a KEV feed import through the API delivers one signed digest of the open findings it made known exploited', async () => {
      const kev = kevCatalog('2026.11.27', new Date().toISOString(), [{ cve: 'CVE-2024-1001', added: day(-2), due: day(30) }]);
      const res = await auth({ method: 'POST', url: '/api/v1/feeds?name=kev.json', headers: { 'content-type': 'application/json' }, payload: kev });
      assert.equal(res.statusCode, 200, res.body);
      let deliveries: Json[] = [];
      for (let i = 0; i < 100; i++) {
        deliveries = ((await auth({ method: 'GET', url: '/api/v1/alerts/deliveries?alert=soc' })).data as { items: Json[] }).items;
        if (deliveries.some((d) => d.status !== 'pending')) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(deliveries.length, 1);
      assert.deepEqual([deliveries[0]!.status, deliveries[0]!.kind, deliveries[0]!.cause, deliveries[0]!.attempts], ['delivered', 'kev', 'feed-import', 1]);
      assert.equal(rx.received.length, 1);
      const m = rx.received[0]!;
      assert.equal(m.path, '/hooks/soc-path-token');
      assert.ok(verifySignature(secret, m.body, m.headers['x-tributary-signature'] as string));
      const doc = JSON.parse(m.body) as { alert: string; rule: string; total: number; items: Json[] };
      assert.equal(doc.alert, 'soc');
      assert.equal(doc.rule, 'kev');
      assert.ok(doc.total >= 1);
      assert.equal(doc.items.length, Math.min(doc.total, 5));
      for (const i of doc.items) assert.ok((i.cves as string[]).includes('CVE-2024-1001'));
      // The listed items are exactly the open findings the feed made known exploited.
      const kevOpen = await auth({ method: 'GET', url: '/api/v1/vulnerabilities/count?cves=CVE-2024-1001&knownExploited=true' });
      assert.equal(doc.total, (kevOpen.data as { count: number }).count);
      const listed = (await auth({ method: 'GET', url: '/api/v1/alerts' })).data as { items: { lastDelivery: Json | null }[] };
      assert.equal(listed.items[0]!.lastDelivery!.status, 'delivered');
    });

    it('sends a test message, removes the rule, and no log line holds the secret or the URL path', async () => {
      const t = await auth({ method: 'POST', url: '/api/v1/alerts/soc/test' });
      assert.equal(t.statusCode, 200, t.body);
      assert.deepEqual([(t.data as Json).status, (t.data as Json).cause], ['delivered', 'test']);
      assert.equal((await auth({ method: 'POST', url: '/api/v1/alerts/nope/test' })).statusCode, 404);
      assert.equal((await auth({ method: 'DELETE', url: '/api/v1/alerts/soc' })).statusCode, 200);
      assert.equal((await auth({ method: 'DELETE', url: '/api/v1/alerts/soc' })).statusCode, 404);
      assert.deepEqual(((await auth({ method: 'GET', url: '/api/v1/alerts' })).data as { items: unknown[] }).items, []);
      assert.equal(((await auth({ method: 'GET', url: '/api/v1/alerts/deliveries' })).data as { items: unknown[] }).items.length, 2, 'the log stays');
      const logs = h.logs.join('');
      assert.ok(logs.includes('alert delivered'), 'the deliveries were logged');
      assert.ok(!logs.includes(secret) && !logs.includes('soc-path-token'));
    });
  });
}
