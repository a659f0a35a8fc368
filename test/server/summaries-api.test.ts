// The summary endpoints over HTTP (issue 17): GET /api/v1/vulnerabilities/plugins (sorted, filtered,
// paged, with its total) and GET /api/v1/hosts/finding-counts, their refusals, and their OpenAPI entries.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { apiToken, bearer, call, type Harness, makeHarness } from './helpers.ts';

describe('summary endpoints', () => {
  let h: Harness;
  let token = '';
  const get = (url: string) => call(h.server, { method: 'GET', url, headers: bearer(token) });

  before(async () => {
    h = await makeHarness();
    token = await apiToken(h.server);
    const source = await h.app.store.sources.create('lab', 'fixture', {}, null);
    const stamp = { sourceId: source.id, sourceName: 'lab', runId: 'r', generation: 'g', now: new Date().toISOString() };
    // Plugin 1: critical, KEV, on hosts a and b (two ports on a); plugin 2: low on a; plugin 3: fixed only.
    const v = (host: string, plugin: string, port: number, severity: string, status = 'open', knownExploited = false) => ({
      key: `${host}|${plugin}|${port}`,
      hostKey: host,
      fields: {
        pluginId: plugin,
        pluginName: `Plugin ${plugin}`,
        severity,
        status,
        port,
        scannerKnownExploited: knownExploited,
        scannerEpssScore: plugin === '1' ? 0.9 : 0.1,
      },
    });
    await h.app.store.records.writePage(
      stamp,
      's',
      'full',
      {
        hosts: [
          { key: 'a', fields: { hostname: 'a' } },
          { key: 'b', fields: { hostname: 'b' } },
        ],
        vulnerabilities: [
          v('a', '1', 80, 'critical', 'open', true),
          v('a', '1', 443, 'critical', 'open', true),
          v('b', '1', 80, 'critical', 'reopened', true),
          v('a', '2', 22, 'low'),
          v('b', '3', 22, 'high', 'fixed'),
        ],
      },
      { value: null, complete: false },
    );
  });
  after(async () => h?.close());

  test('vulnerabilities by plugin: one row per plugin with open findings, its hosts and worst severity', async () => {
    const res = await get('/api/v1/vulnerabilities/plugins');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.data as { items: Record<string, unknown>[]; total: number };
    assert.equal(body.total, 2);
    assert.deepEqual(
      body.items.map((p) => [p.pluginId, p.hosts, p.findings, p.severity, p.knownExploited, p.epssScore, p.source]),
      [
        ['1', 2, 3, 'critical', true, 0.9, 'lab'],
        ['2', 1, 1, 'low', false, 0.1, 'lab'],
      ],
    );
    const asc = (await get('/api/v1/vulnerabilities/plugins?sort=severity')).data as { items: { pluginId: string }[] };
    assert.deepEqual(
      asc.items.map((p) => p.pluginId),
      ['2', '1'],
    );
    const kev = (await get('/api/v1/vulnerabilities/plugins?knownExploited=true&severity=high')).data as { items: { pluginId: string }[]; total: number };
    assert.deepEqual([kev.total, kev.items.map((p) => p.pluginId)], [1, ['1']]);
    const paged = (await get('/api/v1/vulnerabilities/plugins?limit=1&offset=1')).data as { items: { pluginId: string }[]; total: number };
    assert.deepEqual([paged.total, paged.items.map((p) => p.pluginId)], [2, ['2']]);
    assert.equal(((await get('/api/v1/vulnerabilities/plugins?q=plugin%202')).data as { total: number }).total, 1);
  });

  test('bad sort, severity or source are refused with the allowed values', async () => {
    const sort = await get('/api/v1/vulnerabilities/plugins?sort=colour');
    assert.equal(sort.statusCode, 400);
    assert.match(sort.body, /sortable: hosts, findings/);
    const sev = await get('/api/v1/vulnerabilities/plugins?severity=urgent');
    assert.equal(sev.statusCode, 400);
    assert.match(sev.body, /one of: info, low, medium, high, critical/);
    assert.equal((await get('/api/v1/vulnerabilities/plugins?source=nope')).statusCode, 400);
  });

  test('open findings per severity for hosts by id; an unknown host has zeros', async () => {
    const hosts = (await get('/api/v1/hosts?sort=hostname')).data as { items: { id: string }[] };
    const ids = hosts.items.map((x) => x.id);
    const res = await get(`/api/v1/hosts/finding-counts?id=${ids[0]}&id=${ids[1]}&id=ffffffffffffffffffffffffffffffff`);
    assert.equal(res.statusCode, 200, res.body);
    const items = (res.data as { items: Record<string, unknown>[] }).items;
    assert.deepEqual(
      items.map((c) => [c.critical, c.high, c.low, c.total]),
      [
        [2, 0, 1, 3],
        [1, 0, 0, 1],
        [0, 0, 0, 0],
      ],
    );
  });

  test('both are in the OpenAPI document', async () => {
    const doc = (await get('/api/v1/openapi.json')).data as { paths: Record<string, unknown> };
    assert.ok(doc.paths['/api/v1/vulnerabilities/plugins']);
    assert.ok(doc.paths['/api/v1/hosts/finding-counts']);
  });
});
