// The upstream HTTP helper's bounds: the size cap (refused from Content-Length before reading, and
// while reading a chunked body), the one deadline over headers and body, and the description of an
// answer that never quotes it; the stall limit once a body has started; the headers hook (read-ahead)
// fires for successful answers only.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { describeAnswer, HttpClient, parseByteSize } from '../../src/core/http.ts';

let server: Server;
let base: string;
let sent = 0;

before(async () => {
  server = createServer((req, res) => {
    if (req.url === '/api/declared') {
      // Announces 1 GiB and sends a little: refused on the header alone.
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(1024 ** 3) });
      res.write('{"a":');
      return;
    }
    if (req.url === '/api/chunked') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!res.destroyed && sent < 256 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      return pump();
    }
    if (req.url === '/api/trickle') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      const t = setInterval(() => res.write(' '), 100);
      return void res.on('close', () => clearInterval(t));
    }
    if (req.url === '/api/slow-start') {
      // Nothing for 1.2 s (over the stall window), then the whole answer.
      const t = setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      }, 1200);
      return void res.on('close', () => clearTimeout(t));
    }
    if (req.url === '/api/steady') {
      // 2 KiB every 200 ms for 1.2 s: slow, but above 1 KiB per 500 ms.
      res.writeHead(200, { 'content-type': 'application/json' });
      let n = 0;
      const t = setInterval(() => {
        res.write(' '.repeat(2048));
        if (++n === 6) {
          clearInterval(t);
          res.end();
        }
      }, 200);
      return void res.on('close', () => clearInterval(t));
    }
    if (req.url === '/api/busy') {
      res.writeHead(503, { 'content-type': 'application/json' });
      return void res.end('{"error_code":503}');
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

test('an answer larger than the cap is refused: from Content-Length without reading, or as soon as the read passes it', async () => {
  const http = new HttpClient({ baseUrl: base, maxResponseBytes: 1024 * 1024 });
  try {
    await assert.rejects(
      http.send({ method: 'GET', path: '/declared' }),
      /^UpstreamError: GET \/api\/declared: the answer is larger than 1 MiB \(the response size limit\)$/,
    );
    await assert.rejects(http.send({ method: 'GET', path: '/chunked' }), (err: Error & { hint?: string }) => {
      assert.match(err.message, /GET \/api\/chunked: the answer is larger than 1 MiB/);
      assert.match(err.hint ?? '', /TRIBUTARY_UPSTREAM_MAX_BYTES/);
      return true;
    });
    assert.ok(sent < 64 * 1024 * 1024, `the server got to send ${sent} bytes`);
    assert.deepEqual(JSON.parse((await http.send({ method: 'GET', path: '/small' })).text), { ok: true });
  } finally {
    await http.close();
  }
});

test('TRIBUTARY_UPSTREAM_MAX_BYTES overrides the cap; TRIBUTARY_UPSTREAM_DEADLINE_MS caps the deadline', async () => {
  process.env.TRIBUTARY_UPSTREAM_MAX_BYTES = '2MiB';
  process.env.TRIBUTARY_UPSTREAM_DEADLINE_MS = '400';
  const http = new HttpClient({ baseUrl: base, maxResponseBytes: 1024, deadlineMs: 60_000 });
  try {
    assert.equal(http.maxBytes, 2 * 1024 * 1024);
    assert.equal(http.deadlineMs, 400);
    // A body trickled a byte every 100 ms never trips undici's idle timeouts; the deadline ends it.
    await assert.rejects(http.send({ method: 'GET', path: '/trickle' }), (err: Error & { hint?: string; transient?: boolean }) => {
      assert.equal(err.message, 'GET /api/trickle: no complete answer within 400 ms (the per-request deadline)');
      assert.match(err.hint ?? '', /TRIBUTARY_UPSTREAM_DEADLINE_MS/);
      assert.equal(err.transient, false, 'not retried: the same answer would trickle again');
      return true;
    });
  } finally {
    delete process.env.TRIBUTARY_UPSTREAM_MAX_BYTES;
    delete process.env.TRIBUTARY_UPSTREAM_DEADLINE_MS;
    await http.close();
  }
});

test('describeAnswer says what came back without quoting the body', () => {
  const page = '<html><head><title>\n  Sign in \u0007 to "Portal"</title></head><body>secret-token-123</body></html>';
  const d = describeAnswer(200, page, 'text/html; charset=utf-8');
  assert.equal(d, `HTTP 200, text/html, ${Buffer.byteLength(page)} bytes, a page titled "Sign in to Portal"`);
  assert.doesNotMatch(d, /secret-token/);
  assert.equal(describeAnswer(502, '', null), 'HTTP 502, no content type, empty');
  assert.equal(describeAnswer(200, 'x'.repeat(3000), 'text/plain'), 'HTTP 200, text/plain, 2.9 KiB');
  assert.equal(parseByteSize('64MiB'), 64 * 1024 * 1024);
  assert.equal(parseByteSize('500k'), 500 * 1024);
  assert.equal(parseByteSize('1048576'), 1048576);
  assert.equal(parseByteSize('lots'), null);
});

test('onHeaders fires once a successful answer starts to arrive, before its body is read; not for a busy answer', async () => {
  const http = new HttpClient({ baseUrl: base });
  try {
    const seen: string[] = [];
    const ok = await http.send({ method: 'GET', path: '/small', onHeaders: () => seen.push('headers') });
    seen.push(`body ${ok.text.length}`);
    assert.deepEqual(seen, ['headers', 'body 11']);
    let busy = 0;
    await http.send({ method: 'GET', path: '/busy', onHeaders: () => busy++ }).catch(() => {});
    assert.equal(busy, 0);
  } finally {
    await http.close();
  }
});

test('a body that has started and then trickles ends at the stall limit, long before the deadline; a steady one does not', async () => {
  process.env.TRIBUTARY_HTTP_STALL_BYTES = '1KiB';
  process.env.TRIBUTARY_HTTP_STALL_MS = '500';
  // A deadline well past the stall window, so that without the stall limit the trickle ends at the deadline instead.
  const http = new HttpClient({ baseUrl: base, deadlineMs: 5000 });
  try {
    assert.deepEqual(http.stall, { bytes: 1024, ms: 500 });
    const started = Date.now();
    await assert.rejects(http.send({ method: 'GET', path: '/trickle' }), (err: Error & { hint?: string; transient?: boolean }) => {
      assert.match(
        err.message,
        /^GET \/api\/trickle: the answer stalled after its body started: \d+ bytes in 500 ms, under the stall limit of 1 KiB per 500 ms$/,
      );
      assert.match(err.hint ?? '', /TRIBUTARY_HTTP_STALL_BYTES and TRIBUTARY_HTTP_STALL_MS/);
      assert.equal(err.transient, false);
      return true;
    });
    assert.ok(Date.now() - started < 3000, `stopped after ${Date.now() - started} ms`);
    // A slow first byte is the deadline's business, and a complete answer is never cut.
    assert.deepEqual(JSON.parse((await http.send({ method: 'GET', path: '/slow-start' })).text), { ok: true });
    assert.equal((await http.send({ method: 'GET', path: '/steady' })).text.length, 6 * 2048);
  } finally {
    delete process.env.TRIBUTARY_HTTP_STALL_BYTES;
    delete process.env.TRIBUTARY_HTTP_STALL_MS;
    await http.close();
  }
});
