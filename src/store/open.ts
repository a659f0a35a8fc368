// Opening the store: the driver for its URL (SQLite file or PostgreSQL), migrations, indexes a crashed
// first import left unbuilt, and one repository per aggregate over it.
import type { SecretBox } from '../core/secrets.ts';
import { type AlertsRepository, alertsRepository } from './alerts/repository.ts';
import { type UsersRepository, usersRepository } from './auth/repository.ts';
import { type CorrelationRepository, correlationRepository } from './correlation/repository.ts';
import { type ExceptionsRepository, exceptionsRepository } from './exceptions/repository.ts';
import { rebuildDeferredIndexes } from './db/bulk-load.ts';
import { type Driver, openDriver, sqlitePathOf } from './db/driver.ts';
import { migrate, schemaVersion } from './db/migrate.ts';
import { SqlitePageWriter } from './db/sqlite-writer.ts';
import { type FeedsRepository, feedsRepository } from './feeds/repository.ts';
import { type RecordsRepository, recordsRepository } from './records/repository.ts';
import { type ReportsRepository, reportsRepository } from './reports/repository.ts';
import { type ExportsRepository, exportsRepository, type RunsRepository, runsRepository } from './sources/repository.ts';
import { Sources } from './sources/sources.ts';
import { type TicketsRepository, ticketsRepository } from './tickets/repository.ts';
import { type ViewsRepository, viewsRepository } from './views/repository.ts';

export interface Store {
  /** The database itself: for the store's own tests and benchmarks; everything else goes through a repository. */
  readonly db: Driver;
  readonly dialect: 'sqlite' | 'postgres';
  /** Sources with their sealed secrets and state, file imports, upload tokens. */
  readonly sources: Sources;
  readonly runs: RunsRepository;
  readonly records: RecordsRepository;
  readonly reports: ReportsRepository;
  readonly correlation: CorrelationRepository;
  readonly feeds: FeedsRepository;
  readonly users: UsersRepository;
  readonly exports: ExportsRepository;
  /** Risk exceptions: proposed, approved, rejected, revoked; expired when read past their date. */
  readonly exceptions: ExceptionsRepository;
  /** Alert rules (URL and secret sealed), what each has reported, and the delivery log. */
  readonly alerts: AlertsRepository;
  /** Remediation tickets of ticketing sources: group keys, intents, claims, the audit log. */
  readonly tickets: TicketsRepository;
  /** Each user's saved views of the lists. */
  readonly views: ViewsRepository;
  schemaVersion(): Promise<number>;
  close(): Promise<void>;
}

/** Opens (and migrates) the store at `url`; `secretKeys` names the sealed config fields of a connector type. */
export async function openStore(url: string, box: SecretBox, secretKeys: (type: string) => string[]): Promise<Store> {
  const db = await openDriver(url);
  const path = sqlitePathOf(url);
  // An in-memory database exists on its own connection only: its pages are written in-thread.
  const writer = path !== null && path !== ':memory:' && process.env.TRIBUTARY_SQLITE_WRITER !== 'inline' ? new SqlitePageWriter(path) : null;
  // Safe when several processes start at once: each migration is its own transaction.
  await migrate(db);
  // Indexes a first import deferred and a crash left unbuilt (bulk-load.ts).
  await rebuildDeferredIndexes(db);
  const feeds = feedsRepository(db);
  return {
    db,
    dialect: db.dialect,
    sources: new Sources(db, box, secretKeys),
    runs: runsRepository(db),
    records: recordsRepository(db, writer, feeds.lookup),
    reports: reportsRepository(db),
    correlation: correlationRepository(db),
    feeds,
    users: usersRepository(db),
    exports: exportsRepository(db),
    exceptions: exceptionsRepository(db),
    alerts: alertsRepository(db, box),
    tickets: ticketsRepository(db),
    views: viewsRepository(db),
    schemaVersion: () => schemaVersion(db),
    close: async () => {
      await writer?.close();
      await db.close();
    },
  };
}
