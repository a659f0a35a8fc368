// `tributary feeds import FILE…` and `tributary feeds list`: the offline prioritisation feeds (CISA KEV,
// FIRST EPSS), for consoles without internet access.
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../core/errors.ts';
import { alertAfterFeedImport } from '../alerts/index.ts';
import { feeds, importFeedFiles } from '../feeds/index.ts';
import { printJson, withApp } from './app.ts';
import { counted } from '../core/format.ts';

function size(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n} B`;
}

export function registerFeedsCommands(program: Command): void {
  const cmd = program.command('feeds').description('offline prioritisation feeds: CISA KEV catalog (JSON) and FIRST EPSS scores (CSV, optionally gzipped)');

  cmd
    .command('import <files...>')
    .description(
      'import feed files, recognised by content; a file that is neither feed, dated in the future, or older than the current feed changes nothing (exit 2)',
    )
    .option('--replace', 'install a feed even when it is older than the one imported (e.g. to undo a wrong import)')
    .action(async (paths: string[], o: { replace?: boolean }, c: Command) => {
      // Read on the feed reader's thread as a stream; here only whether each file opens.
      const files = await Promise.all(
        paths.map(async (p) => {
          try {
            await (await open(p, 'r')).close();
            return { name: basename(p), path: p };
          } catch (err) {
            throw new InputError(`cannot read ${p}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'file');
          }
        }),
      );
      await withApp(c, async (app, g) => {
        const result = await importFeedFiles(app, files, { replace: o.replace === true });
        // Alert rules follow a feed that changed (sent before the command exits: app.close() waits).
        if (result.imported.some((i) => i.status === 'imported')) alertAfterFeedImport(app);
        if (g.json) return printJson(result);
        for (const i of result.imported) {
          const what = `${i.name} ${i.version} of ${i.released.slice(0, 10)} (${counted(i.records, 'record')}, ${size(i.size)})`;
          process.stdout.write(i.status === 'imported' ? `imported ${what} from ${i.file}\n` : `${what} is imported already; nothing changed\n`);
        }
        process.stdout.write(`${result.findingsUpdated} findings updated\n`);
      });
    });

  cmd
    .command('list')
    .description('each feed with its version, date, record count and size; stale when older than 7 days')
    .action(async (_o, c: Command) => {
      await withApp(c, async (app, g) => {
        const list = await feeds(app);
        if (g.json) return printJson({ feeds: list });
        if (list.length === 0) return void process.stdout.write('no feeds imported; import them with `tributary feeds import FILE…`\n');
        for (const f of list) {
          const age = `${f.stale ? 'STALE: ' : ''}${counted(f.ageDays, 'day')} old`;
          process.stdout.write(
            `${f.kind}  ${f.name}  version ${f.version}  dated ${f.released.slice(0, 10)}  ${counted(f.records, 'record')}  ${size(f.size)}  imported ${f.importedAt}  ${age}\n`,
          );
        }
      });
    });
}
