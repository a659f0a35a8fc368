// Browser-test harness: builds the UI when stale, runs a real `tributary serve` on a free port, and
// drives Debian's chromium through playwright-core (headless, fresh profile).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { type RunningSdpSim, startSdpSim } from '../../sim/servicedesk-plus/index.ts';
import { Estate } from '../../sim/shared/estate.ts';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { addTenableArgs, runCliAsync } from '../helpers/cli.ts';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = join(ROOT, 'docs', 'screenshots');
export const ADMIN_PASSWORD = 'web-ui-test-password-42';

/** Why the browser tests cannot run here, or null. */
export function browserUnavailable(): string | null {
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} is missing: run scripts/ensure-chromium.sh (apt-get install chromium)`;
  return null;
}

/** Runs scripts/build-web.sh (a no-op when dist/web is up to date). */
export function buildWeb(): void {
  const r = spawnSync('bash', [join(ROOT, 'scripts', 'build-web.sh')], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`building the web UI failed: ${r.stderr || r.stdout}`);
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

export interface Served {
  url: string;
  dataDir: string;
  stderr: () => string;
  close(): Promise<void>;
}

/** `node bin/tributary.js --data-dir <tmp> serve --port <free>`; resolves once it prints its URL. */
export async function startServe(env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tributary-web-'));
  const port = await freePort();
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TRIBUTARY_')) base[k] = v;
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'bin', 'tributary.js'), '--data-dir', dataDir, 'serve', '--port', String(port)], {
    cwd: ROOT,
    env: { ...base, TRIBUTARY_ADMIN_PASSWORD: ADMIN_PASSWORD, TRIBUTARY_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stdout?.resume();
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`serve did not start in 20 s: ${err}`)), 20_000);
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /tributary: serving on (\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        res(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`serve exited with ${code}: ${err}`));
    });
  });
  return {
    url,
    dataDir,
    stderr: () => err,
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(t);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** A headless chromium with a fresh user-data dir (a persistent context on a new temp dir). */
export async function launchBrowser(viewport = { width: 1366, height: 800 }) {
  const { chromium } = await import('playwright-core');
  const userDataDir = mkdtempSync(join(tmpdir(), 'tributary-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    locale: 'en-GB',
    timezoneId: 'UTC',
    acceptDownloads: false,
  });
  context.setDefaultTimeout(15_000);
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** docs/screenshots when TRIBUTARY_SCREENSHOTS=1 (to refresh the README's pictures), else a temp dir. */
export function screenshotDir(): string {
  const dir = process.env.TRIBUTARY_SCREENSHOTS === '1' ? SCREENSHOTS : mkdtempSync(join(tmpdir(), 'tributary-shots-'));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Signs in as admin on the login page of `baseUrl` and waits for the overview. */
export async function logIn(page: Page, baseUrl: string): Promise<void> {
  await page.goto(baseUrl + '/login');
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
}

/**
 * Both simulators on one estate (40 machines) and a `tributary serve`, with the scanner as source `scan`
 * and the service desk as `desk`, both synced through the CLI.
 */
export async function startEstateServe(env: NodeJS.ProcessEnv): Promise<{ served: Served; scanner: RunningTenableSim; desk: RunningSdpSim }> {
  const estate = new Estate(21, 40);
  const [served, scanner, desk] = await Promise.all([
    startServe({ TRIBUTARY_MASTER_KEY: env.TRIBUTARY_MASTER_KEY }),
    startTenableSim({ port: 0, seed: 3, findingsPerHost: 6, estate }),
    startSdpSim({ port: 0, seed: 3, requests: 40, users: 10, technicians: 3, estate }),
  ]);
  const cli = async (...args: string[]) => {
    const r = await runCliAsync(['--data-dir', served.dataDir, ...args], env);
    if (r.code !== 0) throw new Error(`tributary ${args.slice(0, 2).join(' ')} exited ${r.code}: ${r.stderr}`);
  };
  await cli(...addTenableArgs('scan', scanner));
  await cli('sources', 'add', 'servicedesk-plus', '--name', 'desk', '--set', `serverUrl=${desk.url}`, '--set', `apiKey=${desk.apiKey}`);
  for (const s of ['scan', 'desk']) await cli('sync', s);
  return { served, scanner, desk };
}
