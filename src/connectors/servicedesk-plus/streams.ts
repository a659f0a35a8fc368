// The four streams (tickets, cmdb-assets, users, services). Each reads one or more upstream lists
// ("parts") in pages of 100 and yields a checkpoint per page.
//
// Paging: a full read sorts by created_time (offset paging that updates cannot shift); an incremental
// read asks for `last_updated_time >= watermark` sorted ascending and pages by keyset (the criterion
// moves to the last row's time, start_index skips the rows already seen at that time), so rows moved to
// the end by concurrent updates are neither skipped nor lost. The next watermark is the largest
// last_updated_time seen, but never later than the run's start minus an overlap; the boundary is
// inclusive and upserts are idempotent. Rows without last_updated_time (never-edited on-prem records)
// are caught by the full runs. A part that rejects sorting or criteria (4001) is read in full.
// Assets are read from whichever asset API the server offers (asset-api.ts): when a list of it answers
// "Invalid URL" the API is probed again and the stream goes on with the other one; a single product
// type's list that is missing is skipped, counted as an error, and the run then removes nothing.
import { z } from 'zod';
import { readCheckpoint } from '../../core/checkpoint.ts';
import type { Page, Stream, StreamContext } from '../../core/connector.ts';
import type { Logger } from '../../core/log.ts';
import { mapRows } from '../../core/map-rows.ts';
import type { ModelName, RecordOf } from '../../core/models.ts';
import { type AssetEndpoint, probeAssetApi, rememberAssetApi, resolveAssetEndpoints } from './asset-api.ts';
import { lookupBudgetError, lookupPageBudget, SdpApiError, SdpClient } from './client.ts';
import { deploymentOf, type SdpConfig } from './config.ts';
import { mapAsset, mapCi } from './map/assets.ts';
import type { Json } from './map/envelope.ts';
import { GENERIC_ASSET_PATH } from './map/product-types.ts';
import { mapBusinessService, mapServiceCategory } from './map/services.ts';
import { mapRequest, TICKET_FIELDS } from './map/tickets.ts';
import { mapUser } from './map/users.ts';
import { epochMs, text } from './map/values.ts';
import type { TokenManager } from './oauth.ts';

export const PAGE_SIZE = 100;
/** How far before the run's start the next watermark may reach at most (clock skew, in-flight writes). */
export const OVERLAP_MS = 5 * 60_000;

export interface Part {
  /** Stable id in the checkpoint. */
  id: string;
  path: string;
  /** Paths to try when `path` answers 404 / 4007 (older or newer builds). */
  altPaths?: string[];
  key?: string;
  incremental: boolean;
  fullSort?: string;
  fieldsRequired?: string[];
  filterBy?: string;
  /** Parts of one family (the asset lists) can be replaced together when their API is gone. */
  family?: string;
  map(row: Json): RecordOf<ModelName>;
}

/** Where a part's read stands (stored in the checkpoint between two pages). */
const cursorSchema = z.object({
  part: z.string(),
  mode: z.enum(['full', 'incremental']),
  /** Watermark this read started from (incremental). */
  since: z.number().nullable(),
  /** Lower bound of the current keyset query. */
  anchor: z.number().nullable(),
  /** Rows to skip at the start of the current query (start_index - 1). */
  skip: z.number().int().nonnegative(),
  maxUpdated: z.number().nullable(),
  /** Latest allowed next watermark: the run's start minus the overlap. */
  floor: z.number(),
  path: z.string().optional(),
});
export type Cursor = z.infer<typeof cursorSchema>;

/** A stream's checkpoint, as stored: read back through this schema (core/checkpoint.ts). */
export const checkpointSchema = z.object({
  v: z.literal(1),
  /** Next incremental run's watermark (epoch ms, inclusive) per part; null = read that part in full. */
  watermarks: z.record(z.string(), z.number().nullable()),
  /** Parts finished in this run. */
  done: z.array(z.string()),
  /** The part being paged, when the run stopped between two pages. */
  cursor: cursorSchema.nullable().default(null),
  /** Parts skipped in this run (their list is missing): the run must not sweep. */
  skipped: z.array(z.string()).optional(),
});
export type SdpCheckpoint = z.infer<typeof checkpointSchema>;

