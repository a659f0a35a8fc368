// An app on a test database (its data dir and URL) with its logs silenced, and a logger that keeps its lines for tests that read them:
// the connectors a test gives (the default registry when it gives none).
import { type AppContext, openApp } from '../../src/app/context.ts';
import { ConnectorRegistry } from '../../src/connectors/registry.ts';
import type { Connector } from '../../src/core/connector.ts';
import { Writable } from 'node:stream';
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

/** A debug logger whose JSON lines go into `lines`, for tests that read what a run logged. */
export function keptLinesLogger(lines: Record<string, unknown>[]) {
  const destination = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l));
      cb();
    },
  });
  return createLogger({ level: 'debug', destination });
}
