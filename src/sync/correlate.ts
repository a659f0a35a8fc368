// After a run: correlate what it wrote (hosts ↔ CMDB records by model, whatever the connector), so
// assets, owners on findings and ticket links follow every sync of either source; and rebuild its summaries.
import type { Logger } from '../core/log.ts';
import type { Store } from '../store/index.ts';

export async function correlateAfterRun(store: Store, sourceId: string, runId: string, swept: Record<string, number>, log: Logger): Promise<void> {
  const started = Date.now();
  try {
    const removed = (swept.hosts ?? 0) + (swept['cmdb-assets'] ?? 0);
    const r = await store.correlation.correlateRun(sourceId, runId, removed);
    if (r)
      log.info({ runId, mode: r.mode, assets: r.assets, linked: r.linked, ambiguous: r.ambiguous, tickets: r.tickets, ms: Date.now() - started }, 'correlated');
  } catch (err) {
    // The records are stored; correlation catches up on the next run or `tributary assets recompute`.
    log.error({ runId, err: err instanceof Error ? err.message : String(err) }, 'correlation failed');
  }
}

/** After correlation: the hosts' criticality and the findings' decisions and priorities it changed (docs/priority.md). */
export async function prioritiesAfterRun(store: Store, runId: string, log: Logger): Promise<void> {
  const started = Date.now();
  try {
    const r = await store.records.refreshPriorities();
    log.info({ runId, hosts: r.hosts, findings: r.findings, ms: Date.now() - started }, 'priorities refreshed');
  } catch (err) {
    // The findings keep the decisions they were written with; the next run or `tributary report priority --recompute` catches up.
    log.error({ runId, err: err instanceof Error ? err.message : String(err) }, 'priority refresh failed');
  }
}

/**
 * After every run (whatever its status: a failed run may have stored pages): rebuild the source's
 * summaries; after a run that only upserted (`touchedOnly`: incremental, nothing swept) the store
 * rebuilds only the groups of what it stamped, when the summaries are the previous run's.
 */
export async function refreshSummariesAfterRun(store: Store, sourceId: string, runId: string, log: Logger, touchedOnly = false): Promise<void> {
  const started = Date.now();
  try {
    const how = await store.reports.refreshSummaries(sourceId, { runId, touchedOnly });
    log.debug({ runId, how, ms: Date.now() - started }, 'summaries refreshed');
  } catch (err) {
    // The records are stored; the summaries catch up on the next run.
    log.error({ runId, err: err instanceof Error ? err.message : String(err) }, 'summary refresh failed');
  }
}
