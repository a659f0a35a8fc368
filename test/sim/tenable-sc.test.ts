// Wire-level behaviour of the Tenable.sc simulator: auth, envelope, paging, filters, gating, TLS, CLI.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { analysis, call, findingKey, pageAll, vulnQuery } from './tenable-sc-helpers.ts';

const NOW = 1_760_000_000;

describe('tenable-sc simulator (6.4.0)', () => {
  let sim: RunningTenableSim;
  before(async () => {
    sim = await startTenableSim({ port: 0, seed: 7, hosts: 30, findingsPerHost: 25, now: NOW });
  });
  after(() => sim.close());

  test('accepts every documented x-apikey spelling and rejects the rest', async () => {
    const { accessKey: a, secretKey: s } = sim.analyst;
    for (const value of [
      `accesskey=${a}; secretkey=${s};`,
      `accesskey=${a}; secretkey=${s}`,
      `accessKey=${a}; secretKey=${s}`,
      `ACCESSKEY=${a};SECRETKEY=${s};`,
    ]) {
      for (const name of ['x-apikey', 'X-APIKey']) {
        const r = await call(sim, 'GET', '/rest/currentUser', { creds: null, headers: { [name]: value } });
        assert.equal(r.status, 200, `${name}: ${value}`);
        assert.equal(r.json.response.username, sim.analyst.username);
      }
    }
    const rejected: Record<string, string>[] = [
      {},
      { 'x-apikey': `accesskey=${a}; secretkey=wrong` },
      { 'x-apikey': `accesskey=${a}` },
      { 'x-apikey': `accesskey=${s}; secretkey=${a}` },
    ];
    for (const headers of rejected) {
      const r = await call(sim, 'GET', '/rest/currentUser', { creds: null, headers });
      assert.equal(r.status, 403);
      assert.notEqual(r.json.error_code, 0);
      assert.equal(r.json.response, '');
    }
    // /rest/system answers without credentials (version discovery) but not with bad ones.
    assert.equal((await call(sim, 'GET', '/rest/system', { creds: null })).json.response.version, '6.4.0');
    assert.equal((await call(sim, 'GET', '/rest/system', { creds: null, headers: { 'x-apikey': 'accesskey=x; secretkey=y' } })).status, 403);
  });

  test('currentUser shows role, organization and group; the admin has numeric org 0 and no group', async () => {
    const fields = '?fields=username,role,organization,group';
    const analyst = (await call(sim, 'GET', `/rest/currentUser${fields}`)).json.response;
    assert.equal(analyst.role.name, 'Security Analyst');
    assert.equal(typeof analyst.organization.id, 'string');
    assert.equal(analyst.group.id, '2');
    const admin = (await call(sim, 'GET', `/rest/currentUser${fields}`, { creds: sim.admin })).json.response;
    assert.equal(admin.role.id, '1');
    assert.equal(admin.organization.id, 0);
    assert.equal('group' in admin, false);
    const plain = (await call(sim, 'GET', '/rest/currentUser')).json.response;
    assert.deepEqual(Object.keys(plain).sort(), ['firstname', 'id', 'lastname', 'status', 'username', 'uuid']);
  });

  test('analysis envelope and row wire types match the recorded console', async () => {
    const r = await analysis(sim, vulnQuery([], 0, 50));
    assert.equal(r.status, 200);
    assert.match(r.text, /\\\//, 'slashes are escaped like the console does');
    const { type, error_code, error_msg, warnings, timestamp, response } = r.json;
    assert.deepEqual([type, error_code, error_msg, warnings, typeof timestamp], ['regular', 0, '', [], 'number']);
    assert.equal(response.totalRecords, String(30 * 25));
    assert.equal(response.returnedRecords, 50);
    assert.equal(response.startOffset, '0');
    assert.equal(response.endOffset, '50');
    const objects = new Set(['severity', 'family', 'repository']);
    for (const row of response.results) {
      for (const [k, v] of Object.entries(row)) assert.equal(typeof v, objects.has(k) ? 'object' : 'string', k);
      assert.match(row.firstSeen, /^\d{10}$/);
      assert.match(row.pluginText, /^<plugin_output>[\s\S]*<\/plugin_output>$/);
      assert.equal(row.pluginInfo, `${row.pluginID} (${row.port}/${row.protocol === 'UDP' ? 17 : row.protocol === 'ICMP' ? 1 : 6}) ${row.pluginName}`);
      assert.ok('epssScore' in row && 'vulnUUID' in row && 'vprScore' in row);
    }
    const all = await pageAll(sim, vulnQuery());
    assert.ok(all.some((row) => row.patchPubDate === '-1'));
    assert.ok(all.some((row) => row.cvssV3Vector === '' && row.vprScore === ''));
    assert.ok(all.some((row) => /CISA-KNOWN-EXPLOITED #\d{4}\/\d{2}\/\d{2}/.test(row.xref)));
    assert.ok(all.some((row) => row.hasBeenMitigated === '1'));
    assert.deepEqual(new Set(all.map((row) => row.severity.id)), new Set(['0', '1', '2', '3', '4']));
  });

  test('paging covers every finding exactly once and stops past the end', async () => {
    const rows = await pageAll(sim, vulnQuery(), 97);
    assert.equal(rows.length, 750);
    assert.equal(new Set(rows.map(findingKey)).size, 750);
    const past = await analysis(sim, vulnQuery([], 5000, 6000));
    assert.deepEqual([past.json.response.returnedRecords, past.json.response.results, past.json.response.totalRecords], [0, [], '750']);
    // pyTenable puts offsets inside the query object only.
    const inner = await analysis(sim, {
      type: 'vuln',
      sourceType: 'cumulative',
      query: { type: 'vuln', tool: 'vulndetails', filters: [], startOffset: 10, endOffset: 15 },
    });
    assert.deepEqual(inner.json.response.results.map(findingKey), rows.slice(10, 15).map(findingKey));
  });

  test('filters: severity, pluginID, pluginType, lastSeen (both syntaxes), repository, wasVuln', async () => {
    const total = async (filters: unknown[], extra = {}) => Number((await analysis(sim, vulnQuery(filters, 0, 1, extra))).json.response.totalRecords);
    const all = await pageAll(sim, vulnQuery());
    const count = (pred: (row: (typeof all)[number]) => boolean) => all.filter(pred).length;
    assert.equal(
      await total([{ filterName: 'severity', operator: '=', value: '1,2,3,4' }]),
      count((r) => r.severity.id !== '0'),
    );
    assert.equal(
      await total([{ filterName: 'pluginID', operator: '=', value: '20811,22869' }]),
      count((r) => r.pluginID === '20811' || r.pluginID === '22869'),
    );
    const compliance = (await pageAll(sim, vulnQuery([{ filterName: 'pluginType', operator: '=', value: 'compliance' }]))).filter(Boolean);
    assert.ok(
      compliance.length > 0 &&
        compliance.every(
          (r) => Number(r.pluginID) >= 1000000 && /<cm:compliance-result>(PASSED|FAILED|WARNING|ERROR)<\/cm:compliance-result>/.test(r.pluginText),
        ),
    );
    assert.ok(
      compliance.some((r) => (r.pluginText.match(/<cm:compliance-result>/g) ?? []).length === 2),
      'a merged duplicate control carries two results',
    );
    const recent = count((r) => Number(r.lastSeen) >= NOW - 30 * 86400);
    assert.ok(recent < all.length, 'some hosts are stale');
    assert.equal(await total([{ filterName: 'lastSeen', operator: '=', value: '0:30' }]), recent);
    assert.equal(await total([{ filterName: 'lastSeen', operator: '=', value: `${NOW - 30 * 86400}-${NOW}` }]), recent);
    assert.equal(
      await total([{ filterName: 'repository', operator: '=', value: [{ id: '1' }] }]),
      count((r) => r.repository.id === '1'),
    );
    assert.equal(await total([{ filterName: 'repository', operator: '=', value: [{ id: '3' }] }]), 0, 'repository outside the group is silently empty');
    assert.equal(await total([{ filterName: 'wasVuln', operator: '=', value: 'excludeWas' }]), all.length);
    assert.equal(await total([], { wasVuln: 'onlyWas' }), 0);
  });

  test('unknown filter → 403 / 146 listing the valid filters; admin → 400 on data', async () => {
    const r = await analysis(sim, vulnQuery([{ filterName: 'bogus', operator: '=', value: '1' }]));
    assert.equal(r.status, 403);
    assert.equal(r.json.error_code, 146);
    assert.match(r.json.error_msg, /'bogus' is invalid \(valid filters: .*lastSeen.*severity/);
    const bad = await analysis(sim, vulnQuery([{ filterName: 'lastSeen', operator: '=', value: 'yesterday' }]));
    assert.deepEqual([bad.status, bad.json.error_code], [403, 146]);
    const admin = await analysis(sim, vulnQuery(), sim.admin);
    assert.equal(admin.status, 400);
    assert.notEqual(admin.json.error_code, 0);
    assert.equal((await call(sim, 'GET', '/rest/hosts', { creds: sim.admin })).status, 400);
    assert.equal((await call(sim, 'GET', '/rest/group/99')).json.error_code, 147);
  });

  test('inventory plugin texts follow the fact sheet formats', async () => {
    const rows = await pageAll(
      sim,
      vulnQuery([{ filterName: 'pluginID', operator: '=', value: '20811,22869,24270,35351,38689,11936,86420,34220,14272,11219' }]),
    );
    const text = (id: string) => {
      const texts = rows.filter((r) => r.pluginID === id).map((r) => r.pluginText as string);
      assert.ok(texts.length > 0, `plugin ${id} present`);
      return texts;
    };
    for (const t of text('20811')) {
      const body = /^<plugin_output>\nThe following software are installed on the remote host :\n\n([\s\S]+)\n<\/plugin_output>$/.exec(t);
      assert.ok(body, t);
      const lines = body[1].split('\n');
      assert.ok(lines.every((l) => /^\S.*?( {2}\[version [^\]]+\])?( {2}\[installed on \d{4}\/\d{2}\/\d{2}\])?$/.test(l)));
      assert.ok(lines.some((l) => / {2}\[version [^\]]+\] {2}\[installed on /.test(l)));
    }
    assert.ok(text('22869').every((t) => /Here is the list of packages installed on the remote .+ system :\n\n {2}\S/.test(t)));
    assert.ok(text('24270').every((t) => /\n {2}Computer Manufacturer : .+\n {2}Computer Model : .+\n {2}Computer SerialNumber : \w+/.test(t)));
    assert.ok(text('35351').every((t) => /System Information\n {2}Manufacturer +: .+\n {2}Product Name +: .+[\s\S]*Serial Number +: \w+/.test(t)));
    assert.ok(text('38689').every((t) => /Last Successful logon : CORP\\\w+/.test(t)));
    assert.ok(text('11936').every((t) => /Remote operating system : .+\nConfidence level : \d+\nMethod : \w+/.test(t)));
    assert.ok(text('86420').every((t) => /consolidated list of detected MAC addresses:\n {2}- [0-9A-F:]{17}/.test(t)));
    for (const id of ['34220', '14272', '11219'])
      assert.ok(
        text(id).every((t) => /Port \d+\/(tcp|udp) was found to be open|Nessus was able to find \d+ open ports\./.test(t)),
        id,
      );
    const unauthIps = new Set(rows.filter((r) => r.pluginID === '11219').map((r) => r.ip));
    const unauthRows = (await pageAll(sim, vulnQuery())).filter((r) => unauthIps.has(r.ip));
    assert.ok(
      unauthRows.every((r) => r.pluginID === '11219' || r.checkType === 'remote'),
      'unauthenticated hosts only have remote findings',
    );
    assert.ok(
      unauthRows.some((r) => r.uuid === ''),
      'some unauthenticated hosts have no uuid',
    );
  });

  test('sumip gives one row per host with string counters', async () => {
    const r = await analysis(sim, { ...vulnQuery([], 0, 100), query: { type: 'vuln', tool: 'sumip', filters: [] } });
    const { results, totalRecords } = r.json.response;
    assert.equal(totalRecords, '30');
    assert.equal(new Set(results.map((x: { ip: string }) => x.ip)).size, 30);
    const sum = results.reduce((s: number, x: { total: string }) => s + Number(x.total), 0);
    assert.equal(sum, 750);
    assert.ok(results.every((x: Record<string, unknown>) => typeof x.severityCritical === 'string' && typeof x.repository === 'object'));
  });

  test('/rest/hosts pages without a total; read-only helpers exist', async () => {
    const page = await call(sim, 'GET', '/rest/hosts?fields=id,uuid,repID&limit=8&startOffset=24&endOffset=32&pagination=true');
    assert.equal(page.status, 200);
    assert.ok(Array.isArray(page.json.response));
    assert.equal(page.json.response.length, 6);
    assert.deepEqual(
      Object.keys(page.json.response[0]).sort(),
      ['firstSeen', 'id', 'ipAddress', 'lastSeen', 'name', 'os', 'repID', 'tenableUUID', 'uuid'].sort(),
    );
    const repos = (await call(sim, 'GET', '/rest/repository')).json.response.map((x: { id: string }) => x.id);
    const group = (await call(sim, 'GET', '/rest/group/2')).json.response.repositories.map((x: { id: string }) => x.id);
    assert.deepEqual(
      [repos, group],
      [
        ['1', '2', '3'],
        ['1', '2'],
      ],
    );
    assert.equal((await call(sim, 'GET', '/rest/currentOrganization')).json.response.name, 'Tributary Labs');
  });
});

test('same seed → identical data; different seed → different data', async () => {
  const [a, b, c] = await Promise.all([7, 7, 8].map((seed) => startTenableSim({ port: 0, seed, hosts: 12, findingsPerHost: 10, now: NOW })));
  try {
    assert.equal(a.analyst.accessKey, b.analyst.accessKey);
    assert.notEqual(a.analyst.accessKey, c.analyst.accessKey);
    const page = async (s: RunningTenableSim) => JSON.stringify((await analysis(s, vulnQuery([], 0, 120))).json.response.results);
    assert.equal(await page(a), await page(b));
    assert.notEqual(await page(a), await page(c));
  } finally {
    await Promise.all([a.close(), b.close(), c.close()]);
  }
});

test('version gating: API keys from 5.13, /rest/hosts from 5.20, EPSS only on new consoles', async () => {
  const old = await startTenableSim({ port: 0, version: '5.12.0', hosts: 3 });
  const mid = await startTenableSim({ port: 0, version: '5.19.1', hosts: 3 });
  const legacy = await startTenableSim({ port: 0, version: '5.8.0', hosts: 3 });
  try {
    assert.equal((await call(old, 'GET', '/rest/system', { creds: null })).json.response.version, '5.12.0');
    assert.equal((await call(old, 'GET', '/rest/currentUser')).status, 403);
    assert.equal((await call(mid, 'GET', '/rest/currentUser')).status, 200);
    const hosts = await call(mid, 'GET', '/rest/hosts');
    assert.equal(hosts.status, 403);
    assert.notEqual(hosts.json.error_code, 0);
    const row = (await analysis(mid, vulnQuery([], 0, 1))).json.response.results[0];
    assert.ok(!('epssScore' in row) && !('vulnUUID' in row) && 'vprScore' in row);
    const epssFilter = await analysis(mid, vulnQuery([{ filterName: 'epssScore', operator: '=', value: '0.5-1' }]));
    assert.equal(epssFilter.json.error_code, 146);
    assert.equal((await call(legacy, 'GET', '/rest/system', { creds: null })).headers.securitycenter, '5.8.0');
  } finally {
    await Promise.all([old.close(), mid.close(), legacy.close()]);
  }
});

test('HTTPS with a generated self-signed certificate', async () => {
  const sim = await startTenableSim({ port: 0, tls: true, hosts: 2 });
  try {
    assert.match(sim.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.match(sim.caCertificate ?? '', /BEGIN CERTIFICATE/);
    assert.equal((await call(sim, 'GET', '/rest/currentUser')).status, 200);
  } finally {
    await sim.close();
  }
});

test('CLI prints one JSON line and stops on SIGTERM', async () => {
  const script = `import('${new URL('../../sim/tenable-sc/index.ts', import.meta.url).href}').then((m) => m.runTenableSimCli(['--port', '0', '--hosts', '3', '--version', '6.2.1', '--seed', '4']))`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  while (!out.includes('\n')) out += (await once(child.stdout, 'data'))[0];
  const info = JSON.parse(out.split('\n')[0]);
  assert.equal(info.version, '6.2.1');
  assert.match(info.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.ok(info.accessKey && info.secretKey && info.username && info.admin.accessKey);
  const r = await fetch(`${info.url}/rest/currentUser`, { headers: { 'x-apikey': `accesskey=${info.accessKey}; secretkey=${info.secretKey}` } });
  assert.equal(r.status, 200);
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  assert.equal(code, 0);
});
