// The fixes' rows (fix-facts.ts) summed per source, severity and day they count on (issue 30 target 4):
// fixes, those with a known date, their days to remediate and the trends' net openings per day
// (`sum_fix_days`), and how many dated fixes fall in each whole day (`sum_fix_fine`) and each 32 days
// (`sum_fix_coarse`) of days to remediate. Kept in the transaction of the page or sweep that changes the
// rows (fix-facts.ts hands over the rows it added, and the rows it changed as they were and are), so a
// window's counts read its days' sums (a row per source, severity and day, whatever the fixes in it)
// and its median walks the coarse then the fine counts to the one whole day holding it, read from the
// fixes' (source, severity, days) index: a few hundred rows, not every fix dated in the window (941 ms
// for the trends of 30 days at 954,240 findings). A window's partial first or last day reads its rows.
// A row's day is the first ten characters of its date (the store's times are ISO-8601 UTC).
import type { Driver } from '../db/driver.ts';
import { placeholders } from '../db/sql.ts';

/** The whole days of a fix's days to remediate (d ≥ 0), in each dialect. */
const fine = (dialect: 'sqlite' | 'postgres', d = 'd') => (dialect === 'postgres' ? `CAST(FLOOR(${d}) AS BIGINT)` : `CAST(${d} AS INTEGER)`);
const COARSE = 32;

/** The tables' rows from the fixes' rows as stored (migration 47's fill; a test compares it with the sums kept): table, its columns, the fill. */
export function fixDaysFill(dialect: 'sqlite' | 'postgres'): [string, string, string][] {
  const f = fine(dialect);
  const day = 'SUBSTR(dated_at, 1, 10)';
  const severity = "COALESCE(severity, '')";
  return [
    [
      'sum_fix_days',
      'source_id, severity, day, fixes, dated, total, moves',
      `SELECT source_id, ${severity}, ${day}, SUM(CASE WHEN kind = 'fix' THEN 1 ELSE 0 END), COUNT(d), COALESCE(SUM(d), 0), SUM(moves)
FROM sum_fixes GROUP BY source_id, ${severity}, ${day}`,
    ],
    [
      'sum_fix_coarse',
      'source_id, severity, day, bucket, n',
      `SELECT source_id, ${severity}, ${day}, ${f} / ${COARSE}, COUNT(*) FROM sum_fixes WHERE d IS NOT NULL GROUP BY source_id, ${severity}, ${day}, ${f} / ${COARSE}`,
    ],
    [
      'sum_fix_fine',
      'source_id, severity, coarse, day, bucket, n',
      `SELECT source_id, ${severity}, ${f} / ${COARSE}, ${day}, ${f}, COUNT(*) FROM sum_fixes WHERE d IS NOT NULL GROUP BY source_id, ${severity}, ${day}, ${f}`,
    ],
  ];
}

/** Migration 47: the tables, filled from the fixes' rows; their index on (source, severity, days) gains the date (the median's last read is covered). */
export function fixDaysMigration(dialect: 'sqlite' | 'postgres'): string {
  return `
CREATE TABLE sum_fix_days (
  source_id TEXT NOT NULL, severity TEXT NOT NULL, day TEXT NOT NULL,
  fixes BIGINT NOT NULL, dated BIGINT NOT NULL, total DOUBLE PRECISION NOT NULL, moves BIGINT NOT NULL,
  PRIMARY KEY (day, source_id, severity)
);
CREATE TABLE sum_fix_coarse (
  source_id TEXT NOT NULL, severity TEXT NOT NULL, day TEXT NOT NULL, bucket BIGINT NOT NULL, n BIGINT NOT NULL,
  PRIMARY KEY (day, source_id, severity, bucket)
);
CREATE TABLE sum_fix_fine (
  source_id TEXT NOT NULL, severity TEXT NOT NULL, coarse BIGINT NOT NULL, day TEXT NOT NULL, bucket BIGINT NOT NULL, n BIGINT NOT NULL,
  PRIMARY KEY (source_id, severity, coarse, day, bucket)
);
${fixDaysFill(dialect)
  .map(([t, cols, sql]) => `INSERT INTO ${t} (${cols}) ${sql};`)
  .join('\n')}
DROP INDEX sum_fixes_source;
CREATE INDEX sum_fixes_source ON sum_fixes (source_id, severity, d, dated_at);
`;
}

