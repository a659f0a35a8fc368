// The owners per plugin (sum_plugin_owners: the top remediations' owners) kept by correlation, so they
// agree with the hosts' owners as soon as a pass moves a host (issue 31 §2: one fact, one answer, as the
// decisions per owner read from sum_hosts). A summary rebuild counts them from the findings; in between,
// each host a pass moves to another owner counts one host less under its old owner and one more under
// its new one for every plugin it has open findings of: the pass reads the moved hosts' findings only.
import type { Driver } from '../db/driver.ts';
import { allInChunks, paddedInList, placeholders } from '../db/sql.ts';

/** A host whose owner a correlation pass changes (null: no owner). */
export interface OwnerMove {
  hostId: string;
  from: string | null;
  to: string | null;
}

/**
 * Past a quarter of the summarised hosts (and at least MOVES_MIN: a first CMDB import, a full pass after
 * a reassignment of many machines) the owners per plugin are counted again from every open finding
 * instead. bench/owner-moves.ts at 954,240 findings (20,000 hosts, 16 owners), SQLite / PostgreSQL: a
 * moved host costs 0.4-3 / 0.7-1.9 ms (its findings read through their host's index, dearer the more
 * hosts and the busier the machine), the recount 6.5-18 / 6-15 s: they cost the same near 10,000 hosts.
 */
export const MOVES_MIN = 256;
export const movesMax = (summarisedHosts: number): number => Math.max(MOVES_MIN, Math.ceil(summarisedHosts / 4));

/** Ids per IN list (padded on SQLite: db/sql.ts). */
const CHUNK = 500;

/** Migration 43: one row per source, plugin and owner, found by its key (the moves update rows in place). */
export const PLUGIN_OWNERS_MIGRATION_43 = `
CREATE UNIQUE INDEX sum_plugin_owners_key ON sum_plugin_owners (source_id, plugin_id, owner);
DROP INDEX sum_plugin_owners_source;
`;

/** The SELECT that counts a source's owners per plugin from its findings (the summaries' fill, `?` the source). */
export const PLUGIN_OWNERS_SELECT = `SELECT r."source_id", r."plugin_id", h."owner", COUNT(DISTINCT r."host_id") FROM "rec_vulnerabilities" r JOIN "rec_hosts" h ON h."id" = r."host_id"
       WHERE r."source_id" = ? AND r."removed" = 0 AND r."status" IN ('open', 'reopened') AND r."plugin_id" IS NOT NULL AND h."owner" IS NOT NULL
       GROUP BY r."source_id", r."plugin_id", h."owner"`;

/** Hosts whose owner the placements staged in asset_scratch change (before they are written onto the hosts). */
export async function stagedOwnerMoves(tx: Driver): Promise<OwnerMove[]> {
  const rows = await tx.all(
    `SELECT h."id", h."owner" AS "from", s."owner" AS "to" FROM "asset_scratch" s JOIN "rec_hosts" h ON h."id" = s."id" WHERE h."owner" IS DISTINCT FROM s."owner"`,
  );
  return rows.map((r) => ({ hostId: String(r.id), from: (r.from ?? null) as string | null, to: (r.to ?? null) as string | null }));
}

/** The hosts among `ids` that have an owner, each losing it (hosts a pass unplaces: removed ones). */
export async function ownersLost(tx: Driver, ids: string[] | null): Promise<OwnerMove[]> {
  const rows =
    ids === null
      ? await tx.all(`SELECT "id", "owner" FROM "rec_hosts" WHERE "removed" = 1 AND "owner" IS NOT NULL`)
      : await allInChunks(
          tx,
          (ph) => `SELECT "id", "owner" FROM "rec_hosts" WHERE "owner" IS NOT NULL AND "id" IN (${ph})`,
          paddedInList(tx, ids, CHUNK),
          [],
          CHUNK,
        );
  return rows.map((r) => ({ hostId: String(r.id), from: String(r.owner), to: null }));
}

