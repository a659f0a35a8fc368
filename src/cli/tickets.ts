// `tributary tickets plan SOURCE`, `tickets apply SOURCE` and `tickets log [SOURCE]`: remediation tickets of
// a service desk source (issue 32): what the next run would write, writing it, and the audit log.
import type { Command } from 'commander';
import { applySourceTickets, planSourceTickets, ticketLog } from '../app/tickets.ts';
import { counted } from '../core/format.ts';
import { printJson, wholeNumberOption, withApp } from './app.ts';

export function registerTicketsCommands(program: Command): void {
  const cmd = program
    .command('tickets')
    .description('remediation tickets in a service desk source: one request per fix and owner group, noted and resolved as findings change');

  cmd
    .command('plan <source>')
    .description('what the next apply would create, note and resolve, with the findings behind each; writes nothing')
    .option('--findings', 'list the findings of each request')
    .action(async (name: string, o: { findings?: boolean }, c: Command) => {
      await withApp(c, async (app, g) => {
        const plan = await planSourceTickets(app, name);
        if (g.json) return printJson(plan);
        const out: string[] = [];
        if (!plan.enabled) out.push(`remediation tickets are off for ${name}: this is what enabling them would do`);
        out.push(
          `${counted(plan.findings, 'ticketed finding')} in ${counted(plan.groups, 'group')} (grouping ${plan.grouping}): ${plan.counts.create} to create${plan.counts.deferred ? ` (+${plan.counts.deferred} past the per-run cap)` : ''}, ${plan.counts.note} to note, ${plan.counts.resolve} to resolve, ${plan.counts.reopen} to reopen`,
        );
        for (const a of plan.actions) {
          const what =
            a.kind === 'create'
              ? `${a.deferred ? 'create later' : a.recover ? 'create (search first)' : 'create'}  ${a.title}`
              : a.kind === 'resolve' && a.reason && a.reason !== 'fixed'
                ? `close (${a.reason})  request ${a.requestId}`
                : `${a.kind}  request ${a.requestId}`;
          out.push(
            `${a.marker}  ${what}  (${a.findingIds.length} open, +${a.added.length}, ${a.fixed.length} fixed${a.left.length ? `, ${a.left.length} no longer ticketed` : ''})`,
          );
          if (o.findings) for (const id of a.findingIds) out.push(`    ${id}`);
        }
        if (plan.actions.length === 0) out.push('nothing to write');
        process.stdout.write(`${out.join('\n')}\n`);
      });
    });

  cmd
    .command('apply <source>')
    .description('write the plan to the service desk (the source must have remediationTickets.enabled)')
    .action(async (name: string, _o, c: Command) => {
      await withApp(c, async (app, g) => {
        const r = await applySourceTickets(app, name);
        if (g.json) return printJson(r);
        process.stdout.write(
          `run ${r.runId}: ${r.created} created, ${r.adopted} found by marker, ${r.noted} noted, ${r.resolved} resolved, ${r.closed} closed (findings moved or excepted), ${r.closedUpstream} closed by a person, ${r.deferred} deferred, ${r.failed} failed (${counted(r.writes, 'write')})\n`,
        );
        for (const e of r.errors) process.stderr.write(`${e}\n`);
        if (r.failed) process.exitCode = 1;
      });
    });

  cmd
    .command('log [source]')
    .description('the audit log of every write: when, which key and request, which run, the answer (newest first); every source when none is named')
    .option('--limit <n>', 'entries to show (default 100)')
    .action(async (name: string | undefined, o: { limit?: string }, c: Command) => {
      await withApp(c, async (app, g) => {
        const limit = o.limit === undefined ? 100 : wholeNumberOption(o.limit, 'limit', 1, 10_000);
        const items = await ticketLog(app, name, limit);
        if (g.json) return printJson({ items });
        if (items.length === 0) return void process.stdout.write('no writes yet\n');
        for (const e of items)
          process.stdout.write(`${e.at}  ${e.runId}  ${e.ok ? 'ok  ' : 'FAIL'}  ${e.action}  ${e.requestId ?? '-'}  ${e.key}  ${e.detail ?? ''}\n`);
      });
    });
}
