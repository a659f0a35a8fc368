// How a ServiceDesk Plus list is paged: the parts a stream reads, the cursor and checkpoint of a read
// (zod schemas, read back through core/checkpoint.ts), and the list_info each page asks with.
//
// Paging: a full read sorts by created_time (offset paging that updates cannot shift); an incremental
// read asks for `last_updated_time >= watermark` sorted ascending and pages by keyset (the criterion
// moves to the last row's time, start_index skips the rows already seen at that time), so rows moved to
// the end by concurrent updates are neither skipped nor lost. The next watermark is the largest
// last_updated_time seen, but never later than the run's start minus an overlap; the boundary is
// inclusive and upserts are idempotent. Rows without last_updated_time (never-edited on-prem records)
// are caught by the full runs. A part that rejects sorting or criteria (4001) is read in full.
import { z } from 'zod';
import { readCheckpoint } from '../../../core/checkpoint.ts';
import type { StreamContext } from '../../../core/connector.ts';
import type { Logger } from '../../../core/log.ts';
import type { ModelName, RecordOf } from '../../../core/models.ts';
import type { Json } from '../map/envelope.ts';
import { epochMs } from '../map/values.ts';

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
