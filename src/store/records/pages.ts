// One page of a sync, stored: its records (per model) and its stream's checkpoint in one transaction,
// so a crash loses at most the page in flight. A page is prepared (ids, stamps, column values) where
// the records were mapped, then written by the store, or by the SQLite page writer's thread
// (sqlite-writer.ts) on its own connection.
import type { IncomingRecord, ModelName } from '../../core/models.ts';
import { type ChangeStamp, detectChanges, recordNewChanges, stampFindingMoves } from './change-detection.ts';
import { writeCvePairs } from './cve-plugins.ts';
import { openAgesAfterPage, openAgesBeforePage } from '../reports/open-ages.ts';
import { addFixFacts, refreshFixFacts } from '../reports/fix-facts.ts';
import type { Driver } from '../db/driver.ts';
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
  /** The checkpoint row's values, in the order of CHECKPOINT_SQL. */
  checkpoint: unknown[];
}

const CHECKPOINT_SQL = `INSERT INTO "checkpoints" ("source_id", "stream", "value", "complete", "mode", "generation", "run_id", "updated_at") VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT ("source_id", "stream") DO UPDATE SET "value" = excluded."value", "complete" = excluded."complete", "mode" = excluded."mode",
  "generation" = excluded."generation", "run_id" = excluded."run_id", "updated_at" = excluded."updated_at"`;

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

export async function writePreparedPage(db: Driver, page: PreparedPage): Promise<Record<string, number>> {
  // A page and its checkpoint commit together, so a page lost in a server crash is read again by the
  // resumed run: the commit need not wait for its WAL flush (the trade SQLite's synchronous=NORMAL
  // makes). A first import commits a thousand pages; each flush was a disk wait of its own.
  return db.transaction(
    async (tx) => {
      for (const u of page.upserts) {
        // A bare host row (the host guarantee) is no event: the host is new when upstream first sends it.
        if (u.stub) {
          await tx.insertMany(u.sql, u.rows);
          continue;
        }
        // The open findings by first-seen day (open-ages.ts) lose the page's findings as stored and get them back as written.
        const ids = u.model === 'vulnerabilities' ? u.rows.map((r) => r[0]) : null;
        if (ids && !u.allNew) await openAgesBeforePage(tx, ids);
        // Events are detected against the rows as they were before this page (changes.ts).
        const detected = u.allNew
          ? await recordNewChanges(tx, u.model, u.rows, u.statusAt, page.changes)
          : await detectChanges(tx, u.model, u.rows, u.statusAt, page.changes);
        await tx.insertMany(u.sql, u.rows, detected.known);
        if (u.cvePairs) await writeCvePairs(tx, u.cvePairs);
        if (detected.moved) await stampFindingMoves(tx, page.changes);
        if (ids) {
          await openAgesAfterPage(tx, ids);
          // The fixes' rows (fix-facts.ts): the earlier ones of these findings as they now are, and the page's new ones.
          if (!u.allNew) await refreshFixFacts(tx, ids);
          if (detected.moved || (u.statusAt >= 0 && u.rows.some((r) => r[u.statusAt] === 'fixed'))) await addFixFacts(tx, page.changes.at, page.changes.runId);
        }
      }
      return page.counts;
    },
    { flush: false, last: { sql: CHECKPOINT_SQL, params: page.checkpoint } },
  );
}
