// `tributary query MODEL [--source NAME] [--where field=value]… [--fields a,b] [--sort f[:desc]] [--count] [--limit N] [--format table|jsonl|csv] [--no-csv-escape]`
import type { Command } from 'commander';
import { InputError } from '../core/errors.ts';
import { EXCEPTION_STATES, type ExceptionState, fieldsOf, isModelName, MODEL_NAMES } from '../core/models.ts';
import { parseFilter, withLiveDefault } from '../store/index.ts';
import { collect, globals, withApp } from './app.ts';
import { formatOf, parseLimit, printChanges, sourceIdsOf } from './changes.ts';
import { CSV_ESCAPE_HELP, csvLine, fitTable, renderTable } from './output.ts';
import { HOST_COLUMN, hostLabel, parseFields, parseSortOption, queryPasses, readInOrder, tableColumns } from './query-view.ts';

const FORMATS = ['table', 'jsonl', 'csv'] as const;

export function registerQueryCommand(program: Command): void {
  program
    .command('query <model>')
    .description(`print normalized records: ${MODEL_NAMES.join(', ')}, the change feed: changes, and risk exceptions: exceptions`)
    .option('--source <name>', 'only records of this source (repeatable)', collect, [])
    .option('--where <field=value>', 'filter (repeatable; also != > >= < <= and ~ for contains)', collect, [])
    .option('--limit <n>', 'at most N records')
    .option('--format <format>', 'table, jsonl or csv (default table; --json implies jsonl)')
    .option('--fields <a,b,c>', "only these fields (the table: these columns; `host` is a host's name and address)")
    .option('--sort <field[:desc]>', 'order by a field (default: findings by severity then plugin name, others by name)')
    .option('--count', 'print only how many records match (with --json: {"count": N})')
    .option('--all', 'also fixed findings and removed records (by default: live ones)')
    .option('--no-csv-escape', CSV_ESCAPE_HELP)
    .action(
      async (
        model: string,
        o: {
          source: string[];
          where: string[];
          limit?: string;
          format?: string;
          fields?: string;
          sort?: string;
          count?: boolean;
          all?: boolean;
          csvEscape: boolean;
        },
        cmd: Command,
      ) => {
        if (model === 'changes') return queryChanges(o, cmd);
        if (model === 'exceptions') return queryExceptions(o, cmd);
        if (!isModelName(model)) throw new InputError(`unknown model '${model}'; models: ${[...MODEL_NAMES, 'changes', 'exceptions'].join(', ')}`, 'model');
        const g = globals(cmd);
        const format = g.json ? 'jsonl' : (o.format ?? 'table');
        if (!(FORMATS as readonly string[]).includes(format)) throw new InputError(`--format must be one of ${FORMATS.join(', ')}`, 'format');
        if (!o.csvEscape && format !== 'csv') throw new InputError('--no-csv-escape goes with --format csv', 'csvEscape');
        const limit = parseLimit(o.limit);
        const filters = withLiveDefault(
          model,
          o.where.map((w) => parseFilter(w)),
          o.all,
        );
        const fields = parseFields(model, o.fields);
        const passes = queryPasses(model, parseSortOption(o.sort));
        await withApp(cmd, async (app) => {
          const sourceIds = o.source.length ? await Promise.all(o.source.map(async (n) => (await app.store.sources.get(n)).id)) : undefined;
          if (o.count) {
            const count = await app.store.records.countMatching(model, { sourceIds, filters });
            process.stdout.write(g.json ? JSON.stringify({ count }) + '\n' : `${count}\n`);
            return;
          }
          const columns = fields ?? fieldsOf(model).map((f) => f.name);
          const shown = tableColumns(model, fields, sourceIds?.length === 1);
          const withHost = (format === 'table' ? shown : columns).includes(HOST_COLUMN);
          const tableRows: Record<string, unknown>[] = [];
          if (format === 'csv') process.stdout.write(csvLine(columns) + '\n');
          for await (const records of readInOrder(app.store, model, passes, { sourceIds, filters }, limit)) {
            if (withHost) {
              const hosts = new Map((await app.store.records.hostLabels([...new Set(records.map((r) => String(r.hostId)))])).map((h) => [h.id, h]));
              for (const r of records) (r as Record<string, unknown>)[HOST_COLUMN] = hostLabel(hosts.get(String(r.hostId)), String(r.hostId));
            }
            for (const r of records) {
              if (format === 'jsonl') process.stdout.write(JSON.stringify(fields ? Object.fromEntries(fields.map((f) => [f, r[f]])) : r) + '\n');
              else if (format === 'csv')
                process.stdout.write(
                  csvLine(
                    columns.map((c) => r[c]),
                    o.csvEscape,
                  ) + '\n',
                );
              else tableRows.push(r);
            }
          }
          if (format === 'table') {
            if (tableRows.length === 0) process.stdout.write(`no ${model}\n`);
            else process.stdout.write(fitTable(shown, tableRows, (process.stdout.isTTY && process.stdout.columns) || 120) + '\n');
          }
        });
      },
    );
}

