// Command line: `tributary sim tenable-sc --port 0 --tls --hosts 100 …`; prints one JSON line, serves until a signal.
import { Command, InvalidArgumentError } from 'commander';
import type { FaultRule, MitigatedLastSeen, TenableSimOptions } from './options.ts';
import { startTenableSim } from './start.ts';
import { parseCommonPatchSet } from './patch-sets.ts';
import { parseEstate } from '../shared/estate.ts';
import { stopSignal } from '../shared/signals.ts';

const int = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
};
const prob = (v: string) => {
  const n = Number(v);
  if (!(n >= 0 && n <= 1)) throw new InvalidArgumentError('expected a probability between 0 and 1');
  return n;
};

interface CliFlags {
  port: number;
  host: string;
  tls?: boolean;
  cert?: string;
  key?: string;
  version: string;
  seed: number;
  hosts: number;
  estate?: string;
  findingsPerHost: number;
  commonPatchSet?: string;
  now?: number;
  mitigatedLastSeen?: string;
  lastMitigatedFilter?: boolean;
  scanResultsForbidden?: boolean;
  latencyMs?: number;
  rateLimitEvery?: number;
  rateLimitProbability?: number;
  retryAfter?: number;
  errorEvery?: number;
  errorProbability?: number;
  errorStatus?: number;
  resetEvery?: number;
  resetProbability?: number;
  slowPageMs?: number;
  missingTotalProbability?: number;
  faultPaths?: string;
}

function rule(every: number | undefined, probability: number | undefined, extra: Partial<FaultRule> = {}): FaultRule | undefined {
  return every || probability ? { every, probability, ...extra } : undefined;
}

function mitigatedLastSeenOf(v: string | undefined): MitigatedLastSeen | undefined {
  if (v === undefined || v === 'fixed-scan' || v === 'last-vulnerable') return v;
  throw new Error(`--mitigated-last-seen must be fixed-scan or last-vulnerable, got '${v}'`);
}

export function parseSimArgs(argv: string[]): TenableSimOptions {
  const program = new Command('tributary sim tenable-sc')
    .description('Tenable.sc console simulator')
    .exitOverride()
    .configureOutput({ outputError: () => {} })
    .option('--port <n>', 'port to listen on (0 = random)', int, 8443)
    .option('--host <addr>', 'address to bind', '127.0.0.1')
    .option('--tls', 'serve HTTPS with a generated self-signed certificate')
    .option('--cert <file>', 'PEM certificate for HTTPS')
    .option('--key <file>', 'PEM private key for HTTPS')
    .option('--version <x.y.z>', 'console version to simulate', '6.4.0')
    .option('--seed <n>', 'data seed', int, 1)
    .option('--hosts <n>', 'number of hosts the analyst can see', int, 50)
    .option('--estate <seed|file>', 'serve the scanned machines of a shared estate (SEED[:MACHINES] or a JSON file), as the ServiceDesk Plus simulator does')
    .option('--findings-per-host <n>', 'open findings per host', int, 20)
    .option('--common-patch-set <shares>', "each platform's common patch set: corpus (40 % of the plugins, 81.9 % of the findings) or PLUGINS:FINDINGS")
    .option('--now <epoch>', 'simulated current time in epoch seconds', int)
    .option('--mitigated-last-seen <when>', "a mitigated finding's lastSeen: fixed-scan (when found fixed) or last-vulnerable")
    .option('--last-mitigated-filter', 'offer the lastMitigated filter (by default it is rejected with error 146, as by consoles without it)')
    .option('--scan-results-forbidden', 'refuse /rest/scanResult (HTTP 403), as for a role that may not view scan results')
    .option('--latency-ms <n>', 'delay added to every /rest request', int)
    .option('--rate-limit-every <n>', 'answer every Nth request with 429', int)
    .option('--rate-limit-probability <p>', 'answer 429 with this probability', prob)
    .option('--retry-after <s>', 'Retry-After seconds for 429', int)
    .option('--error-every <n>', 'answer every Nth request with a server error', int)
    .option('--error-probability <p>', 'server error probability', prob)
    .option('--error-status <code>', '500 or 503', int)
    .option('--reset-every <n>', 'reset the connection mid-body on every Nth request', int)
    .option('--reset-probability <p>', 'mid-body reset probability', prob)
    .option('--slow-page-ms <n>', 'spread analysis/hosts bodies over this many ms', int)
    .option('--missing-total-probability <p>', 'probability that totalRecords is omitted', prob)
    .option('--fault-paths <list>', 'comma-separated path prefixes that faults apply to');
  program.parse(argv, { from: 'user' });
  const f = program.opts<CliFlags>();
  return {
    port: f.port,
    host: f.host,
    tls: f.tls,
    cert: f.cert,
    key: f.key,
    version: f.version,
    seed: f.seed,
    hosts: f.hosts,
    estate: f.estate !== undefined ? parseEstate(f.estate) : undefined,
    findingsPerHost: f.findingsPerHost,
    ...(f.commonPatchSet !== undefined ? { commonPatchSet: parseCommonPatchSet(f.commonPatchSet) } : {}),
    now: f.now,
    mitigatedLastSeen: mitigatedLastSeenOf(f.mitigatedLastSeen),
    lastMitigatedFilter: f.lastMitigatedFilter === true,
    scanResultsForbidden: f.scanResultsForbidden === true,
    latencyMs: f.latencyMs,
    rateLimit: rule(f.rateLimitEvery, f.rateLimitProbability, f.retryAfter !== undefined ? { retryAfter: f.retryAfter } : {}),
    serverError: rule(f.errorEvery, f.errorProbability, f.errorStatus !== undefined ? { status: f.errorStatus } : {}),
    resetMidBody: rule(f.resetEvery, f.resetProbability),
    slowPageMs: f.slowPageMs,
    missingTotalRecords: f.missingTotalProbability,
    paths: f.faultPaths ? f.faultPaths.split(',').map((p) => p.trim()) : undefined,
  };
}

export async function runTenableSimCli(argv: string[]): Promise<void> {
  const opts = parseSimArgs(argv);
  const stopped = stopSignal();
  const sim = await startTenableSim(opts);
  process.stdout.write(
    `${JSON.stringify({ url: sim.url, ...sim.analyst, admin: sim.admin, version: sim.version, ...(sim.caCertificate ? { caCertificate: sim.caCertificate } : {}) })}\n`,
  );
  await stopped;
  await sim.close().catch(() => {});
}