/** A fix's row as fix-facts.ts hands it over (the columns these sums read). */
export interface FixRow {
  source_id: unknown;
  severity: unknown;
  dated_at: unknown;
  d: unknown;
  moves: unknown;
  kind: unknown;
}

/** The columns of a fix's row these sums read, as fix-facts.ts selects or returns them. */
export const FIX_ROW = `source_id, severity, dated_at, d, moves, kind`;

/** Adds the rows of `plus` and takes out those of `minus` (a row changed: as it was); only the sums that change are written. */
export async function shiftFixDays(tx: Driver, plus: FixRow[], minus: FixRow[] = []): Promise<void> {
  const days = new Map<string, [string, string, string, number, number, number, number]>();
  const coarse = new Map<string, [string, string, string, number, number]>();
  const fines = new Map<string, [string, string, number, string, number, number]>();
  const add = (r: FixRow, sign: number) => {
    const s = String(r.source_id);
    const sev = r.severity === null || r.severity === undefined ? '' : String(r.severity);
    const day = String(r.dated_at).slice(0, 10);
    const d = r.d === null || r.d === undefined ? null : Number(r.d);
    const k = `${s}\u0000${sev}\u0000${day}`;
    const row = days.get(k) ?? [s, sev, day, 0, 0, 0, 0];
    if (r.kind === 'fix') row[3] += sign;
    if (d !== null) {
      row[4] += sign;
      row[5] += sign * d;
    }
    row[6] += sign * Number(r.moves);
    days.set(k, row);
    if (d === null) return;
    const b = Math.floor(d);
    const c = Math.floor(b / COARSE);
    const ck = `${k}\u0000${c}`;
    const cr = coarse.get(ck) ?? [s, sev, day, c, 0];
    cr[4] += sign;
    coarse.set(ck, cr);
    const fk = `${k}\u0000${b}`;
    const fr = fines.get(fk) ?? [s, sev, c, day, b, 0];
    fr[5] += sign;
    fines.set(fk, fr);
  };
  for (const r of minus) add(r, -1);
  for (const r of plus) add(r, 1);
  // A row changed in a way these sums do not see (its days within the same whole day) nets to nothing: not written.
  const changed = <T extends unknown[]>(rows: Iterable<T>, counts: number[]) => [...rows].filter((r) => counts.some((i) => r[i] !== 0));
  await upsert(
    tx,
    'sum_fix_days (source_id, severity, day, fixes, dated, total, moves)',
    '(day, source_id, severity)',
    ['fixes', 'dated', 'total', 'moves'],
    changed(days.values(), [3, 4, 5, 6]),
  );
  await upsert(tx, 'sum_fix_coarse (source_id, severity, day, bucket, n)', '(day, source_id, severity, bucket)', ['n'], changed(coarse.values(), [4]));
  await upsert(
    tx,
    'sum_fix_fine (source_id, severity, coarse, day, bucket, n)',
    '(source_id, severity, coarse, day, bucket)',
    ['n'],
    changed(fines.values(), [5]),
  );
}

/** Adds each row's counts to its table's row (made when missing), 200 rows a statement. */
async function upsert(tx: Driver, into: string, key: string, counts: string[], rows: unknown[][]): Promise<void> {
  const table = into.slice(0, into.indexOf(' '));
  const set = counts.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(', ');
  for (let i = 0; i < rows.length; i += 200) {
    const chunk = rows.slice(i, i + 200);
    await tx.run(`INSERT INTO ${into} VALUES ${chunk.map((r) => placeholders(r)).join(', ')} ON CONFLICT ${key} DO UPDATE SET ${set}`, chunk.flat());
  }
}

