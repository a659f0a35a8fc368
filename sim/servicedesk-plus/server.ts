// The simulator's HTTP server: routes Zoho Accounts (/oauth/v2/…), the SDP API v3 for cloud and on-prem,
// and the control API (/_sim/…), and injects the configured faults (latency, rate limits, errors).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { type ApiAnswer, handleModule, invalidUrl, ok, route, sdpError } from './api.ts';
import { type Flavour, idOf, indexOf, isKind, type KindName, KINDS, SdpDataset } from './data.ts';
import { estateCves } from '../shared/estate.ts';
import { DATA_CENTRES, type DataCentre, DEFAULT_SCOPES, hasScope, ZohoAccounts } from './oauth.ts';
import { ASSET_API_MODES, type AssetApiMode } from './product-types.ts';
import type { FaultRule, RunningSdpSim, SdpFaults, SdpSimOptions, SimStats } from './types.ts';
import { generateSelfSigned } from '../shared/tls.ts';
import { isTextCriterion, type KeyRole, matchesText, roleAllows, scopesAllow, writeRoute, WrittenRequests } from './writes.ts';

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

const defaultNow = () => {
  const d = new Date();
  d.setUTCMinutes(0, 0, 0);
  return d.getTime() - 24 * 3600_000;
};

export async function startSdpSim(opts: SdpSimOptions = {}): Promise<RunningSdpSim> {
  const seed = opts.seed ?? 1;
  const estate = opts.estate;
  const data = new SdpDataset({
    seed,
    estate,
    estateCves: estate ? await estateCves() : [],
    now: opts.now ?? defaultNow(),
    counts: {
      requests: opts.requests ?? 250,
      assets: estate ? estate.cmdb().length : (opts.assets ?? 120),
      technicians: opts.technicians ?? 8,
      requesters: opts.users ?? 60,
      service_categories: opts.serviceCategories ?? 8,
      // An estate's computers are its assets; CI computers would be a second, unrelated fleet.
      ci_computer: estate ? 0 : (opts.cis ?? 20),
      ci_database: opts.cis ?? 20,
      ci_business_service: opts.cis === undefined ? 6 : Math.max(1, Math.ceil(opts.cis / 3)),
    },
  });
  const portal = opts.portal ?? 'itdesk';
  const dc = opts.dc ?? 'us';
  const clientId = opts.clientId ?? `1000.${randomBytes(12).toString('hex').toUpperCase()}`;
  const clientSecret = opts.clientSecret ?? randomBytes(20).toString('hex');
  const apiKey = opts.apiKey ?? randomBytes(16).toString('hex').toUpperCase();
  const accounts = new ZohoAccounts({
    clientId,
    clientSecret,
    dc,
    codeTtlMs: (opts.codeTtlSeconds ?? 180) * 1000,
    accessTokenTtlS: opts.accessTokenTtlSeconds ?? 3600,
    tokenLimit: opts.tokenLimit ?? 10,
    tokenWindowMs: (opts.tokenWindowSeconds ?? 600) * 1000,
    includeScope: opts.includeScope ?? false,
  });
  let faults: SdpFaults = { ...opts.faults };
  let assetApi: AssetApiMode = opts.assetApi ?? 'both';
  /** Asset lists answered "Invalid URL" whatever the mode (a product type whose list has another name). */
  let missingLists = new Set<string>();
  const fired: Record<string, number> = {};
  const requests: Record<string, number> = {};
  let apiCount = 0;
  const denied = new Set((opts.apiKeyDenied ?? []).map((s) => s.toLowerCase()));
  const written = new WrittenRequests({ requireResolution: opts.requireResolution });
  const keyRole: KeyRole = { addRequests: true, editRequests: true, ...opts.apiKeyRole };
  /** Times of the write calls in the last minute (the per-minute write limit). */
  let writeTimes: number[] = [];
  const rateLimited = (): ApiAnswer => ({
    status: 429,
    body: { response_status: { status_code: 4000, status: 'failed', messages: [{ status_code: 4015, type: 'failed', message: 'API Rate Limit reached' }] } },
  });

  const fires = (name: 'rateLimit' | 'http429' | 'serverError', n: number): FaultRule | null => {
    const rule = faults[name];
    if (!rule) return null;
    if (rule.times !== undefined && rule.times > 0) {
      rule.times--;
      fired[name] = (fired[name] ?? 0) + 1;
      return rule;
    }
    if (rule.every && n % rule.every === 0) {
      fired[name] = (fired[name] ?? 0) + 1;
      return rule;
    }
    return null;
  };

  const api = async (req: IncomingMessage, path: string, flavour: Flavour, query: URLSearchParams): Promise<ApiAnswer> => {
    apiCount++;
    if (faults.latencyMs) await new Promise((r) => setTimeout(r, faults.latencyMs));
    const method = req.method ?? 'GET';
    const w = writeRoute(method, path);
    const r = w ? null : missingLists.has(path.split('/').filter(Boolean)[0] ?? '') ? null : route(path, flavour, assetApi);
    // Authentication first, as the real service does; then the scope (cloud) or role (on-prem) of the call.
    if (flavour === 'cloud') {
      const m = /^(?:Zoho-oauthtoken|Bearer)\s+(\S+)$/i.exec(String(req.headers.authorization ?? ''));
      const scopes = m ? accounts.accessScopes(m[1]!) : null;
      if (!scopes) return sdpError(401, 4022, 'Invalid OAuthtoken');
      if (w) {
        if (!scopesAllow(scopes, w.op)) return sdpError(401, 4002, 'UNAUTHORISED: the OAuth token lacks the scope for this operation');
      } else {
        if (!r) return invalidUrl();
        if (!r.scopes.some((s) => hasScope(scopes, s))) return sdpError(401, 4002, 'UNAUTHORISED: the OAuth token lacks the scope for this module');
      }
    } else {
      const key = req.headers.authtoken ?? req.headers.technician_key;
      if (key !== apiKey) return sdpError(401, 4022, 'Invalid API key');
      if (w) {
        if (denied.has('requests') || !roleAllows(keyRole, w.op)) return sdpError(403, 4002, 'Permission denied');
      } else {
        if (!r) return invalidUrl();
        if (denied.has(r.module)) return sdpError(403, 4002, 'Permission denied');
      }
    }
    const faultable = !faults.paths || faults.paths.some((p) => path.includes(p));
    if (faultable) {
      const srv = fires('serverError', apiCount);
      if (srv)
        return {
          status: srv.status ?? 503,
          body: { response_status: { status_code: 4004, status: 'failed', messages: [{ status_code: 4004, type: 'failed', message: 'Internal error' }] } },
        };
      const h429 = fires('http429', apiCount);
      if (h429)
        return {
          status: 429,
          body: {
            response_status: { status_code: 4000, status: 'failed', messages: [{ status_code: 4015, type: 'failed', message: 'API Rate Limit reached' }] },
          },
        };
      const rl = fires('rateLimit', apiCount);
      if (rl) return sdpError(rl.status ?? 400, 4015, 'API Rate Limit reached');
    }
    if (w) {
      if (w.op !== 'notes-read' && opts.writesPerMinute !== undefined) {
        const now = Date.now();
        writeTimes = writeTimes.filter((t) => t > now - 60_000);
        if (writeTimes.length >= opts.writesPerMinute) {
          fired.writeLimit = (fired.writeLimit ?? 0) + 1;
          return rateLimited();
        }
        writeTimes.push(now);
      }
      const body = await readBody(req);
      const type = String(req.headers['content-type'] ?? '');
      if (w.op === 'create') return written.create(body, type, flavour);
      if (w.op === 'update') return written.update(w.id!, body, type, flavour);
      if (w.op === 'note') return written.addNote(w.id!, body, type);
      return written.listNotes(w.id!);
    }
    if (!r) return invalidUrl();
    if (req.method !== 'GET') return sdpError(405, 4000, 'Method not allowed');
    if (r.key === 'requests' && r.id !== undefined) {
      const rec = written.get(r.id);
      if (rec) return { status: 200, body: { request: rec, response_status: ok() } };
    }
    if (r.key === 'requests' && r.id === undefined) {
      const search = textSearch(query.get('input_data'), flavour);
      if (search) return search;
    }
    return handleModule(data, r, flavour, query.get('input_data'));
  };

  /** A request list searched by text (subject, description, UDFs): the generated requests and the written ones. */
  const textSearch = (input: string | null, flavour: Flavour): ApiAnswer | null => {
    let li: Record<string, unknown>;
    try {
      li = ((JSON.parse(input ?? '{}') as Record<string, unknown>).list_info ?? {}) as Record<string, unknown>;
    } catch {
      return null;
    }
    const raw = li.search_criteria;
    const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    if (!list.some(isTextCriterion)) return null;
    if (!list.every(isTextCriterion)) return sdpError(400, 4001, 'Invalid Input', 'search_criteria');
    const crit = list as Record<string, unknown>[];
    const rowCount = Math.min(100, Math.max(1, Number(li.row_count ?? 10) || 10));
    const start = Math.max(1, Number(li.start_index ?? 1) || 1);
    const hits: Record<string, unknown>[] = [];
    for (const i of data.order('requests', 'id', 'asc')) {
      const rec = data.record('requests', i, flavour);
      if (matchesText(rec, crit)) hits.push(rec);
    }
    for (const rec of written.all()) if (!rec.is_trashed && matchesText(rec, crit)) hits.push(rec);
    // A list answers a reduced set of fields: no description (the fact sheet, §5.1).
    const rows = hits.slice(start - 1, start - 1 + rowCount).map(({ description: _, ...rest }) => rest);
    return {
      status: 200,
      body: {
        response_status: [ok()],
        list_info: { has_more_rows: start - 1 + rows.length < hits.length, start_index: start, row_count: rows.length, search_criteria: raw },
        requests: rows,
      },
    };
  };

  const control = async (path: string, body: Record<string, unknown>, res: ServerResponse): Promise<void> => {
    const kindOf = (): KindName | null => {
      const k = String(body.kind ?? '');
      const alias: Record<string, KindName> = { users: 'requesters', cis: 'ci_computer', services: 'service_categories' };
      const kind = alias[k] ?? k;
      return isKind(kind) ? kind : null;
    };
    const idxs = (kind: KindName): number[] => (Array.isArray(body.ids) ? body.ids.map((id) => indexOf(kind, String(id))) : []);
    switch (path) {
      case '/_sim/codes': {
        const raw = body.scopes;
        const scopes = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? raw.split(',').map((s) => s.trim()) : undefined;
        const codeDc = typeof body.dc === 'string' && (DATA_CENTRES as readonly string[]).includes(body.dc) ? (body.dc as DataCentre) : undefined;
        const ttlMs = typeof body.ttlSeconds === 'number' ? body.ttlSeconds * 1000 : undefined;
        return send(res, 200, { code: accounts.mintCode(scopes, { ttlMs, dc: codeDc }) });
      }
      case '/_sim/update':
      case '/_sim/create':
      case '/_sim/delete': {
        const kind = kindOf();
        if (!kind) return send(res, 400, { error: `kind must be one of ${KINDS.join(', ')}` });
        const count = typeof body.count === 'number' ? body.count : 1;
        const done =
          path === '/_sim/create'
            ? data.create(kind, count)
            : path === '/_sim/delete'
              ? data.delete(kind, idxs(kind))
              : data.update(kind, Array.isArray(body.ids) ? idxs(kind) : data.sample(kind, count, apiCount + Date.now()));
        const flavour: Flavour = body.flavour === 'cloud' ? 'cloud' : 'onprem';
        return send(res, 200, { kind, ids: done.map((i) => idOf(kind, i, flavour)), cloudIds: done.map((i) => idOf(kind, i, 'cloud')) });
      }
      case '/_sim/faults':
        faults = body as SdpFaults;
        return send(res, 200, { faults });
      case '/_sim/asset-api': {
        const mode = String(body.mode ?? '');
        if (!(ASSET_API_MODES as readonly string[]).includes(mode)) return send(res, 400, { error: `mode must be one of ${ASSET_API_MODES.join(', ')}` });
        assetApi = mode as AssetApiMode;
        missingLists = new Set(Array.isArray(body.missing) ? body.missing.map(String) : []);
        return send(res, 200, { assetApi, missing: [...missingLists] });
      }
      case '/_sim/request-status': {
        const done = written.setStatus(String(body.id ?? ''), String(body.status ?? ''));
        return send(res, done ? 200 : 404, done ? { id: body.id, status: body.status } : { error: 'no written request with that id, or an unknown status' });
      }
      case '/_sim/expire-tokens':
        return send(res, 200, { expired: accounts.expireAccessTokens() });
      case '/_sim/reset-stats':
        for (const k of Object.keys(requests)) delete requests[k];
        return send(res, 200, { ok: true });
      default:
        return send(res, 404, { error: 'unknown control endpoint' });
    }
  };

  const stats = (): SimStats => ({
    requests: { ...requests },
    api: apiCount,
    faults: { ...fired },
    tokens: { ...accounts.counts },
    writes: { ...written.counts },
  });

  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const u = new URL(req.url ?? '/', 'http://sim');
    const path = u.pathname;
    requests[path] = (requests[path] ?? 0) + 1;
    if (path === '/_sim/stats' && req.method === 'GET') return send(res, 200, stats());
    if (path.startsWith('/_sim/') && req.method === 'POST') {
      const text = await readBody(req);
      let body: Record<string, unknown> = {};
      try {
        body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        return send(res, 400, { error: 'body must be JSON' });
      }
      return control(path, body, res);
    }
    if (path === '/oauth/v2/token' || path === '/oauth/v2/token/revoke' || path === '/oauth/v2/revoke/token') {
      if (req.method !== 'POST') return send(res, 405, { error: 'method_not_allowed' });
      const params = new URLSearchParams(u.search);
      const text = await readBody(req);
      for (const [k, v] of new URLSearchParams(text)) params.set(k, v);
      const a = path === '/oauth/v2/token' ? accounts.token(params) : accounts.revoke(params.get('token') ?? '');
      return send(res, a.status, a.body);
    }
    const cloud = /^\/app\/([^/]+)\/api\/v3(\/.*)?$/.exec(path);
    if (cloud) {
      if (cloud[1] !== portal) {
        const a = invalidUrl();
        return send(res, a.status, a.body);
      }
      const a = await api(req, cloud[2] ?? '/', 'cloud', u.searchParams);
      return send(res, a.status, a.body, a.status === 429 ? { 'retry-after': String(faults.http429?.retryAfter ?? 1) } : {});
    }
    const plain = /^\/api\/v3(\/.*)?$/.exec(path);
    if (plain) {
      // Cloud tenants without a portal segment use /api/v3 with an OAuth token.
      const flavour: Flavour = /^(?:Zoho-oauthtoken|Bearer)\s/i.test(String(req.headers.authorization ?? '')) ? 'cloud' : 'onprem';
      const a = await api(req, plain[1] ?? '/', flavour, u.searchParams);
      return send(res, a.status, a.body, a.status === 429 ? { 'retry-after': String(faults.http429?.retryAfter ?? 1) } : {});
    }
    const a = invalidUrl();
    return send(res, a.status, a.body);
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handler(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, { error: String(err) });
      else res.destroy();
    });
  };
  const pem =
    opts.tlsCert && opts.tlsKey
      ? { cert: readFileSync(opts.tlsCert, 'utf8'), key: readFileSync(opts.tlsKey, 'utf8') }
      : opts.tls
        ? await generateSelfSigned(opts.host ?? '127.0.0.1')
        : null;
  const tls = pem !== null;
  const server: Server = pem ? createHttpsServer(pem, onRequest) : createHttpServer(onRequest);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `${tls ? 'https' : 'http'}://${host}:${addr.port}`;
  return {
    url,
    accountsUrl: url,
    ...(opts.tls && pem ? { caCertificate: pem.cert } : {}),
    portal,
    clientId,
    clientSecret,
    apiKey,
    dc,
    data,
    accounts,
    written,
    mintAuthorizationCode: (scopes, o = {}) =>
      accounts.mintCode(scopes ?? DEFAULT_SCOPES, { ttlMs: o.ttlSeconds === undefined ? undefined : o.ttlSeconds * 1000, dc: o.dc }),
    setFaults: (f) => {
      faults = { ...f };
    },
    setAssetApi: (mode, missing = []) => {
      assetApi = mode;
      missingLists = new Set(missing);
    },
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
