// What exports need of the application: the file drop's context (store, log, data dir, file-drop
// setting, for S3 targets), the connectors (each source's product) and the environment (retry
// settings, S3 credentials). Declared here, below the app (src/app's AppContext has all of it), so
// exports import nothing from the layers above them.
import type { ConnectorRegistry } from '../connectors/registry.ts';
import type { FileDropContext } from '../filedrop/context.ts';

/** The connectors by type, as exports and syncs use them. */
export type Connectors = Pick<ConnectorRegistry, 'get' | 'has' | 'defaultBucket'>;

export interface ExportContext extends FileDropContext {
  registry: Connectors;
  env: NodeJS.ProcessEnv;
}
