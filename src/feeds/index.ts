// Importing and listing the offline feeds (CLI `feeds`, API /api/v1/feeds): every file is parsed and
// checked before any is stored, so a bad file changes nothing; then each replaces its feed and the
// findings' feed fields are recomputed.
import { createHash } from 'node:crypto';
import { InputError } from '../core/errors.ts';
import type { FeedInfo } from '../core/api-shapes.ts';
import { FEED_LABELS, importVerdict, listFeeds, storeFeed } from '../store/feeds.ts';
import { nowIso, type Store } from '../store/store.ts';
import { parseFeed } from './parse.ts';

/** One file of an import (an item of the API's feedImport answer). */
export type FeedImportResult = Pick<FeedInfo, 'kind' | 'name' | 'version' | 'released' | 'records' | 'size'> & {
  file: string;
  status: 'imported' | 'unchanged';
};

export async function importFeedFiles(
  app: { store: Store },
  files: { name: string; data: Buffer }[],
): Promise<{ imported: FeedImportResult[]; findingsUpdated: number }> {
  if (files.length === 0) throw new InputError('name at least one feed file', 'file');
  const current = new Map((await listFeeds(app.store)).map((f) => [f.kind, f]));
  const parsed = files.map((f) => {
    try {
      const feed = parseFeed(f.data);
      const sha256 = createHash('sha256').update(f.data).digest('hex');
      return { file: f, feed, sha256, verdict: importVerdict(current.get(feed.kind), feed, sha256) };
    } catch (err) {
      if (err instanceof InputError) throw new InputError(`${f.name}: ${err.message}`, err.field ?? 'file');
      throw err;
    }
  });
  const kinds = parsed.map((p) => p.feed.kind);
  const twice = kinds.find((k, i) => kinds.indexOf(k) !== i);
  if (twice) throw new InputError(`two ${FEED_LABELS[twice]} files given; import one of each feed at a time`, 'file');
  const imported: FeedImportResult[] = [];
  for (const p of parsed) {
    if (p.verdict === 'import') await storeFeed(app.store, p.feed, { sha256: p.sha256, size: p.file.data.length, fileName: p.file.name, now: nowIso() });
    imported.push({
      file: p.file.name,
      kind: p.feed.kind,
      name: FEED_LABELS[p.feed.kind],
      version: p.feed.version,
      released: p.feed.released,
      records: p.feed.entries.length,
      size: p.file.data.length,
      status: p.verdict === 'import' ? 'imported' : 'unchanged',
    });
  }
  const findingsUpdated = imported.some((i) => i.status === 'imported') ? await app.store.applyFeeds() : 0;
  // KEV due dates move overdue counts: the summaries follow.
  if (findingsUpdated > 0) await app.store.refreshSummaries();
  return { imported, findingsUpdated };
}

export function feeds(app: { store: Store }): Promise<FeedInfo[]> {
  return listFeeds(app.store);
}

/** One line per stale feed, for `sources check` (a warning, not a failed check). */
export async function staleFeedWarnings(app: { store: Store }): Promise<string[]> {
  return (await listFeeds(app.store))
    .filter((f) => f.stale)
    .map((f) => `${f.name} ${f.version} is ${f.ageDays} days old (dated ${f.released.slice(0, 10)}); import a newer file with \`tributary feeds import\``);
}
