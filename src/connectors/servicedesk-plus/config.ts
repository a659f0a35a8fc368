// Configuration of a ServiceDesk Plus source (seed §2.4, interfaces.md §2): cloud (Zoho OAuth Self Client,
// region → accounts server and API host) or on-premises (technician API key), and the UI metadata.
import { z } from 'zod';
import type { ConfigFieldInfo } from '../../core/connector.ts';
import { API_MODE_ONLY, boolish, bucketName, intish, httpUrl, inputModeField } from '../../core/config.ts';
import {
  REMEDIATION_TICKETS_OFF,
  type RemediationTicketsConfig,
  remediationTicketsSchema,
  TICKET_GROUPINGS,
  ticketDecisionsSchema,
} from '../../core/tickets.ts';

/** The file-drop bucket the exports go to when the source names none. */
export const DEFAULT_BUCKET = 'service-desk';

export const REGIONS = {
  us: {
    label: 'United States',
    accounts: 'https://accounts.zoho.com',
    api: 'https://sdpondemand.manageengine.com',
    console: 'https://api-console.zoho.com',
    apiDomain: 'zohoapis.com',
  },
  eu: {
    label: 'Europe',
    accounts: 'https://accounts.zoho.eu',
    api: 'https://sdpondemand.manageengine.eu',
    console: 'https://api-console.zoho.eu',
    apiDomain: 'zohoapis.eu',
  },
  in: {
    label: 'India',
    accounts: 'https://accounts.zoho.in',
    api: 'https://sdpondemand.manageengine.in',
    console: 'https://api-console.zoho.in',
    apiDomain: 'zohoapis.in',
  },
  au: {
    label: 'Australia',
    accounts: 'https://accounts.zoho.com.au',
    api: 'https://servicedeskplus.net.au',
    console: 'https://api-console.zoho.com.au',
    apiDomain: 'zohoapis.com.au',
  },
  cn: {
    label: 'China',
    accounts: 'https://accounts.zoho.com.cn',
    api: 'https://servicedeskplus.cn',
    console: 'https://api-console.zoho.com.cn',
    apiDomain: 'zohoapis.com.cn',
  },
  jp: {
    label: 'Japan',
    accounts: 'https://accounts.zoho.jp',
    api: 'https://servicedeskplus.jp',
    console: 'https://api-console.zoho.jp',
    apiDomain: 'zohoapis.jp',
  },
  ca: {
    label: 'Canada',
    accounts: 'https://accounts.zohocloud.ca',
    api: 'https://servicedeskplus.ca',
    console: 'https://api-console.zohocloud.ca',
    apiDomain: 'zohoapis.ca',
  },
  uk: {
    label: 'United Kingdom',
    accounts: 'https://accounts.zoho.uk',
    api: 'https://servicedeskplus.uk',
    console: 'https://api-console.zoho.uk',
    apiDomain: 'zohoapis.uk',
  },
  sa: {
    label: 'Saudi Arabia',
    accounts: 'https://accounts.zoho.sa',
    api: 'https://servicedeskplus.sa',
    console: 'https://api-console.zoho.sa',
    apiDomain: 'zohoapis.sa',
  },
} as const;
export type Region = keyof typeof REGIONS;
export const REGION_KEYS = Object.keys(REGIONS) as Region[];

/** The scopes to enter when generating the authorization code (read-only). */
export const SCOPE_PREFIX = 'SDPOnDemand';
export const RECOMMENDED_SCOPES = ['requests', 'assets', 'cmdb', 'users', 'setup'].map((s) => `${SCOPE_PREFIX}.${s}.READ`);
/** The scopes remediation tickets add (beside the read ones): create and edit requests, notes included. */
export const WRITE_SCOPES = ['CREATE', 'UPDATE'].map((op) => `${SCOPE_PREFIX}.requests.${op}`);

/** Region whose Zoho API domain an `api_domain` value names, or null. */
export function regionOfApiDomain(apiDomain: string): Region | null {
  let host: string;
  try {
    host = new URL(apiDomain).hostname.toLowerCase();
  } catch {
    return null;
  }
  host = host.replace(/^www\./, '');
  for (const r of REGION_KEYS) if (host === REGIONS[r].apiDomain) return r;
  return null;
}

