// Which asset API a ServiceDesk Plus server offers, found by probing and remembered per source.
//
// Build 15100 (AssetExplorer 7700) replaced `/api/v3/assets` and `/workstations` (and dropped the
// `*cis`, `virtual_hosts`, `virtual_machines` lists) with one list per product type, `asset_<type
// plural>`, plus the generic `asset_assets`; the old lists were kept only for a while (until April 2026)
// and return only the additional fields that existed before the migration. So the new API is preferred
// whenever the server answers it, the old one is kept for older builds. The answer is remembered in the
// source state with the API base it was found at, and probed again only when that base changes or the
// remembered lists start answering "Invalid URL" (404 / 4007).
import type { SourceStateAccess } from '../../core/connector.ts';
import { lookupBudgetError, lookupPageBudget, SdpApiError, type SdpClient } from './client.ts';
import { type AssetProductType, assetProductTypes, DEFAULT_ASSET_PRODUCT_TYPES, GENERIC_ASSET_PATH } from './map/product-types.ts';

export type AssetApi = 'legacy' | 'product-type';

export const LEGACY_ASSET_PATH = 'assets';

/** One list to read assets from. */
export interface AssetEndpoint {
  /** Stable id in the stream checkpoint (`assets` stays the old list's id). */
  id: string;
  path: string;
  /** The product type the list holds, when it holds one. */
  productType: string | null;
}

export interface AssetApiFound {
  api: AssetApi;
  endpoints: AssetEndpoint[];
  /** Asset product types read per type (empty for the old API and for the generic list). */
  productTypes: AssetProductType[];
  /** False when the server has no readable product type list and the default types' lists answered. */
  listed: boolean;
  /** The list that answered the probe. */
  confirmedBy: string;
}

interface Remembered {
  api: AssetApi;
  apiBase: string;
  probedAt: string;
  /** The lists to read when they could not be learnt from `product_types`. */
  lists?: string[];
}

const STATE_KEY = 'assetApi';
/** Per-product-type lists tried before settling on the generic list. */
const PROBE_TRIES = 3;
const PAGE = 100;

async function remembered(state: SourceStateAccess, apiBase: string): Promise<Remembered | null> {
  const r = (await state.get())[STATE_KEY] as Partial<Remembered> | undefined;
  if (!r || r.apiBase !== apiBase || (r.api !== 'legacy' && r.api !== 'product-type')) return null;
  return { api: r.api, apiBase, probedAt: String(r.probedAt ?? ''), ...(Array.isArray(r.lists) ? { lists: r.lists.map(String) } : {}) };
}

export async function rememberedAssetApi(state: SourceStateAccess, apiBase: string): Promise<AssetApi | null> {
  return (await remembered(state, apiBase))?.api ?? null;
}

export async function rememberAssetApi(state: SourceStateAccess, apiBase: string, found: Pick<AssetApiFound, 'api' | 'endpoints' | 'listed'>): Promise<void> {
  const r: Remembered = {
    api: found.api,
    apiBase,
    probedAt: new Date().toISOString(),
    ...(found.api === 'product-type' && !found.listed ? { lists: found.endpoints.map((e) => e.path) } : {}),
  };
  await state.set({ [STATE_KEY]: r });
}

export const legacyEndpoints = (): AssetEndpoint[] => [{ id: 'assets', path: LEGACY_ASSET_PATH, productType: null }];
export const genericEndpoint = (): AssetEndpoint => ({ id: `assets:${GENERIC_ASSET_PATH}`, path: GENERIC_ASSET_PATH, productType: null });
export function productTypeEndpoints(types: AssetProductType[]): AssetEndpoint[] {
  return types.length ? types.map((t) => ({ id: `assets:${t.path}`, path: t.path, productType: t.name })) : [genericEndpoint()];
}
function endpointsOfLists(paths: string[]): AssetEndpoint[] {
  return paths.map((path) =>
    path === GENERIC_ASSET_PATH
      ? genericEndpoint()
      : { id: `assets:${path}`, path, productType: DEFAULT_ASSET_PRODUCT_TYPES.find((t) => t.path === path)?.name ?? null },
  );
}

const isNotFound = (err: unknown) => err instanceof SdpApiError && err.kind === 'not-found';
/** An error that says something about this server's access, not about which lists it has. */
const isHard = (err: unknown) => !(err instanceof SdpApiError) || err.transient;

