// The feeds repository: imported KEV and EPSS versions, what they say of a CVE, and their facts set on findings.
import { bindDriver } from '../db/bind.ts';
import type { Driver } from '../db/driver.ts';
import { cveFeedFacts, FeedLookup, listFeeds, storeFeeds } from './feeds.ts';

export function feedsRepository(db: Driver) {
  const lookup = new FeedLookup();
  return {
    /** What the feeds say of CVEs, remembered until a feed changes: set on findings as they are written. */
    lookup,
    /** After a feed import: recomputes the feed fields of every finding that names a CVE; returns how many changed. */
    applyToFindings: () => lookup.applyToAll(db),
    ...bindDriver(db, { list: listFeeds, save: storeFeeds, cveFacts: cveFeedFacts }),
  };
}

export type FeedsRepository = ReturnType<typeof feedsRepository>;