/**
 * Moves the moved hosts' open plugins from their old owners to their new ones in sum_plugin_owners (in
 * the pass's transaction). Exact while the source's summaries describe its findings, as after every run's
 * epilogue; during a run they describe the findings of its last refresh, and the run's own rebuild
 * counts them again from the findings. Past movesMax hosts every summarised source is counted again.
 */
export async function applyOwnerMoves(tx: Driver, moves: OwnerMove[]): Promise<void> {
  const real = moves.filter((m) => m.from !== m.to);
  if (real.length === 0) return;
  if (real.length > MOVES_MIN) {
    const hosts = Number((await tx.all(`SELECT COUNT(*) AS "n" FROM sum_hosts`))[0]?.n ?? 0);
    if (real.length > movesMax(hosts)) return recountPluginOwners(tx);
  }
  const byHost = new Map(real.map((m) => [m.hostId, m]));
  const delta = new Map<string, { source: string; plugin: string; owner: string; n: number }>();
  const add = (source: string, plugin: string, owner: string | null, n: number) => {
    if (owner === null) return;
    const k = JSON.stringify([source, plugin, owner]);
    const d = delta.get(k) ?? { source, plugin, owner, n: 0 };
    d.n += n;
    delta.set(k, d);
  };
  // Each moved host's plugins with open findings, once per host (the summary counts hosts), a chunk of
  // hosts at a time into the deltas (at most a row per plugin and owner, however many hosts moved).
  const ids = paddedInList(tx, [...byHost.keys()], CHUNK);
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    for (const p of await tx.all(
      `SELECT DISTINCT "source_id", "plugin_id", "host_id" FROM "rec_vulnerabilities"
       WHERE "host_id" IN ${placeholders(chunk)} AND "removed" = 0 AND "status" IN ('open', 'reopened') AND "plugin_id" IS NOT NULL`,
      chunk,
    )) {
      const m = byHost.get(String(p.host_id));
      if (!m) continue;
      add(String(p.source_id), String(p.plugin_id), m.from, -1);
      add(String(p.source_id), String(p.plugin_id), m.to, +1);
    }
  }
  const rows = [...delta.values()].filter((d) => d.n !== 0);
  const per = 200;
  for (let i = 0; i < rows.length; i += per) {
    const part = rows.slice(i, i + per);
    const values = part.map(() => '(?, ?, ?, ?)').join(', ');
    await tx.run(
      `INSERT INTO sum_plugin_owners (source_id, plugin_id, owner, hosts) VALUES ${values}
       ON CONFLICT (source_id, plugin_id, owner) DO UPDATE SET hosts = sum_plugin_owners.hosts + excluded.hosts`,
      part.flatMap((d) => [d.source, d.plugin, d.owner, d.n]),
    );
    // An owner left with no host of the plugin is no longer one of its owners (nor is a count below
    // zero, from a finding the summaries had not seen yet: the next rebuild counts it).
    const gone = part.filter((d) => d.n < 0);
    if (gone.length > 0)
      await tx.run(
        `DELETE FROM sum_plugin_owners WHERE hosts <= 0 AND (source_id, plugin_id, owner) IN (VALUES ${gone.map(() => '(?, ?, ?)').join(', ')})`,
        gone.flatMap((d) => [d.source, d.plugin, d.owner]),
      );
  }
}

/** Counts the owners per plugin of every summarised source again from its findings (a pass that moved many hosts). */
export async function recountPluginOwners(tx: Driver): Promise<void> {
  for (const r of await tx.all(`SELECT "source_id" FROM sum_state`)) {
    const id = String(r.source_id);
    await tx.run(`DELETE FROM sum_plugin_owners WHERE source_id = ?`, [id]);
    await tx.run(`INSERT INTO sum_plugin_owners (source_id, plugin_id, owner, hosts) ${PLUGIN_OWNERS_SELECT}`, [id]);
  }
}
