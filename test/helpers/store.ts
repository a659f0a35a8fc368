// A store on a test database with a fixed master key, and records written into it as one page of a
// source's full run (not its last page: nothing is swept).
import type { IncomingRecord, ModelName } from '../../src/core/models.ts';
import { SecretBox } from '../../src/core/secrets.ts';
import { Store } from '../../src/store/store.ts';

export const openTestStore = (db: { url: string }): Promise<Store> => Store.open(db.url, new SecretBox(Buffer.alloc(32, 1)), () => []);

/** Writes `records` as a page of run `r` of the source. */
export async function writeRecords(store: Store, source: { id: string; name: string }, records: Partial<Record<ModelName, IncomingRecord[]>>): Promise<void> {
  const stamp = { sourceId: source.id, sourceName: source.name, runId: 'r', generation: 'g', now: new Date().toISOString() };
  await store.writePage(stamp, 's', 'full', records, { value: null, complete: false });
}
