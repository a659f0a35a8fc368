// A small connector for the API tests: type `fixture`, a secret `token`, a `url`, and one stream that
// yields `pages` pages of hosts with two vulnerabilities each, optionally slowly (`delayMs`).
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { httpUrl, intish } from '../../src/core/config.ts';
import type { Connector, Page, StreamContext } from '../../src/core/connector.ts';
import type { IncomingRecord } from '../../src/core/models.ts';

export const GOOD_TOKEN = 'fixture-token-s3cr3t-value';
export const HOSTS_PER_PAGE = 3;

const schema = z.strictObject({
  url: httpUrl('url'),
  token: z.string().min(1),
  pages: intish(1, 100).default(2),
  delayMs: intish(0, 60_000).default(0),
});
type Config = z.infer<typeof schema>;

function page(n: number): Page {
  const hosts: IncomingRecord[] = [];
  const vulns: IncomingRecord[] = [];
  for (let i = 0; i < HOSTS_PER_PAGE; i++) {
    const k = n * HOSTS_PER_PAGE + i;
    const key = `host-${k}`;
    hosts.push({
      key,
      externalId: `uuid-${k}`,
      fields: { ipAddresses: [`10.0.0.${k + 1}`], hostname: `web-${k}.example.test`, os: k % 2 ? 'Linux' : 'Windows', credentialed: k % 2 === 0 },
    });
    vulns.push({
      key: `${key}|443|tcp|19506`,
      hostKey: key,
      fields: {
        pluginId: '19506',
        pluginName: 'Scan information',
        severity: 'info',
        port: 443,
        protocol: 'tcp',
        status: 'open',
        cves: [],
        cvssV3BaseScore: null,
      },
    });
    vulns.push({
      key: `${key}|22|tcp|10000${k}`,
      hostKey: key,
      fields: {
        pluginId: `10000${k}`,
        pluginName: `OpenSSH issue ${k}`,
        severity: k % 3 === 0 ? 'critical' : 'high',
        port: 22,
        protocol: 'tcp',
        status: 'open',
        cves: [`CVE-2024-${1000 + k}`],
        cvssV3BaseScore: 5 + (k % 5),
        scannerKnownExploited: k === 0,
      },
    });
  }
  return { records: { hosts, vulnerabilities: vulns }, checkpoint: { page: n } };
}

export const fixtureConnector: Connector<Config> = {
  type: 'fixture',
  title: 'Fixture (tests)',
  shortName: 'Fixture',
  upstream: (config) => config.url,
  configSchema: schema as unknown as z.ZodType<Config>,
  fields: {
    url: { label: 'URL', help: 'Where the fixture lives', sendsSecrets: ['token'] },
    token: { label: 'Token', secret: true, input: 'password' },
    pages: { label: 'Pages', input: 'number' },
    delayMs: { label: 'Delay between pages (ms)', input: 'number' },
  },
  async check(config) {
    const good = config.token === GOOD_TOKEN;
    return [
      { id: 'reach', ok: true, message: `reached ${config.url}`, hint: null },
      // Deliberately echoes the token: the API must scrub it.
      {
        id: 'token',
        ok: good,
        message: good ? `token ${config.token} accepted` : `token ${config.token} was rejected`,
        hint: good ? null : 'use a valid token',
      },
    ];
  },
  streams(config) {
    return [
      {
        name: 'inventory',
        models: ['hosts', 'vulnerabilities'],
        primaryKey: ['key'],
        async *read(ctx: StreamContext) {
          const start = ctx.resumed && ctx.checkpoint ? (ctx.checkpoint as { page: number }).page + 1 : 0;
          for (let n = start; n < config.pages; n++) {
            if (config.delayMs) await sleep(config.delayMs, undefined, { signal: ctx.signal });
            yield page(n);
          }
        },
      },
    ];
  },
};
