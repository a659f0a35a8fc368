// One page of a sync, stored: its records (per model) and its stream's checkpoint in one transaction,
// so a crash loses at most the page in flight. A page is prepared (ids, stamps, column values) where
// the records were mapped, then written by the store, or by the SQLite page writer's thread
// (sqlite-writer.ts) on its own connection.
import type { IncomingRecord, ModelName } from '../../core/models.ts';
import type { ChangeStamp } from './change-detection.ts';
import { type PreparedUpsert, type PriorityContext, prepareHostStubs, prepareUpserts, type WriteStamp } from './upsert.ts';

export type PageRecords = Partial<Record<ModelName, IncomingRecord[]>>;

export interface PageCheckpoint {
  value: unknown;
  complete: boolean;
}

export interface PreparedPage {
  upserts: PreparedUpsert[];
  /** Who and when, for the change feed's events of this page. */
  changes: ChangeStamp;
  /** Records per model, as the runner counts them. */
  counts: Record<string, number>;
  /** The checkpoint row's values, in the order of CHECKPOINT_SQL (pages-write.ts). */
  checkpoint: unknown[];
}

/**
 * `stored`: ids this run has already written (committed); a host among them needs no bare row, so a
 * page of findings of hosts stored earlier in the run writes no host statement (on PostgreSQL one
 * round trip and an index probe per host and page saved).
 */
export function preparePage(
  stamp: WriteStamp,
  stream: string,
  mode: 'full' | 'incremental',
  records: PageRecords,
  checkpoint: PageCheckpoint,
  stored?: { has(id: string): boolean },
  prioritise?: PriorityContext,
): PreparedPage {
  const upserts: PreparedUpsert[] = [];
  const counts: Record<string, number> = {};
  const referenced = new Map<string, string>();
  for (const [model, recs] of Object.entries(records) as [ModelName, IncomingRecord[]][]) {
    if (!recs?.length) continue;
    upserts.push(...prepareUpserts(model, recs, stamp, referenced, prioritise));
    counts[model] = recs.length;
  }
  // Hosts the page writes itself need no bare row.
  for (const u of upserts) if (u.model === 'hosts') for (const row of u.rows) referenced.delete(row[0] as string);
  if (stored) for (const id of referenced.keys()) if (stored.has(id)) referenced.delete(id);
  const stubs = prepareHostStubs(referenced, stamp);
  if (stubs) upserts.push(stubs);
  const cp = [stamp.sourceId, stream, JSON.stringify(checkpoint.value ?? null), checkpoint.complete ? 1 : 0, mode, stamp.generation, stamp.runId, stamp.now];
  return { upserts, counts, checkpoint: cp, changes: { sourceId: stamp.sourceId, runId: stamp.runId, at: stamp.now } };
}

export { writePreparedPage } from './pages-write.ts';
