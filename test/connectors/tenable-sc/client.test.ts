// The client against a scripted local HTTP server: headers, body-level transient errors, offsets.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { UpstreamError } from '../../../src/core/errors.ts';
import { TenableScClient, USER_AGENT } from '../../../src/connectors/tenable-sc/client.ts';
import { requireApi, tenableScConfigSchema } from '../../../src/connectors/tenable-sc/config.ts';

const seen: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[] = [];
let script: { status: number; body: unknown }[] = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => {
    body += c;
  });
  req.on('end', () => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    const next = script.shift() ?? { status: 200, body: { type: 'regular', response: {}, error_code: 0, error_msg: '', warnings: [], timestamp: 1 } };
    res.writeHead(next.status, { 'content-type': 'application/json' });
    res.end(typeof next.body === 'string' ? next.body : JSON.stringify(next.body));
  });
});
let client: TenableScClient;

before(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  client = new TenableScClient(requireApi(tenableScConfigSchema.parse({ apiUrl: url, accessKey: 'AK1', secretKey: 'SK1' })), { retry: { baseMs: 1 } });
});
after(async () => {
  await client.close();
  server.close();
});

const env = (response: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'regular',
  response,
  error_code: 0,
  error_msg: '',
  warnings: [],
  timestamp: 1716000000,
  ...extra,
});

test('headers: x-apikey and the integration User-Agent; base path /rest', async () => {
  seen.length = 0;
  script = [{ status: 200, body: env({ version: '6.4.0' }) }];
  assert.deepEqual(await client.get('/system'), { version: '6.4.0' });
  assert.equal(seen[0]!.url, '/rest/system');
  assert.equal(seen[0]!.headers['x-apikey'], 'accesskey=AK1; secretkey=SK1;');
  assert.equal(seen[0]!.headers['user-agent'], USER_AGENT);
  assert.equal(USER_AGENT, 'Integration/1.0 (Tributary; Tributary; Build/0.1.0)');
});

test('"database is locked" on HTTP 200 is retried; offsets at the root and in the query', async () => {
  seen.length = 0;
  script = [
    { status: 200, body: env('', { error_code: 1, error_msg: 'SQLSTATE: database is locked' }) },
    { status: 503, body: 'busy' },
    { status: 200, body: env({ totalRecords: '7', returnedRecords: 2, results: [{ ip: '1' }, { ip: '2' }] }) },
  ];
  const page = await client.fetchAnalysisPage({ tool: 'sumip', sourceType: 'cumulative', filters: [], offset: 5, limit: 2 });
  assert.equal(page.total, 7);
  assert.equal(page.rows.length, 2);
  assert.equal(page.timestamp, 1716000000);
  assert.equal(seen.length, 3);
  const body = JSON.parse(seen[2]!.body);
  assert.equal(body.startOffset, 5);
  assert.equal(body.endOffset, 7);
  assert.deepEqual([body.query.startOffset, body.query.endOffset, body.query.tool, body.sourceType], [5, 7, 'sumip', 'cumulative']);
});

test('a non-transient error_code fails at once with cause and hint; writes are refused', async () => {
  seen.length = 0;
  script = [{ status: 403, body: env('', { error_code: 146, error_msg: "The filter 'x' is invalid (valid filters: ip, severity)" }) }];
  await assert.rejects(
    client.fetchAnalysisPage({ tool: 'vulndetails', sourceType: 'cumulative', filters: [], offset: 0, limit: 1 }),
    (e: unknown) => e instanceof UpstreamError && /error 146/.test(e.message) && /filters it knows/.test(e.hint ?? ''),
  );
  assert.equal(seen.length, 1);
  await assert.rejects(client.call('POST', '/scan'), /read-only/);
  assert.equal(seen.length, 1);
});
