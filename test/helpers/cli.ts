// Runs the `tributary` command as a user would: a separate process, through bin/tributary.js.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Every test that writes records fails on a field its model does not have (store/records/upsert.ts checkFields).
process.env.TRIBUTARY_STRICT_FIELDS ??= '1';

export const BIN = fileURLToPath(new URL('../../bin/tributary.js', import.meta.url));

/** A Node older than 22.13 on this machine, under which bin/tributary.js starts Node 24 as its child. */
export function olderNode(): string | undefined {
  return ['/usr/bin/node', '/usr/local/bin/node'].find((p) => {
    if (!existsSync(p)) return false;
    const v = spawnSync(p, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim().split('.').map(Number);
    return v[0]! < 22 || (v[0] === 22 && v[1]! < 13);
  });
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, TRIBUTARY_MASTER_KEY: Buffer.alloc(32, 11).toString('base64'), TRIBUTARY_RETRY_BASE_MS: '5', ...extra };
}

export function runCli(args: string[], env: NodeJS.ProcessEnv = cliEnv()): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Async variant, for commands that talk to a simulator running in this process. */
export function runCliAsync(args: string[], env: NodeJS.ProcessEnv = cliEnv()): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `--set` arguments for a Tenable.sc console's URL and API keys. */
export function tenableSets(url: string, keys: { accessKey: string; secretKey: string }): string[] {
  return [`apiUrl=${url}`, `accessKey=${keys.accessKey}`, `secretKey=${keys.secretKey}`].flatMap((s) => ['--set', s]);
}

/** `sources add tenable-sc` arguments for a simulator's analyst keys, plus any `--set key=value` extras. */
export function addTenableArgs(name: string, sim: { url: string; analyst: { accessKey: string; secretKey: string } }, ...sets: string[]): string[] {
  return ['sources', 'add', 'tenable-sc', '--name', name, ...tenableSets(sim.url, sim.analyst), ...sets.flatMap((s) => ['--set', s])];
}
