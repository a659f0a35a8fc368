// The credential check (seed §4.1 rules 2–3, §5.1, §7, §9): named checks, each with a finding and a
// hint, made with one or two attempts rather than the long retry of a sync.
import type { CheckResult, ConnectorContext } from '../../core/connector.ts';
import { errorMessage, UpstreamError } from '../../core/errors.ts';
import { TenableScClient } from './client.ts';
import type { TenableScApiConfig, TenableScConfig } from './config.ts';
import { compareVersions, int, refId, refName, text } from './map/values.ts';
import { checkTenableScFiles } from './csv/index.ts';
import { fetchScanImports } from './streams/scan-window.ts';

export const MIN_API_KEY_VERSION = '5.13.0';
export const MIN_HOSTS_API_VERSION = '5.20.0';
const ATTEMPTS = 2;

const pass = (id: string, message: string, hint: string | null = null): CheckResult => ({ id, ok: true, message, hint });
const fail = (id: string, message: string, hint: string | null): CheckResult => ({ id, ok: false, message, hint });

function fromError(id: string, err: unknown, hint: string | null = null): CheckResult {
  if (err instanceof UpstreamError) return fail(id, err.message, err.hint ?? hint);
  return fail(id, errorMessage(err), hint);
}

const KEYS_HINT =
  'Check the Access Key and Secret Key. Generating a new pair revokes the previous one at once, so enter the newest pair (the secret key is shown once only, at generation)';
const ORG_USER_HINT =
  'Create an organizational user with role Security Analyst (the organization\u2019s Security Manager creates it), in a group whose Access section lists every repository to import with Viewable Hosts set to All Defined Ranges, and generate API keys for that user';

interface UserInfo {
  username: string | null;
  roleId: string | null;
  roleName: string | null;
  orgId: string | null;
  orgName: string | null;
  groupId: string | null;
  groupName: string | null;
}

export function readUser(resp: unknown): UserInfo {
  const u = (resp && typeof resp === 'object' ? resp : {}) as Record<string, unknown>;
  return {
    username: text(u.username),
    roleId: refId(u.role),
    roleName: refName(u.role),
    orgId: refId(u.organization),
    orgName: refName(u.organization) ?? text(u.orgName),
    groupId: refId(u.group),
    groupName: refName(u.group),
  };
}

const same = (a: string | null, b: string) => (a ?? '').trim().toLowerCase() === b.trim().toLowerCase();

/** Checks of the user behind the keys: identity, role, organization, group. */
export function userChecks(user: UserInfo, config: Pick<TenableScConfig, 'expectedUsername' | 'expectedOrganization' | 'expectedGroup'>): CheckResult[] {
  const out: CheckResult[] = [];
  if (config.expectedUsername && !same(user.username, config.expectedUsername)) {
    out.push(
      fail(
        'user',
        `the API keys belong to user '${user.username ?? '?'}', not '${config.expectedUsername}'`,
        'Enter the key pair of the dedicated user, or correct Expected Username',
      ),
    );
  } else {
    out.push(pass('user', `the API keys belong to user '${user.username ?? '?'}'`));
  }
  const admin = user.roleId === '1' || /^administrator$/i.test(user.roleName ?? '');
  if (admin) {
    out.push(
      fail(
        'role',
        `user '${user.username ?? '?'}' has the Administrator role: an Administrator belongs to no organization and cannot read vulnerability data`,
        ORG_USER_HINT,
      ),
    );
  } else if (!user.roleName && !user.roleId) {
    out.push(fail('role', 'the console did not report the user\u2019s role', ORG_USER_HINT));
  } else {
    const note = /security analyst/i.test(user.roleName ?? '') ? '' : ' (a Security Analyst role is recommended)';
    out.push(pass('role', `role ${user.roleName ?? user.roleId}${note}`));
  }
  const noOrg = admin || !user.orgId || int(user.orgId) === 0;
  out.push(membership('organization', noOrg ? null : { id: user.orgId, name: user.orgName }, config.expectedOrganization, 'Expected Organization'));
  const inGroup = user.groupId || user.groupName;
  out.push(membership('group', inGroup ? { id: user.groupId, name: user.groupName } : null, config.expectedGroup, 'Expected Group'));
  return out;
}

