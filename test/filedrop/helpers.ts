// An app on a test database with its file drop where the test wants it, and readers of what a
// file-drop backend holds.
import { createHash } from 'node:crypto';
import { type AppContext, openApp } from '../../src/app/context.ts';
import { defaultRegistry } from '../../src/connectors/registry.ts';
import { silentLogger } from '../../src/core/log.ts';
import type { FileDropBackend } from '../../src/filedrop/backend.ts';
import type { BucketObject } from '../../src/core/files.ts';
import { closeFileDrop, type FileDropSettings, setFileDrop } from '../../src/filedrop/resolve.ts';
import type { TestDatabase } from '../helpers/databases.ts';

/** An app with the file-drop settings a test may give it. */
export type FileDropApp = AppContext & FileDropSettings;

export async function openTestApp(
  db: TestDatabase,
  opts: { fileDrop?: string | FileDropBackend; env?: NodeJS.ProcessEnv; maxUploadBytes?: number } = {},
): Promise<FileDropApp> {
  const env = { TRIBUTARY_MASTER_KEY: Buffer.alloc(32, 9).toString('base64'), ...(opts.env ?? {}) };
  const base: AppContext = await openApp({ dataDir: db.dataDir, db: db.url, registry: await defaultRegistry(), log: silentLogger, env });
  const app: FileDropApp = Object.assign(base, { env, maxUploadBytes: opts.maxUploadBytes });
  if (opts.fileDrop) setFileDrop(app, opts.fileDrop);
  const close = base.close;
  app.close = async () => {
    await closeFileDrop(app);
    await close();
  };
  return app;
}

export async function readAll(stream: AsyncIterable<Uint8Array | string>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(Buffer.from(c));
  return Buffer.concat(parts).toString('utf8');
}

/** What a bucket of the backend holds, in its listing order. */
export async function listAll(backend: Pick<FileDropBackend, 'list'>, bucket: string): Promise<BucketObject[]> {
  const out: BucketObject[] = [];
  for await (const o of backend.list(bucket)) out.push(o);
  return out;
}

/** The MD5 hex digest (what a backend reports as a simple object's ETag). */
export const md5 = (s: string | Buffer): string => createHash('md5').update(s).digest('hex');
