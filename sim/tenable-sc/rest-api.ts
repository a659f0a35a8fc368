// Handlers for the /rest resources the connector (and its credential check) may call.
import { type ApiResult, fail, ok, type SimContext } from './context.ts';
import type { SourceType } from './dataset.ts';
import type { HostSkeleton } from './hosts.ts';
import { compileFilters, FilterError, type FilterInput } from './filters.ts';
import { GROUP_REPOSITORY_IDS, HOST_ALWAYS, HOST_FIELDS, hostAssetRow, REPOSITORIES, sumIpRow, vulnDetailsRow } from './rows.ts';
import { scanResultList } from './scan-results.ts';
import { ANALYST_GROUP, ORGANIZATION, type SimUser } from './users.ts';

export interface RestRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  user: SimUser | null;
}

const denied = (what: string) => fail(400, 143, `Permission denied: the Administrator role cannot access ${what}. Use an organizational user.`);
const notFound = (what: string) => fail(403, 147, `Unable to find existing ${what}.`);
const invalid = (msg: string) => fail(403, 146, msg);

export function systemInfo(ctx: SimContext, authenticated: boolean): ApiResult {
  const { version, seed } = ctx.config;
  const build = `20${String(20 + Number(version.split('.')[0])).padStart(2, '0')}0514${String(seed % 10000).padStart(4, '0')}`;
  const base: Record<string, unknown> = {
    version,
    buildID: build,
    banner: '',
    releaseID: build,
    uuid: `${ctx.users.analyst.uuid.slice(0, 24)}${ctx.users.admin.uuid.slice(24)}`.toLowerCase(),
    logo: 'assets/img/logo.png',
    serverAuth: 'any',
    serverClassification: 'None',
    sessionTimeout: '3600',
    licenseStatus: 'Valid',
    ACAS: 'false',
    freshInstall: 'no',
    headerText: '',
    PasswordComplexity: 'false',
    telemetryEnabled: 'false',
    timezones: [
      { name: 'UTC', gmtOffset: '0' },
      { name: 'Europe/Paris', gmtOffset: '1' },
      { name: 'America/New_York', gmtOffset: '-5' },
    ],
  };
  if (authenticated)
    base.reportTypes = [
      { name: 'PDF', type: 'pdf', enabled: 'true', attributeSets: [] },
      { name: 'CSV', type: 'csv', enabled: 'true', attributeSets: [] },
    ];
  return ok(base);
}

function currentUser(ctx: SimContext, user: SimUser, fieldsParam: string | null): ApiResult {
  const all: Record<string, unknown> = {
    username: user.username,
    firstname: user.firstname,
    lastname: user.lastname,
    status: '0',
    role: user.role,
    organization: user.organization,
    orgName: user.organization.name,
    authType: 'tns',
    lastLogin: String(ctx.lifecycle.now() - 3600),
    locked: 'false',
    title: '',
    email: `${user.username}@corp.example`,
    preferences: [],
  };
  if (user.group) all.group = user.group; // only organizational users have a group
  const wanted = fieldsParam
    ? fieldsParam
        .split(',')
        .map((f) => f.trim())
        .filter(Boolean)
    : ['username', 'firstname', 'lastname', 'status'];
  const out: Record<string, unknown> = { id: user.id, uuid: user.uuid };
  for (const f of wanted) if (f in all) out[f] = all[f];
  return ok(out);
}

function repositoryObject(id: number): Record<string, unknown> {
  const r = REPOSITORIES[id - 1];
  return { id: r.id, name: r.name, description: r.description, type: 'Local', dataFormat: r.dataFormat, createdTime: '1700000000', modifiedTime: '1700000000' };
}

function intParam(value: unknown, fallback: number): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : fallback;
}

function analysis(ctx: SimContext, body: unknown): ApiResult {
  const b = (body ?? {}) as Record<string, unknown>;
  const q = (b.query ?? {}) as Record<string, unknown>;
  if (b.type !== 'vuln') return invalid(`Invalid parameters specified for analysis.  The type '${String(b.type)}' is not supported (supported: vuln).`);
  if (typeof q !== 'object' || Array.isArray(q)) return invalid('Invalid parameters specified for analysis.  The query is invalid.');
  if (q.id !== undefined) return invalid('Saved queries are not available on this console; send an inline query.');
  const source = String(b.sourceType ?? 'cumulative');
  if (source !== 'cumulative' && source !== 'patched')
    return invalid(`Invalid parameters specified for vuln query.  The sourceType '${source}' is not supported here (use cumulative or patched).`);
  const tool = String(q.tool ?? '');
  if (tool !== 'vulndetails' && tool !== 'sumip')
    return invalid(`Invalid parameters specified for vuln query.  The tool '${tool}' is not supported by this console (supported: sumip, vulndetails).`);
  const filters = Array.isArray(q.filters) ? (q.filters as FilterInput[]) : [];
  let compiled: ReturnType<typeof compileFilters>;
  try {
    compiled = compileFilters(filters, b.wasVuln, ctx.lifecycle.now(), ctx.features.epss, ctx.lastMitigatedFilter);
  } catch (e) {
    if (e instanceof FilterError) return invalid(e.message);
    throw e;
  }
  // Offsets may sit at the root (Tenable docs) or inside the query (pyTenable); root wins.
  const start = intParam(b.startOffset ?? q.startOffset, 0);
  const end = intParam(b.endOffset ?? q.endOffset, start + 1000);
  const { dataset, features } = ctx;
  const seed = ctx.config.seed;
  const src = source as SourceType;
  let total: number;
  let results: Record<string, unknown>[];
  let matching = '-1';
  if (tool === 'vulndetails') {
    total = dataset.totalFindings(compiled, src);
    results = dataset
      .findings(compiled, src, start, end)
      .map((v) => moved(ctx, v.sk, vulnDetailsRow(seed, dataset.cache.withDetails(v.sk.index), v.slot, v.lastSeen, v.resurfaced, features), v.lastSeen));
  } else {
    total = dataset.totalHosts(compiled, src);
    results = dataset
      .hosts(compiled, src, start, end)
      .map((sk) =>
        moved(ctx, sk, sumIpRow(dataset.cache.withDetails(sk.index), dataset.severityCounts(compiled, src, sk), ctx.lifecycle.hostLastSeen(sk), features)),
      );
    matching = `${dataset.totalFindings(compiled, src)}:${total}`;
  }
  const response: Record<string, unknown> = {
    totalRecords: String(total),
    returnedRecords: results.length,
    startOffset: String(start),
    endOffset: String(end),
    matchingDataElementCount: matching,
    results,
  };
  if (ctx.faults.dropTotal()) delete response.totalRecords;
  return ok(response, true);
}

