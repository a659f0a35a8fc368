// PostgreSQL through `pg`: a pool; transactions pin one client. Bulk inserts go as multi-row
// statements (a page of records is a handful of round trips, not one per row).
import pg from 'pg';
import { type Driver, type InsertSql, numberPlaceholders, type Row } from './driver.ts';

// PostgreSQL accepts at most 65535 bind parameters per statement.
const MAX_PARAMS = 60_000;
const MAX_ROWS = 1000;

type Queryable = pg.Pool | pg.PoolClient;

class PostgresDriver implements Driver {
  readonly dialect = 'postgres' as const;
  readonly #pool: pg.Pool;
  readonly #conn: Queryable;

  constructor(pool: pg.Pool, conn: Queryable) {
    this.#pool = pool;
    this.#conn = conn;
  }

  async exec(sql: string): Promise<void> {
    await this.#conn.query(sql);
  }

  async all<T extends Row = Row>(sql: string, params: unknown[] = []): Promise<T[]> {
    const r = await this.#conn.query(numberPlaceholders(sql), params);
    return r.rows as T[];
  }

  async run(sql: string, params: unknown[] = []): Promise<number> {
    const r = await this.#conn.query(numberPlaceholders(sql), params);
    return r.rowCount ?? 0;
  }

  async insertMany(ins: InsertSql, rows: unknown[][]): Promise<void> {
    const perStatement = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMS / ins.columns)));
    for (let i = 0; i < rows.length; i += perStatement) {
      const chunk = rows.slice(i, i + perStatement);
      const values: string[] = [];
      const params: unknown[] = [];
      for (const r of chunk) {
        const base = params.length;
        values.push('(' + r.map((_, j) => `$${base + j + 1}`).join(',') + ')');
        params.push(...r);
      }
      await this.#conn.query(`${ins.head} VALUES ${values.join(',')}${numberPlaceholders(ins.tail, params.length + 1)}`, params);
    }
  }

  async transaction<T>(fn: (tx: Driver) => Promise<T>): Promise<T> {
    if (this.#conn !== this.#pool) return fn(this);
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      try {
        const out = await fn(new PostgresDriver(this.#pool, client));
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.#conn === this.#pool) await this.#pool.end();
  }
}

export async function openPostgres(url: string): Promise<Driver> {
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  // Fail fast with a clear message rather than on the first query.
  const c = await pool.connect();
  c.release();
  return new PostgresDriver(pool, pool);
}
