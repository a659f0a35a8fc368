// A store on a test database with a fixed master key, records written into it as one page of a
// source's full run (not its last page: nothing is swept), every record of a model read back, and a
// describe's store with a source `lab`.
import { after, before } from 'node:test';
import type { IncomingRecord, ModelName } from '../../src/core/models.ts';
import { SecretBox } from '../../src/core/secrets.ts';
import { openStore, type QueryPage, type SourceRecord, type Store } from '../../src/store/index.ts';
import type { TestDatabase } from './databases.ts';

export const openTestStore = (db: { url: string }): Promise<Store> => openStore(db.url, new SecretBox(Buffer.alloc(32, 1)), () => []);

/** Writes `records` as a page of run `r` of the source. */
export async function writeRecords(store: Store, source: { id: string; name: string }, records: Partial<Record<ModelName, IncomingRecord[]>>): Promise<void> {
  const stamp = { sourceId: source.id, sourceName: source.name, runId: 'r', generation: 'g', now: new Date().toISOString() };
  await store.records.writePage(stamp, 's', 'full', records, { value: null, complete: false });
}

/** Every record of `model` the store serves, read page by page through its cursor. */
export async function queryAll(store: Store, model: ModelName, pageSize: number): Promise<QueryPage['records']> {
  const all: QueryPage['records'] = [];
  let cursor: string | null = null;
  do {
    const page = await store.records.query(model, { limit: pageSize, cursor });
    all.push(...page.records);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

export interface LabStore {
  store: Store;
  /** The source `lab`, whose records `fill` wrote. */
  lab: SourceRecord;
}

/**
 * For the calling describe: before its tests a fresh database of `backend`, a store on it and a source
 * `lab` that `fill` writes records into; after them the store closed and the database dropped.
 */
export function labStoreSuite(backend: { create(): Promise<TestDatabase> }, fill: (store: Store, lab: SourceRecord) => Promise<void>): LabStore {
  const suite = {} as LabStore;
  let db: TestDatabase | undefined;
  before(async () => {
    db = await backend.create();
    suite.store = await openTestStore(db);
    suite.lab = await suite.store.sources.create('lab', 'fixture', {}, null);
    await fill(suite.store, suite.lab);
  });
  after(async () => {
    await suite.store?.close();
    await db?.drop();
  });
  return suite;
}
