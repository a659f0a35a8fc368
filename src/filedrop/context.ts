// What the file drop needs of the application: the store, a logger, where data lives, which bucket a
// source type reads by default, and the file-drop setting. Declared here, below the app (src/app's
// AppContext has all of it), so the file drop imports nothing from the layers above it.
import type { Connector } from '../core/connector.ts';
import type { Logger } from '../core/log.ts';
import type { Store } from '../store/store.ts';

export interface FileDropContext {
  dataDir: string;
  store: Store;
  log: Logger;
  /** The bucket a file-reading source of this type uses when its configuration names none (the connector's). */
  registry: { defaultBucket(type: string): string | undefined; has(type: string): boolean; get(type: string): Connector };
  /** The --file-drop URL when given; else TRIBUTARY_FILE_DROP, else the data dir. */
  fileDrop?: string;
  env?: NodeJS.ProcessEnv;
}
