// An app on a test database (its data dir and URL) with its logs silenced: the connectors a test gives
// (the default registry when it gives none).
import { type AppContext, openApp } from '../../src/app/context.ts';
import { ConnectorRegistry } from '../../src/connectors/registry.ts';
import type { Connector } from '../../src/core/connector.ts';
import { createLogger } from '../../src/core/log.ts';

export function openTestApp(db: { dataDir: string; url: string }, opts: { connectors?: Connector[]; env?: NodeJS.ProcessEnv } = {}): Promise<AppContext> {
  return openApp({
    dataDir: db.dataDir,
    db: db.url,
    env: opts.env,
    log: createLogger({ level: 'silent' }),
    registry: opts.connectors ? new ConnectorRegistry(opts.connectors) : undefined,
  });
}
