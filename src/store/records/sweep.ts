// The sweep: after a complete full run (or a file snapshot, within its scope) the records its
// generation did not stamp are removed, open findings fixed; and the preview the runner's guard reads.
import type { SweepScope } from '../../core/connector.ts';
import { hasHost, type ModelName } from '../../core/models.ts';
import type { Driver } from '../db/driver.ts';
import { columnOf, q, tableOf } from '../db/schema.ts';
import { inList } from '../db/sql.ts';
import { recordSweepChanges, sweepFixedAt } from './change-detection.ts';
import { openAgesBeforeSweep } from '../reports/open-ages.ts';
import { addFixFacts } from '../reports/fix-facts.ts';

/**
 * The live records of a model, within `scope` when given (null: the scope names nothing); with
 * `unseenBy`, those a sweep marks removed: not stamped by that generation.
 */
function liveWhere(model: ModelName, sourceId: string, scope?: SweepScope, unseenBy?: string): { where: string; params: unknown[] } | null {
  const params: unknown[] = [sourceId];
  let where = `"source_id" = ? AND "removed" = 0`;
  if (unseenBy !== undefined) {
    params.push(unseenBy);
    where += ` AND ("seen_gen" IS NULL OR "seen_gen" <> ?)`;
  }
  if (scope) {
    const terms: string[] = [];
    if (scope.origins.length > 0) terms.push(`"origin" IN ${inList(scope.origins, params)}`);
    const hf = scope.hostField;
    if (hf && hf.values.length > 0 && (model === 'hosts' || hasHost(model))) {
      const col = q(columnOf(hf.name));
      if (model === 'hosts') terms.push(`${col} IN ${inList(hf.values, params)}`);
      else {
        params.push(sourceId);
        terms.push(`"host_id" IN (SELECT "id" FROM "rec_hosts" WHERE "source_id" = ? AND ${col} IN ${inList(hf.values, params)})`);
      }
    }
    if (terms.length === 0) return null;
    where += ` AND "origin" IS NOT NULL AND (${terms.join(' OR ')})`;
  }
  return { where, params };
}

/**
 * After a complete full run (or a file snapshot, within its scope): records of the source not stamped by its generation (within `scope` when
 * given) are removed; open findings become fixed. With the sweeping run given, the change feed gets
 * its events first, from the same WHERE (changes.ts).
 */
export async function sweepModel(
  db: Driver,
  model: ModelName,
  sourceId: string,
  generation: string,
  scope?: SweepScope,
  run?: { runId: string; at: string },
): Promise<number> {
  const unseen = liveWhere(model, sourceId, scope, generation);
  if (!unseen) return 0;
  if (run) await recordSweepChanges(db, model, unseen, run);
  // The findings it marks leave the open findings by first-seen day (open-ages.ts).
  if (model === 'vulnerabilities') await openAgesBeforeSweep(db, unseen.where, unseen.params);
  const fixedAt = model === 'vulnerabilities' && run ? sweepFixedAt(run.at) : { set: '', params: [] };
  const extra = model === 'vulnerabilities' ? `, "status" = 'fixed'${fixedAt.set}` : '';
  const marked = await db.run(`UPDATE ${q(tableOf(model))} SET "removed" = 1${extra} WHERE ${unseen.where}`, [...fixedAt.params, ...unseen.params]);
  // The fixes' rows of the findings it fixed (fix-facts.ts).
  if (model === 'vulnerabilities' && run && marked > 0) await addFixFacts(db, run.at, run.runId);
  return marked;
}

export interface SweepPreview {
  /** Records not marked removed. */
  live: number;
  /** Live records the sweep would mark removed (not seen by the generation). */
  unseen: number;
  /** Records the generation stored. */
  seen: number;
}

/**
 * Within one scope (a repository, a file name): its live records, and how many a sweep would mark
 * removed. The guard refuses a scope's sweep that would remove most of what the scope held.
 */
export async function scopedSweepPreviewModel(
  db: Driver,
  model: ModelName,
  sourceId: string,
  generation: string,
  scope: SweepScope,
): Promise<{ live: number; unseen: number }> {
  const live = liveWhere(model, sourceId, scope);
  if (!live) return { live: 0, unseen: 0 };
  const rows = await db.all(
    `SELECT COUNT(*) AS "live", SUM(CASE WHEN "seen_gen" IS NULL OR "seen_gen" <> ? THEN 1 ELSE 0 END) AS "unseen"
       FROM ${q(tableOf(model))} WHERE ${live.where}`,
    [generation, ...live.params],
  );
  return { live: Number(rows[0]?.live ?? 0), unseen: Number(rows[0]?.unseen ?? 0) };
}

/** What sweepModel() would do, without doing it (the runner's guard against wiping an inventory). */
export async function sweepPreviewModel(db: Driver, model: ModelName, sourceId: string, generation: string, scope?: SweepScope): Promise<SweepPreview> {
  const rows = await db.all(
    `SELECT SUM(CASE WHEN "removed" = 0 THEN 1 ELSE 0 END) AS "live",
            SUM(CASE WHEN "removed" = 0 AND ("seen_gen" IS NULL OR "seen_gen" <> ?) THEN 1 ELSE 0 END) AS "unseen",
            SUM(CASE WHEN "seen_gen" = ? THEN 1 ELSE 0 END) AS "seen"
       FROM ${q(tableOf(model))} WHERE "source_id" = ?`,
    [generation, generation, sourceId],
  );
  const r = rows[0] ?? {};
  const preview = { live: Number(r.live ?? 0), unseen: Number(r.unseen ?? 0), seen: Number(r.seen ?? 0) };
  if (!scope) return preview;
  // A scoped sweep (a file snapshot) removes only what its scope covers.
  const unseen = liveWhere(model, sourceId, scope, generation);
  const scoped = unseen ? await db.all(`SELECT COUNT(*) AS "n" FROM ${q(tableOf(model))} WHERE ${unseen.where}`, unseen.params) : [];
  return { ...preview, unseen: Number(scoped[0]?.n ?? 0) };
}

/** Per model, within one scope: its live records and how many a sweep would mark removed. */
export async function scopedSweepPreview(
  db: Driver,
  sourceId: string,
  models: ModelName[],
  generation: string,
  scope: SweepScope,
): Promise<Record<string, { live: number; unseen: number }>> {
  const out: Record<string, { live: number; unseen: number }> = {};
  for (const m of models) out[m] = await scopedSweepPreviewModel(db, m, sourceId, generation, scope);
  return out;
}

/** Per model: live records, how many a sweep would mark removed, and how many the generation stored. */
export async function sweepPreview(
  db: Driver,
  sourceId: string,
  models: ModelName[],
  generation: string,
  scope?: SweepScope,
): Promise<Record<string, SweepPreview>> {
  const out: Record<string, SweepPreview> = {};
  for (const m of models) out[m] = await sweepPreviewModel(db, m, sourceId, generation, scope);
  return out;
}
