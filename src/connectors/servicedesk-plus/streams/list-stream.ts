// One stream over ServiceDesk Plus lists: reads its parts page by page, maps each row, yields a checkpoint
// per page, and degrades gracefully when the server refuses a list option, moves a list, or lacks one.
// A single list that is missing is skipped, counted as an error, and the run then removes nothing.
import type { Page, Stream, StreamContext } from '../../../core/connector.ts';
import { mapRows } from '../../../core/map-rows.ts';
import type { ModelName } from '../../../core/models.ts';
import { SdpApiError, SdpClient } from '../client.ts';
import type { SdpConfig } from '../config.ts';
import { text } from '../map/values.ts';
import type { TokenManager } from '../oauth.ts';
import { advance, type Cursor, listInfoFor, nextWatermark, OVERLAP_MS, type Part, startCheckpoint } from './paging.ts';

export interface StreamDeps {
  config: SdpConfig;
  tokens: TokenManager | null;
}

export type PartsResolver = (client: SdpClient, ctx: StreamContext) => Promise<Part[]>;
/**
 * A part of a family answered "Invalid URL" before its first row: the family's new parts (they replace
 * the family's parts not read yet), 'skip' (only this part is missing), or null (fail the stream).
 */
export type PartRecovery = (client: SdpClient, ctx: StreamContext, part: Part, familyAnswered: boolean) => Promise<Part[] | 'skip' | null>;
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

export function makeStream(name: ModelName, deps: StreamDeps, resolve: PartsResolver, recover?: PartRecovery): Stream {
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
            const errors = mapped.errors;
            cur = advance(cur, rows);
            if (!hasMore) {
              cp = { ...cp, watermarks: { ...cp.watermarks, [part.id]: nextWatermark(part, cur) }, done: [...cp.done, part.id], cursor: null };
            } else {
              cp = { ...cp, cursor: cur };
            }
            yield {
              records: { [name]: records },
              checkpoint: structuredClone(cp),
              ...(errors ? { errors } : {}),
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