/** Asset product types listed by `product_types` (all pages), or null when the server has no such list. */
export async function listAssetProductTypes(client: SdpClient, signal?: AbortSignal): Promise<AssetProductType[] | null> {
  const rows = [];
  const budget = lookupPageBudget();
  try {
    for (let start = 1, pages = 1; ; start += PAGE, pages++) {
      // A server answering "more rows" forever must not hold the run (and its rows) forever.
      if (pages > budget.pages) throw lookupBudgetError('product_types', 'asset product types', budget);
      const res = await client.list('product_types', { row_count: PAGE, start_index: start }, { signal, key: 'product_types' });
      rows.push(...res.rows);
      if (!res.hasMore) break;
    }
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
  return assetProductTypes(rows);
}

/** True when `path` answers a one-row list; false on "Invalid URL"; other errors are thrown. */
async function answers(client: SdpClient, path: string, signal?: AbortSignal): Promise<boolean> {
  try {
    await client.list(path, { row_count: 1, start_index: 1 }, { signal });
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/**
 * Finds the asset API: a few per-product-type lists, then the generic `asset_assets`, then the old
 * `assets`, and when the server lists no product types, the lists of the default ones (paths in
 * `exclude` are not tried: they just failed). Throws the first access error (no scope, no permission)
 * when nothing answered, else a not-found naming what was tried.
 */
export async function probeAssetApi(client: SdpClient, signal?: AbortSignal, exclude: string[] = []): Promise<AssetApiFound> {
  let denied: unknown = null;
  let types: AssetProductType[] = [];
  try {
    types = (await listAssetProductTypes(client, signal)) ?? [];
  } catch (err) {
    if (isHard(err)) throw err;
    denied = err;
  }
  const tries: [AssetApi, string][] = [
    ...types.slice(0, PROBE_TRIES).map((t): [AssetApi, string] => ['product-type', t.path]),
    ['product-type', GENERIC_ASSET_PATH],
    ['legacy', LEGACY_ASSET_PATH],
  ];
  /** An asset list refused access: the lists exist, so guessing more of them is no use. */
  let listDenied = false;
  for (const [api, path] of tries.filter(([, p]) => !exclude.includes(p))) {
    try {
      if (await answers(client, path, signal)) {
        const endpoints = api === 'legacy' ? legacyEndpoints() : path === GENERIC_ASSET_PATH ? [genericEndpoint()] : productTypeEndpoints(types);
        return { api, endpoints, productTypes: api === 'legacy' || path === GENERIC_ASSET_PATH ? [] : types, listed: true, confirmedBy: path };
      }
    } catch (err) {
      if (isHard(err)) throw err;
      denied = listDenied ? denied : err;
      listDenied = true;
    }
  }
  if (types.length === 0 && !listDenied) {
    const answered: AssetProductType[] = [];
    for (const t of DEFAULT_ASSET_PRODUCT_TYPES.filter((x) => !exclude.includes(x.path))) {
      try {
        if (await answers(client, t.path, signal)) answered.push(t);
      } catch (err) {
        if (isHard(err)) throw err;
        denied ??= err;
      }
    }
    if (answered.length)
      return { api: 'product-type', endpoints: productTypeEndpoints(answered), productTypes: answered, listed: false, confirmedBy: answered[0]!.path };
  }
  if (denied) throw denied;
  throw new SdpApiError(
    `GET ${tries.map(([, p]) => `/${p}`).join(', ')}: no asset list answered at ${client.apiBase}: neither the per-product-type asset API (build 15100 and later) nor /api/v3/assets`,
    {
      kind: 'not-found',
      codes: [4007],
      field: null,
      module: 'assets',
      status: 404,
      hint:
        client.deployment === 'cloud'
          ? 'Check portal (the segment after /app/ in your browser URL), region and serverUrl'
          : 'Check serverUrl; API v3 needs ServiceDesk Plus build 11000 or later',
    },
  );
}

/** The endpoints to read now: the remembered API's (listing the product types again), else a probe's. */
export async function resolveAssetEndpoints(
  client: SdpClient,
  state: SourceStateAccess,
  signal?: AbortSignal,
): Promise<{ endpoints: AssetEndpoint[]; probed: AssetApiFound | null }> {
  const known = await remembered(state, client.apiBase);
  if (known?.api === 'legacy') return { endpoints: legacyEndpoints(), probed: null };
  if (known?.api === 'product-type') {
    let types: AssetProductType[] | null = null;
    try {
      types = await listAssetProductTypes(client, signal);
    } catch (err) {
      if (isHard(err)) throw err;
    }
    if (!types?.length && known.lists?.length) return { endpoints: endpointsOfLists(known.lists), probed: null };
    return { endpoints: productTypeEndpoints(types ?? []), probed: null };
  }
  const found = await probeAssetApi(client, signal);
  await rememberAssetApi(state, client.apiBase, found);
  return { endpoints: found.endpoints, probed: found };
}
