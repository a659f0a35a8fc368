// `tributary export MODEL --format ocsf|ocsf-parquet|ecs|jsonl|csv [--source S]… [--where …]… [--since RUN_ID|TIME]
// [--out FILE|-|s3://BUCKET/PREFIX] [--ocsf-version 1.1.0|1.3.0] [--ecs-bulk] [--no-csv-escape]`: every matching record,
// streamed, with a progress line on a terminal.
import type { Command } from 'commander';
import { InputError } from '../core/errors.ts';
import { isModelName, MODEL_NAMES } from '../core/models.ts';
import { formatBytes } from '../core/format.ts';
import { contentType, EXPORT_FORMATS, extension, parseFormat } from '../export/formats/index.ts';
import { exportChunks } from '../export/stream.ts';
import { exportFileName, writeExport } from '../export/target.ts';
import { parseFilter, SINCE_HELP } from '../store/index.ts';
import { collect, printJson, withApp } from './app.ts';
import { CSV_ESCAPE_HELP, formatRate } from './output.ts';

interface ExportOpts {
  format?: string;
  source: string[];
  where: string[];
  since?: string;
  out: string;
  ocsfVersion?: string;
  ecsBulk?: boolean;
  /** False with --no-csv-escape. */
  csvEscape: boolean;
}

export function registerExportCommand(program: Command): void {
  program
    .command('export <model>')
    .description(`stream every matching record as OCSF (JSON Lines or Parquet), ECS, JSON Lines or CSV: ${MODEL_NAMES.join(', ')}`)
    .option('--format <format>', `${EXPORT_FORMATS.join(', ')}`)
    .option('--source <name>', 'only records of this source (repeatable)', collect, [])
    .option('--where <field=value>', 'filter as in query (repeatable; also != > >= < <= and ~)', collect, [])
    .option('--since <run-id|time>', `only the records changed in the window: ${SINCE_HELP}`)
    .option('--out <target>', 'a file, a folder, - for stdout, or s3://BUCKET/PREFIX', '-')
    .option('--ocsf-version <version>', 'OCSF schema version: 1.1.0 (default) or 1.3.0')
    .option('--ecs-bulk', 'ECS: an Elasticsearch _bulk action line with a stable _id before each document')
    .option('--no-csv-escape', CSV_ESCAPE_HELP)
    .action(async (model: string, o: ExportOpts, cmd: Command) => {
      if (!isModelName(model)) throw new InputError(`unknown model '${model}'; models: ${MODEL_NAMES.join(', ')}`, 'model');
      const fmt = { ...parseFormat(o.format, o.ocsfVersion), ecsBulk: o.ecsBulk === true, csvEscape: o.csvEscape };
      if (o.ecsBulk && fmt.format !== 'ecs') throw new InputError('--ecs-bulk goes with --format ecs', 'ecsBulk');
      if (!o.csvEscape && fmt.format !== 'csv') throw new InputError('--no-csv-escape goes with --format csv', 'csvEscape');
      const filters = o.where.map((w) => parseFilter(w));
      await withApp(cmd, async (app, g) => {
        const sourceIds = o.source.length ? await Promise.all(o.source.map(async (n) => (await app.store.sources.get(n)).id)) : undefined;
        const since = o.since === undefined ? null : await app.store.records.resolveSince(o.since);
        const started = Date.now();
        const tty = process.stderr.isTTY === true;
        let lastDraw = 0;
        let records = 0;
        const chunks = exportChunks(app, { model, sourceIds, filters, since }, fmt, (p) => {
          records = p.records;
          const now = Date.now();
          if (!tty || now - lastDraw < 200) return;
          lastDraw = now;
          process.stderr.write(`\r\x1b[2Kexporting ${model}: ${p.records} records · ${formatBytes(p.bytes)} · ${formatRate(p.records, now - started)}`);
        });
        const name = exportFileName(model, extension(fmt.format));
        const written = await writeExport(app, chunks, o.out, name, { contentType: contentType(fmt.format) }).finally(() => {
          if (tty) process.stderr.write('\r\x1b[2K');
        });
        if (o.out === '-') return;
        if (g.json) printJson({ model, format: fmt.format, records, bytes: written.bytes, location: written.location });
        else process.stdout.write(`exported ${records} ${model} as ${fmt.format} to ${written.location} (${formatBytes(written.bytes)})\n`);
      });
    });
}
