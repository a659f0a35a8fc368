// Open findings by SSVC decision per host placement (assetId, owner or department), or in all: from the
// per-host summaries, less the findings an approved risk exception covers (docs/findings.md); a page of
// the groups (most Act first) and their number.
import type { Driver } from '../db/driver.ts';
import { placeholders, sqlRound1 } from '../db/sql.ts';
import { nowIso } from '../db/rows.ts';
import { anyActiveException, exceptedFindingsClause } from '../exceptions/exceptions.ts';
import { ensureSummariesFor } from './summary-tables-write.ts';

export type DecisionGroupBy = 'assetId' | 'owner' | 'department';

export interface DecisionCount {
  group: string | null;
  act: number;
  attend: number;
  trackStar: number;
  track: number;
  priority: number;
}

export interface DecisionCountsPage {
  /** Rows (the page asked for), most Act first, then most priority, then by group (none last). */
  items: DecisionCount[];
  /** The groups before paging. */
  total: number;
}

/** `limit`: rows in the page (all without); `offset`: rows skipped. */
export interface ReportPage {
  limit?: number;
  offset?: number;
}

/** The order of the rows, total and deterministic: most Act, most priority, then the group (none last). */
function byActThenPriority(a: DecisionCount, b: DecisionCount): number {
  if (b.act !== a.act) return b.act - a.act;
  if (b.priority !== a.priority) return b.priority - a.priority;
  if (a.group === b.group) return 0;
  if (a.group === null) return 1;
  if (b.group === null) return -1;
  return a.group < b.group ? -1 : 1;
}

/** Open findings by decision in all (one row), or per placement: the whole list, most Act first. */
export async function decisionCounts(db: Driver, by: DecisionGroupBy | null, sourceIds?: string[]): Promise<DecisionCount[]> {
  return (await decisionCountsPage(db, by, sourceIds)).items;
}

/**
 * A page of the open findings by decision per placement. Without an approved, unexpired exception the
 * summaries' groups are ordered and cut in SQL (20,000 assets at 1M findings: only the page reaches the
 * process and the answer); with one, every group is adjusted first and then ordered and cut here.
 */
export async function decisionCountsPage(db: Driver, by: DecisionGroupBy | null, sourceIds?: string[], page: ReportPage = {}): Promise<DecisionCountsPage> {
  if (sourceIds?.length === 0) return { items: [], total: 0 };
  await ensureSummariesFor(db, sourceIds);
  const column = by === null ? null : { assetId: 'asset_id', owner: 'owner', department: 'department' }[by];
  const offset = page.offset ?? 0;
  const now = nowIso();
  const excepted = await anyActiveException(db, now);
  if (column !== null && !excepted) return groupsPage(db, column, sourceIds, page.limit, offset);
  const all = (await adjusted(db, column, sourceIds, excepted ? now : null)).sort(byActThenPriority);
  return { items: all.slice(offset, page.limit === undefined ? undefined : offset + page.limit), total: all.length };
}

const sumsOf = (db: Driver) =>
  `COALESCE(SUM(s."act"), 0) AS "act", COALESCE(SUM(s."attend"), 0) AS "attend", COALESCE(SUM(s."track_star"), 0) AS "track_star",
   COALESCE(SUM(s."track"), 0) AS "track", ${sqlRound1(db, 'COALESCE(SUM(s."priority"), 0)')} AS "p"`;

function rowOf(r: Record<string, unknown>): DecisionCount {
  return {
    group: (r.g ?? null) as string | null,
    act: Number(r.act ?? 0),
    attend: Number(r.attend ?? 0),
    trackStar: Number(r.track_star ?? 0),
    track: Number(r.track ?? 0),
    priority: Number(r.p ?? 0),
  };
}

/**
 * The groups with open findings, ordered as byActThenPriority, with their number: a page ordered and cut
 * in SQL (a top-N sort, its number from a window count); the whole list sorted here (an SQL sort of every
 * group behind a window count took longer than the list's sort in the process), from the same rows.
 */
