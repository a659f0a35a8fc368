// What a sync needs of the application: what exports and the file drop need (store, log, data dir,
// connectors, environment) and the database URL (the PostgreSQL job queue). Declared here, below the
// app (src/app's AppContext has all of it), so sync imports nothing from the layers above it.
import type { ExportContext } from '../export/context.ts';

export interface SyncContext extends ExportContext {
  dbUrl: string;
}
