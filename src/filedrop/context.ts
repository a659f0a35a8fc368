// What the file drop needs of the application: the store, a logger, where data lives, which bucket a
// source type reads by default, the file-drop setting, and what to do with files that are no
// connector's exports. Declared here, below the app (src/app's AppContext has all of it), so the file
// drop imports nothing from the layers above it.
import type { Connector } from '../core/connector.ts';
import type { BucketObject, FileImportResult } from '../core/files.ts';
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
  /** Files every bucket takes besides its connector's exports (the app's: the offline feeds); none when absent. */
  otherFiles?: OtherFiles;
}

/** Reads the first `maxBytes` of a file (all of it when shorter). */
export type ReadHead = (maxBytes: number) => Promise<Buffer>;

/** A kind of file recognised by its first bytes in any bucket and imported whole (src/feeds/drop.ts). */
export interface OtherFiles {
  /** What the file drop calls them in its messages ("nor is it …"). */
  readonly label: string;
  /** What the file is (for messages), or null when it is none of these. */
  recognise(read: ReadHead): Promise<string | null>;
  /** Imports one file recognise recognised: its import record (imported, or rejected with the reason). */
  importFile(app: { store: Store; log: Logger }, obj: BucketObject, read: ReadHead): Promise<FileImportResult>;
}