/** A stored checkpoint, validated; null when there is none or it is not valid (logged when `log` is given). */
export function parseCheckpoint(v: unknown, opts: { stream?: string; log?: Logger } = {}): SdpCheckpoint | null {
  const cp = readCheckpoint(checkpointSchema, v, { stream: opts.stream ?? 'servicedesk-plus', log: opts.log }).value;
  if (!cp) return null;
  const { skipped, ...rest } = cp;
  return { ...rest, ...(skipped?.length ? { skipped } : {}) };
}

/** Where a stream starts: continue a resumed run, take the last watermarks, or start afresh. */
export function startCheckpoint(ctx: Pick<StreamContext, 'mode' | 'checkpoint' | 'resumed'> & { log?: Logger; stream?: string }): SdpCheckpoint {
  const prev = parseCheckpoint(ctx.checkpoint, ctx);
  if (prev && ctx.resumed) return prev;
  if (prev && ctx.mode === 'incremental') return { v: 1, watermarks: prev.watermarks, done: [], cursor: null };
  return { v: 1, watermarks: {}, done: [], cursor: null };
}

export function nextWatermark(part: Pick<Part, 'incremental'>, cur: Cursor): number | null {
  if (!part.incremental) return null;
  const seen = cur.maxUpdated === null ? null : Math.min(cur.maxUpdated, cur.floor);
  if (cur.since === null) return seen;
  return Math.max(cur.since, seen ?? cur.since);
}

/** Advances the cursor past one page of rows. */
export function advance(cur: Cursor, rows: Json[]): Cursor {
  const luts = rows.map((r) => epochMs(r.last_updated_time));
  const next = { ...cur };
  for (const t of luts) if (t !== null && (next.maxUpdated === null || t > next.maxUpdated)) next.maxUpdated = t;
  const last = luts[luts.length - 1];
  if (cur.mode === 'incremental' && rows.length > 0 && last !== undefined && last !== null && luts.every((t) => t !== null)) {
    if (last === cur.anchor) next.skip = cur.skip + rows.length;
    else {
      next.anchor = last;
      let ties = 0;
      for (let j = luts.length - 1; j >= 0 && luts[j] === last; j--) ties++;
      next.skip = ties;
    }
  } else {
    next.skip = cur.skip + rows.length;
  }
  return next;
}

export function listInfoFor(part: Part, cur: Cursor): Json {
  const li: Json = { row_count: PAGE_SIZE, start_index: cur.skip + 1 };
  if (cur.mode === 'incremental') {
    li.sort_field = 'last_updated_time';
    li.sort_order = 'asc';
    li.search_criteria = [{ field: 'last_updated_time', condition: 'greater or equal', value: String(cur.anchor ?? cur.since ?? 0) }];
  } else if (part.fullSort) {
    li.sort_field = part.fullSort;
    li.sort_order = 'asc';
  }
  if (part.fieldsRequired) li.fields_required = part.fieldsRequired;
  if (part.filterBy) li.filter_by = { name: part.filterBy };
  return li;
}

interface StreamDeps {
  config: SdpConfig;
  tokens: TokenManager | null;
}

type PartsResolver = (client: SdpClient, ctx: StreamContext) => Promise<Part[]>;
/**
 * A part of a family answered "Invalid URL" before its first row: the family's new parts (they replace
 * the family's parts not read yet), 'skip' (only this part is missing), or null (fail the stream).
 */
type PartRecovery = (client: SdpClient, ctx: StreamContext, part: Part, familyAnswered: boolean) => Promise<Part[] | 'skip' | null>;
/** Recoveries per read, at most: each one excludes the list that failed, so this only bounds a flapping server. */
const MAX_RECOVERIES = 4;

