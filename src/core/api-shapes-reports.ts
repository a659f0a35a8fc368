// The /api/v1 shapes of what is read from the records: summaries and counts, reports, the change feed,
// assets and coverage. Declared once like those of src/core/api-shapes.ts (route schemas, OpenAPI and
// the web client's types come from them); only zod here, the browser imports this file for its types.
import { z } from 'zod';
import { nullableString, page, recordItem, recordShapes } from './api-shapes.ts';
import { CHANGE_KINDS, COVERAGE_KINDS } from './models.ts';

const severity = z.enum(['info', 'low', 'medium', 'high', 'critical']);

// ---- record summaries ----

export const groupCount = z.object({ values: z.record(z.string(), z.unknown()), count: z.int() });
export type GroupCount = z.infer<typeof groupCount>;
export const groupCounts = z.object({ items: z.array(groupCount) });

export const complianceSummaryItem = z.object({
  hostId: nullableString,
  hostname: nullableString,
  ipAddresses: z.array(z.string()),
  source: z.string(),
  benchmark: z.string(),
  passed: z.int(),
  failed: z.int(),
  warning: z.int(),
  error: z.int(),
  total: z.int(),
});
export type ComplianceSummaryItem = z.infer<typeof complianceSummaryItem>;
export const complianceSummary = z.object({ items: z.array(complianceSummaryItem) });

export const hostLabel = z.object({ id: z.string(), hostname: nullableString, ipAddresses: z.array(z.string()) });
export type HostLabel = z.infer<typeof hostLabel>;
export const hostLabels = z.object({ items: z.array(hostLabel) });

export const recordStats = z.object({
  models: z.record(z.string(), z.int()),
  sources: z.record(z.string(), z.record(z.string(), z.int())),
  overdue: z.record(z.string(), z.int()).describe('open findings past their SLA due date, per severity'),
});
export type RecordStats = z.infer<typeof recordStats>;

/** Vulnerabilities by plugin: one row per source and plugin with open findings (GET /api/v1/vulnerabilities/plugins). */
export const pluginRow = z.object({
  source: z.string(),
  pluginId: z.string(),
  pluginName: nullableString,
  severity: severity.nullable().describe('the worst severity among its open findings'),
  hosts: z.int().describe('hosts with an open finding of this plugin'),
  findings: z.int().describe('open findings (a host may have several: one per port)'),
  knownExploited: z.boolean(),
  epssScore: z.number().nullable(),
  vprScore: z.number().nullable(),
  cvssV3BaseScore: z.number().nullable(),
});
export type PluginRow = z.infer<typeof pluginRow>;
export const pluginSummary = z.object({ items: z.array(pluginRow), total: z.int() });
export type PluginSummary = z.infer<typeof pluginSummary>;

/** Open findings per severity (the trends report's days and the hosts list's columns). */
const severityCounts = z.object({ critical: z.int(), high: z.int(), medium: z.int(), low: z.int(), info: z.int() });

/** A host's live open findings per severity (GET /api/v1/hosts/finding-counts). */
export const hostFindingCounts = severityCounts.extend({ hostId: z.string(), total: z.int() });
export type HostFindingCounts = z.infer<typeof hostFindingCounts>;
export const hostFindingCountsList = z.object({ items: z.array(hostFindingCounts) });

/** How many records a list's filters match (GET /api/v1/<model>/count). */
export const recordCount = z.object({ count: z.int() });
export type RecordCount = z.infer<typeof recordCount>;

// ---- reports ----

export const remediationItem = z.object({
  source: z.string(),
  severity: nullableString,
  fixed: z
    .int()
    .describe("fixes in the window: those a run saw, and findings first imported already fixed, dated by the scanner's mitigation date where it sent one"),
  meanDaysToRemediate: z
    .number()
    .nullable()
    .describe("mean days from first seen (or the last reopening before the fix) to the fix (the scanner's mitigation date, else the run that saw it)"),
  medianDaysToRemediate: z.number().nullable().describe('the median of the same days'),
  undatedFixes: z.int().describe("fixes without a known date (first imported already fixed, without the scanner's date): left out of the mean"),
  meanBlankReason: nullableString.describe('why meanDaysToRemediate is null (no fix in the window, or no mitigation date); null when it is a number'),
  open: z.int().describe('findings open or reopened now'),
  meanOpenAgeDays: z.number().nullable(),
  oldestOpenAgeDays: z.number().nullable(),
});
export type RemediationItem = z.infer<typeof remediationItem>;
export const remediationReport = z.object({ items: z.array(remediationItem), since: nullableString, generatedAt: z.iso.datetime() });
export type RemediationReport = z.infer<typeof remediationReport>;

