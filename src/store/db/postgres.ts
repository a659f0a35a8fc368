// PostgreSQL through `pg`: a pool; transactions pin one client. Bulk inserts of many rows: rows new to
// the table are COPYed into it; rows it holds go through COPY into a session-local staging table, then
// one INSERT … SELECT … ON CONFLICT into the real table; a few rows go as one multi-row INSERT.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { type ArrayRows, type Driver, type InsertSql, numberPlaceholders, type Row, type TransactionOptions } from './driver.ts';

// PostgreSQL accepts at most 65535 bind parameters per statement.
const MAX_PARAMS = 60_000;
const MAX_ROWS = 1000;
/** From this many rows on, COPY through the staging table beats a multi-row INSERT. */
const COPY_MIN_ROWS = 64;

/** Staging tables a pooled client has created (temporary tables live as long as its session). */
const staged = new WeakMap<pg.PoolClient, Set<string>>();

/** `INSERT INTO "t" ("a","b")` → the table and the column list. */
function parseHead(head: string): { table: string; columns: string } {
  const m = /^INSERT INTO ("(?:[^"]|"")+") \((.+)\)$/.exec(head);
  if (!m) throw new Error(`cannot stage an insert that does not name its columns: ${head}`);
  return { table: m[1]!, columns: m[2]! };
}

/** One value in COPY's text format. */
function copyText(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  let s: string;
  if (typeof v === 'string') s = v;
  else if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  else if (typeof v === 'boolean') return v ? 't' : 'f';
  else if (v instanceof Date) return v.toISOString();
  else s = JSON.stringify(v);
  return /[\\\t\n\r]/.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r')) : s;
}

/** The size of the buffers COPY's text is written into (a page of findings takes a few). */
const COPY_CHUNK = 256 * 1024;

/**
 * Rows in COPY's text format, encoded line by line into buffers outside the JavaScript heap, a buffer
 * at a time. Built as one string, a page's text would be the largest allocation of a sync (each value
 * joined to the line, each line to the text, then the whole flattened and encoded once more).
 */
export function* copyChunksOf(rows: unknown[][]): Generator<Buffer> {
  let buf = Buffer.allocUnsafe(COPY_CHUNK);
  let at = 0;
  for (const r of rows) {
    let line = r.length > 0 ? copyText(r[0]) : '';
    for (let j = 1; j < r.length; j++) line += '\t' + copyText(r[j]);
    line += '\n';
    // UTF-8 takes at most three bytes per UTF-16 unit.
    const most = line.length * 3;
    if (at + most > buf.length) {
      if (at > 0) yield buf.subarray(0, at);
      buf = Buffer.allocUnsafe(Math.max(COPY_CHUNK, most));
      at = 0;
    }
    at += buf.write(line, at);
  }
  if (at > 0) yield buf.subarray(0, at);
}

/** Every buffer of copyChunksOf at once. */
export function copyChunks(rows: unknown[][]): Buffer[] {
  return [...copyChunksOf(rows)];
}

/**
 * COPY rows (values in the column order) into a table. The text is encoded a buffer ahead of what the
 * connection has sent: the server parses and stores one buffer while the next is encoded (PostgreSQL
 * runs in a process of its own), instead of waiting for the whole page's text first.
 */
async function copyInto(client: pg.PoolClient, table: string, columns: string, rows: unknown[][]): Promise<void> {
  await pipeline(Readable.from(copyChunksOf(rows), { highWaterMark: 1 }), client.query(copyFrom(`COPY ${table} (${columns}) FROM STDIN`)));
}

