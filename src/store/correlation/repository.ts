// The correlation repository: hosts and CMDB records joined into assets, tickets linked to them, manual overrides.
import { bindDriver } from '../db/bind.ts';
import type { Driver } from '../db/driver.ts';
import { assetOverrides, correlateEverything, correlateRunWrites, setAssetOverride } from './asset-links.ts';

export const correlationRepository = (db: Driver) =>
  bindDriver(db, {
    /** Full recompute: every host against every CMDB record, then every ticket's links. */
    correlateAll: correlateEverything,
    /** After a successful run: what it wrote (a run that removed or touched much gets the full pass). */
    correlateRun: correlateRunWrites,
    /** A manual link (beats every rule) or unlink (forbids the pair), kept across syncs. */
    setOverride: setAssetOverride,
    overrides: assetOverrides,
  });

export type CorrelationRepository = ReturnType<typeof correlationRepository>;
