// A small connector used by the core tests: a `hosts` stream and a `findings` stream (vulnerabilities)
// whose data, page size and failure points are set per test through a shared control object, and an
// app whose only connector it is.
import { after, before } from 'node:test';
import { z } from 'zod';
import type { AppContext } from '../../src/app/context.ts';
import type { Connector, Page, Stream, StreamContext } from '../../src/core/connector.ts';
import { UpstreamError } from '../../src/core/errors.ts';
import type { IncomingRecord } from '../../src/core/models.ts';
import { openTestApp } from './app.ts';
import type { TestDatabase } from './databases.ts';

export interface FixtureControl {
  hosts: string[];
  /** Finding keys as `host:plugin`, with their status. */
  findings: { host: string; plugin: string; status?: 'open' | 'fixed'; severity?: string }[];
  pageSize: number;
  /** Throw a non-transient error when reading this page index of the findings stream. */
  failFindingsAtPage?: number;
  /** Throw transient errors this many times before each findings page succeeds. */
  transientFailures?: number;
  /** Called before each findings page with its index (a crash test kills the process here). */
  beforeFindingsPage?: (index: number) => void;
  /** Every (mode, checkpoint, resumed) the streams were started with. */
  starts: { stream: string; mode: string; checkpoint: unknown; resumed: boolean }[];
}

export function newControl(partial: Partial<FixtureControl> = {}): FixtureControl {
  return { hosts: [], findings: [], pageSize: 2, starts: [], ...partial };
}

const schema = z
  .object({
    url: z.string().url(),
    token: z.string().min(1),
    pageSize: z.coerce.number().int().min(1).default(2),
  })
  .strict();

function hostRecord(h: string): IncomingRecord {
  return { key: `host:${h}`, externalId: h, fields: { hostname: h, ipAddresses: [`10.0.0.${h.length}`], credentialed: true } };
}

export function fixtureConnector(control: FixtureControl): Connector<z.infer<typeof schema>> {
  const hostsStream: Stream = {
    name: 'hosts',
    models: ['hosts'],
    primaryKey: ['hostname'],
    async *read(ctx: StreamContext): AsyncIterable<Page> {
      control.starts.push({ stream: 'hosts', mode: ctx.mode, checkpoint: ctx.checkpoint, resumed: ctx.resumed });
      yield { records: { hosts: control.hosts.map(hostRecord) }, checkpoint: { done: true } };
    },
  };
  const findingsStream: Stream = {
    name: 'findings',
    models: ['vulnerabilities'],
    primaryKey: ['host', 'plugin'],
    cursorField: 'offset',
    async *read(ctx: StreamContext): AsyncIterable<Page> {
      control.starts.push({ stream: 'findings', mode: ctx.mode, checkpoint: ctx.checkpoint, resumed: ctx.resumed });
      const start = ctx.resumed ? Number((ctx.checkpoint as { offset: number }).offset) : 0;
      for (let offset = start, page = start / control.pageSize; offset < control.findings.length; offset += control.pageSize, page++) {
        control.beforeFindingsPage?.(page);
        if (control.failFindingsAtPage === page) throw new UpstreamError(`upstream refused page ${page}`, { hint: 'fixture hint' });
        if (control.transientFailures && control.transientFailures > 0) {
          control.transientFailures--;
          throw new UpstreamError(`upstream busy on page ${page}`, { transient: true, status: 429, retryAfter: 0 });
        }
        const rows = control.findings.slice(offset, offset + control.pageSize);
        yield {
          records: {
            vulnerabilities: rows.map((f) => ({
              key: `${f.host}|${f.plugin}`,
              hostKey: `host:${f.host}`,
              externalId: f.plugin,
              firstSeen: '2026-01-01T00:00:00.000Z',
              lastSeen: '2026-11-01T00:00:00.000Z',
              fields: {
                pluginId: f.plugin,
                pluginName: `Plugin ${f.plugin}`,
                severity: f.severity ?? 'high',
                status: f.status ?? 'open',
                cves: ['CVE-2024-0001'],
                scannerKnownExploited: false,
              },
            })),
          },
          checkpoint: { offset: offset + rows.length },
        };
      }
    },
  };
  return {
    type: 'fixture',
    title: 'Fixture',
    shortName: 'Fixture',
    upstream: (config) => config.url,
    configSchema: schema,
    fields: {
      url: { label: 'URL' },
      token: { label: 'Token', secret: true },
      pageSize: { label: 'Page size' },
    },
    async check(config) {
      return [
        {
          id: 'token',
          ok: config.token === 'good-token-123',
          message: config.token === 'good-token-123' ? 'token accepted' : 'token rejected',
          hint: config.token === 'good-token-123' ? null : 'use the good token',
        },
      ];
    },
    streams: () => [hostsStream, findingsStream],
  };
}

/** An app on a test database (its data dir and URL) whose only connector is the fixture `control` drives; logs silenced. */
export function openFixtureApp(db: { dataDir: string; url: string }, control: FixtureControl, env?: NodeJS.ProcessEnv): Promise<AppContext> {
  return openTestApp(db, { connectors: [fixtureConnector(control)], env });
}

export interface FixtureSuite {
  db: TestDatabase;
  app: AppContext;
  control: FixtureControl;
}

/**
 * For the calling describe: a fresh database of `backend` and a fixture app on it, opened before its
 * tests and closed (the database dropped) after them; `control` starts empty.
 */
export function fixtureAppSuite(backend: { create(): Promise<TestDatabase> }): FixtureSuite {
  const suite = { control: newControl() } as FixtureSuite;
  before(async () => {
    suite.db = await backend.create();
    suite.app = await openFixtureApp(suite.db, suite.control);
  });
  after(async () => {
    await suite.app?.close();
    await suite.db?.drop();
  });
  return suite;
}
