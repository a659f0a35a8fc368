// How long a SQLite connection waits for another's write lock: apart from sqlite.ts, so the store can
// name them without loading node:sqlite on a PostgreSQL deployment.

/** How long a statement waits for another connection's write before it fails with "database is locked". */
export const BUSY_TIMEOUT_MS = 10_000;

/**
 * How long a write waits where the other writer is this process's own long transaction (a run's
 * epilogue against the page writer's index builds, each holding the lock while it sorts a table):
 * longer than either takes at millions of findings on a slow machine, so neither fails a run that
 * only had to wait.
 */
export const LONG_WAIT_MS = 10 * 60 * 1000;
