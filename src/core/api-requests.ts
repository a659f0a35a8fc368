// The API's request shapes in zod (query strings, path parameters, bodies), beside the answers'
// (api-shapes.ts): the routes validate and document with them (server/schema.ts routeSchema), their
// handlers and the web client read the inferred types. Only zod and core here: the browser imports
// this file for its types alone. Every integer query or path parameter declares a minimum and a
// maximum (server/bounded-numbers.ts refuses a route without them).
import { z } from 'zod';
import { coverageKind } from './api-shapes-reports.ts';
import { MODEL_NAMES } from './models.ts';

/** Deepest page start `offset` reaches (cursors go further). */
export const MAX_OFFSET = 1_000_000;
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
/** The longest window the coverage report looks back over: ten years. */
export const MAX_COVERAGE_DAYS = 3650;

/** What `since` means, for the CLI's help and the API's description. */
export const SINCE_HELP = 'a run id: the changes of the runs that started after it; an ISO-8601 time: those at or after it';
/** What `run` means. */
export const RUN_HELP = 'a run id: exactly the changes of that run';

export const ocsfVersion = z.enum(['1.1.0', '1.3.0']);
/** Checked by the server against its format registry (export/formats), whose names the OpenAPI document lists. */
export const exportFormat = z.string().min(1).max(40).describe('an export format: GET /api/v1/export/formats lists them');
export const modelName = z.enum(MODEL_NAMES);

// ---- pieces ----

const sourceList = z.array(z.string()).optional().describe('source name; repeat or comma-separate for several');
const whereList = z
  .array(z.string())
  .optional()
  .describe('filter: field=value, field!=value, field>value, field>=value, field<value, field<=value, field~text');
/** Any parameter not declared is a field filter (`?severity=high`). */
const fieldFilters = z.unknown().describe('any other parameter is a field filter: ?severity=high');
const hostIds = z.array(z.string().max(64)).max(1000);

// ---- records (server/routes/records.ts, summaries.ts) ----

export const recordQuery = z
  .object({
    source: sourceList,
    where: whereList,
    limit: z.int().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT),
    cursor: z.string().optional().describe('nextCursor of the previous page'),
    offset: z.int().min(0).max(MAX_OFFSET).optional().describe('records to skip (a page number: (page - 1) × limit); ignored with a cursor, which is faster'),
    sort: z.string().optional().describe('order by a field, -field for descending (severity sorts by rank); default by id'),
    all: z
      .boolean()
      .default(false)
      .describe('also fixed findings and removed records (by default a list holds live ones: findings open or reopened, nothing removed)'),
  })
  .catchall(fieldFilters);
export type RecordQuery = z.input<typeof recordQuery>;

export const groupQuery = z
  .object({
    by: z.array(z.string()).min(1).describe('field to group by; repeat for several'),
    source: sourceList,
    where: whereList,
    limit: z.int().min(1).max(10_000).default(1000),
  })
  .catchall(z.unknown().describe('any other parameter is a field filter'));
export type GroupQuery = z.input<typeof groupQuery>;

export const complianceQuery = z.strictObject({
  source: z.array(z.string()).optional(),
  hostId: z.string().optional(),
  limit: z.int().min(1).max(5000).default(500),
});
export type ComplianceQuery = z.input<typeof complianceQuery>;

export const hostIdsQuery = z.strictObject({ id: hostIds });
export type HostIdsQuery = z.input<typeof hostIdsQuery>;

export const pluginQuery = z.strictObject({
  source: sourceList,
  q: z.string().optional().describe('plugin name contains (case-insensitive), or the exact plugin id'),
  severity: z.string().optional().describe('worst severity at least this (info, low, medium, high, critical)'),
  knownExploited: z.enum(['true', 'false']).optional(),
  sort: z
    .string()
    .default('-hosts')
    .describe('hosts, findings, severity, pluginName, pluginId, knownExploited, epssScore, vprScore, cvssV3BaseScore or source; -field for descending'),
  limit: z.int().min(1).max(1000).default(50),
  offset: z.int().min(0).max(MAX_OFFSET).default(0),
});
export type PluginQuery = z.input<typeof pluginQuery>;

// ---- changes and reports (server/routes/changes.ts, assets.ts) ----

export const changesQuery = z
  .object({
    since: z.string().optional().describe(SINCE_HELP),
    run: z.string().optional().describe(`${RUN_HELP} (not with since)`),
    model: z
      .array(z.string())
      .optional()
      .describe(`only changes of this model (${MODEL_NAMES.join(', ')}); repeat or comma-separate for several`),
    source: sourceList,
    change: z.array(z.string()).optional().describe('kind of change: new, fixed, reopened, removed, updated; repeat or comma-separate'),
    where: z.array(z.string()).optional().describe('filter on a change field: field=value, !=, >, >=, <, <=, ~ (contains)'),
    limit: z.int().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT),
    cursor: z.string().optional().describe('nextCursor of the previous page'),
  })
  .catchall(z.unknown().describe('any other parameter is a field filter: ?recordId=…'));
export type ChangesQuery = z.input<typeof changesQuery>;

export const remediationQuery = z.strictObject({
  source: sourceList,
  since: z.string().optional().describe(`only the fixes in the window: ${SINCE_HELP}`),
});
export type RemediationQuery = z.input<typeof remediationQuery>;

