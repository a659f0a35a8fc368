// The vulnerabilities stream: the patched set (→ fixed) first, then the cumulative set (→ open or
// reopened), so a finding that resurfaced ends the run as open. Compliance rows are left to their own
// stream; Info findings are filtered server-side unless includeInformational is on. A finding whose
// host no identifier names yet creates it from the row's own host fields.
import type { Stream, StreamContext } from '../../../core/connector.ts';
import { mapRows, type RowsAt } from '../../../core/map-rows.ts';
import { HostResolver } from '../map/host-resolver.ts';
import { mapPlugin } from '../map/plugins.ts';
import { text } from '../map/values.ts';
import { missingFindingIdentity } from '../map/identity.ts';
import { isComplianceRow, mapVulnerability } from '../map/vulndetails.ts';
import { loadResolver, type StreamDeps, severityFilter, withClient } from './common.ts';
import { type AnalysisPhase, type Cursor, runAnalysisPhases, timeFilter } from './cursor.ts';
import { PageWorker } from './page-worker.ts';
import { streamStart } from './scan-window.ts';

export const VULN_PHASES = ['patched', 'cumulative'] as const;

export function vulnerabilityPhases(deps: StreamDeps, cursor: Cursor, hosts: HostResolver = new HostResolver()): AnalysisPhase[] {
  const sev = severityFilter(deps.config.includeInformational);
  // A plugin's record is written once per read (its text is the same on every finding of it).
  const pluginsSeen = new Set<string>();
  const map = (sourceType: 'cumulative' | 'patched') => (rows: Record<string, unknown>[], at: RowsAt) =>
    mapRows(
      rows,
      (row, add) => {
        if (isComplianceRow(row)) return;
        add('vulnerabilities', mapVulnerability(row, sourceType, hosts.rowHost(row, add), deps.config));
        const pid = text(row.pluginID);
        if (pid !== null && !pluginsSeen.has(pid)) {
          pluginsSeen.add(pid);
          add('plugins', mapPlugin(row));
        }
      },
      { ...at, missing: missingFindingIdentity },
    );
  return [
    {
      name: 'patched',
      query: { tool: 'vulndetails', sourceType: 'patched', filters: [...sev, ...timeFilter('lastMitigated', cursor)] },
      // A console without `lastMitigated` gets the whole patched set: a `lastSeen` window would miss a
      // finding whose last vulnerable sighting is older than the window, and no other filter says when
      // a finding was mitigated.
      ...(cursor.since !== null ? { fallbackFilters: [...sev] } : {}),
      map: map('patched'),
      onThread: { as: { kind: 'findings', sourceType: 'patched' }, hosts },
    },
    {
      name: 'cumulative',
      query: { tool: 'vulndetails', sourceType: 'cumulative', filters: [...sev, ...timeFilter('lastSeen', cursor)] },
      map: map('cumulative'),
      onThread: { as: { kind: 'findings', sourceType: 'cumulative' }, hosts },
    },
  ];
}

export function vulnerabilitiesStream(deps: StreamDeps): Stream {
  return {
    name: 'vulnerabilities',
    models: ['vulnerabilities', 'plugins'],
    primaryKey: ['hostKey', 'port', 'protocol', 'pluginID'],
    cursorField: 'lastSeen',
    read(ctx: StreamContext) {
      return withClient(deps, ctx, async function* (client) {
        const start = await streamStart(deps, ctx, client, 'vulnerabilities', [...VULN_PHASES]);
        const hosts = await loadResolver(deps, ctx);
        // Its pages are decoded, parsed and mapped on a thread of their own (page-worker.ts).
        const pages = new PageWorker({ proofMaxBytes: deps.config.proofMaxBytes });
        try {
          yield* runAnalysisPhases(client, ctx, vulnerabilityPhases(deps, start, hosts), start, deps.config.pageSize, 'done', pages);
        } finally {
          await pages.close();
        }
      });
    },
  };
}
