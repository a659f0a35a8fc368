// Offline feeds through the file drop: a CISA KEV catalog (JSON) or FIRST EPSS scores (CSV), gzipped
// or not, put in a source's bucket is recognised by its first bytes when that source's next sync plans
// its files, and imported as `tributary feeds import` would (a file that breaks its format is
// rejected with the reason and changes nothing); the bucket's bookkeeping records it like any file.
import { constants, gunzipSync } from 'node:zlib';
import { InputError } from '../core/errors.ts';
import type { BucketObject, FileImportResult } from '../core/files.ts';
import type { Logger } from '../core/log.ts';
import { formatBytes } from '../core/format.ts';
import type { OtherFiles } from '../filedrop/context.ts';
import { FEED_LABELS, type FeedKind } from '../store/feeds.ts';
import type { Store } from '../store/store.ts';
import { importFeedFiles } from './index.ts';

/** Bytes read to recognise a feed (of a gzipped file: before inflating). */
export const FEED_SNIFF_BYTES = 4096;

/** The largest feed file read from a bucket (today's EPSS CSV is ~10 MB uncompressed, the KEV catalog ~1.5 MB). */
export const MAX_DROPPED_FEED_BYTES = 256 * 1024 * 1024;

/** Which feed a file's first bytes announce: a JSON object (KEV) or the EPSS header lines, either one gzipped; null for anything else. */
export function sniffFeed(head: Buffer): FeedKind | null {
  let buf = head;
  if (buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) {
    try {
      // The start of the stream inflates on its own (a sync flush, not the end of the file).
      buf = gunzipSync(buf, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: 64 * 1024 * 1024 });
    } catch {
      return null;
    }
  }
  const text = buf
    .subarray(0, FEED_SNIFF_BYTES)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (text.startsWith('{')) return 'kev';
  if (/^#model_version/i.test(text) || /^cve\s*,\s*epss/i.test(text)) return 'epss';
  return null;
}

type Outcome = Pick<FileImportResult, 'kind' | 'rowsRead' | 'rowsImported' | 'status' | 'error'>;
/** The import record of a feed file's version (a feed is imported or rejected whole: no row rejections). */
const record = (obj: BucketObject, outcome: Outcome): FileImportResult => ({
  key: obj.key,
  etag: obj.etag,
  size: obj.size,
  rowsRejected: 0,
  rejections: [],
  ...outcome,
});
const rejected = (obj: BucketObject, error: string) => record(obj, { kind: null, rowsRead: 0, rowsImported: 0, status: 'rejected', error });

/** Imports one file a bucket holds as a feed: the import record of the object version, imported or rejected with the reason. */
export async function importDroppedFeed(app: { store: Store; log: Logger }, obj: BucketObject, data: Buffer): Promise<FileImportResult> {
  try {
    const { imported } = await importFeedFiles(app, [{ name: obj.key, data }]);
    const r = imported[0]!;
    app.log.info({ key: obj.key, feed: r.kind, version: r.version, records: r.records, status: r.status }, 'feed imported from the file drop');
    return record(obj, { kind: r.kind, rowsRead: r.records, rowsImported: r.records, status: 'imported', error: null });
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    return rejected(obj, err.message);
  }
}

/** The offline feeds as files every bucket takes besides its connector's exports (the app gives them to the file drop). */
export const droppedFeeds: OtherFiles = {
  label: 'an offline feed (CISA KEV catalog JSON or FIRST EPSS CSV, optionally gzipped)',
  async recognise(read) {
    const kind = sniffFeed(await read(FEED_SNIFF_BYTES));
    return kind ? `${FEED_LABELS[kind]} feed` : null;
  },
  async importFile(app, obj, read) {
    const limit = formatBytes(MAX_DROPPED_FEED_BYTES);
    if (obj.size > MAX_DROPPED_FEED_BYTES) return rejected(obj, `a feed file of ${formatBytes(obj.size)} is larger than ${limit}`);
    const data = await read(MAX_DROPPED_FEED_BYTES + 1);
    if (data.length > MAX_DROPPED_FEED_BYTES) return rejected(obj, `the feed file is larger than ${limit}`);
    return importDroppedFeed(app, obj, data);
  },
};
