// Read-only summaries of records for the API (counts grouped by fields, host labels), taken from the
// store, so no caller outside src/store holds its database handle.
import type { ModelName } from '../../core/models.ts';
import { type GroupCount, groupCount } from './group-counts.ts';
import { hostLabels } from './lookups.ts';
import type { Driver } from '../db/driver.ts';

/** Whatever holds the store's database handle (the Store). */
type StoreDb = { db: Driver };

/** Record counts grouped by one or more fields, largest groups first (records.ts groupCount). */
export function countByGroups(store: StoreDb, model: ModelName, by: string[], opts?: Parameters<typeof groupCount>[3]): Promise<GroupCount[]> {
  return groupCount(store.db, model, by, opts);
}

/** Hostname and addresses of hosts by id (records.ts hostLabels). */
export function labelsOfHosts(store: StoreDb, ids: string[]): ReturnType<typeof hostLabels> {
  return hostLabels(store.db, ids);
}
