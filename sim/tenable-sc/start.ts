// Starts one simulator instance: builds the context, the optional TLS material and the listener.
import { readFile } from 'node:fs/promises';
import { createContext } from './context.ts';
import type { RunningTenableSim, TenableSimOptions } from './options.ts';
import { listen, type ServerTls } from './server.ts';
import { generateSelfSigned } from '../shared/tls.ts';

export async function startTenableSim(opts: TenableSimOptions = {}): Promise<RunningTenableSim> {
  const ctx = createContext(opts);
  const host = opts.host ?? '127.0.0.1';
  let tls: ServerTls | null = null;
  let caCertificate: string | undefined;
  if (opts.cert || opts.key) {
    if (!opts.cert || !opts.key) throw new Error('--cert and --key must be given together');
    tls = { cert: await readFile(opts.cert, 'utf8'), key: await readFile(opts.key, 'utf8') };
  } else if (opts.tls) {
    tls = await generateSelfSigned(host);
    caCertificate = tls.cert;
  }
  const { server, port } = await listen(ctx, host, opts.port ?? 8443, tls);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const credentials = (u: { accessKey: string; secretKey: string; username: string }) => ({
    accessKey: u.accessKey,
    secretKey: u.secretKey,
    username: u.username,
  });
  return {
    url: `${tls ? 'https' : 'http'}://${urlHost}:${port}`,
    analyst: credentials(ctx.users.analyst),
    admin: credentials(ctx.users.admin),
    version: ctx.config.version,
    caCertificate,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
