// What alerts need of the application: the store, a logger, the data dir and file-drop setting (to
// refuse a webhook URL that would write into the service's own file drop) and the environment (retry
// settings). Declared here, below the app (src/app's AppContext has all of it, and so has a sync's).
import type { Logger } from '../core/log.ts';
import type { Store } from '../store/index.ts';

export interface AlertContext {
  store: Store;
  log: Logger;
  dataDir: string;
  /** The --file-drop URL when given; else TRIBUTARY_FILE_DROP. */
  fileDrop?: string;
  env?: NodeJS.ProcessEnv;
}
