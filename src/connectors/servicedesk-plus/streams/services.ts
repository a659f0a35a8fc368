// The services stream: service categories, then the CMDB's business services (one list per
// business-service CI type); without CMDB access only the categories are imported.
import type { Stream } from '../../../core/connector.ts';
import { SdpApiError } from '../client.ts';
import { mapBusinessService, mapServiceCategory } from '../map/services.ts';
import { type CiType, ciPath, isBusinessService, listCiTypes } from './ci-types.ts';
import { makeStream, type StreamDeps } from './list-stream.ts';
import type { Part } from './paging.ts';

export function servicesStream(deps: StreamDeps): Stream {
  return makeStream('services', deps, async (client, ctx) => {
    const parts: Part[] = [{ id: 'service_categories', path: 'service_categories', key: 'service_categories', incremental: false, map: mapServiceCategory }];
    let types: CiType[] | null = null;
    try {
      types = await listCiTypes(client, ctx.signal);
    } catch (err) {
      if (!(err instanceof SdpApiError) || (err.kind !== 'permission' && err.kind !== 'auth')) throw err;
      ctx.log.warn({ err: err.message }, 'no CMDB access: business services are not imported');
    }
    for (const t of (types ?? []).filter(isBusinessService)) {
      const { path, alt } = ciPath(client, t);
      parts.push({ id: `business:${t.apiName}`, path, altPaths: [alt], incremental: true, fullSort: 'created_time', map: mapBusinessService });
    }
    return parts;
  });
}
