// Everything a command or the server needs, opened once: paths, store, logger, connectors.
import { join, resolve } from 'node:path';
import { type ConnectorRegistry, defaultRegistry } from '../connectors/registry.ts';
import { drainAlerts } from '../alerts/index.ts';
import { drainScheduledExports } from '../export/schedule.ts';
import { misplacedFeeds } from '../feeds/drop.ts';
import type { MisplacedFiles } from '../filedrop/context.ts';
import { closeFileDrop } from '../filedrop/resolve.ts';
import { createLogger, type Logger } from '../core/log.ts';
import { randomBytes } from 'node:crypto';
import { InputError } from '../core/errors.ts';
import { readMasterKey, SecretBox, writeMasterKey } from '../core/secrets.ts';
import { openStore, setUnknownFieldReporter, type Store } from '../store/index.ts';

export interface AppOptions {
  dataDir?: string;
  db?: string;
  /** Where the buckets live: `file:DIR` or `s3:` (default TRIBUTARY_FILE_DROP, else `file:<data-dir>/drop`). */
  fileDrop?: string;
  log?: Logger;
  registry?: ConnectorRegistry;
  env?: NodeJS.ProcessEnv;
  /**
   * Refuse to open when the master key cannot decrypt every stored secret (commands that run syncs
   * for any source: serve, worker). Commands about one source check that source instead.
   */
  requireReadableSecrets?: boolean;
  /**
   * Without a master key while the database holds sealed secrets, open anyway with a new key that is
   * written only by `persistNewKey` (for `secrets reset`, once the unreadable secrets are dropped).
   */
  allowNewKey?: boolean;
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
  /** What every bucket refuses with a reason of its own: the offline feeds (imported only by `feeds import`). */
  misplacedFiles: MisplacedFiles;
  /** Set when the app was opened with a new master key not yet written (allowNewKey): writes it. */
  persistNewKey?: () => void;
  close(): Promise<void>;
}

const KEY_LOST =
  'is missing (and TRIBUTARY_MASTER_KEY is unset), but the database holds encrypted secrets: restore the key file or set TRIBUTARY_MASTER_KEY; a new key would not open them (to drop them and start over: `tributary secrets reset`)';

export function resolvePaths(opts: AppOptions): { dataDir: string; dbUrl: string } {
  const env = opts.env ?? process.env;
  const dataDir = resolve(opts.dataDir ?? env.TRIBUTARY_DATA_DIR ?? './data');
  const dbUrl = opts.db ?? env.TRIBUTARY_DATABASE_URL ?? `sqlite:${join(dataDir, 'tributary.db')}`;
  return { dataDir, dbUrl };
}

export async function openApp(opts: AppOptions = {}): Promise<AppContext> {
  const { dataDir, dbUrl } = resolvePaths(opts);
  const log = opts.log ?? createLogger();
  setUnknownFieldReporter((u) => log.warn(u, 'record fields unknown to the model are not stored'));
  const registry = opts.registry ?? (await defaultRegistry());
  const keyFile = join(dataDir, 'master.key');
  const existing = readMasterKey(keyFile, opts.env ?? process.env);
  if (existing?.warning) log.warn({ file: keyFile }, existing.warning);
  const fresh = randomBytes(32);
  const box = new SecretBox(existing?.key ?? fresh);
  const store = await openStore(dbUrl, box, (type) => registry.sealedKeys(type));
  let persistNewKey: (() => void) | undefined;
  try {
    if (!existing) {
      // A key is made only while nothing is sealed: a new key cannot open what an old one sealed.
      if (await store.sources.hasSealedSecrets()) {
        if (!opts.allowNewKey) throw new InputError(`the master key file ${keyFile} ${KEY_LOST}`, 'TRIBUTARY_MASTER_KEY');
        persistNewKey = () => {
          const written = writeMasterKey(keyFile, fresh);
          if (!written.equals(fresh)) throw new InputError(`another process wrote ${keyFile} meanwhile; run the command again`, 'TRIBUTARY_MASTER_KEY');
        };
      } else box.replaceKey(writeMasterKey(keyFile, fresh));
    }
    if (opts.requireReadableSecrets) {
      const bad = await store.sources.unreadable();
      if (bad.length) {
        const names = bad.map((b) => `'${b.name}'`).join(', ');
        throw new InputError(
          `the master key cannot decrypt the stored secrets of source${bad.length > 1 ? 's' : ''} ${names} (a different or lost key): restore the key (TRIBUTARY_MASTER_KEY or ${keyFile}), enter the secrets again with \`tributary sources configure NAME\`, or drop them with \`tributary secrets reset\``,
          'TRIBUTARY_MASTER_KEY',
        );
      }
    }
  } catch (err) {
    await store.close();
    throw err;
  }
  const app: AppContext = {
    dataDir,
    dbUrl,
    store,
    log,
    registry,
    fileDrop: opts.fileDrop,
    env: opts.env ?? process.env,
    misplacedFiles: misplacedFeeds,
    persistNewKey,
    close: async () => {
      // Scheduled exports started after a sync finish first (the CLI's `sync` waits for them here).
      await drainScheduledExports(app);
      // Alert evaluations and deliveries too (bounded: TRIBUTARY_ALERT_ATTEMPTS with backoff, alerts/deliver.ts).
      await drainAlerts(app);
      await closeFileDrop(app);
      await store.close();
    },
  };
  return app;
}
