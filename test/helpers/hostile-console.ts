// A hostile upstream for the tests: a small HTTP server in front of a simulator (Tenable.sc under
// /rest, ServiceDesk Plus under /api/v3) that forwards everything while `mode` is 'good' and, in a
// hostile mode, answers list calls with HTTP 200 and no usable rows, pages forever (rows that cannot
// be stored, or the first page's rows again and again; or only each page's first row without its identity), or answers any call with a huge, trickled or
// non-JSON body; or (deep-field, Tenable.sc) gives each page's first row a vprContext nested 200,000
// levels. Not the simulators' friendly faults: these answers
// look like success.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const HOSTILE_MODES = [
  'no-results',
  'null-results',
  'null-rows',
  'no-identity',
  'first-row-no-identity',
  'empty-lying-total',
  'endless',
  'repeating',
  'deep-field',
  'huge',
  'trickle',
  'html',
] as const;
export type HostileMode = 'good' | (typeof HOSTILE_MODES)[number];

/** What the html mode's page holds: the checks must never print it. */
export const PAGE_SECRET = 'hostile-page-secret-7f3a91';
/** The deep-field mode's vprContext: JSON text nested this many levels. */
export const DEEP_LEVELS = 200_000;
const DEEP_TEXT = '['.repeat(DEEP_LEVELS) + ']'.repeat(DEEP_LEVELS);

/** The huge mode's body size. */
export const HUGE_BYTES = 500 * 1024 * 1024;

