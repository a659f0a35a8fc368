// After every sync of any source (the scanner's or the service desk's), once correlation has run: each
// ticketing source whose remediation tickets are on applies its plan (issue 32 §2). A ticket write never
// fails the sync: a failure is in the audit log (apply.ts records each) and in the run's log, and the
// next sync tries again.
import type { Connectors } from '../export/context.ts';
import type { ConnectorContext } from '../core/connector.ts';
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { Store } from '../store/index.ts';
import { applyTickets } from './apply.ts';

export interface TicketsAfterSyncContext {
  store: Store;
  registry: Connectors;
  log: Logger;
}

export interface TicketsAfterSync {
  source: string;
  created: number;
  adopted: number;
  noted: number;
  resolved: number;
  failed: number;
  error?: string;
}

/** Applies the plan of every ticketing source that has them on; `log` is the run's (its lines land in the run's log). Never throws. */
export async function ticketsAfterSync(app: TicketsAfterSyncContext, runId: string, log: Logger): Promise<TicketsAfterSync[]> {
  const out: TicketsAfterSync[] = [];
  let sources: Awaited<ReturnType<Store['sources']['list']>>;
  try {
    sources = await app.store.sources.list();
  } catch (err) {
    log.error({ runId, err: errorMessage(err) }, 'remediation tickets: sources could not be read');
    return out;
  }
  for (const source of sources) {
    if (!app.registry.has(source.type)) continue;
    const connector = app.registry.get(source.type);
    if (!connector.tickets || source.unreadableSecrets.length) continue;
    const parsed = connector.configSchema.safeParse(source.config);
    if (!parsed.success) continue;
    const settings = connector.tickets.settings(parsed.data);
    if (!settings.enabled) continue;
    const ctx: ConnectorContext = {
      sourceName: source.name,
      log: app.log.child({ source: source.name }),
      state: {
        get: () => app.store.sources.getState(source.id),
        set: async (patch) => app.store.sources.setState(source.id, { ...(await app.store.sources.getState(source.id)), ...patch }),
      },
    };
    const started = Date.now();
    try {
      const writer = connector.tickets.writer(parsed.data, ctx);
      try {
        const { plan: _plan, ...r } = await applyTickets(app.store, { id: source.id, name: source.name }, settings, writer);
        const line = {
          runId,
          tickets: source.name,
          ticketRun: r.runId,
          created: r.created,
          adopted: r.adopted,
          noted: r.noted,
          resolved: r.resolved,
          closed: r.closed,
          failed: r.failed,
          ms: Date.now() - started,
        };
        if (r.failed)
          log.warn(
            { ...line, err: r.errors.slice(0, 3).join('; ') },
            `remediation tickets of ${source.name}: ${r.failed} write(s) failed (see \`tickets log ${source.name}\`)`,
          );
        else log.info(line, `remediation tickets of ${source.name} applied`);
        out.push({ source: source.name, created: r.created, adopted: r.adopted, noted: r.noted, resolved: r.resolved, failed: r.failed });
      } finally {
        await writer.close();
      }
    } catch (err) {
      // The plan could not be read or the writer not opened: recorded in the audit log and the run's log.
      const message = errorMessage(err);
      log.error({ runId, tickets: source.name, err: message }, `remediation tickets of ${source.name} failed`);
      await app.store.tickets
        .log({ sourceId: source.id, key: '', requestId: null, action: 'apply-failed', runId, ok: false, detail: message })
        .catch(() => undefined);
      out.push({ source: source.name, created: 0, adopted: 0, noted: 0, resolved: 0, failed: 1, error: message });
    }
  }
  return out;
}
