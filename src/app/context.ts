// Everything a command or the server needs, opened once: paths, store, logger, connectors.
import { join, resolve } from 'node:path';
import { type ConnectorRegistry, defaultRegistry } from '../connectors/registry.ts';
import { createLogger, type Logger } from '../core/log.ts';
import { loadMasterKey, SecretBox } from '../core/secrets.ts';
import { Store } from '../store/store.ts';

export interface AppOptions {
  dataDir?: string;
  db?: string;
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
  return {
    dataDir,
    dbUrl,
    store,
    log,
    registry,
    close: () => store.close(),
  };
}
