// The credential check: token (cloud), region, reachability/TLS, then read access to each data set
// (tickets, CMDB, users, services) with the missing scope or permission named, and which asset API the
// server offers (per product type, build 15100+, or the old /assets), remembered for the syncs.
import type { CheckResult, ConnectorContext } from '../../core/connector.ts';
import { errorMessage, UpstreamError } from '../../core/errors.ts';
import { SdpApiError, SdpClient } from './client.ts';
import { accountsUrlOf, deploymentOf, type SdpConfig, ticketSettingsOf } from './config.ts';
import { SdpTicketWriter } from './ticket-writer.ts';
import { type AssetApiFound, LEGACY_ASSET_PATH, probeAssetApi, rememberAssetApi } from './asset-api.ts';
import { GENERIC_ASSET_PATH } from './map/product-types.ts';
import { checkSdpFiles } from './csv/index.ts';
import { regionMismatch, type TokenManager, type TokenState } from './oauth.ts';
import { listCiTypes } from './streams/ci-types.ts';

const pass = (id: string, message: string): CheckResult => ({ id, ok: true, message, hint: null });
const fail = (id: string, message: string, hint: string | null): CheckResult => ({ id, ok: false, message, hint });
const failFrom = (id: string, err: unknown): CheckResult => fail(id, errorMessage(err), err instanceof UpstreamError ? err.hint : null);

type Probe = { ok: true; rows: number } | { ok: false; err: unknown };

/** Which asset API the server offers, in words, with what it means for the syncs. */
async function assetApiCheck(found: AssetApiFound, probe: (path: string) => Promise<Probe>): Promise<CheckResult> {
  if (found.api === 'legacy') {
    return {
      id: 'asset-api',
      ok: true,
      message: `the server offers the old asset API (/api/v3/${LEGACY_ASSET_PATH}, builds before 15100); assets are read from it`,
      hint: 'ServiceDesk Plus 15100 and later list assets per product type and kept the old lists only for a while (until April 2026): after an upgrade the next sync finds the new API by itself',
    };
  }
  const old = await probe(LEGACY_ASSET_PATH);
  const also = old.ok
    ? `; the old /api/v3/${LEGACY_ASSET_PATH} still answers but is not used (kept only for a while, with the additional fields of before the migration)`
    : '';
  const offers = 'the server offers the per-product-type asset API (build 15100 or later)';
  const few = (n: number) =>
    found.productTypes
      .slice(0, n)
      .map((t) => t.path)
      .join(', ') + (found.productTypes.length > n ? ', …' : '');
  if (found.confirmedBy === GENERIC_ASSET_PATH) {
    return {
      id: 'asset-api',
      ok: true,
      message: `${offers}, but no product type answered at its own list: assets are read from the generic ${GENERIC_ASSET_PATH} list${also}`,
      hint: 'Type-specific fields (network adapters, operating system) come only from the per-type lists: check read access to product types (/api/v3/product_types) and their names under Admin > Product Types',
    };
  }
  if (!found.listed) {
    return {
      id: 'asset-api',
      ok: true,
      message: `${offers}, but its product types cannot be listed: assets are read from the lists of the default product types that answered (${found.productTypes.length}: ${few(4)})${also}`,
      hint: 'Assets of other product types (your own, or renamed) are not read: give read access to /api/v3/product_types',
    };
  }
  return {
    id: 'asset-api',
    ok: true,
    message: `${offers}: assets are read per product type (${found.productTypes.length} asset product types, ${few(4)})${also}`,
    hint: old.ok
      ? 'Nothing to change: the connector already reads the per-product-type lists, so the end of the old ones does not affect it'
      : 'Nothing to change: the old /api/v3/assets is gone on this server and the connector reads the per-product-type lists',
  };
}

