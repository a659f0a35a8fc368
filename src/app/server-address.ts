// Where the running `tributary serve` of a data dir listens: written when it starts, removed when it
// stops, so `sources file-drop` prints the address that really answers instead of a guessed default.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FILE = 'server.json';

/** Records the server's address in the data dir; returns the function that removes it again. */
export function recordServerAddress(dataDir: string, url: string): () => void {
  const path = join(dataDir, FILE);
  writeFileSync(path, JSON.stringify({ url, pid: process.pid, startedAt: new Date().toISOString() }) + '\n');
  return () => {
    // Only our own record: another server may have started on this data dir since.
    if (readRecord(path)?.pid === process.pid) rmSync(path, { force: true });
  };
}

/** The address of the server running on this data dir, or null when none is (a stale record is ignored). */
export function runningServerAddress(dataDir: string): string | null {
  const rec = readRecord(join(dataDir, FILE));
  if (!rec || !alive(rec.pid)) return null;
  return rec.url;
}

function readRecord(path: string): { url: string; pid: number } | null {
  try {
    const r = JSON.parse(readFileSync(path, 'utf8')) as { url?: unknown; pid?: unknown };
    return typeof r.url === 'string' && typeof r.pid === 'number' ? { url: r.url, pid: r.pid } : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