const trimmed = z.preprocess((v) => (typeof v === 'string' ? v.trim() || undefined : v === null ? undefined : v), z.string().optional());

/** A URL with trailing slashes (and a pasted /api/v3 suffix) removed; "" → unset. */
const baseUrl = (field: string) =>
  z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .trim()
            .replace(/\/+$/, '')
            .replace(/\/api\/v3$/i, '') || undefined
        : v === null
          ? undefined
          : v,
    httpUrl(field).optional(),
  );

export const sdpConfigSchema = z
  .object({
    inputMode: z.enum(['api', 'file']).default('api'),
    region: z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() || undefined : v), z.enum(REGION_KEYS as [Region, ...Region[]]).default('us')),
    clientId: trimmed,
    clientSecret: trimmed,
    authorizationCode: trimmed,
    revokeTokenOnDeletion: boolish.default(false),
    portal: z.preprocess(
      (v) => (typeof v === 'string' ? v.trim().replace(/^\/+|\/+$/g, '') || undefined : v === null ? undefined : v),
      z
        .string()
        .regex(/^[A-Za-z0-9_.-]+$/, 'portal is the portal URL name, e.g. itdesk (the segment after /app/ in the browser URL)')
        .optional(),
    ),
    serverUrl: baseUrl('serverUrl'),
    accountsUrl: baseUrl('accountsUrl'),
    apiKey: trimmed,
    verifySsl: boolish.default(true),
    bucket: bucketName(DEFAULT_BUCKET),
    schedule: z.string().optional(),
    // Writing remediation requests (issue 32): off unless enabled. A form sends it as JSON text.
    // `true`/`false` (the contract's form, interfaces.md §7.4) or the object section; `true` tickets the
    // `act` decisions with the defaults (the top-level keys below refine it).
    remediationTickets: z.preprocess((v) => {
      let x: unknown = v;
      if (typeof x === 'string') {
        if (x.trim() === '') return undefined;
        try {
          x = JSON.parse(x) as unknown;
        } catch {
          return v;
        }
      }
      if (x === null) return undefined;
      if (typeof x === 'boolean') return x ? { enabled: true, decisions: ['act'] } : { enabled: false };
      return x;
    }, remediationTicketsSchema.optional()),
    /** Which SSVC decisions are ticketed (act, attend, track-star, track; default act). Wins over the object section. */
    ticketDecisions: z.preprocess((v) => (v === null || v === '' ? undefined : v), ticketDecisionsSchema.optional()),
    /** One request per fix and owner group (default), per fix, or per asset. Wins over the object section's grouping. */
    ticketGroupBy: z.preprocess((v) => (v === null || v === '' ? undefined : v), z.enum(TICKET_GROUPINGS).optional()),
    /** Requests created per run at most (default 50). Wins over the object section's maxCreatesPerRun. */
    ticketMaxPerRun: z.preprocess((v) => (v === null || v === '' ? undefined : v), intish(0, 10_000).optional()),
    /** A single-line UDF (e.g. udf_sline_301) the created requests carry their remediation key in; unset: the subject marker only. */
    ticketKeyField: z.preprocess(
      (v) => (typeof v === 'string' ? v.trim() || undefined : v === null ? undefined : v),
      z
        .string()
        .regex(/^udf_[a-z]+_?\d+$/, 'ticketKeyField is the name of a single-line UDF of requests, e.g. udf_sline_301')
        .optional(),
    ),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.inputMode !== 'api') return;
    const client = Boolean(c.clientId || c.clientSecret);
    if (c.apiKey && client) {
      ctx.addIssue({
        code: 'custom',
        path: ['apiKey'],
        message: 'give either apiKey (on-premises) or clientId and clientSecret (cloud), not both; leave the client fields blank for on-premises',
      });
      return;
    }
    if (c.apiKey) {
      if (!c.serverUrl)
        ctx.addIssue({
          code: 'custom',
          path: ['serverUrl'],
          message: 'serverUrl is required on-premises: the address of your ServiceDesk Plus server, e.g. https://sdp.example.com:8080',
        });
      if (c.authorizationCode)
        ctx.addIssue({
          code: 'custom',
          path: ['authorizationCode'],
          message: 'authorizationCode is for cloud only; leave it blank with an on-premises API key',
        });
      return;
    }
    if (!c.clientId)
      ctx.addIssue({
        code: 'custom',
        path: ['clientId'],
        message: 'clientId is required for ServiceDesk Plus Cloud (or give serverUrl and apiKey for on-premises)',
      });
    if (!c.clientSecret) ctx.addIssue({ code: 'custom', path: ['clientSecret'], message: 'clientSecret is required for ServiceDesk Plus Cloud' });
  });

