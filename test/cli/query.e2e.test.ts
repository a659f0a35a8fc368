// `tributary query` as a reader uses it: --fields, --sort, --count, a table that names hosts and fits
// 120 columns, and a default order (findings by severity, worst first, then plugin name) that pages.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { queryPasses, readInOrder } from '../../src/cli/query-view.ts';
import { SEVERITY_ORDER } from '../../src/core/models.ts';
import { parseFilter } from '../../src/store/index.ts';
import { runCli } from '../helpers/cli.ts';
import { BACKENDS, tempDir } from '../helpers/databases.ts';
import { SC_HEADER, scRow } from '../connectors/tenable-sc/csv-fixtures.ts';
import { csvText } from '../filedrop/memory-bucket.ts';
import { labStoreSuite, writeRecords } from '../helpers/store.ts';

const dir = tempDir();
const d = ['--data-dir', dir];
after(() => rmSync(dir, { recursive: true, force: true }));

// Info rows are not findings (the connector keeps them apart), so four severities.
const SEVERITIES = ['Low', 'Medium', 'High', 'Critical'];
const LONG = 'An Extremely Long Plugin Name That Goes On And On About Every Detail Of The Weakness It Reports';

function ok(args: string[]): string {
  const r = runCli([...d, ...args]);
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
const lines = (args: string[]) =>
  ok(args)
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const rank = (s: unknown) => SEVERITY_ORDER.indexOf(s as (typeof SEVERITY_ORDER)[number]);

before(() => {
  assert.equal(runCli([...d, 'sources', 'add', 'tenable-sc', '--name', 'files', '--set', 'inputMode=file']).code, 0);
  // 20 findings on two hosts: plugins named in an order unrelated to their severity and to their ids.
  const rows = Array.from({ length: 20 }, (_, i) =>
    scRow({
      Plugin: String(10_000 + ((i * 7) % 20)),
      'Plugin Name': i === 3 ? LONG : `Plugin ${String.fromCharCode(90 - i)}`,
      Severity: SEVERITIES[i % 4],
      'IP Address': i % 2 ? '10.0.0.2' : '10.0.0.1',
      'DNS Name': i % 2 ? 'db2.corp.example' : 'web1.corp.example',
      'MAC Address': i % 2 ? '00:50:56:aa:bb:02' : '00:50:56:aa:bb:01',
      'NetBIOS Name': '',
    }),
  );
  const file = join(dir, 'export.csv');
  writeFileSync(file, csvText(SC_HEADER, rows));
  assert.equal(runCli([...d, 'upload', 'files', file]).code, 0);
  const sync = runCli([...d, 'sync', 'files']);
  assert.equal(sync.code, 0, sync.stderr);
});

test('by default findings come worst first, then by plugin name; hosts by name', () => {
  const vulns = lines(['query', 'vulnerabilities', '--json']);
  assert.equal(vulns.length, 20);
  for (let i = 1; i < vulns.length; i++) {
    const [a, b] = [vulns[i - 1]!, vulns[i]!];
    assert.ok(
      rank(a.severity) > rank(b.severity) || (a.severity === b.severity && String(a.pluginName) <= String(b.pluginName)),
      `${a.severity} ${a.pluginName} before ${b.severity} ${b.pluginName}`,
    );
  }
  assert.equal(vulns[0]!.severity, 'critical');
  assert.deepEqual(lines(['query', 'vulnerabilities', '--json', '--limit', '3']), vulns.slice(0, 3), '--limit keeps the order');
  assert.deepEqual(
    lines(['query', 'hosts', '--json']).map((h) => h.hostname),
    ['db2', 'web1'],
  );
});

test('--sort FIELD[:desc] orders by that field; a field it cannot sort by exits 2 naming the sortable ones', () => {
  const ids = lines(['query', 'vulnerabilities', '--json', '--sort', 'pluginId:desc']).map((v) => Number(v.pluginId));
  assert.deepEqual(
    ids,
    [...ids].sort((a, b) => b - a),
  );
  assert.notDeepEqual(ids, [...ids].reverse());
  const names = lines(['query', 'vulnerabilities', '--json', '--sort', 'pluginName']).map((v) => String(v.pluginName));
  assert.deepEqual(names, [...names].sort());
  const bad = runCli([...d, 'query', 'vulnerabilities', '--sort', 'cves']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^tributary: cannot sort vulnerabilities by 'cves'; sortable fields: .*pluginName/);
  assert.equal(runCli([...d, 'query', 'hosts', '--sort', 'hostname:sideways']).code, 2);
});

test('--fields picks the fields of jsonl, csv and the table; an unknown one exits 2', () => {
  const picked = lines(['query', 'vulnerabilities', '--json', '--fields', 'pluginName,severity,host']);
  assert.deepEqual(Object.keys(picked[0]!), ['pluginName', 'severity', 'host']);
  assert.match(String(picked[0]!.host), /^(web1|db2) \(10\.0\.0\.[12]\)$/);
  assert.equal(ok(['query', 'hosts', '--format', 'csv', '--fields', 'hostname,ipAddresses']), 'hostname,ipAddresses\ndb2,10.0.0.2\nweb1,10.0.0.1\n');
  assert.match(ok(['query', 'hosts', '--fields', 'hostname,os']).split('\n')[0]!, /^HOSTNAME\s+OS$/);
  const bad = runCli([...d, 'query', 'hosts', '--fields', 'hostname,colour']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown field 'colour' for hosts; fields: .*hostname/);
});

test('--count prints how many records match (with --json as {"count": n})', () => {
  assert.equal(ok(['query', 'vulnerabilities', '--count']), '20\n');
  assert.deepEqual(JSON.parse(ok(['--json', 'query', 'vulnerabilities', '--count', '--where', 'severity>=high'])), { count: 10 });
  assert.equal(ok(['query', 'hosts', '--count', '--where', 'hostname~web']), '1\n');
});

test('the table names hosts instead of their ids and fits 120 columns, cutting long cells with …', () => {
  const table = ok(['query', 'vulnerabilities']).trimEnd().split('\n');
  assert.equal(table.length, 21);
  assert.match(table[0]!, /^SEVERITY\s+PLUGINID\s+PLUGINNAME\s+HOST\s+/);
  assert.doesNotMatch(table[0]!, /HOSTID/);
  assert.ok(table.some((l) => l.includes('web1 (10.0.0.1)')));
  for (const l of table) assert.ok(l.length <= 120, `${l.length} columns: ${l}`);
  assert.ok(table.some((l) => /An Extremely Long Plugin.*…/.test(l)));
  assert.ok(!table.some((l) => l.includes(LONG)));
  for (const row of table.slice(1)) assert.doesNotMatch(row, /\b[0-9a-f]{32}\b/, 'no record or host ids');
});

for (const backend of BACKENDS) {
  describe(`the default order pages on ${backend.kind}`, { skip: backend.skip }, () => {
    const t = labStoreSuite(backend, async (store, lab) => {
      // 23 findings, some with the same plugin name, one without a severity.
      const vulns = Array.from({ length: 23 }, (_, i) => ({
        key: `h|${i}`,
        hostKey: `h${i % 3}`,
        fields: { pluginId: String(i), pluginName: `p${(i * 5) % 7}`, severity: i === 22 ? null : SEVERITY_ORDER[i % 5] },
      }));
      await writeRecords(store, lab, { hosts: ['h0', 'h1', 'h2'].map((key) => ({ key, fields: {} })), vulnerabilities: vulns });
    });

    const read = async (pageSize: number, limit = Number.POSITIVE_INFINITY, where: string[] = []) => {
      const out: Record<string, unknown>[] = [];
      for await (const page of readInOrder(
        t.store,
        'vulnerabilities',
        queryPasses('vulnerabilities', null),
        { filters: where.map((w) => parseFilter(w)) },
        limit,
        pageSize,
      ))
        out.push(...page);
      return out;
    };

    test('two records a page read every record once, in the same order as one page', async () => {
      const whole = await read(1000);
      assert.equal(whole.length, 23);
      assert.equal(new Set(whole.map((r) => r.id)).size, 23);
      const key = (r: Record<string, unknown>) => `${4 - (r.severity === null ? -1 : rank(r.severity))}|${r.pluginName}|${r.id}`;
      assert.deepEqual(whole.map(key), whole.map(key).sort(), 'severity desc, then plugin name, then id');
      assert.equal(whole.at(-1)!.severity, null, 'findings without a severity last');
      assert.deepEqual(
        (await read(2)).map((r) => r.id),
        whole.map((r) => r.id),
      );
      assert.deepEqual(
        (await read(2, 9)).map((r) => r.id),
        whole.slice(0, 9).map((r) => r.id),
      );
      assert.deepEqual(
        (await read(3, Number.POSITIVE_INFINITY, ['severity<=medium'])).map((r) => r.id),
        whole.filter((r) => r.severity !== null && rank(r.severity) <= 2).map((r) => r.id),
      );
    });
  });
}