/** The user's organization or group: one it belongs to, and the expected one when the configuration names it. */
function membership(
  what: 'organization' | 'group',
  of: { id: string | null; name: string | null } | null,
  expected: string | undefined,
  field: string,
): CheckResult {
  if (!of) return fail(what, `the user belongs to no ${what}`, ORG_USER_HINT);
  const shown = of.name ?? of.id;
  if (expected && !same(of.name, expected))
    return fail(what, `the user belongs to ${what} '${shown}', not '${expected}'`, `Use a user of the expected ${what}, or correct ${field}`);
  return pass(what, `${what} '${shown}'`);
}

/** The version check: API keys need 5.13; /rest/hosts last-seen dates need 5.20. */
export function versionCheck(version: string | null): CheckResult {
  if (!version)
    return pass(
      'version',
      `the console did not report its version; assuming ${MIN_API_KEY_VERSION} or later (API keys)`,
      'If the check below fails, make sure the console runs Tenable.sc 5.13 or later',
    );
  if (compareVersions(version, MIN_API_KEY_VERSION) < 0) {
    return fail(
      'version',
      `Tenable.sc ${version} does not support API keys: they need version 5.13 or later`,
      'Upgrade the console to 5.13 or later, or set Input Mode to File Import (CSV files) and upload CSV exports instead',
    );
  }
  const hosts = compareVersions(version, MIN_HOSTS_API_VERSION) >= 0;
  return pass(
    'version',
    `Tenable.sc ${version}: API keys supported; ${hosts ? 'host last-seen dates from /rest/hosts are available (5.20 or later)' : 'host last-seen dates from /rest/hosts are not available (they need 5.20 or later)'}`,
  );
}

function repositoriesOf(resp: unknown): { id: string | null; name: string | null }[] {
  const list = Array.isArray(resp) ? resp : resp && typeof resp === 'object' ? (resp as { repositories?: unknown }).repositories : null;
  if (!Array.isArray(list)) return [];
  return list.map((r) => ({ id: refId(r), name: refName(r) })).filter((r) => r.id !== null || r.name !== null);
}

export async function checkTenableSc(config: TenableScConfig, ctx: ConnectorContext, opts: { timeoutMs?: number } = {}): Promise<CheckResult[]> {
  if (config.inputMode !== 'api') {
    return [
      pass('input-mode', `File Import mode: CSV exports are read from bucket '${config.bucket}'; nothing to check against the console`),
      ...(await checkTenableScFiles(config, ctx)),
    ];
  }
  if (!config.apiUrl || !config.accessKey || !config.secretKey)
    return [fail('config', 'API URL, Access Key and Secret Key are required in API mode', 'Fill them in and save')];
  const client = new TenableScClient(config as TenableScApiConfig, {
    log: ctx.log,
    timeoutMs: opts.timeoutMs ?? 30_000,
    deadlineMs: 60_000,
    retry: { attempts: ATTEMPTS, baseMs: 250 },
  });
  const results: CheckResult[] = [];
  const call = { signal: ctx.signal, attempts: ATTEMPTS };
  try {
    // 1. Reachability and TLS, and the version (GET /rest/system).
    let version: string | null = null;
    try {
      const sys = await client.get('/system', undefined, call);
      version = sys && typeof sys === 'object' ? text((sys as { version?: unknown }).version) : null;
      results.push(
        pass(
          'connection',
          `reached ${config.apiUrl}/rest/ (TLS ${config.apiUrl!.startsWith('https:') ? (config.verifySsl ? 'verified' : 'not verified') : 'not used'})`,
        ),
      );
    } catch (err) {
      if (err instanceof UpstreamError && err.status !== null && (err.status === 401 || err.status === 403)) {
        results.push(pass('connection', `reached ${config.apiUrl}/rest/ (it refused to tell its version to these keys)`));
      } else {
        results.push(
          fromError('connection', err, 'Check API URL (the browser URL of the console, without /rest) and that this machine can reach it over HTTPS'),
        );
        return results;
      }
    }
    const v = versionCheck(version);
    results.push(v);
    if (!v.ok) return results;

    // 2. The user behind the keys (GET /rest/currentUser).
    let user: UserInfo;
    try {
      user = readUser(await client.get('/currentUser', { fields: 'username,role,organization,group' }, call));
      results.push(pass('credentials', 'the console accepted the API keys'));
    } catch (err) {
      results.push(fromError('credentials', err, KEYS_HINT));
      return results;
    }
    results.push(...userChecks(user, config));

    // 3. Data access: a one-row analysis probe; HTTP 400 means missing permission, not an outage.
    try {
      const page = await client.fetchAnalysisPage({ tool: 'sumip', sourceType: 'cumulative', filters: [], offset: 0, limit: 1 }, call);
      const hosts = page.total ?? page.rows.length;
      results.push(pass('data-access', `the user can read vulnerability data (${hosts} host${hosts === 1 ? '' : 's'} visible)`));
    } catch (err) {
      if (err instanceof UpstreamError && (err.status === 400 || err.status === 403) && !err.transient) {
        results.push(
          fail('data-access', `the user may not query vulnerability data (${err.message}): missing permission, not a console outage`, ORG_USER_HINT),
        );
      } else {
        results.push(fromError('data-access', err));
      }
    }

    // 4. The repositories the user's group can see: those are what will be imported.
    results.push(await repositoryCheck(client, user, call));

    // 5. The scan results, where an incremental run's window starts (streams/scan-window.ts): a courtesy too.
    results.push(await scanResultsCheck(client, call));
    return results;
  } finally {
    await client.close();
  }
}