export type SdpConfig = z.infer<typeof sdpConfigSchema>;

/** The source's remediation-ticket settings: off unless its configuration has them on, and never in file mode. */
export function ticketSettingsOf(c: SdpConfig): RemediationTicketsConfig {
  if (c.inputMode !== 'api') return REMEDIATION_TICKETS_OFF;
  const base = c.remediationTickets ?? REMEDIATION_TICKETS_OFF;
  // The top-level keys win over the object section's.
  return {
    ...base,
    ...(c.ticketDecisions ? { decisions: c.ticketDecisions } : {}),
    ...(c.ticketGroupBy ? { grouping: c.ticketGroupBy } : {}),
    ...(c.ticketMaxPerRun !== undefined ? { maxCreatesPerRun: c.ticketMaxPerRun } : {}),
  };
}
export type Deployment = 'cloud' | 'onprem';

/** "A source with apiKey and no client fields is on-premises." */
export function deploymentOf(c: SdpConfig): Deployment {
  return c.apiKey && !c.clientId && !c.clientSecret ? 'onprem' : 'cloud';
}

export function accountsUrlOf(c: SdpConfig): string {
  return c.accountsUrl ?? REGIONS[c.region].accounts;
}

/** Base of the v3 API: cloud `<host>[/app/<portal>]/api/v3`, on-prem `<serverUrl>/api/v3`. */
export function apiBaseOf(c: SdpConfig): string {
  if (deploymentOf(c) === 'onprem') return `${c.serverUrl}/api/v3`;
  const host = c.serverUrl ?? REGIONS[c.region].api;
  const hasPortal = /\/app\/[^/]+$/.test(host);
  return `${host}${c.portal && !hasPortal ? `/app/${c.portal}` : ''}/api/v3`;
}

/** Identifies the OAuth client a stored refresh token belongs to (a change needs a new code). */
export function tokenOwner(c: SdpConfig): string {
  return `${accountsUrlOf(c)}|${c.clientId ?? ''}`;
}

