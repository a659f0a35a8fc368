// The simulator's GET /rest/scanResult: consistent with the findings' lastSeen, field selection,
// filters, createdTime range, a scan whose import ends later, and the forbidden role.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { call, pageAll, vulnQuery } from './tenable-sc-helpers.ts';

const NOW = 1_760_000_000;
type Wire = Record<string, string>;

describe('GET /rest/scanResult', () => {
  let sim: RunningTenableSim;
  before(async () => {
    sim = await startTenableSim({ port: 0, seed: 5, hosts: 12, findingsPerHost: 6, now: NOW });
  });
  after(() => sim.close());

  test('the envelope holds usable and manageable lists; id always, name/description/status by default', async () => {
    const r = await call(sim, 'GET', '/rest/scanResult');
    assert.equal(r.status, 200);
    assert.equal(r.json.error_code, 0);
    const { usable, manageable } = r.json.response as { usable: Wire[]; manageable: Wire[] };
    assert.ok(usable.length > 300, 'thirty days of two-hour scans');
    assert.ok(manageable.length > 0 && manageable.length < usable.length, 'the analyst manages only their own');
    assert.deepEqual(Object.keys(usable[0]!).sort(), ['description', 'id', 'name', 'status']);
    const only = await call(sim, 'GET', '/rest/scanResult?filter=usable&fields=startTime');
    assert.deepEqual(Object.keys(only.json.response), ['usable']);
    assert.deepEqual(Object.keys(only.json.response.usable[0]).sort(), ['id', 'startTime']);
    const bad = await call(sim, 'GET', '/rest/scanResult?fields=progress');
    assert.equal(bad.status, 403);
    assert.notEqual(bad.json.error_code, 0);
  });

  test('every open finding was seen within a scan imported before now; createdTime bounds the list', async () => {
    const fields = 'createdTime,startTime,finishTime,importStart,importFinish,importStatus';
    const all = (await call(sim, 'GET', `/rest/scanResult?filter=usable,completed,optimizeCompletedScans&fields=${fields}&startTime=${NOW - 120 * 86400}`)).json
      .response.usable as Wire[];
    for (const s of all) {
      assert.equal(s.importStatus, 'Finished');
      assert.ok(Number(s.startTime) < Number(s.finishTime) && Number(s.finishTime) < Number(s.importStart) && Number(s.importFinish) <= NOW);
    }
    const rows = await pageAll(sim, vulnQuery());
    for (const row of rows) {
      const seen = Number(row.lastSeen);
      assert.ok(
        all.some((s) => Number(s.startTime) <= seen && seen <= Number(s.finishTime)),
        `lastSeen ${seen} within a scan`,
      );
    }
    const recent = (await call(sim, 'GET', `/rest/scanResult?fields=createdTime&startTime=${NOW - 86400}&endTime=${NOW}`)).json.response.usable as Wire[];
    assert.equal(recent.length, 11, 'two-hour scans created in the last day (the oldest just before it)');
    assert.ok(recent.every((s) => Number(s.createdTime) >= NOW - 86400));
  });

  test('a scan whose import finishes later: running, then importing, then its findings show', async () => {
    const ip = (await pageAll(sim, vulnQuery()))[0].ip as string;
    // Started 3 h ago, ran 2 h, import takes 2 h: it finishes an hour (and a minute) from now.
    await call(sim, 'POST', '/_sim/scan', { body: { hosts: [ip], startedAgo: 3 * 3600, durationSeconds: 2 * 3600, importSeconds: 2 * 3600 } });
    const newest = async () => {
      const list = (await call(sim, 'GET', '/rest/scanResult?fields=startTime,finishTime,importStart,importFinish,importStatus,running')).json.response
        .usable as Wire[];
      return list.reduce((a, b) => (Number(a.id) > Number(b.id) ? a : b));
    };
    const importing = await newest();
    assert.equal(importing.importStatus, 'Importing');
    assert.equal(importing.importFinish, '-1');
    assert.equal(Number(importing.startTime), NOW - 3 * 3600);
    const seenMid = NOW - 2 * 3600;
    const before = await pageAll(sim, vulnQuery([{ filterName: 'lastSeen', operator: '=', value: `${seenMid}-${seenMid}` }]));
    assert.equal(before.length, 0, 'not shown while importing');
    await call(sim, 'POST', '/_sim/advance', { body: { seconds: 7200, rescanFraction: 0 } });
    const done = await newest();
    assert.equal(done.importStatus, 'Finished');
    assert.equal(Number(done.importFinish), NOW + 3600 + 60);
    const after = await pageAll(sim, vulnQuery([{ filterName: 'lastSeen', operator: '=', value: `${seenMid}-${seenMid}` }]));
    assert.ok(after.length > 0 && after.every((r) => r.ip === ip));
    await call(sim, 'POST', '/_sim/reset');
  });

  test('a role that may not view scan results is refused', async () => {
    const closed = await startTenableSim({ port: 0, seed: 5, hosts: 3, findingsPerHost: 2, now: NOW, scanResultsForbidden: true });
    try {
      const r = await call(closed, 'GET', '/rest/scanResult');
      assert.equal(r.status, 403);
      assert.notEqual(r.json.error_code, 0);
      assert.equal((await call(closed, 'GET', '/rest/scanResult', { creds: closed.admin })).status, 400);
    } finally {
      await closed.close();
    }
  });
});
