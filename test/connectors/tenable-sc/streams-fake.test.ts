// Stream logic against an in-memory fake client: paging termination, checkpoints, resume, incremental
// windows and the filter fallback — no HTTP involved.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page, StreamContext } from '../../../src/core/connector.ts';
import { UpstreamError } from '../../../src/core/errors.ts';
import type { AnalysisQuery, TenableScClient } from '../../../src/connectors/tenable-sc/client.ts';
import { tenableScConfigSchema, requireApi } from '../../../src/connectors/tenable-sc/config.ts';
import { type Cursor, OVERLAP_SECONDS, startCursor } from '../../../src/connectors/tenable-sc/streams/cursor.ts';
import { hostsStream } from '../../../src/connectors/tenable-sc/streams/hosts.ts';
import { softwareStream } from '../../../src/connectors/tenable-sc/streams/inventory.ts';
import { vulnerabilitiesStream } from '../../../src/connectors/tenable-sc/streams/vulnerabilities.ts';
import { streamContext } from '../../filedrop/memory-bucket.ts';
import { fixture, sumipRow, vulnRow } from './fixtures/rows.ts';

const config = requireApi(tenableScConfigSchema.parse({ apiUrl: 'https://sc.example', accessKey: 'ak', secretKey: 'sk', pageSize: 3 }));

interface FakeOpts {
  rows: (q: AnalysisQuery) => Record<string, unknown>[];
  withTotal?: boolean;
  rejectFilter?: string;
  version?: string;
  hosts?: Record<string, unknown>[];
}

function fakeClient(o: FakeOpts) {
  const calls: AnalysisQuery[] = [];
  const client = {
    async fetchAnalysisPage(q: AnalysisQuery) {
      calls.push(q);
      if (o.rejectFilter && q.filters.some((f) => f.filterName === o.rejectFilter))
        throw new UpstreamError(`POST /rest/analysis failed with Tenable.sc error 146: The filter '${o.rejectFilter}' is invalid`);
      const all = o.rows(q);
      const rows = all.slice(q.offset, q.offset + q.limit);
      return { rows, total: o.withTotal === false ? null : all.length, returned: rows.length };
    },
    async get(path: string) {
      if (path === '/system') return { version: o.version ?? '5.8.0' };
      throw new Error(`unexpected GET ${path}`);
    },
    async fetchHostsPage(offset: number, limit: number) {
      return (o.hosts ?? []).slice(offset, offset + limit);
    },
    async close() {},
  };
  return { calls, factory: () => client as unknown as TenableScClient };
}

const ctx = (over: Partial<StreamContext> = {}) => streamContext(undefined, { sourceName: 'sc', ...over });

async function collect(it: AsyncIterable<Page>): Promise<Page[]> {
  const out: Page[] = [];
  for await (const p of it) out.push(p);
  return out;
}

const findings = (n: number, over: Record<string, unknown> = {}) => Array.from({ length: n }, (_, i) => vulnRow({ pluginID: String(100000 + i), ...over }));

test('startCursor: fresh, incremental window with overlap, resume', () => {
  const fresh = startCursor({ mode: 'full', checkpoint: null, resumed: false }, ['a', 'b'], 1000);
  assert.deepEqual(fresh, { v: 1, phase: 'a', offset: 0, since: null, until: 1000 });
  const prev: Cursor = { v: 1, phase: 'done', offset: 0, since: null, until: 100_000 };
  assert.deepEqual(startCursor({ mode: 'incremental', checkpoint: prev, resumed: false }, ['a', 'b'], 200_000), {
    v: 1,
    phase: 'a',
    offset: 0,
    since: 100_000 - OVERLAP_SECONDS,
    until: 200_000,
  });
  assert.deepEqual(startCursor({ mode: 'full', checkpoint: prev, resumed: false }, ['a'], 5).since, null);
  const mid: Cursor = { v: 1, phase: 'b', offset: 6, since: 50, until: 90 };
  assert.deepEqual(startCursor({ mode: 'incremental', checkpoint: mid, resumed: true }, ['a', 'b'], 999), mid);
  assert.equal(startCursor({ mode: 'incremental', checkpoint: { junk: 1 }, resumed: true }, ['a'], 7).since, null);
});

