// `tributary report remediation [--source S] [--since RUN_ID|ISO-8601]`: mean time to remediate and
// open-finding age per source and severity, from the change feed (--json: one document).
import type { Command } from 'commander';
import { nowIso } from '../store/store.ts';
import { remediationReport } from '../store/remediation.ts';
import { SINCE_HELP } from '../store/since.ts';
import { collect, commandGroup, globals, printJson, withApp } from './app.ts';
import { sourceIdsOf } from './changes.ts';
import { renderTable } from './output.ts';

export function registerReportCommand(program: Command): void {
  const report = commandGroup(program, 'report', 'reports computed from the store: remediation, coverage');
  report
    .command('remediation')
    .description('mean time to remediate and open-finding age per source and severity, from the change history')
    .option('--source <name>', 'only this source (repeatable)', collect, [])
    .option('--since <run|time>', `only the fixes in the window: ${SINCE_HELP}`)
    .action(async (o: { source: string[]; since?: string }, cmd: Command) => {
      await withApp(cmd, async (app) => {
        const since = o.since === undefined ? null : await app.store.resolveSince(o.since);
        const generatedAt = nowIso();
        const items = await remediationReport(app.store, { sourceIds: await sourceIdsOf(app, o.source), since, now: generatedAt });
        if (globals(cmd).json) return printJson({ items, since: since?.at ?? null, generatedAt });
        if (items.length === 0) return void process.stdout.write('no findings\n');
        const rows = items.map((i) => ({
          source: i.source,
          severity: i.severity ?? '',
          fixed: i.fixed,
          'mttr days': i.meanDaysToRemediate ?? '',
          open: i.open,
          'mean age days': i.meanOpenAgeDays ?? '',
          'oldest days': i.oldestOpenAgeDays ?? '',
        }));
        process.stdout.write(renderTable(Object.keys(rows[0]), rows) + '\n');
      });
    });
}
