// Upstream calls through an HTTP proxy (proxyUrl): a CONNECT proxy on loopback relays the Tenable.sc
// credential check and a TLS console with a private CA; the proxy sees every tunnel.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { tenableScConnector } from '../../src/connectors/tenable-sc/index.ts';
import type { ConnectorContext } from '../../src/core/connector.ts';
import { silentLogger } from '../../src/core/log.ts';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';

const ctx: ConnectorContext = { sourceName: 'via-proxy', log: silentLogger, state: { get: async () => ({}), set: async () => {} } };
const tunnels: string[] = [];
let proxy: Server;
let proxyUrl: string;
let plain: RunningTenableSim;
let tls: RunningTenableSim;

before(async () => {
  proxy = createServer((_req, res) => {
    res.writeHead(405).end('CONNECT only');
  });
  proxy.on('connect', (req, client: Socket, head) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => {
      if (!client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    });
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const addr = proxy.address();
  proxyUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  plain = await startTenableSim({ port: 0, hosts: 5, findingsPerHost: 3 });
  tls = await startTenableSim({ port: 0, hosts: 5, findingsPerHost: 3, tls: true });
});
after(async () => {
  await plain?.close();
  await tls?.close();
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
});

test('the credential check reaches an http and a private-CA https console through the proxy', async () => {
  for (const sim of [plain, tls]) {
    tunnels.length = 0;
    const config = tenableScConnector.configSchema.parse({
      apiUrl: sim.url,
      accessKey: sim.analyst.accessKey,
      secretKey: sim.analyst.secretKey,
      proxyUrl,
      ...(sim.caCertificate ? { caCertificate: sim.caCertificate } : {}),
    });
    const checks = await tenableScConnector.check(config, ctx);
    assert.ok(
      checks.every((c) => c.ok),
      JSON.stringify(checks.filter((c) => !c.ok)),
    );
    const host = new URL(sim.url).host;
    assert.ok(tunnels.length > 0 && tunnels.every((t) => t === host), `tunnels: ${tunnels.join(', ')}`);
  }
});

test('a proxy that is down is reported as unreachable, not as bad credentials', async () => {
  const config = tenableScConnector.configSchema.parse({
    apiUrl: plain.url,
    accessKey: plain.analyst.accessKey,
    secretKey: plain.analyst.secretKey,
    proxyUrl: 'http://127.0.0.1:1',
  });
  const checks = await tenableScConnector.check(config, ctx);
  const first = checks[0];
  assert.equal(first.ok, false);
  assert.match(first.message, /cannot reach the proxy 127\.0\.0\.1:1/);
  assert.match(first.hint ?? '', /proxyUrl/);
});

test('a proxy that may not reach the console says so', async () => {
  const config = tenableScConnector.configSchema.parse({
    apiUrl: 'http://127.0.0.1:9',
    accessKey: plain.analyst.accessKey,
    secretKey: plain.analyst.secretKey,
    proxyUrl,
  });
  const [first] = await tenableScConnector.check(config, ctx);
  assert.equal(first.ok, false);
  assert.match(first.message, /^the proxy 127\.0\.0\.1:\d+ answered HTTP 502 when asked to connect to 127\.0\.0\.1:9$/);
  assert.match(first.hint ?? '', /allow-list/);
});
