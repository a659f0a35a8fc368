// The cmdb-assets stream: the assets of whichever asset API the server offers (asset-api.ts), then one
// list per CI type that is not a business service. When an asset list answers "Invalid URL" the API is
// probed again and the stream goes on with the other one.
import type { Stream } from '../../../core/connector.ts';
import { type AssetEndpoint, probeAssetApi, rememberAssetApi, resolveAssetEndpoints } from '../asset-api.ts';
import { mapAsset, mapCi } from '../map/assets.ts';
import { GENERIC_ASSET_PATH } from '../map/product-types.ts';
import { ciPath, isBusinessService, listCiTypes } from './ci-types.ts';
import { makeStream, type PartRecovery, type StreamDeps } from './list-stream.ts';
import type { Part } from './paging.ts';

const ASSETS = 'assets';

function assetPart(e: AssetEndpoint): Part {
  const context = { productType: e.productType };
  return { id: e.id, path: e.path, key: e.path, incremental: true, fullSort: 'created_time', family: ASSETS, map: (row) => mapAsset(row, context) };
}

/**
 * An asset list answered "Invalid URL" before its first row. When another list of the same API answered
 * in this run, only this one is missing (a product type whose list has another name): skip it. Else
 * the API itself may be gone (the old lists were dropped, or the server was downgraded): probe again
 * without that list, remember the answer, and go on with its lists, unless it is the same
 * per-product-type API, in which case again only this list is missing.
 */
const recoverAssets: PartRecovery = async (client, ctx, part, familyAnswered) => {
  if (part.family !== ASSETS) return null;
  if (familyAnswered) return 'skip';
  ctx.log.warn({ path: part.path }, 'the asset list answered Invalid URL; probing the asset API again');
  const found = await probeAssetApi(client, ctx.signal, [part.path]);
  await rememberAssetApi(ctx.state, client.apiBase, found);
  ctx.log.info({ assetApi: found.api, via: found.confirmedBy }, 'asset API found');
  const perType = (path: string) => path !== GENERIC_ASSET_PATH && path.startsWith('asset_');
  if (found.api === 'product-type' && perType(found.confirmedBy) && perType(part.path)) return 'skip';
  return found.endpoints.filter((e) => e.path !== part.path).map(assetPart);
};

export function cmdbAssetsStream(deps: StreamDeps): Stream {
  return makeStream(
    'cmdb-assets',
    deps,
    async (client, ctx) => {
      const { endpoints, probed } = await resolveAssetEndpoints(client, ctx.state, ctx.signal);
      if (probed) ctx.log.info({ assetApi: probed.api, via: probed.confirmedBy }, 'asset API found');
      const parts: Part[] = endpoints.map(assetPart);
      const types = await listCiTypes(client, ctx.signal);
      if (types === null) ctx.log.warn('no CI type list on this server (cmdb/ci_types, ci_types); importing assets only');
      for (const t of (types ?? []).filter((x) => !isBusinessService(x))) {
        const { path, alt } = ciPath(client, t);
        parts.push({ id: `ci:${t.apiName}`, path, altPaths: [alt], incremental: true, fullSort: 'created_time', map: (row) => mapCi(row, t.name) });
      }
      return parts;
    },
    recoverAssets,
  );
}
