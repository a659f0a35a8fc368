// `tributary exports add|list|remove|run`: scheduled export destinations, written after each
// successful sync of their source (or of every source).
import type { Command } from 'commander';
import { EXPORT_FORMATS } from '../export/formats/index.ts';
import { addDestination, describeDestinations, runDestination } from '../export/schedule.ts';
import { collect, ExitCode, printJson, withApp } from './app.ts';
import { renderTable } from './output.ts';

interface AddOpts {
  to: string;
  format: string;
  source?: string;
  model: string[];
  changes?: boolean;
  ocsfVersion?: string;
  ecsBulk?: boolean;
}

export function registerExportsCommands(program: Command): void {
  const exports = program.command('exports').description('scheduled exports written after each successful sync');

  exports
    .command('add <name>')
    .description('add a destination: a folder under the export root or s3://BUCKET/PREFIX, for one source or all')
    .requiredOption(
      '--to <target>',
      'a folder under the export root (TRIBUTARY_EXPORT_DIR, default <data-dir>/exports; a relative one is taken from there) or s3://BUCKET/PREFIX (one sub-folder per source)',
    )
    .requiredOption('--format <format>', EXPORT_FORMATS.join(', '))
    .option('--source <name>', 'only after syncs of this source (default: every source)')
    .option('--model <model>', 'a model to export (repeatable; default: every model the format writes)', collect, [])
    .option('--changes', 'only what changed since the last export there (the first one is full)')
    .option('--ocsf-version <version>', 'OCSF schema version: 1.1.0 (default) or 1.3.0')
    .option('--ecs-bulk', 'ECS: _bulk action lines with stable ids')
    .action(async (name: string, o: AddOpts, cmd: Command) => {
      await withApp(cmd, async (app, g) => {
        const d = await addDestination(app, {
          name,
          source: o.source ?? null,
          target: o.to,
          format: o.format,
          ocsfVersion: o.ocsfVersion,
          ecsBulk: o.ecsBulk,
          models: o.model,
          mode: o.changes ? 'changes' : 'full',
        });
        if (g.json) return printJson((await describeDestinations(app)).find((x) => x.name === d.name));
        process.stdout.write(
          `added export '${d.name}': ${d.mode === 'changes' ? 'changes' : 'everything'} of ${o.source ? `'${o.source}'` : 'every source'} as ${d.format} (${d.models.join(', ')}) to ${d.target} after each successful sync\n`,
        );
      });
    });

  exports
    .command('list')
    .description('destinations with the status of their last export per source')
    .action(async (_o, cmd: Command) => {
      await withApp(cmd, async (app, g) => {
        const views = await describeDestinations(app);
        if (g.json) return printJson(views);
        if (views.length === 0)
          return void process.stdout.write('no scheduled exports; add one with `tributary exports add NAME --to DIR|s3://BUCKET/PREFIX --format ocsf`\n');
        const rows = views.flatMap((v) =>
          (v.status.length ? v.status : [null]).map((s) => ({
            name: v.name,
            source: v.source ?? '(all)',
            format: v.format + (v.ocsfVersion ? ` ${v.ocsfVersion}` : ''),
            mode: v.mode,
            target: v.target,
            last: s ? `${s.source}: ${s.status}${s.attempts > 1 ? ` after ${s.attempts} attempts` : ''} ${s.finishedAt ?? s.startedAt ?? ''}` : 'never',
            records: s ? String(s.records) : '',
            error: s?.error ?? '',
          })),
        );
        process.stdout.write(renderTable(['name', 'source', 'format', 'mode', 'target', 'last', 'records', 'error'], rows, 60) + '\n');
      });
    });

  exports
    .command('remove <name>')
    .description('remove a destination (files already written stay)')
    .action(async (name: string, _o, cmd: Command) => {
      await withApp(cmd, async (app, g) => {
        await app.store.exports.deleteDestination(name);
        if (g.json) return printJson({ removed: name });
        process.stdout.write(`removed export '${name}'\n`);
      });
    });

  exports
    .command('run <name>')
    .description('write a destination now (after its sources’ last successful sync), e.g. to retry a failed one')
    .option('--source <name>', 'only for this source')
    .action(async (name: string, o: { source?: string }, cmd: Command) => {
      const ok = await withApp(cmd, async (app, g) => {
        const d = await app.store.exports.getDestination(name);
        const sources = o.source
          ? [await app.store.sources.get(o.source)]
          : d.sourceId
            ? [await app.store.sources.getById(d.sourceId)]
            : await app.store.sources.list();
        const results = [];
        for (const s of sources) {
          const st = await runDestination(app, d, s, null);
          results.push({ source: s.name, status: st.status, records: st.records, files: st.files, error: st.error });
          if (!g.json)
            process.stdout.write(
              `${s.name}: ${st.status}, ${st.records} records${st.files.length ? ` → ${st.files.join(', ')}` : ''}${st.error ? ` (${st.error})` : ''}\n`,
            );
        }
        if (g.json) printJson({ export: name, results });
        return results.every((r) => r.status === 'succeeded');
      });
      if (!ok) throw new ExitCode(1);
    });
}
