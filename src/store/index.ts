// The store's one entrance: everything outside src/store imports it from here (test/core/layers.test.ts).
// openStore() gives one repository per aggregate (sources, runs, records, reports, correlation, feeds,
// users, exports, exceptions, views); what else is here are the store's types and pure helpers.
// The folders hold the store by aggregate: db (drivers, migrations, the SQLite writer thread, shared SQL),
// records, sources (runs, file imports, upload tokens, export schedules), auth, reports, correlation, feeds,
// exceptions, views (saved views of the web UI's lists).
export { MIGRATIONS } from './db/migrations.ts';
export type { DeliveryRecord } from './alerts/deliveries.ts';
export { FINDING_ALERT_KINDS, type FindingAlertItem, type FindingAlertKind } from './alerts/marks.ts';
export type { Cursor } from './alerts/incremental.ts';
export type { AlertRuleRecord, AlertRuleTarget } from './alerts/rules.ts';
export type { Row } from './db/driver.ts';
export { sqlCount } from './db/rows.ts';
export { type EpssColumns, FEED_LABELS, type FeedFile, type FeedKind, type KevEntry, kevEntryOfLine, kevLine, type ParsedFeed } from './feeds/feeds.ts';
export type { ExceptionChange, ExceptionListQuery, ExceptionProposal, RiskException, RiskExceptionDetail } from './exceptions/exceptions.ts';
export { CHANGE_KINDS } from '../core/models.ts';
export type { ChangeQuery } from './records/change-feed.ts';
export { type Filter, parseFilter, withLiveDefault } from './records/filter-syntax.ts';
export { RecordIdSet } from './records/id-set.ts';
export type { QueryOptions, QueryPage, SortSpec } from './records/query.ts';
export { RUN_HELP, type Since, SINCE_HELP, sinceRun } from './records/since.ts';
export { dueAtOf, parseSlaPolicy } from './records/sla.ts';
export type { SweepPreview } from './records/sweep.ts';
export { recordId, setUnknownFieldReporter } from './records/upsert.ts';
export { fixOf } from './reports/remediations.ts';
export { COVERAGE_KINDS, isCoverageKind, MAX_COVERAGE_DAYS, MODEL_OF_KIND } from './reports/coverage.ts';
export { TREND_SEVERITIES, type TrendsReport } from './reports/trends.ts';
export type { DestinationRecord, ExportStatusRecord } from './sources/export-schedules.ts';
export { type FileImportRecord, MAX_STORED_REJECTIONS } from './sources/file-imports.ts';
export { emptyActivity, RUN_LOG_LINES, type RunActivity } from './sources/run-activity.ts';
export type { UploadTokenInfo } from './sources/upload-tokens.ts';
export type { SavedView } from './views/views.ts';
export { nowIso } from './db/rows.ts';
export { openStore, type Store } from './open.ts';
export { readEveryStream, RUN_LIST_CAP, type RunRecord, type RunShortfalls, type RunStatus } from './sources/runs.ts';
export type { StreamCounts } from './sources/run-activity.ts';
export { type SourceRecord, unreadableSecretsError } from './sources/sources.ts';
export type { TicketFindingFilter, TicketFindingRow, TicketGroupCount } from './tickets/findings.ts';
export type { TicketLogEntry, TicketRow, TicketState } from './tickets/repository.ts';
// The owners-per-plugin step of a correlation pass, driven alone (in a rolled-back transaction) by bench/owner-moves.ts.
export { applyOwnerMoves, movesMax, recountPluginOwners } from './reports/plugin-owners.ts';
// The export benchmark's floor (bench/export.ts) runs the export's own SQL on a bare driver.
export { openDriver } from './db/driver.ts';
export { recordColumns, recordFrom } from './records/row-mapping.ts';
export { whereClauses } from './records/query.ts';
