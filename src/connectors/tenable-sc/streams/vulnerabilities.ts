// The vulnerabilities stream: the patched set (→ fixed) first, then the cumulative set (→ open or
// reopened), so a finding that resurfaced ends the run as open. Compliance rows are left to their own
// stream; Info findings are filtered server-side unless includeInformational is on.
import type { Stream, StreamContext } from '../../../core/connector.ts';
import { missingFindingIdentity } from '../map/identity.ts';
import { isComplianceRow, mapVulnerability } from '../map/vulndetails.ts';
import { type StreamDeps, severityFilter, withClient } from './common.ts';
import { type AnalysisPhase, type Cursor, mapRows, runAnalysisPhases, startCursor, timeFilter } from './cursor.ts';

export const VULN_PHASES = ['patched', 'cumulative'] as const;

export function vulnerabilityPhases(deps: StreamDeps, cursor: Cursor): AnalysisPhase[] {
  const sev = severityFilter(deps.config.includeInformational);
  const map = (sourceType: 'cumulative' | 'patched') => (rows: Record<string, unknown>[]) =>
    mapRows(rows, (row, add) => {
      if (!isComplianceRow(row)) add('vulnerabilities', mapVulnerability(row, sourceType));
    }, missingFindingIdentity);
  return [
    {
      name: 'patched',
      query: { tool: 'vulndetails', sourceType: 'patched', filters: [...sev, ...timeFilter('lastMitigated', cursor)] },
      ...(cursor.since !== null ? { fallbackFilters: [...sev, ...timeFilter('lastSeen', cursor)] } : {}),
      map: map('patched'),
    },
    {
      name: 'cumulative',
      query: { tool: 'vulndetails', sourceType: 'cumulative', filters: [...sev, ...timeFilter('lastSeen', cursor)] },
      map: map('cumulative'),
    },
  ];
}

export function vulnerabilitiesStream(deps: StreamDeps): Stream {
  return {
    name: 'vulnerabilities',
    models: ['vulnerabilities'],
    primaryKey: ['hostKey', 'port', 'protocol', 'pluginID'],
    cursorField: 'lastSeen',
    read(ctx: StreamContext) {
      const start = startCursor(ctx, [...VULN_PHASES]);
      return withClient(deps, ctx, (client) => runAnalysisPhases(client, ctx, vulnerabilityPhases(deps, start), start, deps.config.pageSize));
    },
  };
}
