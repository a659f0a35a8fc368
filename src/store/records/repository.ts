// The records repository: a sync's page writes and sweep, and every read of records (lists, lookups,
// counts, the change feed, export pages).
import { hostExists } from '../correlation/asset-links.ts';
import { bindDriver } from '../db/bind.ts';
import type { Driver } from '../db/driver.ts';
import type { SqlitePageWriter } from '../db/sqlite-writer.ts';
import type { FeedLookup } from '../feeds/feeds.ts';
import { modelCounts } from '../reports/summary-tables-write.ts';
import { queryChanges } from './change-feed.ts';
import { recordPages } from './export-read.ts';
import { countMatching, countRecords, groupCount } from './group-counts.ts';
import {
  countStamped,
  countStampedByGeneration,
  getRecord,
  hostLabels,
  knownHostPages,
  knownHosts,
  knownHostsByKey,
  orphans,
  recordsByIds,
} from './lookups.ts';
import { queryRecords } from './query.ts';
import { resolveRun, resolveSince } from './since.ts';
import { sweepPreview } from './sweep.ts';
import { upsertRecords } from './upsert.ts';
import { RecordWrites } from './writes.ts';
import { recomputeAllPriorities, refreshPriorities } from './priority.ts';

export function recordsRepository(db: Driver, writer: SqlitePageWriter | null, feeds: FeedLookup) {
  const writes = new RecordWrites(db, writer, feeds);
  return {
    /** One page of a sync with its checkpoint, in one transaction (writes.ts). */
    writePage: writes.writePage.bind(writes),
    /** Builds the indexes a first import deferred (writes.ts). */
    finishBulkLoad: writes.finishBulkLoad.bind(writes),
    /** Builds the indexes a first import deferred on a completed stream's tables, while the run goes on (writes.ts). */
    buildStreamIndexes: writes.buildStreamIndexes.bind(writes),
    /** Marks what a generation did not see as removed (findings: fixed), with its change events. */
    sweep: writes.sweep.bind(writes),
    /** Per model, within one scope: live records and how many a sweep would mark removed (writes.ts). */
    scopedSweepPreview: writes.scopedSweepPreview.bind(writes),
    /** Records outside a sync (tests, benchmarks), in one transaction: no checkpoint, no change events. */
    upsert: (...args: Parameters<typeof upsertRecords> extends [Driver, ...infer A] ? A : never) => db.transaction((tx) => upsertRecords(tx, ...args)),
    ...bindDriver(db, {
      /** After correlation: hosts' criticality, and the decisions and priorities of the findings it changed (docs/priority.md). */
      refreshPriorities,
      /** Every open finding's decision and priority again (after TRIBUTARY_PRIORITY changed). */
      recomputePriorities: recomputeAllPriorities,
      query: queryRecords,
      get: getRecord,
      /** Records of a model by id; ids not found are left out. */
      getMany: recordsByIds,
      /** Records of a model (of one source); with `live`, only those not removed. */
      count: countRecords,
      countMatching,
      groupCount,
      /** Record counts per source and model (removed ones included). */
      modelCounts,
      countStamped,
      countStampedByGeneration,
      knownHosts,
      /** A source's hosts with only the fields asked for, a page at a time (lookups.ts). */
      knownHostPages,
      knownHostsByKey,
      orphans,
      hostLabels,
      hostExists,
      sweepPreview,
      /** The change feed. */
      changes: queryChanges,
      resolveSince,
      resolveRun,
      /** Records in pages of `pageSize` for an export, in a stable order. */
      pages: recordPages,
    }),
  };
}

export type RecordsRepository = ReturnType<typeof recordsRepository>;
