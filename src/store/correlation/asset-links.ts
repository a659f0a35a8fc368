// Correlation as the store runs it: the full pass and the pass after a run (hosts and CMDB records,
// then the tickets' links), and the manual link/unlink overrides of a host and a CMDB record.
import { NotFoundError } from '../../core/errors.ts';
import type { CorrelationResult } from './shared.ts';
import { correlateAll } from './full.ts';
import { correlateTouched } from './incremental.ts';
import type { Driver } from '../db/driver.ts';
import { countRecords } from '../records/group-counts.ts';
import { nowIso } from '../db/rows.ts';
import { ensureSummariesFor } from '../reports/summary-tables-write.ts';
import { linkTickets } from './ticket-links.ts';

export type CorrelationSummary = CorrelationResult & { tickets: number };

/** Full recompute: every host against every CMDB record, then every ticket's links. */
export async function correlateEverything(db: Driver): Promise<CorrelationSummary> {
  // The full pass reads each host's open findings from the summaries (sum_hosts): current for every
  // source not syncing now (a run refreshes its source's before it correlates, sync/runner.ts).
  await ensureSummariesFor(db);
  const r = await correlateAll(db);
  return { ...r, tickets: await linkTickets(db, null) };
}

/**
 * After a successful run: correlates what it wrote (hosts, CMDB records, tickets; findings read their host's placement).
 * A run that removed hosts or CMDB records, or touched a large share of them, gets the full pass.
 */
export async function correlateRunWrites(db: Driver, sourceId: string, runId: string, removed: number): Promise<CorrelationSummary | null> {
  const ids = async (sql: string) => (await db.all(sql, [sourceId, runId])).map((r) => String(r.id));
  const hostIds = await ids(`SELECT "id" FROM "rec_hosts" WHERE "source_id" = ? AND "seen_run" = ?`);
  const cmdbIds = await ids(`SELECT "id" FROM "rec_cmdb_assets" WHERE "source_id" = ? AND "seen_run" = ?`);
  const ticketIds = await ids(`SELECT "id" FROM "rec_tickets" WHERE "source_id" = ? AND "seen_run" = ?`);
  if (hostIds.length + cmdbIds.length + ticketIds.length === 0 && removed === 0) return null;
  const total = (await countRecords(db, 'hosts')) + (await countRecords(db, 'cmdb-assets'));
  if (removed > 0 || hostIds.length + cmdbIds.length > total / 4) return correlateEverything(db);
  const r = await correlateTouched(db, { hostIds, cmdbIds });
  // Tickets this run wrote, and tickets pointing at an asset the pass replaced.
  const stale =
    r.replacedAssetIds.size > 0
      ? (await db.all(`SELECT "id", "asset_ids" FROM "rec_tickets" WHERE "removed" = 0 AND "asset_ids" IS NOT NULL AND "asset_ids" <> '[]'`))
          .filter((t) => (JSON.parse(String(t.asset_ids)) as string[]).some((a) => r.replacedAssetIds.has(a)))
          .map((t) => String(t.id))
      : [];
  return { ...r, tickets: await linkTickets(db, [...new Set([...ticketIds, ...stale])]) };
}

/** Whether any asset is left (a removed source's hosts and CMDB records then leave theirs: correlate again). */
export async function anyAssets(db: Driver): Promise<boolean> {
  return (await db.all(`SELECT 1 FROM "rec_assets" LIMIT 1`)).length > 0;
}

/** Whether a host record with this id exists. */
export async function hostExists(db: Driver, id: string): Promise<boolean> {
  return (await db.all(`SELECT "id" FROM "rec_hosts" WHERE "id" = ?`, [id])).length > 0;
}

/**
 * A manual link (beats every rule) or unlink (forbids the pair), kept across syncs, with who made it
 * (`by`: a user, an API token, the command line) and when; the pair is correlated again at once.
 */
export async function setAssetOverride(
  db: Driver,
  hostId: string,
  cmdbAssetId: string,
  action: 'link' | 'unlink',
  by: string | null = null,
): Promise<CorrelationResult> {
  if (!(await hostExists(db, hostId))) throw new NotFoundError(`no host with id '${hostId}'`);
  const cmdb = await db.all(`SELECT "id" FROM "rec_cmdb_assets" WHERE "id" = ?`, [cmdbAssetId]);
  if (!cmdb[0]) throw new NotFoundError(`no cmdb-assets record with id '${cmdbAssetId}'`);
  await db.transaction(async (tx) => {
    await tx.run(`DELETE FROM "asset_overrides" WHERE "host_id" = ? AND "cmdb_asset_id" = ?`, [hostId, cmdbAssetId]);
    await tx.run(`INSERT INTO "asset_overrides" ("host_id", "cmdb_asset_id", "action", "created_at", "created_by") VALUES (?, ?, ?, ?, ?)`, [
      hostId,
      cmdbAssetId,
      action,
      nowIso(),
      by,
    ]);
  });
  return correlateTouched(db, { hostIds: [hostId], cmdbIds: [cmdbAssetId] });
}

export async function assetOverrides(
  db: Driver,
): Promise<{ hostId: string; cmdbAssetId: string; action: string; createdAt: string; createdBy: string | null }[]> {
  const rows = await db.all(`SELECT * FROM "asset_overrides" ORDER BY "created_at"`);
  return rows.map((r) => ({
    hostId: String(r.host_id),
    cmdbAssetId: String(r.cmdb_asset_id),
    action: String(r.action),
    createdAt: String(r.created_at),
    createdBy: (r.created_by as string | null) ?? null,
  }));
}
