// The two stores every store-level test runs against: SQLite in a temp dir, and PostgreSQL in a fresh
// database on the local server (127.0.0.1:5432), dropped afterwards.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

// Every test that writes records fails on a field its model does not have (store/records/upsert.ts checkFields).
process.env.TRIBUTARY_STRICT_FIELDS ??= '1';

export const PG_ADMIN_URL = process.env.TRIBUTARY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  kind: 'sqlite' | 'postgres';
  url: string;
  dataDir: string;
  drop(): Promise<void>;
}

export function tempDir(prefix = 'tributary-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export async function createSqlite(): Promise<TestDatabase> {
  const dataDir = tempDir();
  return {
    kind: 'sqlite',
    url: `sqlite:${join(dataDir, 'tributary.db')}`,
    dataDir,
    drop: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

export async function createPostgres(): Promise<TestDatabase> {
  const name = `tributary_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const base = new URL(PG_ADMIN_URL);
  base.pathname = `/${name}`;
  const dataDir = tempDir();
  return {
    kind: 'postgres',
    url: base.toString(),
    dataDir,
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      try {
        await c.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [name]);
        await c.query(`DROP DATABASE IF EXISTS ${name}`);
      } finally {
        await c.end();
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Both backends; PostgreSQL is required unless TRIBUTARY_TEST_PG=off (then its tests say why they skip). */
export const BACKENDS: { kind: 'sqlite' | 'postgres'; create: () => Promise<TestDatabase>; skip: string | false }[] = [
  { kind: 'sqlite', create: createSqlite, skip: false },
  { kind: 'postgres', create: createPostgres, skip: process.env.TRIBUTARY_TEST_PG === 'off' ? 'TRIBUTARY_TEST_PG=off' : false },
];
