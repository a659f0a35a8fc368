// SQLite through the built-in node:sqlite: synchronous calls behind the async Driver interface.
// One connection per process; a mutex keeps one logical transaction at a time on it, so an API
// read can never end up inside a sync's page transaction.
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import type { ArrayRows, Driver, InsertSql, Row, TransactionOptions } from './driver.ts';
import { BUSY_TIMEOUT_MS } from './sqlite-waits.ts';

class Mutex {
  #tail: Promise<void> = Promise.resolve();
  async lock(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((r) => {
      release = r;
    });
    const prev = this.#tail;
    this.#tail = prev.then(() => next);
    await prev;
    return release;
  }
}

class SqliteDriver implements Driver {
  readonly dialect = 'sqlite' as const;
  readonly #db: DatabaseSync;
  readonly #stmts: Map<string, StatementSync>;
  /** Statements that return arrays (apart: returning arrays would change a cached statement's rows for every caller). */
  readonly #arrayStmts = new Map<string, { stmt: StatementSync; columns: string[] }>();
  readonly #mutex: Mutex;
  readonly #inTx: boolean;

  constructor(db: DatabaseSync, mutex: Mutex, inTx: boolean, stmts = new Map<string, StatementSync>()) {
    this.#db = db;
    this.#mutex = mutex;
    this.#inTx = inTx;
    this.#stmts = stmts;
  }

  #prepare(sql: string): StatementSync {
    let s = this.#stmts.get(sql);
    if (!s) {
      s = this.#db.prepare(sql);
      if (this.#stmts.size > 500) this.#stmts.clear();
      this.#stmts.set(sql, s);
    }
    return s;
  }

  async exec(sql: string): Promise<void> {
    this.#db.exec(sql);
  }

  async all<T extends Row = Row>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.#prepare(sql).all(...(params as SQLInputValue[])) as T[];
  }

  async allArrays(sql: string, params: unknown[] = []): Promise<ArrayRows> {
    let s = this.#arrayStmts.get(sql);
    if (!s) {
      const stmt = this.#db.prepare(sql);
      stmt.setReturnArrays(true);
      s = { stmt, columns: stmt.columns().map((c) => c.name) };
      if (this.#arrayStmts.size > 50) this.#arrayStmts.clear();
      this.#arrayStmts.set(sql, s);
    }
    return { columns: s.columns, rows: s.stmt.all(...(params as SQLInputValue[])) as unknown as unknown[][] };
  }

  async eachArray(sql: string, params: unknown[], fn: (row: unknown[]) => void): Promise<void> {
    // A statement of its own: returning arrays would change the cached one's rows for every caller.
    const stmt = this.#db.prepare(sql);
    stmt.setReturnArrays(true);
    for (const row of stmt.iterate(...(params as SQLInputValue[]))) fn(row as unknown as unknown[]);
  }

  async run(sql: string, params: unknown[] = []): Promise<number> {
    if (this.#inTx) return Number(this.#prepare(sql).run(...(params as SQLInputValue[])).changes);
    const release = await this.#mutex.lock();
    try {
      return Number(this.#prepare(sql).run(...(params as SQLInputValue[])).changes);
    } finally {
      release();
    }
  }

  async insertMany(ins: InsertSql, rows: unknown[][]): Promise<void> {
    const placeholders = '(' + new Array(ins.columns).fill('?').join(',') + ')';
    const stmt = this.#prepare(`${ins.head} VALUES ${placeholders}${ins.tail}`);
    for (const r of rows) stmt.run(...(r as SQLInputValue[]));
  }

  async transaction<T>(fn: (tx: Driver) => Promise<T>, opts?: TransactionOptions): Promise<T> {
    if (this.#inTx) return this.#withLast(fn, this, opts);
    const release = await this.#mutex.lock();
    const tx = new SqliteDriver(this.#db, this.#mutex, true, this.#stmts);
    try {
      this.#db.exec('BEGIN IMMEDIATE');
      try {
        const out = await this.#withLast(fn, tx, opts);
        this.#db.exec('COMMIT');
        return out;
      } catch (err) {
        this.#db.exec('ROLLBACK');
        throw err;
      }
    } finally {
      release();
    }
  }

  async #withLast<T>(fn: (tx: Driver) => Promise<T>, tx: Driver, opts?: TransactionOptions): Promise<T> {
    const out = await fn(tx);
    if (opts?.last) await tx.run(opts.last.sql, opts.last.params);
    return out;
  }

  async close(): Promise<void> {
    this.#db.close();
  }
}

export function openSqlite(path: string, opts: { busyTimeoutMs?: number } = {}): Driver {
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true });
    // Created 0600 like the key: it holds the inventory and the sealed secrets. SQLite gives its WAL
    // and shared-memory files the database file's mode.
    if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  }
  const db = new DatabaseSync(path);
  // WAL lets the CLI read while a server syncs; busy_timeout waits for another process's write.
  // Checkpointing the WAL every ~40 MiB instead of every 4 MiB: a bulk import's commit touches MiBs of
  // pages (random-keyed id indexes), so the default checkpointed (and synced) after nearly every commit;
  // now a page written by several commits is copied into the database once.
  const busy = Math.max(0, Math.floor(opts.busyTimeoutMs ?? BUSY_TIMEOUT_MS));
  db.exec(
    `PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = ${busy}; PRAGMA foreign_keys = OFF; PRAGMA wal_autocheckpoint = 10000;`,
  );
  return new SqliteDriver(db, new Mutex(), false);
}
