// Browser-test harness: builds the UI when stale, runs a real `tributary serve` on a free port, and
// drives Debian's chromium through playwright-core (headless, fresh profile); browserSuite gives a
// describe its servers and a signed-in page.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before } from 'node:test';
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
export async function launchBrowser(viewport = { width: 1366, height: 800 }, timezoneId = 'UTC') {
  const { chromium } = await import('playwright-core');
  const userDataDir = mkdtempSync(join(tmpdir(), 'tributary-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    locale: 'en-GB',
    timezoneId,
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

type Closable = { close(): Promise<unknown> };

/** What a browser suite runs against: a `tributary serve` and the simulators it reads, closed in the order named. */
export type Servers<T extends { served: Served } = { served: Served }> = T & { close(): Promise<void> };

/** Starts them all at once; close() closes each in the order they are named. */
export async function startAll<T extends { served: Promise<Served> } & Record<string, Promise<Closable>>>(
  starting: T,
): Promise<Servers<{ [K in keyof T]: Awaited<T[K]> }>> {
  const started = Object.fromEntries(await Promise.all(Object.entries(starting).map(async ([name, p]) => [name, await p] as const)));
  return {
    ...started,
    close: async () => {
      for (const s of Object.values(started)) await s.close();
    },
  } as Servers<{ [K in keyof T]: Awaited<T[K]> }>;
}

/**
 * Both simulators on one estate (40 machines) and a `tributary serve`, with the scanner as source `scan`
 * and the service desk as `desk`, both synced through the CLI.
 */
export async function startEstateServe(env: NodeJS.ProcessEnv): Promise<Servers<{ served: Served; scanner: RunningTenableSim; desk: RunningSdpSim }>> {
  const estate = new Estate(21, 40);
  return startAll({
    served: startServe({ TRIBUTARY_MASTER_KEY: env.TRIBUTARY_MASTER_KEY }),
    scanner: startTenableSim({ port: 0, seed: 3, findingsPerHost: 6, estate }),
    desk: startSdpSim({ port: 0, seed: 3, requests: 40, users: 10, technicians: 3, estate }),
  });
}

/** Adds the estate's scanner as source `scan` and its service desk as `desk`, and syncs both through the CLI. */
export async function syncEstate({ served, scanner, desk }: { served: Served; scanner: RunningTenableSim; desk: RunningSdpSim }, env: NodeJS.ProcessEnv) {
  const cli = async (...args: string[]) => {
    const r = await runCliAsync(['--data-dir', served.dataDir, ...args], env);
    if (r.code !== 0) throw new Error(`tributary ${args.slice(0, 2).join(' ')} exited ${r.code}: ${r.stderr}`);
  };
  await cli(...addTenableArgs('scan', scanner));
  await cli('sources', 'add', 'servicedesk-plus', '--name', 'desk', '--set', `serverUrl=${desk.url}`, '--set', `apiKey=${desk.apiKey}`);
  for (const s of ['scan', 'desk']) await cli('sync', s);
}

export interface BrowserSession {
  page: Page;
  /** Where screenshots go (see screenshotDir); a temp dir is removed at close. */
  shots: string;
  /** The page's uncaught script errors. */
  pageErrors: string[];
  /** The bodies of the API responses the page received, with keepApiBodies (to show no secret reached it). */
  apiBodies: string[];
  close(): Promise<void>;
}

export interface BrowserOptions {
  viewport?: { width: number; height: number };
  /** Signs in as admin before the tests (default true). */
  logIn?: boolean;
  keepApiBodies?: boolean;
  /** The browser's time zone (default UTC). */
  timezoneId?: string;
}

/** A headless chromium's first page, its script errors (and API bodies) collected, signed in to `baseUrl` unless told not to. */
export async function openBrowser(baseUrl: string, opts: BrowserOptions = {}): Promise<BrowserSession> {
  const shots = screenshotDir();
  const browser = await launchBrowser(opts.viewport, opts.timezoneId);
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  const pageErrors: string[] = [];
  const apiBodies: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  if (opts.keepApiBodies)
    page.on('response', async (r) => {
      if (!r.url().includes('/api/')) return;
      try {
        apiBodies.push(await r.text());
      } catch {
        // redirects and aborted requests have no body
      }
    });
  if (opts.logIn ?? true) await logIn(page, baseUrl);
  return {
    page,
    shots,
    pageErrors,
    apiBodies,
    close: async () => {
      await browser.close();
      if (shots !== SCREENSHOTS) rmSync(shots, { recursive: true, force: true });
    },
  };
}

/** A describe's servers (their fields by name), its browser page, and GETs of the served API with the page's session. */
export type BrowserSuite<S extends Servers> = Omit<S, 'close'> &
  Omit<BrowserSession, 'close'> & {
    /** The JSON answer to GET `path`, or an error naming its status and body. */
    api<T = Record<string, unknown>>(path: string): Promise<T>;
  };

/**
 * For the calling describe: before its tests the UI built, `start`'s servers running, `prepare` run on
 * them (sources added, synced) and a browser page opened on `served`; after its tests the browser and
 * the servers closed. The fields are there once the describe's first `before` has run.
 */
export function browserSuite<S extends Servers>(
  start: () => Promise<S>,
  opts: BrowserOptions & { prepare?: (servers: S) => Promise<void> } = {},
): BrowserSuite<S> {
  const suite = {
    api: async <T>(path: string): Promise<T> => {
      const res = await suite.page.request.get(suite.served.url + path);
      if (!res.ok()) throw new Error(`GET ${path}: ${res.status()} ${await res.text()}`);
      return (await res.json()) as T;
    },
  } as BrowserSuite<S>;
  let servers: S | undefined;
  let session: BrowserSession | undefined;
  before(async () => {
    buildWeb();
    servers = await start();
    await opts.prepare?.(servers);
    session = await openBrowser(servers.served.url, opts);
    const { close: _closeServers, ...named } = servers;
    const { close: _closeBrowser, ...browser } = session;
    Object.assign(suite, named, browser);
  });
  after(async () => {
    await session?.close();
    await servers?.close();
  });
  return suite;
}

/** The service and a small simulated Tenable.sc (12 hosts × 12 findings), added and synced through the CLI. */
export function syncedScannerSuite(env: NodeJS.ProcessEnv) {
  return browserSuite(
    () =>
      startAll({
        served: startServe({ TRIBUTARY_MASTER_KEY: env.TRIBUTARY_MASTER_KEY }),
        scanner: startTenableSim({ port: 0, seed: 5, hosts: 12, findingsPerHost: 12 }),
      }),
    {
      prepare: async ({ served, scanner }) => {
        const cli = (...args: string[]) => runCliAsync(['--data-dir', served.dataDir, ...args], env);
        assert.equal((await cli(...addTenableArgs('scan', scanner))).code, 0);
        assert.equal((await cli('sync', 'scan')).code, 0);
      },
    },
  );
}