// ---- what to fix first (docs/priority.md) ----

const decisionCountsShape = z.object({ act: z.int(), attend: z.int(), 'track-star': z.int(), track: z.int() });
export const remediationFix = z.object({
  key: z.string().describe('what groups the findings (the normalised fix); ?fix= of the hosts drill-down'),
  fix: z.string().describe("the plugin's solution (for an upgrade of a product, the newest version asked for)"),
  hosts: z.int(),
  hostsExact: z
    .boolean()
    .describe("false: hosts is the sum over the fix's plugins (a host with two of them counted twice); the hosts drill-down lists each once"),
  findings: z.int(),
  decisions: decisionCountsShape.describe('the open findings it closes, by SSVC decision'),
  owners: z.array(z.string()),
  priority: z.number().describe('priority summed over its findings'),
  share: z.number().describe("its priority as a share (0–1) of every open finding's"),
  plugins: z.array(z.object({ source: z.string(), pluginId: z.string(), name: nullableString })),
});
export type RemediationFix = z.infer<typeof remediationFix>;
export const remediationsReport = z.object({
  items: z.array(remediationFix),
  total: z.object({ fixes: z.int(), findings: z.int(), priority: z.number() }),
  generatedAt: z.iso.datetime(),
});
export type RemediationsReport = z.infer<typeof remediationsReport>;
/** A row of the contract's `fixes` model (interfaces.md 7.3): a top remediation by the contract's names. */
export const topFix = z.object({
  solution: z.string().describe("the fix: the plugin's solution, normalised"),
  pluginIds: z.array(z.string()),
  hostCount: z.int(),
  findingCount: z.int(),
  decisions: decisionCountsShape.describe('the open findings it closes, by SSVC decision'),
  owners: z.array(z.string()),
  prioritySum: z.number(),
  priorityShare: z.number().describe("its priority as a share (0–1) of every open finding's"),
  key: z.string().describe('?fix= of /api/v1/reports/remediations/hosts'),
  hostsExact: z.boolean(),
});
export type TopFix = z.infer<typeof topFix>;
export const topFixesReport = z.object({ fixes: z.array(topFix), generatedAt: z.iso.datetime().optional() });
export type TopFixesReport = z.infer<typeof topFixesReport>;

/** The top remediations as rows of the `fixes` model. */
export function topFixesOf(items: readonly RemediationFix[]): TopFix[] {
  return items.map((i) => ({
    solution: i.fix,
    pluginIds: [...new Set(i.plugins.map((p) => p.pluginId))],
    hostCount: i.hosts,
    findingCount: i.findings,
    decisions: i.decisions,
    owners: i.owners,
    prioritySum: i.priority,
    priorityShare: i.share,
    key: i.key,
    hostsExact: i.hostsExact,
  }));
}
export const remediationHost = z.object({
  hostId: z.string(),
  name: nullableString,
  owner: nullableString,
  department: nullableString,
  findings: z.int(),
  decision: z.enum(['track', 'track-star', 'attend', 'act']).nullable(),
  priority: z.number(),
});
export const remediationHosts = z.object({
  fix: remediationFix.nullable(),
  hosts: z.array(remediationHost).describe('the page of hosts asked for (limit, offset), most priority first, then by host id'),
  total: z.int().describe("the fix's hosts before paging"),
});
export type RemediationHosts = z.infer<typeof remediationHosts>;
export const decisionCounts = z.object({
  items: z
    .array(
      z.object({
        group: nullableString.describe('the asset, owner or department (null: none, or every finding without ?by)'),
        act: z.int(),
        attend: z.int(),
        trackStar: z.int(),
        track: z.int(),
        priority: z.number().describe('risk: the priority summed over its open findings'),
      }),
    )
    .describe('the page of rows asked for (limit, offset): most Act first, then most priority, then by group (none last)'),
  total: z.int().describe('the rows before paging'),
});
export type DecisionCounts = z.infer<typeof decisionCounts>;

