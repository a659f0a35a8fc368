// Everything a command or the server needs, opened once: paths, store, logger, connectors.
import { join, resolve } from 'node:path';
import { type ConnectorRegistry, defaultRegistry } from '../connectors/registry.ts';
import { drainScheduledExports } from '../export/schedule.ts';
import { closeFileDrop } from '../filedrop/resolve.ts';
import { createLogger, type Logger } from '../core/log.ts';
import { loadMasterKey, SecretBox } from '../core/secrets.ts';
import { Store } from '../store/store.ts';

export interface AppOptions {
  dataDir?: string;
  db?: string;
  /** Where the buckets live: `file:DIR` or `s3:` (default TRIBUTARY_FILE_DROP, else `file:<data-dir>/drop`). */
  fileDrop?: string;
  log?: Logger;
  registry?: ConnectorRegistry;
  env?: NodeJS.ProcessEnv;
}

export interface AppContext {
  dataDir: string;
  dbUrl: string;
  store: Store;
  log: Logger;
  registry: ConnectorRegistry;
  /** The --file-drop URL when given; the file-drop layer falls back to TRIBUTARY_FILE_DROP and the data dir. */
  fileDrop?: string;
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export function resolvePaths(opts: AppOptions): { dataDir: string; dbUrl: string } {
  const env = opts.env ?? process.env;
  const dataDir = resolve(opts.dataDir ?? env.TRIBUTARY_DATA_DIR ?? './data');
  const dbUrl = opts.db ?? env.TRIBUTARY_DATABASE_URL ?? `sqlite:${join(dataDir, 'tributary.db')}`;
  return { dataDir, dbUrl };
}

export async function openApp(opts: AppOptions = {}): Promise<AppContext> {
  const { dataDir, dbUrl } = resolvePaths(opts);
  const log = opts.log ?? createLogger();
  const registry = opts.registry ?? (await defaultRegistry());
  const box = new SecretBox(loadMasterKey(join(dataDir, 'master.key'), opts.env ?? process.env));
  const store = await Store.open(dbUrl, box, (type) => registry.secretKeys(type));
  const app: AppContext = {
    dataDir,
    dbUrl,
    store,
    log,
    registry,
    fileDrop: opts.fileDrop,
    env: opts.env ?? process.env,
    close: async () => {
      // Scheduled exports started after a sync finish first (the CLI's `sync` waits for them here).
      await drainScheduledExports(app);
      await closeFileDrop(app);
      await store.close();
    },
  };
  return app;
}
