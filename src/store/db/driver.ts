// The two database drivers behind one minimal interface. All SQL the store writes uses `?`
// placeholders and double-quoted identifiers; the PostgreSQL driver numbers the placeholders.

export type Row = Record<string, unknown>;

export interface Driver {
  readonly dialect: 'sqlite' | 'postgres';
  /** Runs several DDL statements (migrations). */
  exec(sql: string): Promise<void>;
  all<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]>;
  run(sql: string, params?: unknown[]): Promise<number>;
  /**
   * SQLite only: hands each row of a query to `fn` as an array of its columns, one at a time (a scan of
   * a million rows without a million row objects kept).
   */
  eachArray?(sql: string, params: unknown[], fn: (row: unknown[]) => void): Promise<void>;
  /**
   * A query's rows as arrays of their values in the order of `columns` (the names the query selects):
   * no object per row, whose building and keyed reads cost an export more than its values (both drivers).
   */
  allArrays(sql: string, params?: unknown[]): Promise<ArrayRows>;
  /**
   * Inserts many rows through one single-row statement `insertSql` (which ends in an ON CONFLICT
   * clause). SQLite runs a cached prepared statement per row; PostgreSQL batches rows into
   * multi-row statements, so neither does a network round trip per row. `known`, when given, holds
   * which of the rows' ids (first column) the table has (PostgreSQL then does not look them up).
   */
  insertMany(insertSql: InsertSql, rows: unknown[][], known?: Set<string>): Promise<void>;
  /**
   * Runs fn in one transaction; the driver passed to fn is bound to it. `flush: false`: the commit
   * need not wait for the write-ahead log to reach the disk (PostgreSQL's synchronous_commit off, set
   * with the BEGIN; SQLite's synchronous=NORMAL already commits so). `last`: a statement run after fn,
   * just before the commit (PostgreSQL sends the two in one round trip, its values written as literals).
   */
  transaction<T>(fn: (tx: Driver) => Promise<T>, opts?: TransactionOptions): Promise<T>;
  close(): Promise<void>;
}

export interface ArrayRows {
  columns: string[];
  rows: unknown[][];
}

export interface TransactionOptions {
  flush?: boolean;
  last?: { sql: string; params: unknown[] };
}

export interface InsertSql {
  /** `INSERT INTO "t" ("a","b")` */
  head: string;
  columns: number;
  /** ` ON CONFLICT ("id") DO UPDATE SET …` */
  tail: string;
  /** PostgreSQL's spelling of `tail`, where the two dialects differ (JSON functions). */
  pgTail?: string;
}

/** Converts `?` placeholders to `$1…$n` (our SQL never has `?` inside literals). */
export function numberPlaceholders(sql: string, start = 1): string {
  let n = start;
  return sql.replace(/\?/g, () => `$${n++}`);
}

const isPostgresUrl = (url: string) => url.startsWith('postgres://') || url.startsWith('postgresql://');

/** The SQLite database file a store URL names (null for PostgreSQL). */
export function sqlitePathOf(url: string): string | null {
  if (isPostgresUrl(url)) return null;
  return url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : url;
}

export async function openDriver(url: string): Promise<Driver> {
  const path = sqlitePathOf(url);
  if (path === null) {
    const { openPostgres } = await import('./postgres.ts');
    return openPostgres(url);
  }
  const { openSqlite } = await import('./sqlite.ts');
  return openSqlite(path);
}