/** One page of a part, degrading gracefully when the server refuses a list_info feature (4001). */
async function fetchPage(client: SdpClient, part: Part, cur: Cursor, ctx: StreamContext) {
  for (let attempt = 0; ; attempt++) {
    const path = cur.path ?? part.path;
    try {
      return { res: await client.list(path, listInfoFor(part, cur), { signal: ctx.signal, key: part.key }), cur };
    } catch (err) {
      if (!(err instanceof SdpApiError) || attempt >= 4) throw err;
      const candidates = [part.path, ...(part.altPaths ?? [])];
      const alt = candidates[candidates.indexOf(path) + 1];
      if (err.kind === 'not-found' && cur.skip === 0 && alt) {
        ctx.log.warn({ path, alt }, 'list endpoint not found; trying the alternative');
        cur = { ...cur, path: alt };
        continue;
      }
      if (err.kind !== 'input' || !err.field) throw err;
      ctx.log.warn({ path, field: err.field }, 'the server refused a list option; reading without it');
      if (err.field === 'filter_by' && part.filterBy) part.filterBy = undefined;
      else if (err.field === 'fields_required' && part.fieldsRequired) part.fieldsRequired = undefined;
      else if ((err.field === 'sort_field' || err.field === 'search_criteria' || err.field === 'sort_order') && (cur.mode === 'incremental' || part.fullSort)) {
        part.fullSort = undefined;
        part.incremental = false;
        cur = { ...cur, mode: 'full', since: null, anchor: null, skip: 0 };
      } else throw err;
    }
  }
}

function makeStream(name: ModelName, deps: StreamDeps, resolve: PartsResolver, recover?: PartRecovery): Stream {
  return {
    name,
    models: [name],
    primaryKey: ['id'],
    cursorField: 'last_updated_time',
    async *read(ctx: StreamContext): AsyncIterable<Page> {
      const client = new SdpClient({ config: deps.config, ctx, tokens: deps.tokens });
      try {
        let cp = startCheckpoint({ ...ctx, stream: name });
        const floor = Date.now() - OVERLAP_MS;
        let parts = await resolve(client, ctx);
        let recoveries = 0;
        const answered = new Set<string>();
        for (let p = 0; p < parts.length; p++) {
          const part = parts[p]!;
          if (cp.done.includes(part.id)) continue;
          let cur: Cursor =
            cp.cursor?.part === part.id
              ? cp.cursor
              : (() => {
                  const since = part.incremental && ctx.mode === 'incremental' ? (cp.watermarks[part.id] ?? null) : null;
                  return { part: part.id, mode: since === null ? 'full' : 'incremental', since, anchor: since, skip: 0, maxUpdated: null, floor };
                })();
          if (cur.mode === 'incremental' && !part.incremental) cur = { ...cur, mode: 'full', since: null, anchor: null, skip: 0 };
          for (;;) {
            let fetched: Awaited<ReturnType<typeof fetchPage>>;
            try {
              fetched = await fetchPage(client, part, cur, ctx);
            } catch (err) {
              const missing = err instanceof SdpApiError && err.kind === 'not-found' && cur.skip === 0;
              const outcome =
                missing && recover && part.family && recoveries < MAX_RECOVERIES ? await recover(client, ctx, part, answered.has(part.family)) : null;
              recoveries++;
              if (outcome === null) throw err;
              if (outcome === 'skip') {
                ctx.log.warn({ part: part.id, path: cur.path ?? part.path, err: (err as Error).message }, 'list not found; skipped (this run removes nothing)');
                cp = { ...cp, done: [...cp.done, part.id], cursor: null, skipped: [...(cp.skipped ?? []), part.id] };
                yield { records: { [name]: [] }, checkpoint: structuredClone(cp), errors: 1, sweep: false };
                break;
              }
              parts = [...parts.slice(0, p), ...outcome, ...parts.slice(p + 1).filter((x) => x.family !== part.family)];
              p--;
              break;
            }
            if (part.family) answered.add(part.family);
            cur = fetched.cur;
            const { rows, hasMore } = fetched.res;
            const mapped = mapRows(rows, (row, add) => add<ModelName>(name, part.map(row)), {
              what: part.id,
              firstRow: cur.skip + 1,
              log: ctx.log,
              rowId: (row) => text(row?.id),
            });
            const records = mapped.records[name] ?? [];
            const { errors, failures } = mapped;
            cur = advance(cur, rows);
            if (!hasMore) {
              cp = { ...cp, watermarks: { ...cp.watermarks, [part.id]: nextWatermark(part, cur) }, done: [...cp.done, part.id], cursor: null };
            } else {
              cp = { ...cp, cursor: cur };
            }
            yield {
              records: { [name]: records },
              checkpoint: structuredClone(cp),
              ...(errors ? { errors, failures } : {}),
              ...(cp.skipped?.length ? { sweep: false } : {}),
            };
            if (!hasMore) break;
          }
        }
      } finally {
        await client.close();
      }
    },
  };
}

