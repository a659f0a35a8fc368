// `tributary changes [--since RUN_ID|ISO-8601 | --run RUN_ID] [--model M] [--source S] [--format table|jsonl|csv] [--no-csv-escape]`:
// the change feed, oldest first (also `tributary query changes`).
import type { Command } from 'commander';
import type { AppContext } from '../app/context.ts';
import { type ChangeEvent, changeEvent } from '../core/api-shapes-reports.ts';
import { InputError } from '../core/errors.ts';
import { isModelName, MODEL_NAMES } from '../core/models.ts';
import { CHANGE_KINDS, type ChangeQuery, parseFilter, RUN_HELP, SINCE_HELP } from '../store/index.ts';
import { collect, globals, MAX_LIMIT_OPTION, wholeNumberOption, withApp } from './app.ts';
import { CSV_ESCAPE_HELP, csvLine, renderTable } from './output.ts';

const FORMATS = ['table', 'jsonl', 'csv'] as const;
type Format = (typeof FORMATS)[number];

/** Columns of the human table (every field goes to jsonl and csv). */
const TABLE_COLUMNS: (keyof ChangeEvent)[] = ['at', 'source', 'model', 'change', 'from', 'to', 'externalId', 'recordId'];

/** Comma-separated or repeated values, checked against the allowed ones. */
function listOption(values: string[], allowed: readonly string[], flag: string): string[] {
  const list = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  for (const v of list) if (!allowed.includes(v)) throw new InputError(`${flag}: unknown value '${v}'; one of ${allowed.join(', ')}`, flag.replace(/^--/, ''));
  return list;
}

/** The output format; `csvEscape` false (--no-csv-escape) goes only with csv. */
export function formatOf(format: string | undefined, json: boolean | undefined, csvEscape = true): Format {
  const f = json ? 'jsonl' : (format ?? 'table');
  if (!(FORMATS as readonly string[]).includes(f)) throw new InputError(`--format must be one of ${FORMATS.join(', ')}`, 'format');
  if (!csvEscape && f !== 'csv') throw new InputError('--no-csv-escape goes with --format csv', 'csvEscape');
  return f as Format;
}

export function parseLimit(limit: string | undefined): number {
  if (limit === undefined) return Number.POSITIVE_INFINITY;
  return wholeNumberOption(limit, 'limit', 1, MAX_LIMIT_OPTION);
}

/** Prints every change matching `query` (paged through the store), up to `limit`; CSV cells neutralised unless `csvEscape` is false. */
export async function printChanges(
  app: AppContext,
  query: Omit<ChangeQuery, 'cursor' | 'limit'>,
  format: Format,
  limit: number,
  csvEscape = true,
): Promise<void> {
  const columns = Object.keys(changeEvent.shape) as (keyof ChangeEvent)[];
  const tableRows: ChangeEvent[] = [];
  let cursor: string | null = null;
  let printed = 0;
  let first = true;
  do {
    const page = await app.store.records.changes({ ...query, cursor, limit: Math.min(1000, limit - printed) });
    // The header after the first page: a bad filter or cursor fails before anything is printed.
    if (first && format === 'csv') process.stdout.write(csvLine(columns) + '\n');
    first = false;
    for (const r of page.records) {
      if (format === 'jsonl') process.stdout.write(JSON.stringify(r) + '\n');
      else if (format === 'csv')
        process.stdout.write(
          csvLine(
            columns.map((c) => r[c]),
            csvEscape,
          ) + '\n',
        );
      else tableRows.push(r);
    }
    printed += page.records.length;
    cursor = page.nextCursor;
  } while (cursor && printed < limit);
  if (format === 'table') process.stdout.write(tableRows.length === 0 ? 'no changes\n' : renderTable(TABLE_COLUMNS, tableRows, 48) + '\n');
}

export async function sourceIdsOf(app: AppContext, names: string[]): Promise<string[] | undefined> {
  const list = names
    .flatMap((n) => n.split(','))
    .map((n) => n.trim())
    .filter(Boolean);
  return list.length ? Promise.all(list.map(async (n) => (await app.store.sources.get(n)).id)) : undefined;
}

export function registerChangesCommand(program: Command): void {
  program
    .command('changes')
    .description('what changed, oldest first: new, fixed, reopened and removed records, status updates')
    .option('--since <run|time>', SINCE_HELP)
    .option('--run <run>', RUN_HELP)
    .option('--model <model>', 'only changes of this model (repeatable)', collect, [])
    .option('--source <name>', 'only changes of this source (repeatable)', collect, [])
    .option('--change <kind>', `only this kind of change: ${CHANGE_KINDS.join(', ')} (repeatable)`, collect, [])
    .option('--where <field=value>', 'filter on a change field (repeatable; also != > >= < <= and ~)', collect, [])
    .option('--limit <n>', 'at most N changes')
    .option('--format <format>', 'table, jsonl or csv (default table; --json implies jsonl)')
    .option('--no-csv-escape', CSV_ESCAPE_HELP)
    .action(
      async (
        o: {
          since?: string;
          run?: string;
          model: string[];
          source: string[];
          change: string[];
          where: string[];
          limit?: string;
          format?: string;
          csvEscape: boolean;
        },
        cmd: Command,
      ) => {
        const format = formatOf(o.format, globals(cmd).json, o.csvEscape);
        const limit = parseLimit(o.limit);
        const models = listOption(o.model, MODEL_NAMES, '--model').filter(isModelName);
        const changes = listOption(o.change, CHANGE_KINDS, '--change');
        const filters = o.where.map((w) => parseFilter(w));
        if (o.since !== undefined && o.run !== undefined)
          throw new InputError('--run and --since do not go together: --run is one run, --since every later one', 'run');
        await withApp(cmd, async (app) => {
          const since = o.since === undefined ? null : await app.store.records.resolveSince(o.since);
          const run = o.run === undefined ? null : await app.store.records.resolveRun(o.run);
          await printChanges(app, { sourceIds: await sourceIdsOf(app, o.source), models, changes, since, run, filters }, format, limit, o.csvEscape);
        });
      },
    );
}