export const sdpFields: Record<string, ConfigFieldInfo> = {
  inputMode: inputModeField('File Import', 'API access is recommended. File import reads exports (e.g. export.csv) uploaded to the bucket.'),
  region: {
    label: 'Region',
    input: 'select',
    showWhen: API_MODE_ONLY,
    sendsSecrets: ['clientSecret'],
    options: REGION_KEYS.map((r) => ({ value: r, label: `${r} (${REGIONS[r].label})` })),
    help: 'Server region of your ServiceDesk Plus Cloud account: it picks the Zoho accounts server and the API host. Use the region of the API console you created the Self Client in (api-console.zoho.eu → eu, …). Cloud only.',
  },
  authorizationCode: {
    label: 'Authorization Code',
    input: 'password',
    secret: true,
    showWhen: API_MODE_ONLY,
    help: `Code from OAuth authentication (cloud only). In the API console choose Self Client > Generate Code, enter the scopes ${RECOMMENDED_SCOPES.join(',')} (comma-separated; add SDPOnDemand.technicians.READ if offered), and paste the code. It is valid for a few minutes only and is exchanged once for a refresh token when you save; it is never stored.`,
  },
  clientId: {
    label: 'Client ID',
    input: 'text',
    showWhen: API_MODE_ONLY,
    help: 'Client ID of the registered OAuth application (Self Client). Blank for on-premises.',
  },
  clientSecret: {
    label: 'Client Secret',
    input: 'password',
    secret: true,
    showWhen: API_MODE_ONLY,
    help: 'Client secret of the registered OAuth application (Client Secret tab). Blank for on-premises.',
  },
  revokeTokenOnDeletion: {
    label: 'Revoke Token on Deletion',
    input: 'boolean',
    showWhen: API_MODE_ONLY,
    help: 'Revokes the refresh token at Zoho when the source is deleted.',
  },
  portal: {
    label: 'Portal',
    input: 'text',
    showWhen: API_MODE_ONLY,
    help: 'Cloud portal URL name, the segment after /app/ in your browser URL (e.g. itdesk). Needed when your organization has several portals.',
  },
  serverUrl: {
    label: 'Server URL',
    input: 'text',
    showWhen: API_MODE_ONLY,
    // On-premises the API key goes here; on cloud the access tokens minted with the client secret.
    sendsSecrets: ['apiKey', 'clientSecret'],
    help: 'On-premises: the address of your ServiceDesk Plus server, e.g. https://sdp.example.com:8080 (API v3 needs build 11000 or later). Cloud: optional override of the regional API host (e.g. a custom domain).',
  },
  accountsUrl: {
    label: 'Accounts Server URL',
    input: 'text',
    showWhen: API_MODE_ONLY,
    sendsSecrets: ['clientSecret'],
    help: 'Optional override of the regional Zoho accounts server (cloud).',
  },
  apiKey: {
    label: 'API Key',
    input: 'password',
    secret: true,
    showWhen: API_MODE_ONLY,
    help: 'On-premises: API key generated for a technician (Admin > Technicians > select the service account > Generate API Key); its role needs read access to requests, assets/CMDB, users and service categories. Sent as the authtoken header.',
  },
  verifySsl: {
    label: 'Verify SSL Certificate',
    input: 'boolean',
    showWhen: API_MODE_ONLY,
    help: 'Verifies the server\u2019s TLS certificate. Disable only for an on-premises server with a self-signed certificate.',
  },
  remediationTickets: {
    label: 'Remediation Tickets',
    input: 'textarea',
    showWhen: API_MODE_ONLY,
    help: `Off unless enabled: true (tickets the Act decisions with the defaults) or a JSON section. Writes one request per fix and owner group for open findings, notes changes, and resolves it when the scanner confirms every fix. JSON, e.g. {"enabled": true, "minSeverity": "high", "grouping": "fix-owner", "maxCreatesPerRun": 50, "template": {"groups": {"Finance": "Desktop Support"}}}. Cloud tokens need ${WRITE_SCOPES.join(' and ')} beside the read scopes; on-premises the technician's role must add and edit requests. Test Connection says whether writing is allowed.`,
  },
  ticketDecisions: {
    label: 'Ticket Decisions',
    input: 'text',
    showWhen: API_MODE_ONLY,
    help: 'Which SSVC decisions are ticketed, comma-separated: act, attend, track-star, track (default act).',
  },
  ticketGroupBy: {
    label: 'Ticket Grouping',
    input: 'text',
    showWhen: API_MODE_ONLY,
    help: 'One request per fix-owner (default: fix and owner group), fix, or asset.',
  },
  ticketMaxPerRun: {
    label: 'Tickets Per Run',
    input: 'text',
    showWhen: API_MODE_ONLY,
    help: 'Requests created per run at most (default 50); the rest wait for the next run.',
  },
  ticketKeyField: {
    label: 'Ticket Key Field',
    input: 'text',
    showWhen: API_MODE_ONLY,
    help: 'Optional: the API name of a single-line request UDF (e.g. udf_sline_301) the remediation key is written into as well as the subject; synced requests are matched by it first.',
  },
  bucket: { label: 'Bucket', input: 'text', showWhen: { inputMode: ['file'] }, help: 'File-drop bucket the exports are uploaded to (default service-desk).' },
  schedule: { label: 'Schedule', input: 'text', help: 'An interval such as 6h, or a cron expression; empty = manual only.' },
};