for (const withTotal of [true, false]) {
  test(`vulnerabilities: patched then cumulative, paging ends ${withTotal ? 'at totalRecords' : 'on a short page (no totalRecords)'}`, async () => {
    const fake = fakeClient({ withTotal, rows: (q) => (q.sourceType === 'patched' ? findings(2) : findings(7)) });
    const pages = await collect(vulnerabilitiesStream({ config, client: fake.factory }).read(ctx()));
    const statuses = pages.flatMap((p) => (p.records.vulnerabilities ?? []).map((r) => r.fields.status));
    assert.deepEqual(statuses, ['fixed', 'fixed', 'open', 'open', 'open', 'open', 'open', 'open', 'open']);
    assert.deepEqual(
      fake.calls.map((c) => `${c.sourceType}@${c.offset}`),
      ['patched@0', 'cumulative@0', 'cumulative@3', 'cumulative@6'],
    );
    const cps = pages.map((p) => p.checkpoint as Cursor);
    assert.deepEqual(
      cps.map((c) => `${c.phase}@${c.offset}`),
      ['cumulative@0', 'cumulative@3', 'cumulative@6', 'done@0'],
    );
    assert.deepEqual(fake.calls[0]!.filters, [{ filterName: 'severity', operator: '=', value: '1,2,3,4' }]);
  });
}

test('a full page exactly at the end is followed by one empty page', async () => {
  const fake = fakeClient({ withTotal: false, rows: (q) => (q.sourceType === 'patched' ? [] : findings(6)) });
  const pages = await collect(vulnerabilitiesStream({ config, client: fake.factory }).read(ctx()));
  assert.deepEqual(
    fake.calls.map((c) => `${c.sourceType}@${c.offset}`),
    ['patched@0', 'cumulative@0', 'cumulative@3', 'cumulative@6'],
  );
  assert.equal((pages.at(-1)!.checkpoint as Cursor).phase, 'done');
  assert.equal(
    pages.reduce((n, p) => n + (p.records.vulnerabilities?.length ?? 0), 0),
    6,
  );
});

test('resume continues from the stored page; incremental sends lastSeen/lastMitigated windows', async () => {
  const fake = fakeClient({ rows: () => findings(7) });
  const resumed = await collect(
    vulnerabilitiesStream({ config, client: fake.factory }).read(
      ctx({ resumed: true, checkpoint: { v: 1, phase: 'cumulative', offset: 3, since: null, until: 10 } }),
    ),
  );
  assert.deepEqual(
    fake.calls.map((c) => `${c.sourceType}@${c.offset}`),
    ['cumulative@3', 'cumulative@6'],
  );
  assert.equal(
    resumed.reduce((n, p) => n + (p.records.vulnerabilities?.length ?? 0), 0),
    4,
  );

  const inc = fakeClient({ rows: () => findings(1) });
  await collect(
    vulnerabilitiesStream({ config, client: inc.factory }).read(
      ctx({ mode: 'incremental', checkpoint: { v: 1, phase: 'done', offset: 0, since: null, until: 100_000 } }),
    ),
  );
  const patched = inc.calls[0]!.filters.find((f) => f.filterName === 'lastMitigated');
  const cumulative = inc.calls[1]!.filters.find((f) => f.filterName === 'lastSeen');
  assert.match(String(patched?.value), new RegExp(`^${100_000 - OVERLAP_SECONDS}-\\d+$`));
  assert.equal(cumulative?.value, patched?.value);
});

test('a console without the lastMitigated filter (error 146) reads the whole patched set (a lastSeen window would miss old findings)', async () => {
  const fake = fakeClient({ rejectFilter: 'lastMitigated', rows: (q) => (q.sourceType === 'patched' ? findings(1) : []) });
  const pages = await collect(
    vulnerabilitiesStream({ config, client: fake.factory }).read(
      ctx({ mode: 'incremental', checkpoint: { v: 1, phase: 'done', offset: 0, since: null, until: 100_000 } }),
    ),
  );
  assert.deepEqual(
    fake.calls.map((c) => c.filters.map((f) => f.filterName).join('+')),
    ['severity+lastMitigated', 'severity', 'severity+lastSeen'],
  );
  assert.equal(pages[0]!.records.vulnerabilities?.[0]?.fields.status, 'fixed');
});

test('includeInformational drops the severity filter; compliance rows are skipped', async () => {
  const cfg = { ...config, includeInformational: true };
  const rows = [vulnRow({ severity: { id: '0' } }), vulnRow({ pluginID: '1003368', family: { id: '39', name: 'Policy Compliance', type: 'compliance' } })];
  const fake = fakeClient({ rows: (q) => (q.sourceType === 'patched' ? [] : rows) });
  const pages = await collect(vulnerabilitiesStream({ config: cfg, client: fake.factory }).read(ctx()));
  assert.deepEqual(fake.calls[1]!.filters, []);
  const vulns = pages.flatMap((p) => p.records.vulnerabilities ?? []);
  assert.equal(vulns.length, 1);
  assert.equal(vulns[0]!.fields.severity, 'info');
});

