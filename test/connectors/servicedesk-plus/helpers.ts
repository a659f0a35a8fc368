// Shared test plumbing: an in-memory source state, contexts for check/read, and a stream drain.
import type { ConnectorContext, Page, Stream, StreamContext, SyncMode } from '../../../src/core/connector.ts';
import { silentLogger } from '../../../src/core/log.ts';
import type { IncomingRecord } from '../../../src/core/models.ts';
import { type SdpConfig, sdpConfigSchema } from '../../../src/connectors/servicedesk-plus/config.ts';

export function memState(initial: Record<string, unknown> = {}) {
  let s: Record<string, unknown> = { ...initial };
  return {
    get: async () => ({ ...s }),
    set: async (patch: Record<string, unknown>) => {
      s = { ...s, ...patch };
    },
    peek: () => s,
  };
}

export type MemState = ReturnType<typeof memState>;

export function connectorCtx(state: MemState): ConnectorContext {
  return { sourceName: 'sdp', log: silentLogger, state };
}

export function streamCtx(state: MemState, mode: SyncMode = 'full', checkpoint: unknown = null, resumed = false): StreamContext {
  return { sourceName: 'sdp', log: silentLogger, state, mode, checkpoint, resumed, signal: new AbortController().signal };
}

export function parseConfig(input: Record<string, unknown>): SdpConfig {
  return sdpConfigSchema.parse(input);
}

export async function drain(stream: Stream, ctx: StreamContext, maxPages = Number.POSITIVE_INFINITY): Promise<{ pages: Page[]; records: IncomingRecord[] }> {
  const pages: Page[] = [];
  for await (const p of stream.read(ctx)) {
    pages.push(p);
    if (pages.length >= maxPages) break;
  }
  return { pages, records: pages.flatMap((p) => Object.values(p.records).flat() as IncomingRecord[]) };
}