export const remediationsQuery = z.strictObject({
  source: sourceList,
  limit: z.int().min(1).max(1000).default(50).describe('fixes in the answer, largest share of priority first'),
});
export type RemediationsQuery = z.input<typeof remediationsQuery>;
export const remediationsExportQuery = remediationsQuery.extend({ format: z.enum(['csv', 'json']).default('csv') });
/** A page of a report's rows: without `limit` every row from `offset` on (the whole report, as before paging). */
const reportPage = {
  limit: z.int().min(1).max(10_000).optional().describe('rows in the answer (without: all of them); `total` says how many there are'),
  offset: z.int().min(0).max(MAX_OFFSET).default(0).describe('rows to skip (a page number: (page - 1) × limit)'),
};
export const remediationHostsQuery = z.strictObject({
  source: sourceList,
  fix: z.string().min(1).describe("a fix's key (the report's `key`)"),
  ...reportPage,
});
export type RemediationHostsQuery = z.input<typeof remediationHostsQuery>;
export const decisionCountsQuery = z.strictObject({
  source: sourceList,
  by: z.enum(['assetId', 'owner', 'department']).optional().describe('per asset, owner or department; without: one row for every open finding'),
  ...reportPage,
});
export type DecisionCountsQuery = z.input<typeof decisionCountsQuery>;

export const trendsQuery = z.strictObject({
  source: sourceList,
  days: z.int().min(1).max(366).default(30).describe('days in the window, its last day included'),
  to: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .optional()
    .describe('the last day (YYYY-MM-DD, UTC); default and at most today'),
});
export type TrendsQuery = z.input<typeof trendsQuery>;

export const coverageQuery = z.strictObject({ days: z.int().min(0).max(MAX_COVERAGE_DAYS).default(30), list: coverageKind.optional() });
export type CoverageQuery = z.input<typeof coverageQuery>;

// ---- feeds (server/routes/feeds.ts) ----

export const cveQuery = z.strictObject({ cve: z.array(z.string().max(40)).min(1).max(500).describe('a CVE id; repeat for several') });
export type CveQuery = z.input<typeof cveQuery>;
export const feedImportQuery = z.strictObject({
  name: z.string().max(255).optional(),
  replace: z.boolean().default(false).describe('install the feed even when it is older than the one imported'),
});
export type FeedImportQuery = z.input<typeof feedImportQuery>;

// ---- exports (server/routes/export.ts) ----

export const exportsQuery = z.strictObject({ source: z.string().optional().describe('only the destinations that apply to this source') });
export const destinationBody = z.strictObject({
  name: z.string().min(1).max(63),
  source: z.string().nullable().optional(),
  target: z
    .string()
    .min(1)
    .describe('a folder under the export root (TRIBUTARY_EXPORT_DIR, default <data-dir>/exports; a relative one is taken from there) or s3://BUCKET/PREFIX'),
  format: exportFormat,
  ocsfVersion: ocsfVersion.nullable().optional(),
  ecsBulk: z.boolean().optional(),
  models: z.array(z.string()).optional(),
  mode: z.enum(['full', 'changes']).optional(),
});
export type DestinationBody = z.input<typeof destinationBody>;
export const exportRunBody = z.strictObject({ source: z.string().optional() });
export type ExportRunBody = z.input<typeof exportRunBody>;
export const modelParams = z.object({ model: modelName });
export const exportQuery = z
  .object({
    format: exportFormat,
    ocsfVersion: ocsfVersion.default('1.1.0'),
    ecsBulk: z.boolean().optional().describe('ECS: an Elasticsearch _bulk action line with a stable _id before each document'),
    csvEscape: z
      .boolean()
      .default(true)
      .describe("CSV: a text cell that starts with = + - @, tab or CR gets a ' so spreadsheets do not run it; false writes cells raw"),
    since: z.string().optional().describe(`only the records changed in the window: ${SINCE_HELP}`),
    source: sourceList,
    where: whereList,
  })
  .catchall(fieldFilters);
export type ExportQuery = z.input<typeof exportQuery>;

// ---- file drop (server/routes/files.ts), tokens (auth.ts) ----

/** A source's name and a file name (the wildcard segment, so `a/b` reaches the sanitizer). */
export const fileParams = z.object({ name: z.string().min(1).max(200), '*': z.string().max(1024).optional() });
export const uploadParams = z.object({ bucket: z.string().max(63), '*': z.string().max(1024).optional() });
export const uploadTokenParams = z.object({ name: z.string().min(1), id: z.string().min(1).max(100) });
export const fileDropBody = z
  .strictObject({
    expires: z.string().max(20).optional().describe('30m, 1h (default), 7d, or seconds (1m to 7d)'),
    file: z.string().max(255).nullable().optional().describe('the one file name the credentials are for'),
  })
  .nullable()
  .optional();
export type FileDropBody = z.input<typeof fileDropBody>;

/** GET /api/v1/sources/:name/tickets/log: the newest entries of the remediation tickets' audit log. */
export const ticketLogQuery = z.object({ limit: z.int().min(1).max(10_000).default(100).describe('entries, newest first') });