export const trendsReport = z.object({
  from: z.string().describe('first day (YYYY-MM-DD, UTC)'),
  to: z.string().describe('last day'),
  historyFrom: nullableString.describe(
    "the first day of the findings' history (the earliest first-seen date, the scanner's where it sent one): no finding was open before it",
  ),
  days: z.array(z.object({ date: z.string().describe('YYYY-MM-DD (UTC): open findings at the end of that day (for today: now)'), open: severityCounts })),
  remediation: z.array(
    z.object({
      severity: z.string(),
      fixed: z.int().describe("fixes dated in the window (the scanner's mitigation date, else the run that saw the fix)"),
      meanDaysToRemediate: z.number().nullable().describe('mean days from first seen (or the last reopening) to the fix; null: see meanBlankReason'),
      medianDaysToRemediate: z.number().nullable().describe('the median of the same days'),
      undatedFixes: z.int().describe('fixes without a known date, left out of the mean'),
      meanBlankReason: nullableString.describe('why meanDaysToRemediate is null; null when it is a number'),
    }),
  ),
  generatedAt: z.iso.datetime(),
});
export type TrendsReport = z.infer<typeof trendsReport>;

// ---- change feed ----

export const changeKind = z.enum(CHANGE_KINDS);
export type ChangeKind = z.infer<typeof changeKind>;

/** One lifecycle event of a record (GET /api/v1/changes, `tributary changes`); its fields in output order. */
export const changeEvent = z.object({
  id: z.string().describe("the event's id: its record's, its run's and its change"),
  source: z.string(),
  model: z.string(),
  recordId: z.string(),
  externalId: nullableString,
  change: changeKind,
  from: nullableString.describe('the status before (fixed, reopened, updated)'),
  to: nullableString.describe('the status after'),
  runId: z.string(),
  at: z.iso.datetime(),
});
export type ChangeEvent = z.infer<typeof changeEvent>;
export const changePage = page(changeEvent);

// ---- assets and coverage ----

export const assetRecords = z.object({ asset: recordItem, hosts: z.array(recordItem), cmdbAssets: z.array(recordItem) });
/**
 * The same answer with each record typed by its model: the web client's type (api-routes.ts `typed`),
 * while the route's schema keeps documenting and serializing any record's fields as before.
 */
export const assetRecordsTyped = z.object({ asset: recordShapes.assets, hosts: z.array(recordShapes.hosts), cmdbAssets: z.array(recordShapes['cmdb-assets']) });
export type AssetRecords = z.infer<typeof assetRecords>;

export const coverageKind = z.enum(COVERAGE_KINDS);
export const coverageCounts = z.object({
  cmdbNotScanned: z.int(),
  scannedNotInCmdb: z.int(),
  findingsWithoutTicket: z.int(),
  ticketsForFixedFindings: z.int(),
  /** Remediation requests closed (by a person) while findings of theirs are open (issue 32 §4); added after the first four. */
  ticketsClosedFindingsOpen: z.int(),
  days: z.int(),
});
export type CoverageCounts = z.infer<typeof coverageCounts>;
export const coverageRecords = z.object({ kind: coverageKind, days: z.int(), items: z.array(recordItem) });
export type CoverageRecords = z.infer<typeof coverageRecords>;
/** GET /api/v1/reports/coverage: the four numbers, or with ?list=KIND the records behind one. */
export const coverageAnswer = z.union([coverageRecords, coverageCounts]);

/** A manual link or unlink of a host and a CMDB record (POST/DELETE /api/v1/assets/{id}/link). */
export const assetLinkBody = z.strictObject({
  cmdbAssetId: z.string().min(1),
  hostId: z.string().min(1).optional().describe('the host, when the path names an asset'),
});
export type AssetLinkBody = z.infer<typeof assetLinkBody>;
export const assetLinked = z.object({
  action: z.enum(['link', 'unlink']),
  hostId: z.string(),
  cmdbAssetId: z.string(),
  asset: recordItem.describe('the asset the host is in now'),
});
/** The same answer with the asset typed (as assetRecordsTyped). */
export const assetLinkedTyped = assetLinked.extend({ asset: recordShapes.assets });
export type AssetLinked = z.infer<typeof assetLinked>;
