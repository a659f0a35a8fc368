// Configuration of a Tenable.sc source (seed §2.1, interfaces.md §2) and its UI metadata.
import { z } from 'zod';
import type { ConfigFieldInfo } from '../../core/connector.ts';
import { API_MODE_ONLY, boolish, bucketName, httpUrl, inputModeField, intish, optionalText } from '../../core/config.ts';

/** The file-drop bucket the exports go to when the source names none. */
export const DEFAULT_BUCKET = 'vuln-scanner';

const REST_SUFFIX = /\/rest\/?$/i;

/** Strips trailing slashes; "" → undefined. */
const apiUrl = z.preprocess(
  (v) => (typeof v === 'string' ? (v.trim() === '' ? undefined : v.trim().replace(/\/+$/, '')) : v),
  httpUrl('apiUrl')
    .refine((s) => !REST_SUFFIX.test(s), {
      message: 'remove /rest from the end of the API URL: enter the URL you open the console with in a browser; the connector appends /rest/ itself',
    })
    .optional(),
);

const secret = z.preprocess((v) => (typeof v === 'string' ? v.trim() || undefined : v === null ? undefined : v), z.string().optional());

export const tenableScConfigSchema = z
  .object({
    inputMode: z.enum(['api', 'file']).default('api'),
    apiUrl,
    accessKey: secret,
    secretKey: secret,
    verifySsl: boolish.default(true),
    includeInformational: boolish.default(false),
    expectedUsername: optionalText,
    expectedOrganization: optionalText,
    expectedGroup: optionalText,
    caCertificate: optionalText,
    proxyUrl: z.preprocess((v) => (v === '' || v === null ? undefined : v), httpUrl('proxyUrl').optional()),
    pageSize: intish(1, 100_000).default(1000),
    proofMaxBytes: intish(0, 16 * 1024 * 1024).default(16 * 1024),
    bucket: bucketName(DEFAULT_BUCKET),
    schedule: z.string().optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.inputMode !== 'api') return;
    for (const k of ['apiUrl', 'accessKey', 'secretKey'] as const) {
      if (!c[k]) ctx.addIssue({ code: 'custom', path: [k], message: `${k} is required in API mode` });
    }
  });

export type TenableScConfig = z.infer<typeof tenableScConfigSchema>;

/** A config in API mode: the fields the client needs are present. */
export type TenableScApiConfig = TenableScConfig & { apiUrl: string; accessKey: string; secretKey: string };

export function requireApi(c: TenableScConfig): TenableScApiConfig {
  if (!c.apiUrl || !c.accessKey || !c.secretKey) throw new Error('API URL, Access Key and Secret Key are required in API mode');
  return c as TenableScApiConfig;
}

export const tenableScFields: Record<string, ConfigFieldInfo> = {
  inputMode: inputModeField(
    'File Import (CSV files)',
    'API access is recommended. File import reads CSV exports of the Vulnerabilities and Host Assets pages uploaded to the bucket.',
  ),
  apiUrl: {
    label: 'API URL',
    input: 'text',
    showWhen: API_MODE_ONLY,
    sendsSecrets: ['accessKey', 'secretKey'],
    help: 'The URL you open the console with in a browser, e.g. https://sc.example.com or https://sc.example.com:8443, without a trailing slash. Do not add /rest/: the connector appends it.',
  },
  accessKey: {
    label: 'Access Key',
    input: 'password',
    secret: true,
    showWhen: API_MODE_ONLY,
    help: 'Access key of the API key pair of the dedicated organizational user (role Security Analyst).',
  },
  secretKey: {
    label: 'Secret Key',
    input: 'password',
    secret: true,
    showWhen: API_MODE_ONLY,
    help: 'Secret key of the same pair. The console shows it once only, at generation. Generating a new pair revokes the previous one at once.',
  },
  verifySsl: {
    label: 'Verify SSL Certificate',
    input: 'boolean',
    showWhen: API_MODE_ONLY,
    help: 'Verifies the console\u2019s TLS certificate. Disable only for a self-signed certificate, or add its CA below instead.',
  },
  includeInformational: {
    label: 'Include Informational Findings',
    input: 'boolean',
    help: 'Also import Info-severity findings as vulnerabilities (greatly increases volume). Installed software and open ports are imported regardless.',
  },
  expectedUsername: {
    label: 'Expected Username',
    input: 'text',
    showWhen: API_MODE_ONLY,
    help: 'When set, the credential check verifies the API keys belong to this user.',
  },
  expectedOrganization: {
    label: 'Expected Organization',
    input: 'text',
    showWhen: API_MODE_ONLY,
    help: 'When set, the credential check verifies the user\u2019s organization.',
  },
  expectedGroup: {
    label: 'Expected Group',
    input: 'text',
    showWhen: API_MODE_ONLY,
    help: 'When set, the credential check verifies the user\u2019s group (it defines which repositories are imported).',
  },
  caCertificate: {
    label: 'CA Certificate',
    input: 'textarea',
    showWhen: API_MODE_ONLY,
    help: 'PEM of a private CA that signed the console\u2019s certificate; an alternative to disabling verification.',
  },
  proxyUrl: {
    label: 'Proxy URL',
    input: 'text',
    showWhen: API_MODE_ONLY,
    urlCredentials: true,
    sendsSecrets: ['accessKey', 'secretKey'],
    help: 'HTTP(S) proxy to reach the console through, e.g. http://proxy:3128 or http://user:password@proxy:3128 (the password is stored encrypted and shown masked).',
  },
  pageSize: { label: 'Page Size', input: 'number', showWhen: API_MODE_ONLY, help: 'Records per analysis page (default 1000).' },
  proofMaxBytes: {
    label: 'Proof Size Limit',
    input: 'number',
    help: 'Bytes of plugin output kept as a finding\u2019s proof (default 16384); longer output is cut and marked truncated.',
  },
  bucket: {
    label: 'Bucket',
    input: 'text',
    showWhen: { inputMode: ['file'] },
    help: 'File-drop bucket the CSV exports are uploaded to (default vuln-scanner).',
  },
  schedule: { label: 'Schedule', input: 'text', help: 'An interval such as 6h, or a cron expression; empty = manual only.' },
};