/**
 * A row of a host that moved (`/_sim/move`): its address as of `at` (a finding's lastSeen; the host's
 * rows: now) in the address fields, and in the name where the name was the address.
 */
function moved(ctx: SimContext, sk: HostSkeleton, row: Record<string, unknown>, at?: number): Record<string, unknown> {
  const ip = ctx.lifecycle.movedAddress(sk, at);
  if (!ip) return row;
  const was = String(row.ip ?? row.ipAddress ?? '');
  for (const k of ['ip', 'ips', 'ipAddress']) if (k in row) row[k] = ip;
  if (row.name === was) row.name = ip;
  return row;
}

function hostAssets(ctx: SimContext, query: URLSearchParams): ApiResult {
  const fields = new Set(
    (query.get('fields') ?? '')
      .split(',')
      .map((f) => f.trim())
      .filter(Boolean),
  );
  for (const f of fields) if (!HOST_FIELDS.includes(f)) return invalid(`Invalid field '${f}' (allowed: ${HOST_FIELDS.join(', ')}).`);
  const total = ctx.config.hosts;
  const paginate = query.get('pagination') === 'true';
  const limit = intParam(query.get('limit'), 10000);
  const start = paginate ? intParam(query.get('startOffset'), 0) : 0;
  const end = paginate ? intParam(query.get('endOffset'), start + limit) : total;
  const rows: Record<string, unknown>[] = [];
  const cache = ctx.dataset.cache;
  for (let h = start; h < Math.min(end, start + limit, total); h++) {
    rows.push(
      moved(ctx, cache.get(h), hostAssetRow(cache.withDetails(h), ctx.lifecycle.hostLastSeen(cache.get(h)), fields.size ? fields : new Set(HOST_ALWAYS))),
    );
  }
  return ok(rows, true);
}

export function handleRest(ctx: SimContext, req: RestRequest): ApiResult {
  const user = req.user!;
  const { method, path } = req;
  const get = method === 'GET';
  if (path === '/rest/system' && get) return systemInfo(ctx, true);
  if (path === '/rest/currentUser' && get) return currentUser(ctx, user, req.query.get('fields'));
  if (path === '/rest/analysis' && method === 'POST') return user.isAdmin ? denied('vulnerability analysis data') : analysis(ctx, req.body);
  if (path === '/rest/hosts' && get) {
    if (!ctx.features.hostsApi) return fail(403, 1, `Invalid resource: ${path}`);
    return user.isAdmin ? denied('host assets') : hostAssets(ctx, req.query);
  }
  if (path === '/rest/scanResult' && get) return user.isAdmin ? denied('scan results') : scanResultList(ctx, req.query, ctx.scanResultsForbidden);
  if (path === '/rest/repository' && get) return ok(REPOSITORIES.map((_, i) => repositoryObject(i + 1)));
  const repo = /^\/rest\/repository\/(\d+)$/.exec(path);
  if (repo && get) return REPOSITORIES[Number(repo[1]) - 1] ? ok(repositoryObject(Number(repo[1]))) : notFound(`Repository #${repo[1]}`);
  if (path === '/rest/currentOrganization' && get) {
    return user.isAdmin
      ? denied('organization details')
      : ok({
          ...ORGANIZATION,
          zoneSelection: 'auto_only',
          restrictedIPs: '',
          ipInfoLinks: [],
          zones: [],
          vulnScoreInfo: '0',
          vulnScoreLow: '1',
          vulnScoreMedium: '3',
          vulnScoreHigh: '10',
          vulnScoreCritical: '40',
        });
  }
  const group = /^\/rest\/group(?:\/(\d+))?$/.exec(path);
  if (group && get) {
    if (user.isAdmin) return denied('organization groups');
    const full = {
      ...ANALYST_GROUP,
      repositories: GROUP_REPOSITORY_IDS.map((id) => {
        const r = REPOSITORIES[id - 1];
        return { id: r.id, name: r.name, description: r.description, type: 'Local', dataFormat: r.dataFormat };
      }),
      definingAssets: [],
      assets: [],
      createdTime: '1700000000',
      modifiedTime: '1700000000',
    };
    if (group[1] === undefined) return ok([full]);
    return group[1] === ANALYST_GROUP.id ? ok(full) : notFound(`Group #${group[1]}`);
  }
  return fail(403, 1, `Invalid resource or method: ${method} ${path}`);
}
