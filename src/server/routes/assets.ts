// Correlation over HTTP: manual links and unlinks (POST/DELETE /api/v1/assets/{id}/link, where {id}
// is a host id, or an asset id with `hostId` in the body), a full recompute, one asset with its
// records side by side. The coverage report is in reports.ts.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { NotFoundError } from '../../core/errors.ts';
import { type AssetLinkBody, type AssetLinked, assetLinkBody, assetLinked, assetRecords } from '../../core/api-shapes-reports.ts';
import { actorOf } from '../auth.ts';
import { ApiError, errorSchema } from '../errors.ts';
import { routeSchema, type ShapesProvider } from '../schema.ts';
import { idParams as idParamsShape } from '../../core/api-shapes.ts';

const linkBodySchema = routeSchema(assetLinkBody);
const linkedSchema = routeSchema(assetLinked);

const idParams = routeSchema(idParamsShape);

export function assetRoutes(app: AppContext) {
  return async (instance: FastifyInstance): Promise<void> => {
    const f = instance.withTypeProvider<ShapesProvider>();
    /** The host a link request means: the path's host, or the body's host of the path's asset (or its only host). */
    const hostOf = async (id: string, hostId: string | undefined): Promise<string> => {
      if (await app.store.records.hostExists(id)) return id;
      const asset = await app.store.records.get('assets', id).catch((err: unknown) => {
        if (err instanceof NotFoundError) throw new ApiError(404, 'not_found', `no host or asset with id '${id}'`, 'id');
        throw err;
      });
      const hosts = asset.hostIds as string[];
      if (hostId) {
        if (!hosts.includes(hostId) && !(await app.store.records.hostExists(hostId)))
          throw new ApiError(404, 'not_found', `no host with id '${hostId}'`, 'hostId');
        return hostId;
      }
      if (hosts.length === 1) return hosts[0]!;
      throw new ApiError(400, 'invalid_input', `asset '${id}' has ${hosts.length} hosts; name one in hostId`, 'hostId');
    };
    const override = async (id: string, body: AssetLinkBody, action: AssetLinked['action'], by: string | null): Promise<AssetLinked> => {
      const hostId = await hostOf(id, body.hostId);
      await app.store.correlation.setOverride(hostId, body.cmdbAssetId, action, by);
      const host = await app.store.records.get('hosts', hostId);
      return { action, hostId, cmdbAssetId: body.cmdbAssetId, asset: await app.store.records.get('assets', String(host.assetId)) };
    };
    for (const [method, path, action] of [
      ['POST', '/api/v1/assets/:id/link', 'link'],
      ['DELETE', '/api/v1/assets/:id/link', 'unlink'],
      ['POST', '/api/v1/assets/:id/unlink', 'unlink'],
    ] as const) {
      f.route({
        method,
        url: path,
        config: { scope: 'operate' },
        schema: {
          tags: ['assets'],
          summary:
            action === 'link'
              ? 'Link a host to a CMDB record (beats every rule, kept across syncs)'
              : 'Forbid a host and a CMDB record from being linked (kept across syncs)',
          params: idParams,
          body: linkBodySchema,
          response: { 200: linkedSchema, 400: errorSchema, 404: errorSchema },
        },
        handler: async (req) => override(req.params.id, req.body, action, actorOf(req.auth)),
      });
    }
    f.post(
      '/api/v1/assets/recompute',
      { config: { scope: 'operate' }, schema: { tags: ['assets'], summary: 'Correlate everything again (full pass) and relink every ticket' } },
      async () => {
        const r = await app.store.correlation.correlateAll();
        return { mode: r.mode, hosts: r.hosts, cmdbAssets: r.cmdbAssets, assets: r.assets, linked: r.linked, ambiguous: r.ambiguous, tickets: r.tickets };
      },
    );
    f.get(
      '/api/v1/assets/:id/records',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['assets'],
          summary: 'An asset with its scanner hosts and CMDB records side by side',
          params: idParams,
          response: { 200: routeSchema(assetRecords), 404: errorSchema },
        },
      },
      async (req) => {
        const asset = await app.store.records.get('assets', req.params.id);
        const hosts = await Promise.all((asset.hostIds as string[]).map((id) => app.store.records.get('hosts', id)));
        const cmdbAssets = await Promise.all((asset.cmdbAssetIds as string[]).map((id) => app.store.records.get('cmdb-assets', id)));
        return { asset, hosts, cmdbAssets };
      },
    );
  };
}