/** `?` placeholders replaced by the values as SQL literals (strings escaped by the client's own rule). */
export function withLiterals(client: { escapeLiteral(s: string): string }, sql: string, params: unknown[]): string {
  let i = 0;
  const out = sql.replace(/\?/g, () => {
    if (i >= params.length) throw new Error('more placeholders than values');
    const v = params[i++];
    if (v === null || v === undefined) return 'NULL';
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new Error(`not a finite number: ${v}`);
      return String(v);
    }
    if (typeof v === 'bigint') return String(v);
    if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
    return client.escapeLiteral(typeof v === 'string' ? v : JSON.stringify(v));
  });
  if (i !== params.length) throw new Error('more values than placeholders');
  return out;
}

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

  async allArrays(sql: string, params: unknown[] = []): Promise<ArrayRows> {
    const r = await this.#conn.query({ text: numberPlaceholders(sql), values: params, rowMode: 'array' });
    return { columns: r.fields.map((f) => f.name), rows: r.rows as unknown[][] };
  }

  async run(sql: string, params: unknown[] = []): Promise<number> {
    const r = await this.#conn.query(numberPlaceholders(sql), params);
    return r.rowCount ?? 0;
  }

  async insertMany(ins: InsertSql, rows: unknown[][], known?: Set<string>): Promise<void> {
    if (rows.length >= COPY_MIN_ROWS) {
      // The staging table is per session: COPY and the INSERT that reads it must share a client.
      if (this.#conn === this.#pool) return this.transaction((tx) => tx.insertMany(ins, rows, known));
      return this.#copyUpsert(this.#conn as pg.PoolClient, ins, rows, known);
    }
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
      await this.#conn.query(`${ins.head} VALUES ${values.join(',')}${numberPlaceholders(ins.pgTail ?? ins.tail, params.length + 1)}`, params);
    }
  }

  /**
   * Rows whose id the table does not hold yet are COPYed straight into it (a plain insert: no staging,
   * no speculative insertion); the others go through the staging upsert. Only one run per source
   * writes at a time, and ids hash their source's name, so no other writer adds the same ids meanwhile.
   */
  async #copyUpsert(client: pg.PoolClient, ins: InsertSql, rows: unknown[][], known?: Set<string>): Promise<void> {
    const { table, columns } = parseHead(ins.head);
    // A plain insert (no conflict clause) is what COPY does.
    if (!ins.tail && !ins.pgTail) return copyInto(client, table, columns, rows);
    if (columns.startsWith('"id",')) {
      const lookUp = async () =>
        (await client.query(`SELECT "id" FROM ${table} WHERE "id" = ANY($1::text[])`, [rows.map((r) => r[0] as string)])).rows.map((r: { id: string }) => r.id);
      const existing = known ?? new Set(await lookUp());
      const fresh = existing.size === 0 ? rows : rows.filter((r) => !existing.has(r[0] as string));
      if (fresh.length > 0) await copyInto(client, table, columns, fresh);
      if (existing.size > 0)
        await this.#stageUpsert(
          client,
          ins,
          table,
          columns,
          rows.filter((r) => existing.has(r[0] as string)),
        );
      return;
    }
    await this.#stageUpsert(client, ins, table, columns, rows);
  }

  /** COPY the rows into a temporary staging table shaped like the target, then upsert them from it. */
  async #stageUpsert(client: pg.PoolClient, ins: InsertSql, table: string, columns: string, rows: unknown[][]): Promise<void> {
    const stage = `"_stage_${table.slice(1, -1)}"`;
    let tables = staged.get(client);
    if (!tables) {
      tables = new Set();
      staged.set(client, tables);
    }
    if (!tables.has(stage)) {
      await client.query(`CREATE TEMPORARY TABLE IF NOT EXISTS ${stage} (LIKE ${table} INCLUDING DEFAULTS INCLUDING IDENTITY) ON COMMIT DELETE ROWS`);
      tables.add(stage);
    }
    await copyInto(client, stage, columns, rows);
    // Emptied at once: the next batch of this transaction may have other columns.
    await client.query(`${ins.head} SELECT ${columns} FROM ${stage}${ins.pgTail ?? ins.tail}; DELETE FROM ${stage}`);
  }

  async transaction<T>(fn: (tx: Driver) => Promise<T>, opts?: TransactionOptions): Promise<T> {
    if (this.#conn !== this.#pool) {
      const out = await fn(this);
      if (opts?.last) await this.run(opts.last.sql, opts.last.params);
      return out;
    }
    const client = await this.#pool.connect();
    try {
      // One round trip for both (a page's transaction has several; each is a wait on a busy machine).
      await client.query(opts?.flush === false ? 'BEGIN; SET LOCAL synchronous_commit = off' : 'BEGIN');
      try {
        const out = await fn(new PostgresDriver(this.#pool, client));
        // The last statement and the commit in one round trip (a sync page's checkpoint: on a busy
        // machine each round trip is a wait of milliseconds, a thousand pages a first import).
        await client.query(opts?.last ? `${withLiterals(client, opts.last.sql, opts.last.params)}; COMMIT` : 'COMMIT');
        return out;
      } catch (err) {
        // A staging table created in this transaction is gone with it.
        staged.delete(client);
        await client.query('ROLLBACK');
        throw err;
      }
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.#conn !== this.#pool) return;
    // pool.end() resolves once its clients are told to end, not once their sessions are closed: wait for
    // each one's 'remove', so a database dropped (or a server stopped) right after meets no session of
    // ours, and a session cut meanwhile is not an unhandled pool error.
    const pool = this.#pool;
    const open = pool.totalCount;
    let removed = 0;
    const gone = new Promise<void>((resolve) => {
      if (open === 0) resolve();
      pool.on('remove', () => {
        if (++removed >= open) resolve();
      });
    });
    pool.on('error', () => {});
    await pool.end();
    await gone;
  }
}

export async function openPostgres(url: string): Promise<Driver> {
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  // Fail fast with a clear message rather than on the first query.
  const c = await pool.connect();
  c.release();
  return new PostgresDriver(pool, pool);
}
