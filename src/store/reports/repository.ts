// The reports repository: summaries kept by each run's epilogue, and the reports read from records
// (coverage, remediation, trends). A new report is its file here and one line below.
import { bindDriver } from '../db/bind.ts';
import type { Driver } from '../db/driver.ts';
import { coverageList, coverageReport } from './coverage.ts';
import { remediationReport } from './remediation.ts';
import { decisionCounts, decisionCountsPage } from './decisions.ts';
import { remediationHosts, remediationsReport } from './remediations.ts';
import { complianceSummary, hostFindingCounts, overdueCounts, pluginSummary } from './summary-tables-read.ts';
import { type RefreshAfterRun, refreshAllSummaries, refreshSummaries } from './summary-tables-write.ts';
import { trendsFingerprint, trendsReport } from './trends.ts';

/**
 * Rebuilds a source's summaries from its records (a run's epilogue, `after`: only the groups of what the
 * run stamped, when that is enough), or every source's. Says whether it rebuilt them whole.
 */
async function refresh(db: Driver, sourceId?: string, after?: RefreshAfterRun): Promise<'full' | 'touched'> {
  if (sourceId) return refreshSummaries(db, sourceId, after);
  await refreshAllSummaries(db);
  return 'full';
}

export const reportsRepository = (db: Driver) =>
  bindDriver(db, {
    refreshSummaries: refresh,
    overdueCounts,
    pluginSummary,
    hostFindingCounts,
    complianceSummary,
    coverage: coverageReport,
    coverageList,
    remediation: remediationReport,
    /** Open findings grouped by the fix that closes them, largest share of priority first (docs/priority.md). */
    remediations: remediationsReport,
    remediationHosts,
    /** Open findings by decision, in all or per asset, owner or department. */
    decisionCounts,
    /** A page of the decisions per asset, owner or department (limit, offset) and the number of groups. */
    decisionCountsPage,
    trends: trendsReport,
    trendsFingerprint,
  });

export type ReportsRepository = ReturnType<typeof reportsRepository>;
