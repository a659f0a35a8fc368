// The top remediations as CSV (issue 31 §2): one row per fix, its cells neutralised like every CSV
// export's (a cell a spreadsheet would run as a formula is prefixed, tabular.ts).
import type { RemediationFix } from '../core/api-shapes-reports.ts';
import { csvLine } from './tabular.ts';

export const REMEDIATIONS_CSV_COLUMNS = [
  'fix',
  'hosts',
  'hostsExact',
  'findings',
  'act',
  'attend',
  'trackStar',
  'track',
  'owners',
  'priority',
  'share',
  'plugins',
  'key',
];

export function remediationsCsv(items: RemediationFix[]): string {
  const lines = [csvLine(REMEDIATIONS_CSV_COLUMNS)];
  for (const i of items)
    lines.push(
      csvLine([
        i.fix,
        i.hosts,
        i.hostsExact,
        i.findings,
        i.decisions.act,
        i.decisions.attend,
        i.decisions['track-star'],
        i.decisions.track,
        i.owners.join('; '),
        i.priority,
        i.share,
        i.plugins.map((p) => `${p.source}:${p.pluginId}`).join(' '),
        i.key,
      ]),
    );
  return `${lines.join('\n')}\n`;
}
