// Opening the app from the global options, and output helpers that respect --json.
import type { Command } from 'commander';
import { type AppContext, type AppOptions, openApp } from '../app/context.ts';
import { InputError } from '../core/errors.ts';
import { createLogger } from '../core/log.ts';

export interface GlobalOptions {
  dataDir?: string;
  db?: string;
  fileDrop?: string;
  json?: boolean;
}

/** The most records or changes `--limit` asks for (a bound, so the number stays exact). */
export const MAX_LIMIT_OPTION = 1_000_000_000;

/**
 * A whole-number option (`--limit 50`, `--days 30`) from `min` to `max`, written as plain digits; else
 * an InputError (exit 2) naming the bounds. `Number()` alone let 1e309 through as Infinity.
 */
export function wholeNumberOption(text: string, flag: string, min: number, max: number): number {
  const t = text.trim();
  const n = /^\+?\d{1,16}$/.test(t) ? Number(t) : Number.NaN;
  if (!(n >= min && n <= max)) {
    const shown = t.length > 24 ? `${t.slice(0, 20)}… (${t.length} characters)` : t;
    throw new InputError(`--${flag} must be a whole number from ${min} to ${max}, got '${shown}'`, flag);
  }
  return n;
}

export function globals(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals() as GlobalOptions;
}

/** Opens the app for one command and closes it afterwards. CLI commands log warnings and errors only. */
export async function withApp<T>(
  cmd: Command,
  fn: (app: AppContext, g: GlobalOptions) => Promise<T>,
  logLevel = 'warn',
  extra: Pick<AppOptions, 'requireReadableSecrets' | 'allowNewKey' | 'log'> = {},
): Promise<T> {
  const g = globals(cmd);
  const app = await openApp({
    dataDir: g.dataDir,
    db: g.db,
    fileDrop: g.fileDrop,
    log: createLogger({ level: process.env.TRIBUTARY_LOG_LEVEL ?? logLevel }),
    ...extra,
  });
  try {
    return await fn(app, g);
  } finally {
    await app.close();
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Thrown by a command to exit with a code (and an optional one-line reason). */
export class ExitCode extends Error {
  readonly code: number;
  constructor(code: number, message = '') {
    super(message);
    this.code = code;
  }
}

/** A command group that several files add subcommands to (`report`): made by the first, found by the others. */
export function commandGroup(program: Command, name: string, description: string): Command {
  return program.commands.find((c) => c.name() === name) ?? program.command(name).description(description);
}