/** A source removed: its sums go with its rows. */
export async function dropFixDays(tx: Driver, sourceId: string): Promise<void> {
  for (const t of ['sum_fix_days', 'sum_fix_coarse', 'sum_fix_fine']) await tx.run(`DELETE FROM ${t} WHERE source_id = ?`, [sourceId]);
}

/** The trends' net openings per day and severity ('' for none) of the rows dated from `fromDay` on whose event is not after `now`. */
export async function movesByDay(db: Driver, fromDay: string, now: string, sourceIds?: string[]): Promise<{ day: string; severity: string; n: number }[]> {
  const scope = (col: string) => (sourceIds ? ` AND ${col} IN ${placeholders(sourceIds)}` : '');
  const rows = await db.all(
    `SELECT day, severity, SUM(moves) AS n, 1 AS sign FROM sum_fix_days WHERE day >= ?${scope('source_id')} GROUP BY day, severity
UNION ALL
SELECT SUBSTR(e.dated_at, 1, 10), COALESCE(e.severity, ''), SUM(e.moves), -1 FROM sum_fixes e WHERE e.at > ? AND e.dated_at >= ?${scope('e.source_id')}
GROUP BY SUBSTR(e.dated_at, 1, 10), COALESCE(e.severity, '')`,
    [fromDay, ...(sourceIds ?? []), now, fromDay, ...(sourceIds ?? [])],
  );
  return rows.map((r) => ({ day: String(r.day), severity: String(r.severity), n: Number(r.sign) * Number(r.n) }));
}

/** The fixes dated in a window of one group (a source, or all sources together, and a severity; '' for none). */
export interface WindowFixes {
  sourceId: string;
  severity: string;
  fixed: number;
  dated: number;
  totalDays: number;
  medianDays: number | null;
}

const DAY_MS = 86_400_000;
const dayStart = (day: string) => `${day}T00:00:00.000Z`;
const nextDay = (day: string) => new Date(Date.parse(dayStart(day)) + DAY_MS).toISOString().slice(0, 10);

/** One arm of a window: its whole days (over the sums) or a partial day (over the rows `e`), as SQL terms and their parameters. */
interface Arm {
  days: boolean;
  where: string;
  params: unknown[];
}

/** The window [lo, hi) as arms: the whole days [firstDay, endDay) from the sums, the partial days at either end from the rows. */
function windowArms(lo: string | null, hi: string | null, sourceIds: string[] | undefined): Arm[] {
  const firstDay = lo === null ? null : lo === dayStart(lo.slice(0, 10)) ? lo.slice(0, 10) : nextDay(lo.slice(0, 10));
  const endDay = hi === null ? null : hi.slice(0, 10);
  const scope = (col: string) => (sourceIds ? ` AND ${col} IN ${placeholders(sourceIds)}` : '');
  const rows = (a: string | null, b: string | null): Arm => ({
    days: false,
    where: `${a === null ? '1 = 1' : 'e.dated_at >= ?'}${b === null ? '' : ' AND e.dated_at < ?'}${scope('e.source_id')}`,
    params: [...(a === null ? [] : [a]), ...(b === null ? [] : [b]), ...(sourceIds ?? [])],
  });
  if (firstDay !== null && endDay !== null && firstDay > endDay) return [rows(lo, hi)];
  const out: Arm[] = [];
  if (firstDay === null || endDay === null || firstDay < endDay)
    out.push({
      days: true,
      where: `${firstDay === null ? '1 = 1' : 'day >= ?'}${endDay === null ? '' : ' AND day < ?'}${scope('source_id')}`,
      params: [...(firstDay === null ? [] : [firstDay]), ...(endDay === null ? [] : [endDay]), ...(sourceIds ?? [])],
    });
  if (lo !== null && firstDay !== lo.slice(0, 10)) out.push(rows(lo, dayStart(firstDay!)));
  if (hi !== null && hi !== dayStart(endDay!)) out.push(rows(dayStart(endDay!), hi));
  return out;
}

