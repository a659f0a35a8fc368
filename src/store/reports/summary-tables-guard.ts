// One state for a summary rebuild's reads and its writes (issue 30): a rebuild reads (on SQLite) before
// its write transaction, so a correlation pass or another rebuild of the source committing in between
// would leave it writing what it read of the state before (an owner a pass just moved, a host's old
// placement). Correlation counts a generation of the hosts' placement in each pass's transaction; the
// rebuild compares it, and the source's refresh stamp, with what it saw when it read, and reads again
// inside the transaction when either moved. PostgreSQL reads inside the transaction, under the
// correlation's lock. A seam lets tests commit between the reads and the writes.
import type { Driver } from '../db/driver.ts';

/** Migration 46: the placement generation (one row), counted by every correlation pass. */
export const PLACEMENT_GENERATION_MIGRATION_46 = `
CREATE TABLE placement_generation (id INTEGER PRIMARY KEY, n BIGINT NOT NULL);
INSERT INTO placement_generation (id, n) VALUES (1, 0);
`;

/** The advisory lock a correlation pass holds on PostgreSQL (so does a summary rebuild, for its reads and writes). */
const PLACEMENT_LOCK = 7215;

/** The start of a correlation pass's transaction: on PostgreSQL its lock (passes take turns, and a summary rebuild waits for the pass or the pass for it). */
export async function beginPlacementWrite(tx: Driver): Promise<void> {
  if (tx.dialect === 'postgres') await tx.run(`SELECT pg_advisory_xact_lock(${PLACEMENT_LOCK})`);
}

/**
 * After a correlation pass's placement writes (hosts, their summaries, the owners per plugin), in its
 * transaction: on SQLite one more placement generation. Counted last, so a rebuild's reads on the same
 * connection that see the new generation see every placement write before it too.
 */
export async function placementWritten(tx: Driver): Promise<void> {
  if (tx.dialect === 'sqlite') await tx.run(`UPDATE placement_generation SET n = n + 1 WHERE id = 1`);
}

/** In a summary rebuild's transaction on PostgreSQL: no correlation pass commits until it does. */
export async function holdPlacement(tx: Driver): Promise<void> {
  if (tx.dialect === 'postgres') await tx.all(`SELECT pg_advisory_xact_lock(${PLACEMENT_LOCK})`);
}

/** What a rebuild's reads depend on beyond the source's records: the placement generation and the source's last refresh. */
export async function readStamp(db: Driver, sourceId: string): Promise<string> {
  const rows = await db.all(
    `SELECT (SELECT n FROM placement_generation WHERE id = 1) AS "g", (SELECT refreshed_at FROM sum_state WHERE source_id = ?) AS "r",
            (SELECT run_id FROM sum_state WHERE source_id = ?) AS "u"`,
    [sourceId, sourceId],
  );
  const r = rows[0] ?? {};
  return JSON.stringify([String(r.g ?? ''), r.r ?? null, r.u ?? null]);
}

/** Test seam: called between a rebuild's reads and its write transaction (null in production). */
export const refreshSeam: { beforeWrite: ((sourceId: string) => Promise<void>) | null } = { beforeWrite: null };
