// Test helper: one remediation-ticket apply against a ServiceDesk Plus simulator, failing the test on any write that failed.
import assert from 'node:assert/strict';
import { SdpTicketWriter } from '../../src/connectors/servicedesk-plus/ticket-writer.ts';
import { silentLogger } from '../../src/core/log.ts';
import type { RemediationTicketsConfig } from '../../src/core/tickets.ts';
import type { SourceRecord, Store } from '../../src/store/index.ts';
import { applyTickets } from '../../src/tickets/index.ts';
import { memState, parseConfig } from '../connectors/servicedesk-plus/helpers.ts';

export async function applyOnSim(store: Store, desk: SourceRecord, settings: RemediationTicketsConfig, sim: { url: string; apiKey: string }) {
  const w = new SdpTicketWriter(parseConfig({ serverUrl: sim.url, apiKey: sim.apiKey }), { sourceName: 'desk', log: silentLogger, state: memState() }, null);
  try {
    const r = await applyTickets(store, desk, settings, w);
    assert.equal(r.failed, 0, JSON.stringify(r.errors));
    return r;
  } finally {
    await w.close();
  }
}
