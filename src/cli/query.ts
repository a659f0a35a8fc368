// `tributary query MODEL [--source NAME] [--where field=value]… [--limit N] [--format table|jsonl|csv]`
import type { Command } from 'commander';
import { InputError } from '../core/errors.ts';
import { fieldsOf, isModelName, MODEL_NAMES } from '../core/models.ts';
import { parseFilter } from '../store/filters.ts';
import { collect, globals, withApp } from './app.ts';
import { formatOf, parseLimit, printChanges, sourceIdsOf } from './changes.ts';
import { csvField, renderTable } from './output.ts';

const FORMATS = ['table', 'jsonl', 'csv'] as const;

export function registerQueryCommand(program: Command): void {
  program
    .command('query <model>')
    .description(`print normalized records: ${MODEL_NAMES.join(', ')}, and the change feed: changes`)
    .option('--source <name>', 'only records of this source (repeatable)', collect, [])
    .option('--where <field=value>', 'filter (repeatable; also != > >= < <= and ~ for contains)', collect, [])
    .option('--limit <n>', 'at most N records')
    .option('--format <format>', 'table, jsonl or csv (default table; --json implies jsonl)')
    .action(async (model: string, o: { source: string[]; where: string[]; limit?: string; format?: string }, cmd: Command) => {
      if (model === 'changes') return queryChanges(o, cmd);
      if (!isModelName(model)) throw new InputError(`unknown model '${model}'; models: ${[...MODEL_NAMES, 'changes'].join(', ')}`, 'model');
      const g = globals(cmd);
      const format = g.json ? 'jsonl' : (o.format ?? 'table');
      if (!(FORMATS as readonly string[]).includes(format)) throw new InputError(`--format must be one of ${FORMATS.join(', ')}`, 'format');
      let limit = Number.POSITIVE_INFINITY;
      if (o.limit !== undefined) {
        limit = Number(o.limit);
        if (!Number.isInteger(limit) || limit < 1) throw new InputError('--limit must be a positive whole number', 'limit');
      }
      const filters = o.where.map((w) => parseFilter(w));
      await withApp(cmd, async (app) => {
        const sourceIds = o.source.length ? await Promise.all(o.source.map(async (n) => (await app.store.getSource(n)).id)) : undefined;
        const columns = fieldsOf(model).map((f) => f.name);
        const tableRows: Record<string, unknown>[] = [];
        let cursor: string | null = null;
        let printed = 0;
        if (format === 'csv') process.stdout.write(columns.map(csvField).join(',') + '\n');
        do {
          const page = await app.store.query(model, { sourceIds, filters, cursor, limit: Math.min(1000, limit - printed) });
          for (const r of page.records) {
            if (format === 'jsonl') process.stdout.write(JSON.stringify(r) + '\n');
            else if (format === 'csv') process.stdout.write(columns.map((c) => csvField(r[c])).join(',') + '\n');
            else tableRows.push(r);
          }
          printed += page.records.length;
          cursor = page.nextCursor;
        } while (cursor && printed < limit);
        if (format === 'table') {
          if (tableRows.length === 0) process.stdout.write(`no ${model}\n`);
          else process.stdout.write(renderTable(columns.filter((c) => c !== 'source' || !sourceIds), tableRows) + '\n');
        }
      });
    });
}

/** `query changes`: the change feed with the query options (`--where` on its fields). */
async function queryChanges(o: { source: string[]; where: string[]; limit?: string; format?: string }, cmd: Command): Promise<void> {
  const format = formatOf(o.format, globals(cmd).json);
  const limit = parseLimit(o.limit);
  const filters = o.where.map((w) => parseFilter(w));
  await withApp(cmd, async (app) => printChanges(app, { sourceIds: await sourceIdsOf(app, o.source), filters }, format, limit));
}
