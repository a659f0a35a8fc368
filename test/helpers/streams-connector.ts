// A connector that is its streams and nothing more, for tests of the runner and the store that need
// records of their own shape: one optional setting, `url` (its upstream; else the type), and no checks.
import { z } from 'zod';
import { defineConnector, type DefinedConnector, type Stream } from '../../src/core/connector.ts';

export function streamsConnector(type: string, streams: () => Stream[]): DefinedConnector<{ url?: string }> {
  return defineConnector<{ url?: string }>({
    type,
    title: `${type} fixture`,
    shortName: type,
    upstream: (c) => c.url ?? type,
    configSchema: z.object({ url: z.string().optional() }).strict(),
    fields: { url: { label: 'URL' } },
    check: async () => [],
    streams,
  });
}