export interface CiType {
  name: string;
  apiName: string;
  pluralName: string | null;
}

/** CI types: cloud `cmdb/ci_types`, on-prem `ci_types` (each tried as the other's fallback). */
export async function listCiTypes(client: SdpClient, signal?: AbortSignal): Promise<CiType[] | null> {
  const paths = client.deployment === 'cloud' ? ['cmdb/ci_types', 'ci_types'] : ['ci_types', 'cmdb/ci_types'];
  for (const path of paths) {
    try {
      const out: CiType[] = [];
      const budget = lookupPageBudget();
      for (let start = 1, pages = 1; ; start += PAGE_SIZE, pages++) {
        if (pages > budget.pages) throw lookupBudgetError(path, 'CI types', budget);
        const res = await client.list(path, { row_count: PAGE_SIZE, start_index: start }, { signal, key: 'ci_types' });
        for (const r of res.rows) {
          const apiName = text(r.api_name);
          if (apiName) out.push({ name: text(r.name) ?? apiName, apiName, pluralName: text(r.api_plural_name) });
        }
        if (!res.hasMore) break;
      }
      return out;
    } catch (err) {
      if (err instanceof SdpApiError && err.kind === 'not-found') continue;
      throw err;
    }
  }
  return null;
}

const isBusinessService = (t: CiType) => /business_?service/i.test(t.apiName);

function ciPath(client: SdpClient, t: CiType): { path: string; alt: string } {
  const cloud = `cmdb/${t.apiName}`;
  const onprem = t.pluralName ?? t.apiName;
  return client.deployment === 'cloud' ? { path: cloud, alt: onprem } : { path: onprem, alt: cloud };
}

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

export function sdpStreams(deps: StreamDeps): Stream[] {
  const onprem = deploymentOf(deps.config) === 'onprem';
  const tickets = makeStream('tickets', deps, async () => [
    {
      id: 'requests',
      path: 'requests',
      key: 'requests',
      incremental: true,
      fullSort: 'created_time',
      fieldsRequired: [...TICKET_FIELDS],
      filterBy: 'All_Requests',
      map: mapRequest,
    },
  ]);
  const assets = makeStream(
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
  const users = makeStream('users', deps, async () => [
    onprem
      ? { id: 'users', path: 'users', altPaths: ['requesters'], incremental: true, fullSort: 'created_time', map: (row: Json) => mapUser(row) }
      : { id: 'requesters', path: 'requesters', key: 'requesters', incremental: true, fullSort: 'created_time', map: (row: Json) => mapUser(row, false) },
    { id: 'technicians', path: 'technicians', key: 'technicians', incremental: true, fullSort: 'created_time', map: (row: Json) => mapUser(row, true) },
  ]);
  const services = makeStream('services', deps, async (client, ctx) => {
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
  return [tickets, assets, users, services];
}
