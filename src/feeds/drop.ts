// Offline feeds found in a source's bucket are refused, never imported: the feeds are global state
// (every source's findings read them), and a bucket and its upload token may change only that source's
// records. A CISA KEV catalog or FIRST EPSS file, gzipped or not, is recognised by its first bytes so
// its import record (and `sources check`) names `tributary feeds import` instead of "not an export".
import { constants, gunzipSync } from 'node:zlib';
import type { MisplacedFiles } from '../filedrop/context.ts';
import { FEED_LABELS, type FeedKind } from '../store/index.ts';

/** Bytes read to recognise a feed (of a gzipped file: before inflating). */
export const FEED_SNIFF_BYTES = 4096;

/** Which feed a file's first bytes announce: a JSON object (KEV) or the EPSS header lines, either one gzipped; null for anything else. */
export function sniffFeed(head: Buffer): FeedKind | null {
  let buf = head;
  if (buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) {
    try {
      // The start of the stream inflates on its own (a sync flush, not the end of the file); deflate
      // expands at most ~1032 times, so 4 KB of a bomb make at most ~4 MB, under the cap.
      buf = gunzipSync(buf, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: 8 * 1024 * 1024 });
    } catch {
      return null;
    }
  }
  const text = buf
    .subarray(0, FEED_SNIFF_BYTES)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (/^\{\s*"(title|catalogVersion|dateReleased|count|vulnerabilities)"/.test(text)) return 'kev';
  if (/^#model_version/i.test(text) || /^cve\s*,\s*epss/i.test(text)) return 'epss';
  return null;
}

/** The reason a feed file in a source's bucket is refused (kept in its import record, shown by `sources check`). */
export function misplacedFeedReason(kind: FeedKind): string {
  return `it is a ${FEED_LABELS[kind]} feed file: a source's bucket never changes the feeds (they apply to every source); an administrator imports it with \`tributary feeds import FILE\` or POST /api/v1/feeds`;
}

/** Feed files as the file drop refuses them (the app gives this to the file drop). */
export const misplacedFeeds: MisplacedFiles = {
  async reasonFor(read) {
    const kind = sniffFeed(await read(FEED_SNIFF_BYTES));
    return kind ? misplacedFeedReason(kind) : null;
  },
};
