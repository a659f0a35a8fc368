// `tributary secrets reset [--yes]`: the way out when the master key is lost or wrong. Drops the stored
// secrets the current key cannot decrypt (and the sources' sealed runtime state, e.g. refresh tokens),
// after confirmation; the sources stay, with their records, and take new secrets with `sources configure`.
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { InputError } from '../core/errors.ts';
import { ExitCode, printJson, withApp } from './app.ts';

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export function registerSecretsCommands(program: Command): void {
  const secrets = program.command('secrets').description('stored secrets and the master key');
  secrets
    .command('reset')
    .description('drop the stored secrets the master key cannot decrypt (after a lost or changed key); re-enter them with `sources configure`')
    .option('--yes', 'do not ask for confirmation (scripts)')
    .action(async (o: { yes?: boolean }, cmd: Command) => {
      await withApp(
        cmd,
        async (app, g) => {
          const bad = await app.store.sources.unreadable();
          if (bad.length === 0) {
            app.persistNewKey?.();
            if (g.json) return printJson({ dropped: [] });
            return void process.stdout.write('every stored secret opens with the current master key; nothing to reset\n');
          }
          const what = bad.map((b) => `${b.name}: ${[...b.fields, ...(b.state ? ['runtime state (tokens)'] : [])].join(', ')}`);
          if (!o.yes) {
            if (!process.stdin.isTTY)
              throw new InputError(`secrets reset drops the undecryptable secrets of ${bad.length} source(s) (${what.join('; ')}): confirm with --yes`, 'yes');
            process.stderr.write(
              `These stored secrets cannot be decrypted with the current master key and will be dropped:\n${what.map((w) => `  ${w}\n`).join('')}`,
            );
            if (!(await confirm('Drop them? Type yes to continue: '))) throw new ExitCode(1, 'nothing dropped');
          }
          for (const b of bad) await app.store.sources.dropUnreadableSecrets(b.name);
          app.persistNewKey?.();
          if (g.json) return printJson({ dropped: bad });
          for (const b of bad) {
            const fields = b.fields.length
              ? ` enter ${b.fields.join(', ')} again with \`tributary sources configure ${b.name} ${b.fields.map((f) => `--set ${f}=…`).join(' ')}\``
              : '';
            process.stdout.write(`dropped the undecryptable secrets of '${b.name}';${fields || ' nothing to re-enter'}\n`);
          }
        },
        'warn',
        { allowNewKey: true },
      );
    });
}