test('software stream asks for plugins 20811/22869 whatever the severity', async () => {
  const fake = fakeClient({ rows: () => [vulnRow({ pluginID: '20811', severity: { id: '0' }, pluginText: fixture('plugin-20811.txt') })] });
  const pages = await collect(softwareStream({ config, client: fake.factory }).read(ctx()));
  assert.deepEqual(fake.calls[0]!.filters, [{ filterName: 'pluginID', operator: '=', value: '20811,22869' }]);
  assert.equal(pages[0]!.records.software?.length, 4);
  assert.deepEqual(pages[0]!.checkpoint, { ...(pages[0]!.checkpoint as Cursor), phase: 'done', offset: 0 });
});

test("software stream: a quarter of the page size a request (each row is a host's whole inventory), every row read once", async () => {
  const cfg = { ...config, pageSize: 8 };
  const rows = Array.from({ length: 5 }, (_, i) =>
    vulnRow({ pluginID: '20811', ip: `10.0.0.${i + 1}`, uuid: `uuid-${i}`, hostUUID: `host-${i}`, pluginText: fixture('plugin-20811.txt') }),
  );
  const fake = fakeClient({ rows: () => rows });
  const pages = await collect(softwareStream({ config: cfg, client: fake.factory }).read(ctx()));
  assert.deepEqual(
    fake.calls.map((c) => `${c.offset}+${c.limit}`),
    ['0+2', '2+2', '4+2'],
  );
  assert.deepEqual(
    pages.map((p) => `${(p.checkpoint as Cursor).phase}@${(p.checkpoint as Cursor).offset}`),
    ['software@2', 'software@4', 'done@0'],
  );
  assert.equal(
    pages.reduce((n, p) => n + (p.records.software?.length ?? 0), 0),
    5 * 4,
  );
  assert.ok(pages.every((p) => (p.records.software?.length ?? 0) <= 2 * 4));
});

test('hosts stream: sumip, inventory enrichment, /rest/hosts only on 5.20+ and only for known hosts', async () => {
  const agentUuid = 'AAAA0000-1111-2222-3333-444455556666';
  const fake = fakeClient({
    version: '6.4.0',
    rows: (q) =>
      q.tool === 'sumip'
        ? [sumipRow(), sumipRow({ ip: '10.9.9.9', uuid: agentUuid, dnsName: 'agent.example' })]
        : [
            vulnRow({
              pluginID: '24270',
              uuid: agentUuid,
              ip: '10.9.9.9',
              repository: { id: '2', name: 'Workstations' },
              pluginText: fixture('plugin-24270.txt'),
            }),
          ],
    hosts: [
      { tenableUUID: agentUuid, ipAddress: '10.9.9.9', lastSeen: '1716000000' },
      { tenableUUID: 'ffff0000-0000-0000-0000-000000000000', ipAddress: '10.7.7.7', lastSeen: '1716000000' },
    ],
  });
  const pages = await collect(hostsStream({ config, client: fake.factory }).read(ctx()));
  const all = pages.flatMap((p) => p.records.hosts ?? []);
  assert.deepEqual(
    all.filter((h) => h.fill),
    [],
    'sumip gave each host its OS and names: the enrichment rows have nothing to fill',
  );
  const hosts = all.filter((h) => !h.fill);
  assert.equal(hosts.length, 4);
  assert.equal(hosts[2]!.key, `uuid:${agentUuid.toLowerCase()}`);
  assert.equal(hosts[2]!.fields.serialNumber, '7XK2Q93');
  assert.deepEqual(hosts[3], {
    key: `uuid:${agentUuid.toLowerCase()}`,
    fields: { scannerLastSeen: '2024-05-18T02:40:00.000Z', tenableUuid: agentUuid.toLowerCase() },
  });
  assert.equal(hosts[1]!.fields.tenableUuid, agentUuid.toLowerCase(), 'sumip keeps the Tenable UUID on the host');
  assert.deepEqual(
    fake.calls.map((c) => c.tool),
    ['sumip', 'vulndetails'],
  );
  assert.equal((pages.at(-1)!.checkpoint as Cursor).phase, 'done');

  const old = fakeClient({ version: '5.19.1', rows: (q) => (q.tool === 'sumip' ? [sumipRow()] : []), hosts: [{ tenableUUID: 'x', lastSeen: '1' }] });
  const oldPages = await collect(hostsStream({ config, client: old.factory }).read(ctx()));
  assert.equal(oldPages.flatMap((p) => p.records.hosts ?? []).length, 1);
});
