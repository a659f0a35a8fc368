// A scratch store for a benchmark: a SQLite file in a temp dir, or a fresh PostgreSQL database created
// beside the one `pgUrl` names; removed (dropped) when the work is done, however it ends.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { tempDir } from '../test/helpers/databases.ts';

export async function withScratchDatabase<T>(kind: 'sqlite' | 'postgres', pgUrl: string, fn: (url: string) => Promise<T>): Promise<T> {
  if (kind === 'sqlite') {
    const dir = tempDir('tributary-bench-');
    try {
      return await fn(`sqlite:${join(dir, 'tributary.db')}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const name = `tributary_bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  try {
    return await fn(url.toString());
  } finally {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  }
}