export interface HostileConsole {
  url: string;
  mode: HostileMode;
  /** The most body bytes one huge answer got to send before the client hung up (since the last reset). */
  largestBody: number;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

/** Identity fields a row is keyed by (Tenable.sc host and finding, ServiceDesk Plus id). */
const IDENTITY = new Set(['uuid', 'hostUUID', 'ip', 'dnsName', 'pluginID', 'tenableUUID', 'ipAddress', 'id']);

const withoutIdentity = (r: unknown): Json => Object.fromEntries(Object.entries(r as Json).filter(([k]) => !IDENTITY.has(k)));

function rowsFor(mode: HostileMode, rows: unknown[], limit: number): unknown[] {
  switch (mode) {
    case 'null-results':
      return rows.length ? rows.map(() => null) : [null];
    case 'null-rows':
      return rows.map((r) => Object.fromEntries(Object.keys(r as Json).map((k) => [k, null])));
    case 'no-identity':
      return rows.map(withoutIdentity);
    case 'first-row-no-identity':
      return rows.map((r, i) => (i === 0 ? withoutIdentity(r) : r));
    case 'endless':
      // Full pages of rows that can never be stored, however long it goes on.
      return Array.from({ length: limit }, (_, i) => ({ pluginName: `row ${i}`, severity: { id: '2', name: 'Medium' } }));
    default:
      return [];
  }
}

/** Tenable.sc `POST /rest/analysis` and `GET /rest/hosts` answers, made hostile. */
function tenableList(mode: HostileMode, env: Json, reqBody: Json | null): Json {
  const limit = reqBody ? Number(reqBody.endOffset ?? 0) - Number(reqBody.startOffset ?? 0) || 1000 : 1000;
  const response = env.response;
  if (Array.isArray(response)) {
    // /rest/hosts: a plain array.
    if (mode === 'no-results') return { ...env, response: {} };
    if (mode === 'empty-lying-total') return { ...env, response: [] };
    if (mode === 'repeating' || mode === 'deep-field') return env;
    return { ...env, response: rowsFor(mode, response, limit) };
  }
  const r = { ...(response as Json) };
  const rows = Array.isArray(r.results) ? r.results : [];
  if (mode === 'no-results') delete r.results;
  else if (mode === 'empty-lying-total') Object.assign(r, { totalRecords: '1000000000', returnedRecords: 0, results: [] });
  else if (mode === 'endless') Object.assign(r, { totalRecords: '1000000000', returnedRecords: limit, results: rowsFor(mode, rows, limit) });
  else if (mode === 'repeating') r.totalRecords = '1000000000';
  else if (mode === 'deep-field') r.results = rows.map((row, i) => (i === 0 ? { ...(row as Json), vprContext: DEEP_TEXT } : row));
  else r.results = rowsFor(mode, rows, limit);
  return { ...env, response: r };
}

/** ServiceDesk Plus list answers (`{response_status, list_info, <key>: […]}`), made hostile. */
function sdpList(mode: HostileMode, body: Json): Json {
  const key = Object.keys(body).find((k) => k !== 'response_status' && k !== 'list_info' && Array.isArray(body[k]));
  if (!key || mode === 'deep-field') return body;
  const rows = body[key] as unknown[];
  const out: Json = { ...body, list_info: { ...(body.list_info as Json), row_count: rows.length } };
  if (mode === 'no-results') delete out[key];
  else if (mode === 'empty-lying-total') Object.assign(out, { [key]: [], list_info: { has_more_rows: true, total_count: 1_000_000_000, row_count: 0 } });
  else if (mode === 'endless') Object.assign(out, { [key]: rowsFor(mode, rows, 100), list_info: { has_more_rows: true, row_count: 100 } });
  else if (mode === 'repeating') out.list_info = { ...(out.list_info as Json), has_more_rows: true, total_count: 1_000_000_000 };
  else out[key] = rowsFor(mode, rows, 100);
  return out;
}

/** The repeating mode's request: the first page asked for, whatever page was (Tenable.sc offsets, ServiceDesk Plus start_index). */
function firstPageRequest(url: string, body: Buffer): { url: string; body: Buffer } {
  const u = new URL(url, 'http://console');
  const start = Number(u.searchParams.get('startOffset') ?? 0);
  if (u.searchParams.has('endOffset')) {
    u.searchParams.set('endOffset', String(Number(u.searchParams.get('endOffset')) - start));
    u.searchParams.set('startOffset', '0');
  }
  const input = u.searchParams.get('input_data');
  if (input) {
    const data = JSON.parse(input) as { list_info?: Json };
    if (data.list_info?.start_index !== undefined) data.list_info.start_index = 1;
    u.searchParams.set('input_data', JSON.stringify(data));
  }
  if (!body.length) return { url: u.pathname + u.search, body };
  const json = JSON.parse(body.toString()) as Json & { query?: Json };
  for (const o of [json, json.query ?? {}]) {
    if (typeof o.startOffset === 'number' && typeof o.endOffset === 'number') Object.assign(o, { startOffset: 0, endOffset: o.endOffset - o.startOffset });
  }
  return { url: u.pathname + u.search, body: Buffer.from(JSON.stringify(json)) };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Starts the console in front of `upstream` (the simulator's base URL). */
export async function startHostileConsole(upstream: string): Promise<HostileConsole> {
  const state: HostileConsole = { url: '', mode: 'good', largestBody: 0, close: async () => {} };

  const huge = (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < HUGE_BYTES && !res.destroyed) {
        sent += chunk.length;
        state.largestBody = Math.max(state.largestBody, sent);
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    pump();
  };

  const trickle = (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
    const timer = setInterval(() => {
      res.write(' ');
    }, 300);
    res.on('close', () => clearInterval(timer));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const mode = state.mode;
    if (mode === 'huge') return huge(res);
    if (mode === 'trickle') return trickle(res);
    if (mode === 'html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return void res.end(`<!doctype html><html><head><title>Sign in</title></head><body><p>token ${PAGE_SECRET}</p></body></html>`);
    }
    let body = await readBody(req);
    let url = req.url ?? '/';
    if (mode === 'repeating') ({ url, body } = firstPageRequest(url, body));
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
    const up = await fetch(upstream + url, { method: req.method, headers, body: body.length ? body : undefined });
    let text = await up.text();
    const path = (req.url ?? '').split('?')[0] ?? '';
    const isList =
      (req.method === 'POST' && path === '/rest/analysis') ||
      (req.method === 'GET' && path === '/rest/hosts') ||
      (req.method === 'GET' && path.startsWith('/api/v3/'));
    if (mode !== 'good' && isList && up.status === 200) {
      const json = JSON.parse(text) as Json;
      text = JSON.stringify(
        path.startsWith('/rest/') ? tenableList(mode, json, body.length ? (JSON.parse(body.toString()) as Json) : null) : sdpList(mode, json),
      );
    }
    res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/json' });
    res.end(text);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(599);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}
