// `tributary report remediation [--source S] [--since RUN_ID|ISO-8601]`: mean time to remediate and
// open-finding age per source and severity; `report trends [--days 30] [--to DAY] [--source S]`: open
// findings by severity per day and the time to remediate per severity (the API's and the UI's numbers).
import type { Command } from 'commander';
import { InputError } from '../core/errors.ts';
import { nowIso, SINCE_HELP, TREND_SEVERITIES } from '../store/index.ts';
import { collect, commandGroup, globals, printJson, wholeNumberOption, withApp } from './app.ts';
import { sourceIdsOf } from './changes.ts';
import { renderTable } from './output.ts';

export function registerReportCommand(program: Command): void {
  const report = commandGroup(program, 'report', 'reports computed from the store: remediation, trends, coverage');
  report
    .command('remediation')
    .description("mean time to remediate and open-finding age per source and severity, from the change history and the scanner's dates")
    .option('--source <name>', 'only this source (repeatable)', collect, [])
    .option('--since <run|time>', `only the fixes in the window (a time: fixes dated at or after it): ${SINCE_HELP}`)
    .action(async (o: { source: string[]; since?: string }, cmd: Command) => {
      await withApp(cmd, async (app) => {
        const since = o.since === undefined ? null : await app.store.records.resolveSince(o.since);
        const generatedAt = nowIso();
        const items = await app.store.reports.remediation({ sourceIds: await sourceIdsOf(app, o.source), since, now: generatedAt });
        if (globals(cmd).json) return printJson({ items, since: since?.at ?? null, generatedAt });
        if (items.length === 0) return void process.stdout.write('no findings\n');
        const rows = items.map((i) => ({
          source: i.source,
          severity: i.severity ?? '',
          fixed: i.fixed,
          'mttr days': i.meanDaysToRemediate ?? '',
          'median days': i.medianDaysToRemediate ?? '',
          open: i.open,
          'mean age days': i.meanOpenAgeDays ?? '',
          'oldest days': i.oldestOpenAgeDays ?? '',
          'mttr blank': i.meanBlankReason ?? '',
        }));
        process.stdout.write(renderTable(Object.keys(rows[0]), rows) + '\n');
      });
    });
  report
    .command('trends')
    .description("open findings by severity at the end of each day, and the time to remediate per severity of the window's fixes")
    .option('--days <n>', 'days in the window, its last day included (1 to 366)', '30')
    .option('--to <day>', 'the last day (YYYY-MM-DD, UTC); default and at most today')
    .option('--source <name>', 'only this source (repeatable)', collect, [])
    .action(async (o: { days: string; to?: string; source: string[] }, cmd: Command) => {
      const days = wholeNumberOption(o.days, 'days', 1, 366);
      if (o.to !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(o.to)) throw new InputError(`--to must be a day (YYYY-MM-DD), got '${o.to}'`, 'to');
      await withApp(cmd, async (app) => {
        const generatedAt = nowIso();
        const r = await app.store.reports.trends({ sourceIds: await sourceIdsOf(app, o.source), days, to: o.to ?? null, now: generatedAt });
        if (globals(cmd).json) return printJson({ ...r, generatedAt });
        const open = [...r.days].reverse().map((d) => ({ day: d.date, ...d.open }));
        const mttr = r.remediation.map((m) => ({
          severity: m.severity,
          fixed: m.fixed,
          'mttr days': m.meanDaysToRemediate ?? '',
          'median days': m.medianDaysToRemediate ?? '',
          'mttr blank': m.meanBlankReason ?? '',
        }));
        const from = r.historyFrom ? `history from ${r.historyFrom}` : 'no history yet';
        process.stdout.write(
          `open findings at the end of each day (${from})\n${renderTable(['day', ...TREND_SEVERITIES], open)}\n\n` +
            `time to remediate, fixes dated ${r.from} to ${r.to}\n${renderTable(Object.keys(mttr[0]!), mttr)}\n`,
        );
      });
    });
}
