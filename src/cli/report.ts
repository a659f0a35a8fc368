// `tributary report remediation [--source S] [--since RUN_ID|ISO-8601]`: mean time to remediate and
// open-finding age per source and severity; `report trends [--days 30] [--to DAY] [--source S]`: open
// findings by severity per day and the time to remediate per severity (the API's and the UI's numbers).
import type { Command } from 'commander';
import { InputError } from '../core/errors.ts';
import { nowIso, SINCE_HELP, TREND_SEVERITIES } from '../store/index.ts';
import { collect, commandGroup, globals, printJson, wholeNumberOption, withApp } from './app.ts';
import { sourceIdsOf } from './changes.ts';
import { renderTable } from './output.ts';
import { DECISION_LABELS } from '../core/priority.ts';
import { MAX_OFFSET } from '../core/api-requests.ts';
import { topFixesOf } from '../core/api-shapes-reports.ts';
import { remediationsCsv } from '../export/report-csv.ts';
import { csvLine } from '../export/tabular.ts';

export function registerReportCommand(program: Command): void {
  const report = commandGroup(program, 'report', 'reports computed from the store: remediation, remediations, decisions, trends, coverage');
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
    .command('remediations')
    .description('top remediations: open findings grouped by the fix that closes them, largest share of priority first (docs/priority.md)')
    .option('--source <name>', 'only this source (repeatable)', collect, [])
    .option('--limit <n>', 'fixes to list (1 to 1000, default 50); with --fix: hosts to list (1 to 10000, default all)')
    .option('--offset <n>', 'with --fix: hosts to skip, most priority first (default 0)')
    .option('--fix <key>', "the hosts one fix closes findings on (a row's key)")
    .option('--format <format>', 'table, csv or json (--json is json)', 'table')
    .action(async (o: { source: string[]; limit?: string; offset?: string; fix?: string; format: string }, cmd: Command) => {
      if (o.offset !== undefined && o.fix === undefined) throw new InputError('--offset pages the hosts of one fix: give --fix', 'offset');
      const limit = o.fix === undefined ? wholeNumberOption(o.limit ?? '50', 'limit', 1, 1000) : undefined;
      const page = o.fix === undefined ? {} : reportPage(o);
      const format = globals(cmd).json ? 'json' : o.format;
      if (!['table', 'csv', 'json'].includes(format)) throw new InputError(`--format is table, csv or json, got '${o.format}'`, 'format');
      await withApp(cmd, async (app) => {
        const sourceIds = await sourceIdsOf(app, o.source);
        if (o.fix !== undefined) {
          const r = await app.store.reports.remediationHosts(o.fix, sourceIds, page);
          if (!r.fix) throw new InputError(`no open findings for the fix '${o.fix}'`, 'fix');
          if (format === 'json') return printJson(r);
          const rows = r.hosts.map((h) => ({
            host: h.name ?? h.hostId,
            owner: h.owner ?? '',
            department: h.department ?? '',
            findings: h.findings,
            decision: h.decision ? DECISION_LABELS[h.decision] : '',
            priority: h.priority,
          }));
          if (format === 'csv')
            return void process.stdout.write(`${[Object.keys(rows[0] ?? { host: '' }).join(','), ...rows.map((x) => csvLine(Object.values(x)))].join('\n')}\n`);
          process.stdout.write(
            `${r.fix.fix}\n${pageNote(rows.length, r.total, page, 'hosts')}${rows.length ? renderTable(Object.keys(rows[0]!), rows) : 'no hosts'}\n`,
          );
          return;
        }
        const r = await app.store.reports.remediations({ sourceIds, limit });
        if (format === 'json') return printJson({ ...r, generatedAt: nowIso() });
        if (format === 'csv') return void process.stdout.write(remediationsCsv(r.items));
        if (r.items.length === 0) return void process.stdout.write('no open findings\n');
        const rows = r.items.map((i) => ({ fix: cut(i.fix), ...fixColumns(i.hostsExact, i.hosts, i.findings, i.decisions, i.share, i.owners), key: i.key }));
        process.stdout.write(
          `${r.total.fixes} fixes for ${r.total.findings} open findings (total priority ${r.total.priority})\n${renderTable(Object.keys(rows[0]!), rows)}\n`,
        );
      });
    });
  report
    .command('top-fixes')
    .description('top fixes (interfaces.md 7.3): the top remediations as rows of the fixes model, largest share of priority first')
    .option('--source <name>', 'only this source (repeatable)', collect, [])
    .option('--limit <n>', 'fixes to list (1 to 1000)', '50')
    .action(async (o: { source: string[]; limit: string }, cmd: Command) => {
      const limit = wholeNumberOption(o.limit, 'limit', 1, 1000);
      await withApp(cmd, async (app) => {
        const r = await app.store.reports.remediations({ sourceIds: await sourceIdsOf(app, o.source), limit });
        const fixes = topFixesOf(r.items);
        if (globals(cmd).json) return printJson({ fixes });
        if (fixes.length === 0) return void process.stdout.write('no open findings\n');
        const rows = fixes.map((i) => ({
          solution: cut(i.solution),
          ...fixColumns(i.hostsExact, i.hostCount, i.findingCount, i.decisions, i.priorityShare, i.owners),
        }));
        process.stdout.write(`${renderTable(Object.keys(rows[0]!), rows)}\n`);
      });
    });
  report
    .command('decisions')
    .description('open findings by SSVC decision (Act, Attend, Track*, Track) and their summed priority, in all or per asset, owner or department')
    .option('--source <name>', 'only this source (repeatable)', collect, [])
    .option('--by <field>', 'assetId, owner or department')
    .option('--limit <n>', 'rows to list, most Act first (1 to 10000, default all)')
    .option('--offset <n>', 'rows to skip (default 0)')
    .option('--recompute', 'first recompute every open finding (after TRIBUTARY_PRIORITY changed)')
    .action(async (o: { source: string[]; by?: string; limit?: string; offset?: string; recompute?: boolean }, cmd: Command) => {
      if (o.by !== undefined && !['assetId', 'owner', 'department'].includes(o.by))
        throw new InputError(`--by is assetId, owner or department, got '${o.by}'`, 'by');
      const page = reportPage(o);
      await withApp(cmd, async (app) => {
        const recomputed = o.recompute ? await app.store.records.recomputePriorities() : undefined;
        const by = (o.by ?? null) as 'assetId' | 'owner' | 'department' | null;
        const { items, total } = await app.store.reports.decisionCountsPage(by, await sourceIdsOf(app, o.source), page);
        if (globals(cmd).json) return printJson({ items, total, ...(recomputed === undefined ? {} : { recomputed }) });
        if (recomputed !== undefined) process.stdout.write(`${recomputed} findings recomputed\n`);
        if (o.by !== undefined) process.stdout.write(pageNote(items.length, total, page, `${o.by === 'assetId' ? 'assets' : `${o.by}s`}`));
        const rows = items.map((i) => ({
          [o.by ?? 'all']: i.group ?? (o.by ? '(none)' : 'open findings'),
          act: i.act,
          attend: i.attend,
          'track*': i.trackStar,
          track: i.track,
          priority: i.priority,
        }));
        process.stdout.write(rows.length ? `${renderTable(Object.keys(rows[0]!), rows)}\n` : 'no open findings\n');
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

/** A page of a report (--limit, --offset): rows as the API's ?limit= (1 to 10000, all without) and ?offset=. */
function reportPage(o: { limit?: string; offset?: string }): { limit?: number; offset: number } {
  return {
    limit: o.limit === undefined ? undefined : wholeNumberOption(o.limit, 'limit', 1, 10_000),
    offset: o.offset === undefined ? 0 : wholeNumberOption(o.offset, 'offset', 0, MAX_OFFSET),
  };
}

/** "rows 101–200 of 3,346 hosts" above a table that is a page of its report (nothing when it is the whole). */
function pageNote(shown: number, total: number, page: { limit?: number; offset?: number }, what: string): string {
  if (page.limit === undefined && !page.offset) return '';
  const from = (page.offset ?? 0) + 1;
  return shown === 0 ? `none past ${from - 1} of ${total} ${what}\n` : `${from}–${from + shown - 1} of ${total} ${what}\n`;
}

/** A fix's text in a table: cut after 70 characters. */
const cut = (text: string): string => (text.length > 70 ? `${text.slice(0, 69)}…` : text);

/** A fix's columns in the remediations and top-fixes tables: hosts marked when an upper bound, owners past three counted. */
function fixColumns(
  hostsExact: boolean,
  hosts: number,
  findings: number,
  decisions: Record<'act' | 'attend' | 'track-star' | 'track', number>,
  share: number,
  owners: string[],
) {
  return {
    hosts: hostsExact ? hosts : `≤${hosts}`,
    findings,
    act: decisions.act,
    attend: decisions.attend,
    'track*': decisions['track-star'],
    track: decisions.track,
    share: `${(share * 100).toFixed(1)}%`,
    owners: owners.length > 3 ? `${owners.slice(0, 3).join(', ')} +${owners.length - 3}` : owners.join(', '),
  };
}