/** A group's terms over a sums table ('') or the rows (`e.`): its severity, and its source or sources (in the rows' (source, severity, days) index order). */
function groupTerms(g: { sourceId: string; severity: string; sources: Set<string> }, bySource: boolean, p: '' | 'e.'): { sql: string; params: unknown[] } {
  const sources = bySource ? [g.sourceId] : [...g.sources];
  const severity = p === '' || g.severity !== '' ? `${p}severity = ?` : `${p}severity IS NULL`;
  return {
    sql: ` AND ${p}source_id IN ${placeholders(sources)} AND ${severity}`,
    params: [...sources, ...(p === '' || g.severity !== '' ? [g.severity] : [])],
  };
}

/** For each wanted position of its group, the bucket holding it and its rank in that bucket, from the buckets' counts (rows of i or group keys, b, n). */
function locate<G>(counts: Map<G, Map<number, number>>, wanted: (readonly [G, number])[]): { bucket: number; rank: number }[] {
  return wanted.map(([g, pos]) => {
    const buckets = [...(counts.get(g) ?? new Map<number, number>()).entries()].sort((a, b) => a[0] - b[0]);
    let before = 0;
    for (const [b, n] of buckets) {
      if (pos < before + n) return { bucket: b, rank: pos - before };
      before += n;
    }
    throw new Error(`fix sums: position ${pos} beyond the ${before} dated fixes counted`);
  });
}

/**
 * The fixes dated in [lo, hi) (ISO-8601 times, either open) per source (bySource; else the given
 * sources, or all, together: sourceId '') and severity ('' for none): how many, how many dated, their
 * days summed and the median of those days (the middle one, or the mean of the middle two), as the rows
 * would give.
 */
