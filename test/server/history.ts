// A known history for the change-feed and trends API tests: hosts and findings, and full runs of the
// source `lab` written straight through the store at chosen times (pages, then an optional sweep).
import type { IncomingRecord, ModelName } from '../../src/core/models.ts';
import type { Store } from '../../src/store/index.ts';

export const host = (h: string): IncomingRecord => ({ key: h, externalId: h, fields: { hostname: h } });

export const vuln = (h: string, plugin: string, severity: string, status: string, firstSeen: string): IncomingRecord => ({
  key: `${h}|${plugin}`,
  hostKey: h,
  externalId: `${h}-${plugin}`,
  firstSeen,
  fields: { pluginId: plugin, severity, status },
});

type Sweepable = 'hosts' | 'vulnerabilities';

/** Writes one full run of source `lab` at `now` each call (run ids numbered from 0); returns its id. */
export function fullRuns(store: () => Store): (now: string, records: Partial<Record<ModelName, IncomingRecord[]>>, sweep?: Sweepable[]) => Promise<string> {
  let n = 0;
  return async (now, records, sweep = []) => {
    const s = store();
    const source = await s.sources.get('lab');
    const id = `00000000-0000-4000-8000-00000000000${n}`;
    const generation = `10000000-0000-4000-8000-00000000000${n++}`;
    await s.runs.create({ id, sourceId: source.id, mode: 'full', generation, resumedFrom: null, trigger: 'test', owner: null, startedAt: now });
    await s.records.writePage({ sourceId: source.id, sourceName: 'lab', runId: id, generation, now }, 'all', 'full', records, { value: null, complete: true });
    if (sweep.length) await s.records.sweep(source.id, sweep, generation, undefined, { runId: id, at: now });
    await s.runs.finish(id, 'succeeded', {}, null);
    return id;
  };
}
