// A scratch store for a benchmark: a SQLite file in a temp dir, or a fresh PostgreSQL database created
// beside the one `pgUrl` names (optionally a copy of a template database); removed (dropped) when the
// work is done, however it ends.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

async function asAdmin<T>(pgUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: pgUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Creates database `name` (empty, or a copy of `template`) beside the one `pgUrl` names: its URL, and its drop (connections ended first). */
export async function createPostgres(pgUrl: string, name: string, template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  await asAdmin(pgUrl, (c) => c.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`));
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => asAdmin(pgUrl, async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))) };
}

/** A new database under a random name (empty, or a copy of `template`) beside the one `pgUrl` names. */
export function freshPostgres(pgUrl: string, template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  return createPostgres(pgUrl, `tributary_bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`, template);
}

/** Whether a database beside the one `pgUrl` names exists. */
export async function postgresExists(pgUrl: string, name: string): Promise<boolean> {
  return asAdmin(pgUrl, async (c) => ((await c.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name])).rowCount ?? 0) > 0);
}

export async function withScratchDatabase<T>(kind: 'sqlite' | 'postgres', pgUrl: string, fn: (url: string) => Promise<T>): Promise<T> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'tributary-bench-'));
    try {
      return await fn(`sqlite:${join(dir, 'tributary.db')}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const db = await freshPostgres(pgUrl);
  try {
    return await fn(db.url);
  } finally {
    await db.drop();
  }
}
