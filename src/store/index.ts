// The store's one entrance: everything outside src/store imports it from here (test/core/layers.test.ts).
// The folders hold the store by aggregate: db (drivers, migrations, the SQLite writer thread, shared SQL),
// records, sources (runs, file imports, upload tokens, export schedules), auth, reports, correlation, feeds.
export { MIGRATIONS } from './db/migrations.ts';
export type { Row } from './db/driver.ts';
export { sqlCount } from './db/rows.ts';
export {
  cveFeedFacts,
  type EpssColumns,
  FEED_LABELS,
  type FeedFile,
  type FeedKind,
  type KevEntry,
  kevEntryOfLine,
  kevLine,
  listFeeds,
  type ParsedFeed,
  storeFeeds,
} from './feeds/feeds.ts';
export { CHANGE_KINDS } from './records/change-detection.ts';
export type { ChangeQuery } from './records/change-feed.ts';
export { countByGroups, labelsOfHosts } from './records/counts-for-api.ts';
export { recordPages } from './records/export-read.ts';
export { type Filter, parseFilter, withLiveDefault } from './records/filter-syntax.ts';
export { groupCount } from './records/group-counts.ts';
export { RecordIdSet } from './records/id-set.ts';
export type { QueryOptions, QueryPage, SortSpec } from './records/query.ts';
export { RUN_HELP, type Since, SINCE_HELP, sinceRun } from './records/since.ts';
export { dueAtOf, parseSlaPolicy } from './records/sla.ts';
export type { SweepPreview } from './records/sweep.ts';
export { recordId, setUnknownFieldReporter, upsertRecords } from './records/upsert.ts';
export { COVERAGE_KINDS, isCoverageKind, MAX_COVERAGE_DAYS, MODEL_OF_KIND } from './reports/coverage.ts';
export { remediationReport } from './reports/remediation.ts';
export { TREND_SEVERITIES, trendsFingerprint, trendsReport, type TrendsReport } from './reports/trends.ts';
export {
  createDestination,
  deleteDestination,
  type DestinationRecord,
  type ExportStatusRecord,
  getDestination,
  getExportStatus,
  listDestinations,
  listExportStatuses,
  putExportStatus,
} from './sources/export-schedules.ts';
export {
  type FileImportRecord,
  fileImportSnapshot,
  fileImportsOf,
  forgetFileDropOf,
  hasFileImport,
  importedExportsOf,
  MAX_STORED_REJECTIONS,
  saveFileImport,
  skippedFilesOfRun,
} from './sources/file-imports.ts';
export { emptyActivity, RUN_LOG_LINES, type RunActivity } from './sources/run-activity.ts';
export {
  insertUploadToken,
  noteUploadTokenUse,
  setUploadTokenRevoked,
  uploadTokenByHash,
  uploadTokenById,
  type UploadTokenInfo,
  uploadTokensOf,
} from './sources/upload-tokens.ts';
export {
  nowIso,
  readEveryStream,
  RUN_LIST_CAP,
  type RunRecord,
  type RunShortfalls,
  type RunStatus,
  type SourceRecord,
  Store,
  type StreamCounts,
  unreadableSecretsError,
} from './store.ts';
