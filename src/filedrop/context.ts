// What the file drop needs of the application: the store, a logger, where data lives, which bucket a
// source type reads by default, the file-drop setting, and why files that are no connector's exports
// but something the service takes another way are refused. Declared here, below the app (src/app's AppContext has all of it), so the file
// drop imports nothing from the layers above it.
import type { Connector } from '../core/connector.ts';
import type { Logger } from '../core/log.ts';
import type { Store } from '../store/index.ts';

export interface FileDropContext {
  dataDir: string;
  store: Store;
  log: Logger;
  /** The bucket a file-reading source of this type uses when its configuration names none (the connector's). */
  registry: { defaultBucket(type: string): string | undefined; has(type: string): boolean; get(type: string): Connector };
  /** The --file-drop URL when given; else TRIBUTARY_FILE_DROP, else the data dir. */
  fileDrop?: string;
  env?: NodeJS.ProcessEnv;
  /** Files every bucket refuses with a reason of their own (the app's: the offline feeds); none when absent. */
  misplacedFiles?: MisplacedFiles;
}

/** Reads the first `maxBytes` of a file (all of it when shorter). */
export type ReadHead = (maxBytes: number) => Promise<Buffer>;

/**
 * Files recognised by their first bytes that a bucket refuses with their own reason: what the service
 * takes only another way (src/feeds/drop.ts: the offline feeds, global state a source's bucket must not change).
 */
export interface MisplacedFiles {
  /** Why this file is refused here, naming where it goes instead; null when it is none of these. */
  reasonFor(read: ReadHead): Promise<string | null>;
}
