// `tributary sources list|add|show|configure|remove|check`
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { addSource, checkSource, configureSource, present, removeSource } from '../app/sources.ts';
import { parseSetPairs } from '../core/config.ts';
import { readsFiles } from '../core/connector.ts';
import { errorMessage, InputError } from '../core/errors.ts';
import { exportStatusesOf } from '../export/schedule.ts';
import { resolvePaths } from '../app/context.ts';
import { collect, ExitCode, globals, printJson, withApp } from './app.ts';
import { registerFileDropCommand } from './files.ts';
import { counted } from '../core/format.ts';
import { renderTable, terminalSafe } from './output.ts';
import { openSyncLog } from './sync-log.ts';

function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new InputError(`cannot read --config ${path}: ${errorMessage(err)}`, 'config');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new InputError(`--config ${path} is not valid JSON: ${errorMessage(err)}`, 'config');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InputError(`--config ${path} must hold a JSON object`, 'config');
  return parsed as Record<string, unknown>;
}

export function registerSourcesCommands(program: Command): void {
  const sources = program.command('sources').description('configure data sources');

  sources
    .command('list')
    .description('list configured sources')
    .action(async (_o, cmd: Command) => {
      await withApp(cmd, async (app, g) => {
        const list = await app.store.sources.list();
        const views = await Promise.all(list.map(async (s) => present(app, s, await app.store.runs.last(s.id))));
        if (g.json) return printJson(views);
        if (views.length === 0) return void process.stdout.write('no sources; add one with `tributary sources add <type> --name NAME`\n');
        const rows = views.map((v) => ({
          name: v.name,
          type: v.type,
          mode: app.registry.has(v.type) && readsFiles(app.registry.get(v.type), v.config) ? 'file' : 'api',
          schedule: v.schedule ?? 'manual',
          lastRun: v.lastRun ? `${v.lastRun.status} ${v.lastRun.finishedAt ?? v.lastRun.startedAt}` : 'never',
          lastCheck: v.lastCheck ? (v.lastCheck.ok ? 'ok' : 'failed') : 'never',
        }));
        process.stdout.write(renderTable(['name', 'type', 'mode', 'schedule', 'lastRun', 'lastCheck'], rows) + '\n');
      });
    });

  sources
    .command('add <type>')
    .description('add a source of a connector type (an unknown type lists the known ones)')
    .requiredOption('--name <name>', 'source name')
    .option('--set <key=value>', 'configuration value (repeatable)', collect, [])
    .option('--config <file.json>', 'configuration as a JSON object (--set values override it)')
    .action(async (type: string, o: { name: string; set: string[]; config?: string }, cmd: Command) => {
      await withApp(cmd, async (app, g) => {
        const input = { ...(o.config ? readConfigFile(o.config) : {}), ...parseSetPairs(o.set) };
        const s = await addSource(app, type, o.name, input);
        if (g.json) return printJson(present(app, s));
        process.stdout.write(`added source '${s.name}' (${s.type}); check it with \`tributary sources check ${s.name}\`\n`);
      });
    });

  sources
    .command('show <name>')
    .description('show a source, secrets masked')
    .action(async (name: string, _o, cmd: Command) => {
      await withApp(cmd, async (app) => {
        const s = await app.store.sources.get(name);
        printJson({ ...present(app, s, await app.store.runs.last(s.id)), exports: await exportStatusesOf(app, s.name) });
      });
    });

  sources
    .command('configure <name>')
    .description('change configuration fields; secrets left out keep their stored value, unless the address they are sent to changes (then enter them again)')
    .option('--set <key=value>', 'configuration value (repeatable; key= clears it)', collect, [])
    .option('--config <file.json>', 'configuration changes as a JSON object')
    .action(async (name: string, o: { set: string[]; config?: string }, cmd: Command) => {
      await withApp(cmd, async (app, g) => {
        const changes = { ...(o.config ? readConfigFile(o.config) : {}), ...parseSetPairs(o.set) };
        if (Object.keys(changes).length === 0) throw new InputError('nothing to change: give --set key=value or --config FILE', 'set');
        const s = await configureSource(app, name, changes);
        if (g.json) return printJson(present(app, s));
        process.stdout.write(`updated source '${s.name}'\n`);
      });
    });

  sources
    .command('remove <name>')
    .description('delete a source and its records')
    .action(async (name: string, _o, cmd: Command) => {
      await withApp(cmd, async (app, g) => {
        const { warnings } = await removeSource(app, name);
        for (const w of warnings) process.stderr.write(`tributary: warning: ${terminalSafe(w)}\n`);
        if (g.json) return printJson({ removed: name, warnings });
        process.stdout.write(`removed source '${name}' and its records\n`);
      });
    });

  registerFileDropCommand(sources);

  sources
    .command('check <name>')
    .description('run the credential check')
    .action(async (name: string, _o, cmd: Command) => {
      // As `sync` does: retries and warnings go to the sync log, not between the check's lines.
      const g0 = globals(cmd);
      const log = openSyncLog(resolvePaths({ dataDir: g0.dataDir, db: g0.db }).dataDir, process.env.TRIBUTARY_LOG_LEVEL ?? 'warn');
      const ok = await withApp(
        cmd,
        async (app, g) => {
          const result = await checkSource(app, name);
          if (g.json) {
            printJson(result);
          } else {
            // One line per check: mark, finding, hint.
            for (const c of result.checks)
              process.stdout.write(
                `${c.ok ? '✓' : '✗'} ${terminalSafe(c.id)}: ${terminalSafe(c.message)}${c.hint ? ` — hint: ${terminalSafe(c.hint)}` : ''}\n`,
              );
            for (const w of result.warnings) process.stdout.write(`! warning: ${terminalSafe(w)}\n`);
            process.stdout.write(result.ok ? 'all checks passed\n' : 'some checks failed\n');
          }
          return result.ok;
        },
        'warn',
        { log: log.log },
      ).finally(() => log.close());
      if (log.lines() > 0 && !g0.json) process.stderr.write(`tributary: ${counted(log.lines(), 'log line')} (retries, warnings) in ${log.path}\n`);
      if (!ok) throw new ExitCode(1);
    });
}
