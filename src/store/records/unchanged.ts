// A page's rows that the table already holds as they are, but for when they were seen (issue 30: an
// incremental run re-reads every finding a rescan saw, nearly all of them unchanged): only their
// last-seen time and run stamps are written, by a narrow UPDATE that maintains no index but last seen's,
// fires no trigger (none of the columns it watches is set), and needs no change event, summary image,
// open-age or fix-fact bookkeeping (none of what those follow changed). The other rows go through the
// page's whole upsert, as every row did before.
import type { Driver } from '../db/driver.ts';
import { q } from '../db/names.ts';

/** The narrow statement of one upsert shape (plain data: it travels to the SQLite page writer's thread). */
export interface UnchangedSql {
  /** SQLite, one row: params last_seen, seen_gen, seen_run, id, seen_gen, then the row's values at `params`. */
  sqlite: string;
  params: number[];
  /** PostgreSQL, the page's rows at once (JSON objects keyed by column): returns the ids it stamped. */
  postgres: string;
  /** PostgreSQL's JSON keys: each compared column and where the row holds it. */
  columns: [string, number][];
}

/** Where the leading columns sit in an upsert row (upsert.ts prepareUpserts). */
const AT = { id: 0, lastSeen: 5, seenGen: 7, seenRun: 8 };

/**
 * The statement for rows of `table` whose columns `compare` (name and place in the row) hold what the
 * row holds. `status` (findings): compared as the upsert would write it (seen open after a fix is
 * reopened). `bare` (hosts): a bare row the store made (seen_run NULL) is not stamped here: its first
 * write by upstream is an event. A row written earlier in the same generation (another row of the same
 * record) is not either: the upsert merges the two.
 */
export function unchangedSql(table: string, compare: [string, number][], status: string | null, bare: boolean): UnchangedSql {
  const t = q(table);
  const where = (eq: (c: string) => string, statusEq: string, gen: string) =>
    [`${gen}`, `t."removed" = 0`, ...(bare ? [`t."seen_run" IS NOT NULL`] : []), ...compare.map(([c]) => (c === status ? statusEq : eq(c)))].join(' AND ');
  const s = status ? q(status) : '';
  const sqliteWhere = where(
    (c) => `t.${q(c)} IS ?`,
    `t.${s} IS (CASE WHEN ? = 'open' AND t.${s} IN ('fixed', 'reopened') THEN 'reopened' ELSE ? END)`,
    `t."seen_gen" IS NOT ?`,
  );
  const params: number[] = [];
  for (const [c, at] of compare) params.push(...(c === status ? [at, at] : [at]));
  const pgWhere = where(
    (c) => `t.${q(c)} IS NOT DISTINCT FROM p.${q(c)}`,
    `t.${s} IS NOT DISTINCT FROM (CASE WHEN p.${s} = 'open' AND t.${s} IN ('fixed', 'reopened') THEN 'reopened' ELSE p.${s} END)`,
    `t."seen_gen" IS DISTINCT FROM p."seen_gen"`,
  );
  return {
    sqlite: `UPDATE ${t} AS t SET "last_seen" = ?, "seen_gen" = ?, "seen_run" = ? WHERE t."id" = ? AND ${sqliteWhere}`,
    params,
    postgres: `UPDATE ${t} AS t SET "last_seen" = p."last_seen", "seen_gen" = p."seen_gen", "seen_run" = p."seen_run"
FROM json_populate_recordset(NULL::${t}, CAST(? AS json)) AS p WHERE t."id" = p."id" AND ${pgWhere} RETURNING t."id"`,
    columns: compare,
  };
}

/** Stamps the rows the table holds unchanged (in the caller's transaction): their ids. */
export async function stampUnchanged(tx: Driver, u: UnchangedSql, rows: unknown[][]): Promise<Set<string>> {
  const same = new Set<string>();
  if (tx.dialect === 'postgres') {
    const objects = rows.map((r) => {
      const o: Record<string, unknown> = { id: r[AT.id], last_seen: r[AT.lastSeen], seen_gen: r[AT.seenGen], seen_run: r[AT.seenRun] };
      for (const [c, at] of u.columns) o[c] = r[at] ?? null;
      return o;
    });
    for (const r of await tx.all<{ id: string }>(u.postgres, [JSON.stringify(objects)])) same.add(r.id);
    return same;
  }
  for (const r of rows) {
    const params = [r[AT.lastSeen], r[AT.seenGen], r[AT.seenRun], r[AT.id], r[AT.seenGen]];
    for (const at of u.params) params.push(r[at] ?? null);
    if ((await tx.run(u.sqlite, params)) > 0) same.add(r[AT.id] as string);
  }
  return same;
}