async function scanResultsCheck(client: TenableScClient, call: { signal?: AbortSignal; attempts: number }): Promise<CheckResult> {
  try {
    const scans = await fetchScanImports(client, Math.floor(Date.now() / 1000), call);
    return pass(
      'scan-results',
      `the user can list the scan results (${scans.length} in the last 30 days): an incremental run re-reads only what the scans imported since the last run saw`,
    );
  } catch (err) {
    return pass(
      'scan-results',
      `could not list the scan results (${errorMessage(err)}): incremental runs re-read the 12 hours before the last run instead`,
      'Give the user\u2019s role access to the scan results (GET /rest/scanResult) to narrow incremental runs to the scans imported since the last run',
    );
  }
}

async function repositoryCheck(client: TenableScClient, user: UserInfo, call: { signal?: AbortSignal; attempts: number }): Promise<CheckResult> {
  let repos: { id: string | null; name: string | null }[] | null = null;
  let lastErr: unknown = null;
  if (user.groupId) {
    try {
      repos = repositoriesOf(await client.get(`/group/${encodeURIComponent(user.groupId)}`, { fields: 'id,name,repositories' }, call));
    } catch (err) {
      lastErr = err;
    }
  }
  if (!repos || repos.length === 0) {
    try {
      const r = repositoriesOf(await client.get('/repository', { fields: 'id,name,dataFormat' }, call));
      if (r.length > 0 || !repos) repos = r;
    } catch (err) {
      lastErr = err;
    }
  }
  if (!repos) {
    // Listing repositories is a courtesy: the data probe above already showed the user can read findings.
    return pass(
      'repositories',
      `could not list the repositories the group can see (${errorMessage(lastErr)}); the import reads every repository the group gives access to`,
      'Check the group\u2019s Access section in the console: a repository missing there is missing from the import',
    );
  }
  if (repos.length === 0) {
    return fail(
      'repositories',
      `group '${user.groupName ?? user.groupId ?? '?'}' gives access to no repository: nothing would be imported`,
      'In the console, add every repository to import to the group\u2019s Access section, with Viewable Hosts set to All Defined Ranges',
    );
  }
  const names = repos.map((r) => (r.name ? `${r.name}${r.id ? ` (id ${r.id})` : ''}` : `id ${r.id}`)).join(', ');
  return pass('repositories', `repositories to import: ${names}`, 'A repository missing from the group\u2019s Access section is missing from the import');
}
