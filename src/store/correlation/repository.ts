// The correlation repository: hosts and CMDB records joined into assets, tickets linked to them, manual overrides.
import { bindDriver } from '../db/bind.ts';
import type { Driver } from '../db/driver.ts';
import { refreshPriorities } from '../records/priority.ts';
import { assetOverrides, correlateEverything, correlateRunWrites, setAssetOverride } from './asset-links.ts';

export const correlationRepository = (db: Driver) => ({
  ...bindDriver(db, {
    /** After a successful run: what it wrote (a run that removed or touched much gets the full pass); the runner then refreshes the priorities. */
    correlateRun: correlateRunWrites,
    overrides: assetOverrides,
  }),
  /** Full recompute: every host against every CMDB record, then every ticket's links; then the priorities their criticality changed. */
  correlateAll: async (...args: Parameters<typeof correlateEverything> extends [Driver, ...infer A] ? A : never) => {
    const r = await correlateEverything(db, ...args);
    await refreshPriorities(db);
    return r;
  },
  /** A manual link (beats every rule) or unlink (forbids the pair), kept across syncs; then the priorities its criticality changed. */
  setOverride: async (...args: Parameters<typeof setAssetOverride> extends [Driver, ...infer A] ? A : never) => {
    const r = await setAssetOverride(db, ...args);
    await refreshPriorities(db);
    return r;
  },
});

export type CorrelationRepository = ReturnType<typeof correlationRepository>;
