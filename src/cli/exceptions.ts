// `tributary exceptions list|propose|approve|reject|revoke` (interfaces.md §7.3; `add` is propose's other
// name): risk exceptions for a finding, a plugin on chosen assets, or a plugin everywhere. The command
// line works on the store directly, as the user `--as` names (default TRIBUTARY_USER, else the login
// name); approving or rejecting needs another user than the requester unless
// TRIBUTARY_EXCEPTION_APPROVAL=any-user. A past --expires exits 2, an approval by the requester exits 2.
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { exceptionPolicy } from '../app/exceptions.ts';
import { EXCEPTION_STATES, type ExceptionState } from '../core/models.ts';
import type { RiskException, RiskExceptionDetail } from '../store/index.ts';
import { InputError } from '../core/errors.ts';
import { collect, printJson, withApp } from './app.ts';
import { renderTable } from './output.ts';

const AS_HELP = 'who does it (default TRIBUTARY_USER, else your login name)';

function actor(as: string | undefined): string {
  const name = (as ?? process.env.TRIBUTARY_USER ?? userInfo().username).trim();
  if (!name) throw new InputError('name who does it with --as USER', 'as');
  return name;
}

const COLUMNS = ['id', 'state', 'scope', 'target', 'expiresAt', 'requestedBy', 'approvedBy', 'reason'];

function row(e: RiskException): Record<string, unknown> {
  const target = e.scope === 'finding' ? e.findingId : e.scope === 'plugin' ? `plugin ${e.pluginId}` : `plugin ${e.pluginId} on ${e.assetIds.join(', ')}`;
  return { ...e, target, expiresAt: e.expiresAt.slice(0, 10), approvedBy: e.approvedBy ?? '' };
}

function printOne(e: RiskExceptionDetail, json: boolean | undefined): void {
  if (json) {
    printJson(e);
    return;
  }
  process.stdout.write(renderTable(COLUMNS, [row(e)], 60) + '\n');
  for (const c of e.history) process.stdout.write(`  ${c.at}  ${c.by}: ${c.action} (${c.from ?? '-'} → ${c.to})${c.note ? ` — ${c.note}` : ''}\n`);
}

export function registerExceptionsCommands(program: Command): void {
  const ex = program
    .command('exceptions')
    .description('risk exceptions: accept or defer the risk of a finding, a plugin on chosen assets, or a plugin everywhere, until a date');

  ex.command('list')
    .description('exceptions, newest first (expired once past their date)')
    .option('--state <state>', EXCEPTION_STATES.join('|'))
    .option('--finding <id>', 'those that cover this finding')
    .option('--plugin <id>', 'those of this plugin')
    .action(async (o: { state?: string; finding?: string; plugin?: string }, cmd: Command) => {
      if (o.state !== undefined && !(EXCEPTION_STATES as readonly string[]).includes(o.state))
        throw new InputError(`--state '${o.state}' is not one of ${EXCEPTION_STATES.join(', ')}`, 'state');
      await withApp(cmd, async (app, g) => {
        const items = await app.store.exceptions.list({ state: o.state as ExceptionState | undefined, findingId: o.finding, pluginId: o.plugin });
        if (g.json) return printJson({ items });
        if (items.length === 0) return void process.stdout.write('no exceptions\n');
        process.stdout.write(renderTable(COLUMNS, items.map(row), 60) + '\n');
      });
    });

  ex.command('propose')
    .alias('add')
    .description('propose an exception: --finding ID, or --plugin ID with --asset ID… (assets or scanner hosts), or --plugin ID alone (everywhere)')
    .option('--finding <id>', 'one finding')
    .option('--plugin <id>', 'a plugin (with --asset: on those assets only)')
    .option('--asset <id>', 'an asset or scanner host id (repeatable)', collect, [])
    .requiredOption('--reason <text>', 'why the risk is accepted or deferred')
    .requiredOption('--expires <date>', 'until this date (through its end, UTC) or ISO-8601 time; in the future')
    .option('--as <user>', AS_HELP)
    .action(async (o: { finding?: string; plugin?: string; asset: string[]; reason: string; expires: string; as?: string }, cmd: Command) => {
      if (!o.finding && !o.plugin) throw new InputError('name --finding ID or --plugin ID', 'finding');
      if (o.finding && (o.plugin || o.asset.length)) throw new InputError('--finding takes neither --plugin nor --asset', 'finding');
      if (o.asset.length && !o.plugin) throw new InputError('--asset needs --plugin', 'asset');
      const by = actor(o.as);
      await withApp(cmd, async (app, g) => {
        const e = await app.store.exceptions.propose(
          { findingId: o.finding, pluginId: o.plugin, assetIds: o.asset.length ? o.asset : undefined, reason: o.reason, expiresAt: o.expires },
          by,
        );
        if (!g.json) process.stderr.write(`proposed exception ${e.id}; another user approves it with \`tributary exceptions approve ${e.id}\`\n`);
        printOne(e, g.json);
      });
    });

  for (const action of ['approve', 'reject', 'revoke'] as const) {
    ex.command(`${action} <id>`)
      .description(
        action === 'revoke'
          ? 'end a proposed or approved exception (its findings count again)'
          : `${action} a proposed exception (by a user other than its requester, unless TRIBUTARY_EXCEPTION_APPROVAL=any-user)`,
      )
      .option('--note <text>', 'kept in its history')
      .option('--as <user>', AS_HELP)
      .action(async (id: string, o: { note?: string; as?: string }, cmd: Command) => {
        const by = actor(o.as);
        await withApp(cmd, async (app, g) => {
          const policy = exceptionPolicy(app.env);
          const e = await app.store.exceptions.decide(id, action, by, { requireOtherApprover: policy.requireOtherApprover, note: o.note ?? null });
          printOne(e, g.json);
        });
      });
  }
}
