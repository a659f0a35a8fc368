// The software, ports and compliance streams: vulndetails reads filtered server-side by plugin (or
// plugin type), whatever the severity, so they come in whatever includeInformational says. Each row
// finds its host through the host resolver, which creates a host no identifier names yet.
import type { Stream, StreamContext } from '../../../core/connector.ts';
import { mapRows } from '../../../core/map-rows.ts';
import type { HostResolver } from '../map/host-resolver.ts';
import { isComplianceRow, mapComplianceRow, mapPortRow, mapSoftwareRow, PORT_PLUGINS, SOFTWARE_PLUGINS } from '../map/vulndetails.ts';
import { missingFindingIdentity } from '../map/identity.ts';
import { loadResolver, pluginFilter, type StreamDeps, withClient } from './common.ts';
import { type AnalysisPhase, type Cursor, runAnalysisPhases, timeFilter } from './cursor.ts';
import { PageWorker } from './page-worker.ts';
import { streamStart } from './scan-window.ts';

/**
 * A software row is a host's whole inventory (tens to hundreds of packages, each a record), so a page of
 * them is many times a page of findings: the software stream asks for this fraction of the page size.
 * At 1,000 rows a page of the simulator's software was ~20,000 records, ~10 MB of the main heap for
 * each of the three pages in flight and ~25 MB more in the SQLite page writer's heap (issue 30, memory).
 */
export const SOFTWARE_PAGE_DIVISOR = 4;

function singlePhaseStream(deps: StreamDeps, s: Omit<Stream, 'read'>, phase: (cursor: Cursor, hosts: HostResolver) => AnalysisPhase, pageDivisor = 1): Stream {
  return {
    ...s,
    read(ctx: StreamContext) {
      return withClient(deps, ctx, async function* (client) {
        const start = await streamStart(deps, ctx, client, s.name, [s.name]);
        const p = phase(start, await loadResolver(deps, ctx));
        // A phase that can be mapped on a page thread is (page-worker.ts).
        const pages = p.onThread ? new PageWorker({ proofMaxBytes: deps.config.proofMaxBytes }) : undefined;
        const pageSize = Math.max(1, Math.ceil(deps.config.pageSize / pageDivisor));
        try {
          yield* runAnalysisPhases(client, ctx, [{ ...p, name: s.name }], start, pageSize, 'done', pages);
        } finally {
          await pages?.close();
        }
      });
    },
  };
}

export function softwareStream(deps: StreamDeps): Stream {
  return singlePhaseStream(
    deps,
    { name: 'software', models: ['software'], primaryKey: ['hostKey', 'name', 'version'], cursorField: 'lastSeen' },
    (c, hosts) => ({
      name: 'software',
      query: { tool: 'vulndetails', sourceType: 'cumulative', filters: [pluginFilter(SOFTWARE_PLUGINS), ...timeFilter('lastSeen', c)] },
      map: (rows, at) =>
        mapRows(
          rows,
          (row, add) => {
            for (const r of mapSoftwareRow(row, hosts.rowHost(row, add))) add('software', r);
          },
          { ...at, missing: missingFindingIdentity },
        ),
    }),
    SOFTWARE_PAGE_DIVISOR,
  );
}

export function portsStream(deps: StreamDeps): Stream {
  return singlePhaseStream(deps, { name: 'ports', models: ['ports'], primaryKey: ['hostKey', 'port', 'protocol'], cursorField: 'lastSeen' }, (c, hosts) => ({
    name: 'ports',
    query: { tool: 'vulndetails', sourceType: 'cumulative', filters: [pluginFilter(PORT_PLUGINS), ...timeFilter('lastSeen', c)] },
    map: (rows, at) => mapRows(rows, (row, add) => add('ports', mapPortRow(row, hosts.rowHost(row, add))), { ...at, missing: missingFindingIdentity }),
  }));
}

export function complianceStream(deps: StreamDeps): Stream {
  return singlePhaseStream(
    deps,
    { name: 'compliance', models: ['compliance'], primaryKey: ['hostKey', 'pluginID', 'checkName'], cursorField: 'lastSeen' },
    (c, hosts) => ({
      name: 'compliance',
      query: {
        tool: 'vulndetails',
        sourceType: 'cumulative',
        filters: [{ filterName: 'pluginType', operator: '=', value: 'compliance' }, ...timeFilter('lastSeen', c)],
      },
      map: (rows, at) =>
        mapRows(
          rows,
          (row, add) => {
            if (isComplianceRow(row)) add('compliance', mapComplianceRow(row, hosts.rowHost(row, add)));
          },
          { ...at, missing: missingFindingIdentity },
        ),
      onThread: { as: { kind: 'compliance' }, hosts },
    }),
  );
}
