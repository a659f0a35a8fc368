// Importing and listing the offline feeds (CLI `feeds`, API /api/v1/feeds): every file is read on a
// thread of its own, within the caps, and checked before any is stored; then all of them go in in one
// transaction that compares each with the current feed of its kind (newer, not in the future, or
// `replace`), so a bad or refused file changes nothing; then the findings' feed fields are recomputed.
import type { FeedInfo } from '../core/api-shapes.ts';
import { InputError } from '../core/errors.ts';
import { FEED_LABELS, type FeedFile, type Store } from '../store/index.ts';
import { feedLimits } from './parse.ts';
import { readFeedOnThread } from './read.ts';

/** One file of an import (an item of the API's feedImport answer). */
export type FeedImportResult = Pick<FeedInfo, 'kind' | 'name' | 'version' | 'released' | 'records' | 'size'> & {
  file: string;
  status: 'imported' | 'unchanged';
};

/** A feed file to import: on disk (read as a stream) or already in memory (an upload). */
export type FeedSource = { name: string } & ({ path: string } | { data: Buffer });

export interface FeedImportOptions {
  /** Install a feed even when it is older than the current one of its kind. */
  replace?: boolean;
}

export async function importFeedFiles(
  app: { store: Store; env?: NodeJS.ProcessEnv },
  files: FeedSource[],
  opts: FeedImportOptions = {},
): Promise<{ imported: FeedImportResult[]; findingsUpdated: number }> {
  if (files.length === 0) throw new InputError('name at least one feed file', 'file');
  const limits = feedLimits(app.env ?? process.env);
  const parsed: FeedFile[] = [];
  // One at a time: the memory a file may take is a thread's, not one per file.
  for (const f of files) {
    try {
      const read = await readFeedOnThread({ source: 'path' in f ? { path: f.path } : { data: f.data }, limits });
      parsed.push({ feed: read.feed, sha256: read.sha256, size: read.size, fileName: f.name });
    } catch (err) {
      if (err instanceof InputError) throw new InputError(`${f.name}: ${err.message}`, err.field ?? 'file');
      throw err;
    }
  }
  const kinds = parsed.map((p) => p.feed.kind);
  const twice = kinds.find((k, i) => kinds.indexOf(k) !== i);
  if (twice) throw new InputError(`two ${FEED_LABELS[twice]} files given; import one of each feed at a time`, 'file');
  const verdicts = await app.store.feeds.save(parsed, { replace: opts.replace });
  const imported: FeedImportResult[] = parsed.map((p, i) => ({
    file: p.fileName ?? 'upload',
    kind: p.feed.kind,
    name: FEED_LABELS[p.feed.kind],
    version: p.feed.version,
    released: p.feed.released,
    records: p.feed.records,
    size: p.size,
    status: verdicts[i]!,
  }));
  const findingsUpdated = imported.some((i) => i.status === 'imported') ? await app.store.feeds.applyToFindings() : 0;
  // KEV due dates move overdue counts: the summaries follow.
  if (findingsUpdated > 0) await app.store.reports.refreshSummaries();
  return { imported, findingsUpdated };
}

export function feeds(app: { store: Store }): Promise<FeedInfo[]> {
  return app.store.feeds.list();
}

/** One line per stale feed, for `sources check` (a warning, not a failed check). */
export async function staleFeedWarnings(app: { store: Store }): Promise<string[]> {
  return (await app.store.feeds.list())
    .filter((f) => f.stale)
    .map((f) => `${f.name} ${f.version} is ${f.ageDays} days old (dated ${f.released.slice(0, 10)}); import a newer file with \`tributary feeds import\``);
}
