// HTTP(S) transport: authentication, the console envelope, counters and fault injection around the
// /rest handlers, plus the unauthenticated /_sim control API.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ApiResult, fail, type SimContext } from './context.ts';
import { handleControl } from './control.ts';
import { handleRest, systemInfo } from './rest-api.ts';
import { parseApiKeyHeader, type SimUser } from './users.ts';

const MAX_BODY = 1 << 20;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) reject(new Error('body too large'));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The console's JSON escapes "/" (PHP style); valid JSON either way, and keeps parsers honest. */
function envelope(ctx: SimContext, r: ApiResult): string {
  const json = JSON.stringify({
    type: 'regular',
    response: r.response,
    error_code: r.errorCode,
    error_msg: r.errorMsg,
    warnings: [],
    timestamp: ctx.lifecycle.now(),
  });
  return json.replaceAll('/', '\\/');
}

function authenticate(ctx: SimContext, header: string | string[] | undefined): SimUser | null | 'invalid' {
  if (header === undefined) return null;
  // Consoles before 5.13 know nothing about API keys and ignore the header.
  if (!ctx.features.apiKeys) return null;
  const keys = parseApiKeyHeader(header);
  if (!keys) return 'invalid';
  for (const user of [ctx.users.analyst, ctx.users.admin]) {
    if (user.accessKey === keys.accessKey && user.secretKey === keys.secretKey) return user;
  }
  return 'invalid';
}

async function send(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string>,
  opts: { slowMs: number; resetMidBody: boolean },
): Promise<void> {
  const buf = Buffer.from(body, 'utf8');
  res.writeHead(status, { ...headers, 'Content-Length': String(buf.length) });
  if (opts.resetMidBody) {
    // Promise the full length, deliver a part, then drop the connection.
    res.write(buf.subarray(0, Math.max(1, Math.floor(buf.length / 3))), () => res.socket?.destroy());
    return;
  }
  if (opts.slowMs > 0) {
    const parts = 4;
    const step = Math.ceil(buf.length / parts);
    for (let i = 0; i < parts; i++) {
      if (res.destroyed) return;
      res.write(buf.subarray(i * step, (i + 1) * step));
      if (i < parts - 1) await sleep(opts.slowMs / (parts - 1));
    }
    res.end();
    return;
  }
  res.end(buf);
}

async function handle(ctx: SimContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sim.invalid');
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const method = (req.method ?? 'GET').toUpperCase();
  const rawBody = method === 'GET' || method === 'HEAD' ? '' : await readBody(req);
  let body: unknown;
  let badJson = false;
  try {
    body = rawBody ? JSON.parse(rawBody) : undefined;
  } catch {
    badJson = true;
  }

  if (path.startsWith('/_sim')) {
    const r = badJson ? { status: 400, body: { error: 'invalid JSON body' } } : handleControl(ctx, method, path, body);
    const text = JSON.stringify(r.body);
    res.writeHead(r.status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) });
    res.end(text);
    return;
  }

  ctx.stats.total++;
  const route = `${method} ${path}`;
  ctx.stats.byRoute[route] = (ctx.stats.byRoute[route] ?? 0) + 1;
  const countStatus = (s: number) => {
    ctx.stats.byStatus[s] = (ctx.stats.byStatus[s] ?? 0) + 1;
  };
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (ctx.features.versionHeader) headers.SecurityCenter = ctx.config.version;

  const faulted = ctx.faults.applies(path);
  const decision = faulted ? ctx.faults.decide() : { kind: 'none' as const };
  if (faulted && ctx.faults.latencyMs > 0) await sleep(ctx.faults.latencyMs);
  if (decision.kind === 'rateLimit') {
    countStatus(429);
    return send(
      res,
      429,
      'Too Many Requests',
      { 'Content-Type': 'text/plain', 'Retry-After': String(decision.retryAfter) },
      { slowMs: 0, resetMidBody: false },
    );
  }
  if (decision.kind === 'serverError') {
    countStatus(decision.status);
    const text = decision.status === 503 ? 'Service Unavailable' : 'Internal Server Error';
    return send(
      res,
      decision.status,
      `<html><body><h1>${decision.status} ${text}</h1></body></html>`,
      { 'Content-Type': 'text/html' },
      { slowMs: 0, resetMidBody: false },
    );
  }

  let result: ApiResult;
  const user = authenticate(ctx, req.headers['x-apikey']);
  if (badJson) result = fail(403, 146, 'Invalid parameters specified: the request body is not valid JSON.');
  else if (user === 'invalid') result = fail(403, 12, 'Invalid API key: the access key and secret key pair is not valid.');
  else if (user === null)
    result = path === '/rest/system' && method === 'GET' ? systemInfo(ctx, false) : fail(403, 12, 'This request contains an invalid token.');
  else result = handleRest(ctx, { method, path, query: url.searchParams, body, user });

  countStatus(result.status);
  const text = envelope(ctx, result);
  await send(res, result.status, text, headers, {
    slowMs: result.bulky ? ctx.faults.slowPageMs : 0,
    resetMidBody: decision.kind === 'resetMidBody',
  });
}

export interface ServerTls {
  cert: string;
  key: string;
}

export async function listen(ctx: SimContext, host: string, port: number, tls: ServerTls | null): Promise<{ server: Server; port: number }> {
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(ctx, req, res).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const text = envelope(ctx, fail(500, 1, `Simulator error: ${err instanceof Error ? err.message : String(err)}`));
      res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(text);
    });
  };
  const server: Server = tls ? createHttpsServer({ cert: tls.cert, key: tls.key }, listener) : createHttpServer(listener);
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { server, port: (server.address() as AddressInfo).port };
}
