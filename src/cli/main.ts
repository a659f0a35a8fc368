// `tributary`: the command line. Exit codes: 0 ok, 1 a failed check or sync, 2 bad usage or input,
// always with a one-line reason on stderr.
import { Command, CommanderError } from 'commander';
import { ConflictError, errorMessage, InputError, NotFoundError } from '../core/errors.ts';
import { scrubSecrets } from '../core/secrets.ts';
import { ExitCode } from './app.ts';
import { registerChangesCommand } from './changes.ts';
import { registerExceptionsCommands } from './exceptions.ts';
import { registerExportCommand } from './export.ts';
import { registerExportsCommands } from './exports.ts';
import { registerFeedsCommands } from './feeds.ts';
import { registerAlertsCommands } from './alerts.ts';
import { terminalSafe } from './output.ts';
import { endQuietlyWhenStdoutCloses, followLauncher } from './process.ts';
import { registerAssetsCommands } from './assets.ts';
import { registerUploadCommand } from './files.ts';
import { registerQueryCommand } from './query.ts';
import { registerReportCommand } from './report.ts';
import { registerSecretsCommands } from './secrets.ts';
import { registerServeCommand, registerSimCommand } from './serve.ts';
import { registerSourcesCommands } from './sources.ts';
import { registerSyncCommand } from './sync.ts';
import { registerTicketsCommands } from './tickets.ts';
import { registerTokensCommands } from './tokens.ts';

export function buildProgram(): Command {
  const program = new Command('tributary')
    .description('Imports vulnerability scanner and service desk records into one queryable inventory')
    .option('--data-dir <dir>', 'embedded database, local buckets, generated master key (env TRIBUTARY_DATA_DIR; default ./data)')
    .option('--db <url>', 'sqlite:PATH or postgres://… (env TRIBUTARY_DATABASE_URL; default sqlite:<data-dir>/tributary.db)')
    .option('--file-drop <url>', 'where the buckets live: file:DIR or s3: (env TRIBUTARY_FILE_DROP)')
    .option('--json', 'machine-readable output on stdout')
    .exitOverride()
    .configureOutput({ outputError: () => {} });
  registerServeCommand(program);
  registerSourcesCommands(program);
  registerSyncCommand(program);
  registerQueryCommand(program);
  registerExportCommand(program);
  registerExportsCommands(program);
  registerChangesCommand(program);
  registerReportCommand(program);
  registerUploadCommand(program);
  registerFeedsCommands(program);
  registerAlertsCommands(program);
  registerSecretsCommands(program);
  registerTokensCommands(program);
  registerAssetsCommands(program);
  registerExceptionsCommands(program);
  registerTicketsCommands(program);
  registerSimCommand(program);
  for (const c of program.commands) {
    c.exitOverride().configureOutput({ outputError: () => {} });
    for (const sub of c.commands) sub.exitOverride().configureOutput({ outputError: () => {} });
  }
  return program;
}

function fail(code: number, message: string): never {
  process.stderr.write(`tributary: ${terminalSafe(scrubSecrets(message.split('\n')[0] ?? ''))}\n`);
  process.exit(code);
}

export async function main(argv: string[]): Promise<void> {
  endQuietlyWhenStdoutCloses();
  followLauncher();
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof ExitCode) {
      if (err.message) fail(err.code, err.message);
      process.exit(err.code);
    }
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.help' || err.code === 'commander.version') process.exit(0);
      fail(2, err.message.replace(/^error: /, ''));
    }
    if (err instanceof InputError || err instanceof NotFoundError) fail(2, err.message);
    if (err instanceof ConflictError) fail(1, err.message);
    if (process.env.TRIBUTARY_DEBUG) process.stderr.write(`${(err as Error)?.stack ?? err}\n`);
    fail(1, errorMessage(err));
  }
}

await main(process.argv.slice(2));
