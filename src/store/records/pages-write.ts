// Writing one prepared page (pages.ts): its records (per model) with their change events and CVE pairs,
// and its stream's checkpoint, in one transaction. Apart from pages.ts so that the SQLite page
// writer's thread, which runs only this, loads neither the models' schemas nor the logger (issue 30:
// ~15 MB of its heap).
import type { Driver } from '../db/driver.ts';
import { detectChanges, recordNewChanges, stampFindingMoves } from './change-detection.ts';
import { writeCvePairs } from './cve-plugins.ts';
import { openAgesAfterPage, openAgesBeforePage } from '../reports/open-ages.ts';
import { addFixFacts, refreshFixFacts } from '../reports/fix-facts.ts';
import type { PreparedPage } from './pages.ts';
import { stampUnchanged } from './unchanged.ts';

const CHECKPOINT_SQL = `INSERT INTO "checkpoints" ("source_id", "stream", "value", "complete", "mode", "generation", "run_id", "updated_at") VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT ("source_id", "stream") DO UPDATE SET "value" = excluded."value", "complete" = excluded."complete", "mode" = excluded."mode",
  "generation" = excluded."generation", "run_id" = excluded."run_id", "updated_at" = excluded."updated_at"`;

/** What a page wrote: records per model, and the keys of the rows it changed (summary-tables-touched.ts). */
export interface WrittenPage {
  counts: Record<string, number>;
  /**
   * Per model with a keyed summary: the keys of its rows this page inserted or changed (not those only
   * stamped as seen again, unchanged.ts); null: a row whose key the page did not hold.
   */
  changedKeys: Record<string, unknown[] | null>;
}

export async function writePreparedPage(db: Driver, page: PreparedPage): Promise<WrittenPage> {
  // A page and its checkpoint commit together, so a page lost in a server crash is read again by the
  // resumed run: the commit need not wait for its WAL flush (the trade SQLite's synchronous=NORMAL
  // makes). A first import commits a thousand pages; each flush was a disk wait of its own.
  return db.transaction(
    async (tx) => {
      const changedKeys: WrittenPage['changedKeys'] = {};
      for (const u of page.upserts) {
        // A bare host row (the host guarantee) is no event: the host is new when upstream first sends it.
        if (u.stub) {
          await tx.insertMany(u.sql, u.rows);
          continue;
        }
        // Rows stored unchanged but for when they were seen get only that (unchanged.ts); the rest is upserted.
        let rows = u.rows;
        if (u.unchanged && !u.allNew) {
          const same = await stampUnchanged(tx, u.unchanged, rows);
          if (same.size > 0) rows = rows.filter((r) => !same.has(r[0] as string));
        }
        if (u.cvePairs) await writeCvePairs(tx, u.cvePairs);
        if (rows.length === 0) continue;
        if (u.summaryKeyAt !== undefined) {
          const at = u.summaryKeyAt;
          const keys = changedKeys[u.model];
          if (at < 0) changedKeys[u.model] = null;
          else if (keys !== null) changedKeys[u.model] = [...new Set([...(keys ?? []), ...rows.map((r) => r[at] ?? null)])];
        }
        // The open findings by first-seen day (open-ages.ts) lose the page's findings as stored and get them back as written.
        const ids = u.model === 'vulnerabilities' ? rows.map((r) => r[0]) : null;
        if (ids && !u.allNew) await openAgesBeforePage(tx, ids);
        // Events are detected against the rows as they were before this page (changes.ts).
        const detected = u.allNew
          ? await recordNewChanges(tx, u.model, rows, u.statusAt, page.changes)
          : await detectChanges(tx, u.model, rows, u.statusAt, page.changes);
        await tx.insertMany(u.sql, rows, detected.known);
        if (detected.moved) await stampFindingMoves(tx, page.changes);
        if (ids) {
          await openAgesAfterPage(tx, ids);
          // The fixes' rows (fix-facts.ts): the earlier ones of these findings as they now are, and the page's new ones.
          if (!u.allNew) await refreshFixFacts(tx, ids);
          if (detected.moved || (u.statusAt >= 0 && rows.some((r) => r[u.statusAt] === 'fixed'))) await addFixFacts(tx, page.changes.at, page.changes.runId);
        }
      }
      return { counts: page.counts, changedKeys };
    },
    { flush: false, last: { sql: CHECKPOINT_SQL, params: page.checkpoint } },
  );
}
