// Self-signed certificate for --tls, generated with the system openssl binary into a temp dir that
// is removed right away (no npm dependency needed; Debian images ship openssl).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function generateSelfSigned(host: string): Promise<{ cert: string; key: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-sim-tls-'));
  try {
    const keyPath = join(dir, 'key.pem');
    const certPath = join(dir, 'cert.pem');
    const isIp = /^[\d.]+$/.test(host) || host.includes(':');
    const san = ['DNS:localhost', 'IP:127.0.0.1', isIp ? `IP:${host}` : `DNS:${host}`].filter((v, i, a) => a.indexOf(v) === i).join(',');
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '30',
      '-subj',
      '/CN=tributary-simulator',
      '-addext',
      `subjectAltName=${san}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
    ]);
    return { cert: await readFile(certPath, 'utf8'), key: await readFile(keyPath, 'utf8') };
  } catch (e) {
    throw new Error(
      `could not generate a self-signed certificate with openssl (install openssl or pass --cert/--key): ${e instanceof Error ? e.message : String(e)}`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