/** `query changes`: the change feed with the query options (`--where` on its fields). */
async function queryChanges(o: { source: string[]; where: string[]; limit?: string; format?: string; csvEscape: boolean }, cmd: Command): Promise<void> {
  const format = formatOf(o.format, globals(cmd).json, o.csvEscape);
  const limit = parseLimit(o.limit);
  const filters = o.where.map((w) => parseFilter(w));
  await withApp(cmd, async (app) => printChanges(app, { sourceIds: await sourceIdsOf(app, o.source), filters }, format, limit, o.csvEscape));
}

/** Risk exceptions (interfaces.md §7.3's `exceptions` model) as `exceptions list` reads them, in the query formats. */
const EXCEPTION_COLUMNS = ['id', 'scope', 'findingId', 'pluginId', 'assetIds', 'reason', 'expiresAt', 'requestedBy', 'approvedBy', 'state', 'createdAt'];
const EXCEPTION_FILTERS = ['state', 'findingId', 'pluginId'] as const;

async function queryExceptions(o: { source: string[]; where: string[]; limit?: string; format?: string; csvEscape: boolean }, cmd: Command): Promise<void> {
  if (o.source.length) throw new InputError('exceptions belong to no source; drop --source', 'source');
  const format = formatOf(o.format, globals(cmd).json, o.csvEscape);
  const limit = parseLimit(o.limit);
  const q: Record<string, string> = {};
  for (const w of o.where) {
    const eq = w.indexOf('=');
    const field = eq > 0 ? w.slice(0, eq) : '';
    if (!(EXCEPTION_FILTERS as readonly string[]).includes(field) || /[!<>~]$/.test(field))
      throw new InputError(`--where on exceptions takes ${EXCEPTION_FILTERS.map((f) => `${f}=value`).join(', ')}`, 'where');
    q[field] = w.slice(eq + 1);
  }
  if (q.state !== undefined && !(EXCEPTION_STATES as readonly string[]).includes(q.state))
    throw new InputError(`state '${q.state}' is not one of ${EXCEPTION_STATES.join(', ')}`, 'where');
  await withApp(cmd, async (app) => {
    const items = await app.store.exceptions.list({ ...q, state: q.state as ExceptionState | undefined }, { limit });
    if (format === 'jsonl') {
      for (const e of items) process.stdout.write(JSON.stringify(e) + '\n');
      return;
    }
    const rows = items.map((e) => ({ ...e, assetIds: e.assetIds.join(' ') }) as Record<string, unknown>);
    if (format === 'csv') {
      process.stdout.write(csvLine(EXCEPTION_COLUMNS) + '\n');
      for (const r of rows)
        process.stdout.write(
          csvLine(
            EXCEPTION_COLUMNS.map((c) => r[c] ?? ''),
            o.csvEscape,
          ) + '\n',
        );
      return;
    }
    process.stdout.write(rows.length ? renderTable(EXCEPTION_COLUMNS, rows, 40) + '\n' : 'no exceptions\n');
  });
}
