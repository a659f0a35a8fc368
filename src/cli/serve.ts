// `tributary serve` (API, web UI, scheduler) and `tributary sim …` (upstream simulators).
import type { Command } from 'commander';
import { SIMULATORS } from '../../sim/index.ts';
import { openApp } from '../app/context.ts';
import { recordServerAddress } from '../app/server-address.ts';
import { InputError } from '../core/errors.ts';
import { createLogger } from '../core/log.ts';
import { parseTrustProxy } from '../server/trust-proxy.ts';
import { ExitCode, globals } from './app.ts';
import { DEFAULT_WEB_DIR, ensureWebUi } from './web-build.ts';

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('start the web UI, HTTP API and scheduler')
    .option('--port <port>', 'port to listen on', '8080')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--no-worker', 'PostgreSQL mode: leave queued syncs to `tributary worker` processes')
    .action(async (o: { port: string; host: string; worker: boolean }, cmd: Command) => {
      const port = Number(o.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InputError(`--port must be 0-65535, got '${o.port}'`, 'port');
      const g = globals(cmd);
      const trustProxy = parseTrustProxy(process.env.TRIBUTARY_TRUST_PROXY);
      // Listen for the stop signal before announcing the URL, so a supervisor that stops us as soon
      // as it reads the URL still gets a clean shutdown.
      const stopped = new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      // The UI this server serves: a custom TRIBUTARY_WEB_DIR is the operator's; the default one is built here when missing.
      if (!process.env.TRIBUTARY_WEB_DIR) ensureWebUi(DEFAULT_WEB_DIR);
      const app = await openApp({
        dataDir: g.dataDir,
        db: g.db,
        fileDrop: g.fileDrop,
        log: createLogger({ level: process.env.TRIBUTARY_LOG_LEVEL ?? 'info' }),
        requireReadableSecrets: true,
      });
      const { startServer } = await import('../server/server.ts');
      let server: Awaited<ReturnType<typeof startServer>>;
      try {
        server = await startServer(app, { port, host: o.host, scheduler: true, worker: o.worker, trustProxy });
      } catch (err) {
        await app.close();
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE')
          throw new ExitCode(
            2,
            `port ${port} on ${o.host} is already in use: pick another with --port N (e.g. \`tributary serve --port ${port === 8080 ? 8081 : port + 1}\`, or \`bash scripts/run.sh start --port N\`)`,
          );
        if (code === 'EACCES') throw new ExitCode(2, `not allowed to listen on port ${port} on ${o.host}: pick a port above 1023 with --port N`);
        if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new ExitCode(2, `cannot listen on --host ${o.host}: no such address on this machine`);
        throw err;
      }
      const forget = recordServerAddress(app.dataDir, server.url);
      process.stderr.write(`tributary: serving on ${server.url} (data dir ${app.dataDir})\n`);
      await stopped;
      forget();
      await server.close();
      await app.close();
    });
}

export function registerSimCommand(program: Command): void {
  program
    .command('sim <system>')
    .description(`start an upstream simulator: ${Object.keys(SIMULATORS).join(', ')} (see \`tributary sim <system> --help\`)`)
    .allowUnknownOption()
    .allowExcessArguments()
    .helpOption(false)
    .argument('[args...]')
    .action(async (system: string, args: string[]) => {
      const load = SIMULATORS[system];
      if (!load) throw new InputError(`unknown simulator '${system}'; choose ${Object.keys(SIMULATORS).join(' or ')}`, 'system');
      const run = await load();
      try {
        await run(args);
      } catch (err) {
        // A simulator's own usage errors (unknown or malformed options) are bad usage: exit 2.
        if ((err as { usage?: unknown }).usage === true) throw new InputError((err as Error).message.split('\n')[0]!, 'sim');
        throw err;
      }
    });
}
