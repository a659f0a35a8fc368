// `tributary sim servicedesk-plus`: command-line options to simulator options, and the foreground run.
import { DATA_CENTRES, type DataCentre } from './oauth.ts';
import { ASSET_API_MODES, type AssetApiMode } from './product-types.ts';
import { startSdpSim } from './server.ts';
import type { SdpFaults, SdpSimOptions } from './types.ts';
import { parseEstate } from '../shared/estate.ts';
import { stopSignal } from '../shared/signals.ts';

const USAGE = `usage: tributary sim servicedesk-plus [options]
  --port N                 listen port (default: a free port)     --host H (default 127.0.0.1)
  --seed N                 data seed (default 1)
  --requests N  --assets N  --cis N (per CI type)  --users N  --technicians N  --service-categories N
  --estate SEED[:N]|FILE   assets are the CMDB records of a shared estate (as the Tenable.sc simulator's
                           --estate serves its hosts); requests are associated with them and name CVEs
  --portal NAME            cloud portal (default itdesk)          --dc us|eu|in|au|cn|jp|ca|uk|sa (default us)
  --client-id ID --client-secret S --api-key K                    fixed credentials (default random)
  --scopes A,B             scopes of the printed authorization code
  --code-ttl S             authorization code lifetime (default 180)
  --token-limit N --token-window S                                 access-token requests per window (10 / 600)
  --include-scope          token responses carry "scope"
  --asset-api MODE         legacy | product-type | both (default both): the old /api/v3/assets (builds
                           before 15100), one list per product type (asset_laptops, asset_servers…,
                           asset_assets; the old ones were dropped after April 2026), or both (15100
                           while the old ones were kept); product_types is served in every mode
  --deny MODULE,…          on-prem modules the API key may not read
  --latency-ms N  --rate-limit-every N (4015)  --http429-every N  --error-every N  --fault-paths a,b
  --tls                                                            serve HTTPS with a generated self-signed certificate
  --tls-cert FILE --tls-key FILE                                   serve HTTPS with this certificate`;

/** Bad usage of the simulator's command line (the `tributary` command exits 2 for it). */
export class SimUsageError extends Error {
  readonly usage = true;
}

export function parseSdpSimArgs(argv: string[]): SdpSimOptions & { scopes?: string[] } {
  const o: SdpSimOptions & { scopes?: string[] } = {};
  const faults: SdpFaults = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const val = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new SimUsageError(`${flag} needs a value\n${USAGE}`);
      return v;
    };
    const num = (): number => {
      const v = Number(val());
      if (!Number.isFinite(v) || v < 0) throw new SimUsageError(`${flag} needs a non-negative number\n${USAGE}`);
      return v;
    };
    const list = () =>
      val()
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    switch (flag) {
      case '--port':
        o.port = num();
        break;
      case '--host':
        o.host = val();
        break;
      case '--seed':
        o.seed = num();
        break;
      case '--requests':
        o.requests = num();
        break;
      case '--assets':
        o.assets = num();
        break;
      case '--estate':
        o.estate = parseEstate(val());
        break;
      case '--cis':
        o.cis = num();
        break;
      case '--users':
        o.users = num();
        break;
      case '--technicians':
        o.technicians = num();
        break;
      case '--service-categories':
        o.serviceCategories = num();
        break;
      case '--portal':
        o.portal = val();
        break;
      case '--dc': {
        const v = val();
        if (!(DATA_CENTRES as readonly string[]).includes(v)) throw new SimUsageError(`--dc must be one of ${DATA_CENTRES.join(', ')}`);
        o.dc = v as DataCentre;
        break;
      }
      case '--client-id':
        o.clientId = val();
        break;
      case '--client-secret':
        o.clientSecret = val();
        break;
      case '--api-key':
        o.apiKey = val();
        break;
      case '--scopes':
        o.scopes = list();
        break;
      case '--code-ttl':
        o.codeTtlSeconds = num();
        break;
      case '--token-limit':
        o.tokenLimit = num();
        break;
      case '--token-window':
        o.tokenWindowSeconds = num();
        break;
      case '--include-scope':
        o.includeScope = true;
        break;
      case '--asset-api': {
        const v = val();
        if (!(ASSET_API_MODES as readonly string[]).includes(v)) throw new SimUsageError(`--asset-api must be one of ${ASSET_API_MODES.join(', ')}`);
        o.assetApi = v as AssetApiMode;
        break;
      }
      case '--deny':
        o.apiKeyDenied = list();
        break;
      case '--latency-ms':
        faults.latencyMs = num();
        break;
      case '--rate-limit-every':
        faults.rateLimit = { every: num() };
        break;
      case '--http429-every':
        faults.http429 = { every: num() };
        break;
      case '--error-every':
        faults.serverError = { every: num() };
        break;
      case '--fault-paths':
        faults.paths = list();
        break;
      case '--tls':
        o.tls = true;
        break;
      case '--tls-cert':
        o.tlsCert = val();
        break;
      case '--tls-key':
        o.tlsKey = val();
        break;
      case '--help':
      case '-h':
        throw new SimUsageError(USAGE);
      default:
        throw new SimUsageError(`unknown option ${a}\n${USAGE}`);
    }
  }
  o.faults = faults;
  return o;
}

/** `tributary sim servicedesk-plus …`: prints one JSON line with URLs and credentials, serves until SIGINT/SIGTERM. */
export async function runSdpSimCli(argv: string[]): Promise<void> {
  if (argv.some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const opts = parseSdpSimArgs(argv);
  const stopped = stopSignal();
  const sim = await startSdpSim(opts);
  process.stdout.write(
    `${JSON.stringify({
      url: sim.url,
      accountsUrl: sim.accountsUrl,
      portal: sim.portal,
      clientId: sim.clientId,
      clientSecret: sim.clientSecret,
      authorizationCode: sim.mintAuthorizationCode(opts.scopes),
      // A Self Client code is good for one exchange within its lifetime (Zoho's default: 180 s).
      authorizationCodeExpiresInSeconds: opts.codeTtlSeconds ?? 180,
      newAuthorizationCode: `curl -s -X POST ${sim.url}/_sim/codes -H 'content-type: application/json' -d '{}'`,
      apiKey: sim.apiKey,
      dc: sim.dc,
      control: `${sim.url}/_sim/`,
      ...(sim.caCertificate ? { caCertificate: sim.caCertificate } : {}),
    })}\n`,
  );
  await stopped;
  await sim.close().catch(() => {});
}