export async function windowFixes(
  db: Driver,
  lo: string | null,
  hi: string | null,
  sourceIds: string[] | undefined,
  bySource: boolean,
): Promise<WindowFixes[]> {
  const arms = windowArms(lo, hi, sourceIds);
  if (arms.length === 0) return [];
  const f = fine(db.dialect, 'e.d');
  const union = (parts: { sql: string; params: unknown[] }[]) => ({
    sql: parts.map((x) => x.sql).join('\nUNION ALL\n'),
    params: parts.flatMap((x) => x.params),
  });
  const sums = union(
    arms.map((a) => ({
      sql: a.days
        ? `SELECT source_id, severity, SUM(fixes) AS n, SUM(dated) AS dated, SUM(total) AS total FROM sum_fix_days WHERE ${a.where} GROUP BY source_id, severity`
        : `SELECT e.source_id, COALESCE(e.severity, ''), COUNT(*), COUNT(e.d), COALESCE(SUM(e.d), 0) FROM sum_fixes e WHERE ${a.where} AND e.kind = 'fix' GROUP BY e.source_id, COALESCE(e.severity, '')`,
      params: a.params,
    })),
  );
  type Group = WindowFixes & { sources: Set<string> };
  const groups = new Map<string, Group>();
  const keyOf = (source: unknown, severity: unknown) => `${bySource ? String(source) : ''}\u0000${String(severity)}`;
  for (const r of await db.all(sums.sql, sums.params)) {
    const k = keyOf(r.source_id, r.severity);
    const g = groups.get(k) ?? {
      sourceId: bySource ? String(r.source_id) : '',
      severity: String(r.severity),
      fixed: 0,
      dated: 0,
      totalDays: 0,
      medianDays: null,
      sources: new Set(),
    };
    g.fixed += Number(r.n);
    g.dated += Number(r.dated);
    g.totalDays += Number(r.total ?? 0);
    if (Number(r.dated) > 0) g.sources.add(String(r.source_id));
    groups.set(k, g);
  }
  const live = [...groups.values()].filter((g) => g.fixed !== 0);
  // Each group's middle positions among its dated fixes in ascending days.
  const wanted = live.flatMap((g) =>
    g.dated <= 0 ? [] : g.dated % 2 === 1 ? [[g, (g.dated - 1) / 2] as const] : [[g, g.dated / 2 - 1] as const, [g, g.dated / 2] as const],
  );
  if (wanted.length === 0) return live.map(({ sources: _, ...g }) => g);
  const tally = <G>(rows: Record<string, unknown>[], groupOf: (r: Record<string, unknown>) => G | undefined) => {
    const out = new Map<G, Map<number, number>>();
    for (const r of rows) {
      const g = groupOf(r);
      if (g === undefined) continue;
      const m = out.get(g) ?? new Map<number, number>();
      m.set(Number(r.b), (m.get(Number(r.b)) ?? 0) + Number(r.n));
      out.set(g, m);
    }
    return out;
  };
  // 1. The coarse counts of every group (32 days of days to remediate each): which holds each position.
  const coarse = union(
    arms.map((a) => ({
      sql: a.days
        ? `SELECT source_id, severity, bucket AS b, SUM(n) AS n FROM sum_fix_coarse WHERE ${a.where} GROUP BY source_id, severity, bucket`
        : `SELECT e.source_id, COALESCE(e.severity, ''), ${f} / ${COARSE}, COUNT(*) FROM sum_fixes e WHERE ${a.where} AND e.d IS NOT NULL GROUP BY e.source_id, COALESCE(e.severity, ''), ${f} / ${COARSE}`,
      params: a.params,
    })),
  );
  const inCoarse = locate(
    tally(await db.all(coarse.sql, coarse.params), (r) => groups.get(keyOf(r.source_id, r.severity))),
    wanted,
  );
  // 2. The whole days (of days to remediate) within each position's 32: which holds it.
  const fines = union(
    wanted.flatMap(([g], i) => {
      const c = inCoarse[i]!.bucket;
      return arms.map((a) => {
        const t = groupTerms(g, bySource, a.days ? '' : 'e.');
        return a.days
          ? {
              sql: `SELECT ${i} AS i, bucket AS b, SUM(n) AS n FROM sum_fix_fine WHERE ${a.where}${t.sql} AND coarse = ? GROUP BY bucket`,
              params: [...a.params, ...t.params, c],
            }
          : {
              sql: `SELECT ${i}, ${f}, COUNT(*) FROM sum_fixes e WHERE ${a.where}${t.sql} AND e.d >= ? AND e.d < ? GROUP BY ${f}`,
              params: [...a.params, ...t.params, c * COARSE, (c + 1) * COARSE],
            };
      });
    }),
  );
  const byPosition = tally(await db.all(fines.sql, fines.params), (r) => Number(r.i));
  const inFine = wanted.map((_, i) => locate(byPosition, [[i, inCoarse[i]!.rank] as const])[0]!);
  // 3. Each position's days: its rank among the window's fixes of its group in that whole day, read from the rows' index.
  const exact = union(
    wanted.map(([g], i) => {
      const t = groupTerms(g, bySource, 'e.');
      const w = rowsWindow(lo, hi);
      const b = inFine[i]!.bucket;
      return {
        sql: `SELECT ${i} AS i, d FROM (SELECT e.d AS d FROM sum_fixes e WHERE ${w.where}${t.sql} AND e.d >= ? AND e.d < ? ORDER BY e.d LIMIT 1 OFFSET ?) x${i}`,
        params: [...w.params, ...t.params, b, b + 1, inFine[i]!.rank],
      };
    }),
  );
  const values = new Map<number, number>();
  for (const r of await db.all(exact.sql, exact.params)) values.set(Number(r.i), Number(r.d));
  for (const g of live) {
    const mine = wanted.flatMap(([x], i) => (x === g ? [values.get(i)!] : []));
    if (mine.length > 0) g.medianDays = mine.reduce((a, v) => a + v, 0) / mine.length;
  }
  return live.map(({ sources: _, ...g }) => g);
}

/** The window over the rows: dated at or after lo, before hi. */
function rowsWindow(lo: string | null, hi: string | null): { where: string; params: unknown[] } {
  return {
    where: `${lo === null ? '1 = 1' : 'e.dated_at >= ?'}${hi === null ? '' : ' AND e.dated_at < ?'}`,
    params: [...(lo === null ? [] : [lo]), ...(hi === null ? [] : [hi])],
  };
}