export async function checkSdp(config: SdpConfig, ctx: ConnectorContext, tokens: TokenManager | null): Promise<CheckResult[]> {
  if (config.inputMode !== 'api') {
    return [
      pass('input-mode', `file import mode: exports are read from the bucket '${config.bucket}'; there is no API access to check`),
      ...(await checkSdpFiles(config, ctx)),
    ];
  }
  const out: CheckResult[] = [];
  const cloud = deploymentOf(config) === 'cloud';
  if (cloud) {
    if (!tokens) return [fail('token', 'no token manager', null)];
    try {
      await tokens.accessToken(ctx.signal);
      const st = (await ctx.state.get()) as TokenState;
      out.push(
        pass(
          'token',
          `access token obtained from ${accountsUrlOf(config)} with the stored refresh token${st.grantedScope ? ` (scopes: ${st.grantedScope})` : ''}`,
        ),
      );
      const other = regionMismatch(config, st.apiDomain);
      out.push(
        other
          ? fail(
              'region',
              `the tokens were issued by the '${other}' data centre (api_domain ${st.apiDomain}) but region is '${config.region}'`,
              `Set region to ${other}`,
            )
          : pass(
              'region',
              st.apiDomain
                ? `region '${config.region}' matches the data centre that issued the tokens (${st.apiDomain})`
                : `region '${config.region}' (the token answer named no data centre)`,
            ),
      );
    } catch (err) {
      out.push(failFrom('token', err));
      return out;
    }
  }

  const client = new SdpClient({ config, ctx, tokens, retry: { attempts: 2, baseMs: 200 }, deadlineMs: 60_000 });
  try {
    const probe = async (path: string): Promise<Probe> => {
      try {
        const res = await client.list(path, { row_count: 1, start_index: 1 }, { signal: ctx.signal });
        return { ok: true, rows: res.rows.length };
      } catch (err) {
        return { ok: false, err };
      }
    };
    // Reachability and authentication, judged from the first call.
    const requests = await probe('requests');
    if (!requests.ok && !(requests.err instanceof SdpApiError)) {
      out.push(failFrom('reachability', requests.err));
      return out;
    }
    if (!requests.ok && requests.err instanceof SdpApiError && requests.err.kind === 'not-found') {
      out.push(failFrom('reachability', requests.err));
      return out;
    }
    out.push(pass('reachability', `${client.apiBase} answered`));
    if (!requests.ok && requests.err instanceof SdpApiError && requests.err.kind === 'auth') {
      out.push(failFrom('authentication', requests.err));
      return out;
    }
    out.push(pass('authentication', cloud ? 'the access token is accepted' : 'the API key is accepted'));

    const access = (id: string, what: string, probes: [string, Probe][]): CheckResult => {
      const bad = probes.find(([, p]) => !p.ok);
      if (bad && !bad[1].ok) return failFrom(id, bad[1].err);
      return pass(id, `read access to ${what} (${probes.map(([path]) => path).join(', ')})`);
    };
    out.push(access('tickets', 'requests and incidents', [['requests', requests]]));

    let found: AssetApiFound | null = null;
    let cmdb: CheckResult;
    try {
      found = await probeAssetApi(client, ctx.signal);
      await rememberAssetApi(ctx.state, client.apiBase, found);
      const types = await listCiTypes(client, ctx.signal);
      const what = `assets (${found.confirmedBy})`;
      cmdb =
        types === null
          ? pass('cmdb', `read access to ${what}; this server lists no CI types (assets only)`)
          : pass('cmdb', `read access to ${what} and ${types.length} CI types`);
    } catch (err) {
      cmdb = failFrom('cmdb', err);
    }
    out.push(cmdb);
    if (found) out.push(await assetApiCheck(found, probe));

    const userPaths = cloud ? ['requesters', 'technicians'] : ['users', 'technicians'];
    const userProbes: [string, Probe][] = [];
    for (const p of userPaths) {
      let r = await probe(p);
      if (!cloud && p === 'users' && !r.ok && r.err instanceof SdpApiError && r.err.kind === 'not-found') r = await probe('requesters');
      userProbes.push([p, r]);
    }
    out.push(access('users', 'users and technicians', userProbes));
    out.push(access('services', 'service categories', [['service_categories', await probe('service_categories')]]));
    // Remediation tickets on: whether writing is allowed, probed without creating anything (ticket-writer.ts).
    if (!ticketSettingsOf(config).enabled) return out;
    const writer = new SdpTicketWriter(config, ctx, tokens);
    try {
      out.push(...(await writer.writeAccess(ctx.signal)).results);
    } finally {
      await writer.close();
    }
    return out;
  } finally {
    await client.close();
  }
}