async function groupsPage(db: Driver, column: string, sourceIds: string[] | undefined, limit: number | undefined, offset: number): Promise<DecisionCountsPage> {
  const params: unknown[] = [...(sourceIds ?? [])];
  const grouped = `SELECT s."${column}" AS "g", ${sumsOf(db)} FROM "sum_hosts" s${sourceIds ? ` WHERE s."source_id" IN ${placeholders(sourceIds)}` : ''}
     GROUP BY s."${column}" HAVING COALESCE(SUM(s."act"), 0) + COALESCE(SUM(s."attend"), 0) + COALESCE(SUM(s."track_star"), 0) + COALESCE(SUM(s."track"), 0) > 0`;
  if (limit === undefined) {
    const all = (await db.all(grouped, params)).map(rowOf).sort(byActThenPriority);
    return { items: all.slice(offset), total: all.length };
  }
  // The group's text compares in byte order on both stores (PostgreSQL's text columns are COLLATE "C"), as here.
  const rows = await db.all(
    `SELECT x.*, COUNT(*) OVER () AS "total" FROM (${grouped}) x
     ORDER BY x."act" DESC, x."p" DESC, CASE WHEN x."g" IS NULL THEN 1 ELSE 0 END, x."g" LIMIT ? OFFSET ?`,
    [...params, limit, offset],
  );
  if (rows.length > 0) return { items: rows.map(rowOf), total: Number(rows[0]!.total) };
  // A page past the end: its number of groups counted on its own.
  const total = offset === 0 ? 0 : Number((await db.all(`SELECT COUNT(*) AS "n" FROM (${grouped}) x`, params))[0]?.n ?? 0);
  return { items: [], total };
}

/**
 * Every group (or the one row of all) from the summaries, less the open findings an approved exception
 * unexpired at `exceptedAt` covers (null: none is).
 */
async function adjusted(db: Driver, column: string | null, sourceIds: string[] | undefined, exceptedAt: string | null): Promise<DecisionCount[]> {
  const params: unknown[] = [];
  let where = '';
  if (sourceIds) {
    where = ` WHERE s."source_id" IN ${placeholders(sourceIds)}`;
    params.push(...sourceIds);
  }
  // The host summaries carry their host's placement (kept by correlation): no join with the hosts. The
  // priority stays unrounded until the exceptions' share is taken off.
  const rows = await db.all(
    `SELECT ${column ? `s."${column}"` : 'NULL'} AS "g", SUM(s."act") AS "act", SUM(s."attend") AS "attend", SUM(s."track_star") AS "track_star", SUM(s."track") AS "track",
       SUM(s."priority") AS "p"
     FROM "sum_hosts" s${where}${column ? ` GROUP BY s."${column}"` : ''}`,
    params,
  );
  const out = rows.map(rowOf);
  if (exceptedAt !== null) {
    const col = column && `h."${column}"`;
    const xp: unknown[] = [];
    const excepted = exceptedFindingsClause('r', exceptedAt, xp);
    const xrows = await db.all(
      `SELECT ${col ?? 'NULL'} AS "g", r."decision" AS "d", COUNT(*) AS "n", SUM(COALESCE(r."priority", 0)) AS "p"
       FROM "rec_vulnerabilities" r${col ? ` LEFT JOIN "rec_hosts" h ON h."id" = r."host_id"` : ''}
       WHERE r."removed" = 0 AND r."status" IN ('open', 'reopened') AND ${excepted}${sourceIds ? ` AND r."source_id" IN ${placeholders(sourceIds)}` : ''} GROUP BY ${col ? `${col}, ` : ''}r."decision"`,
      [...xp, ...(sourceIds ?? [])],
    );
    const key = { act: 'act', attend: 'attend', 'track-star': 'trackStar', track: 'track' } as const;
    const byGroup = new Map(out.map((o) => [o.group, o]));
    for (const x of xrows) {
      const row = byGroup.get((x.g ?? null) as string | null);
      const k = key[String(x.d) as keyof typeof key];
      if (!row || !k) continue;
      row[k] = Math.max(0, row[k] - Number(x.n));
      row.priority = Math.max(0, row.priority - Number(x.p ?? 0));
    }
  }
  return out.map((o) => ({ ...o, priority: Math.round(o.priority * 10) / 10 })).filter((o) => o.act + o.attend + o.trackStar + o.track > 0 || column === null);
}
