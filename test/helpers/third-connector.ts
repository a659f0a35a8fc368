// A third connector that lives only in the tests: it proves the contract is closed. Declared with
// defineConnector and nothing else (no file under src/ names it), it has an API mode (hosts from a
// fixed list, a token check) and a file mode (one hostname per line in the files of its bucket).
import { z } from 'zod';
import { defineConnector, type Page, type Stream, type StreamContext } from '../../src/core/connector.ts';
import type { IncomingRecord } from '../../src/core/models.ts';

export const THIRD_TYPE = 'third-inventory';
export const THIRD_BUCKET = 'third-drop';
export const THIRD_TOKEN = 'third-good-token-42';
/** The hosts its API mode reads. */
export const THIRD_API_HOSTS = ['alpha.third.test', 'beta.third.test'];

const schema = z
  .object({
    inputMode: z.enum(['api', 'file']).default('api'),
    endpoint: z.string().url().optional(),
    accessToken: z.string().optional(),
    bucket: z.string().optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.inputMode !== 'api') return;
    if (!c.endpoint) ctx.addIssue({ code: 'custom', path: ['endpoint'], message: 'is required in API mode' });
    if (!c.accessToken) ctx.addIssue({ code: 'custom', path: ['accessToken'], message: 'is required in API mode' });
  });

type ThirdConfig = z.infer<typeof schema>;

function host(name: string): IncomingRecord {
  return { key: `host:${name}`, externalId: name, fields: { hostname: name, ipAddresses: [] } };
}

function apiHosts(): Stream {
  return {
    name: 'hosts',
    models: ['hosts'],
    primaryKey: ['hostname'],
    async *read(): AsyncIterable<Page> {
      yield { records: { hosts: THIRD_API_HOSTS.map(host) }, checkpoint: { done: true } };
    },
  };
}

function fileHosts(): Stream {
  return {
    name: 'hosts',
    models: ['hosts'],
    primaryKey: ['hostname'],
    async *read(ctx: StreamContext): AsyncIterable<Page> {
      const bucket = ctx.bucket;
      if (!bucket) throw new Error('file mode without a bucket');
      for await (const obj of bucket.list()) {
        if (await bucket.isImported(obj)) continue;
        let text = '';
        for await (const chunk of await bucket.open(obj.key)) text += chunk.toString();
        const names = text
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean);
        yield { records: { hosts: names.map(host) }, checkpoint: { key: obj.key, etag: obj.etag } };
        await ctx.flush?.();
        await bucket.recordImport({
          key: obj.key,
          etag: obj.etag,
          size: obj.size,
          kind: 'host-list',
          rowsRead: names.length,
          rowsImported: names.length,
          rowsRejected: 0,
          rejections: [],
          status: 'imported',
          error: null,
        });
      }
    },
  };
}

export const thirdConnector = defineConnector<ThirdConfig>({
  type: THIRD_TYPE,
  title: 'Third Inventory (tests)',
  shortName: 'Third',
  upstream: (config) => config.endpoint ?? '',
  files: { defaultBucket: THIRD_BUCKET, kinds: ['txt'], reads: (config) => config.inputMode === 'file', uploadHint: 'Upload host lists, one name a line.' },
  sections: [{ title: 'Connection', keys: ['inputMode', 'endpoint', 'accessToken', 'bucket'] }],
  configSchema: schema as z.ZodType<ThirdConfig>,
  fields: {
    inputMode: {
      label: 'Input',
      input: 'select',
      options: [
        { value: 'api', label: 'API' },
        { value: 'file', label: 'Files' },
      ],
    },
    endpoint: { label: 'Endpoint', sendsSecrets: ['accessToken'], showWhen: { inputMode: ['api'] } },
    accessToken: { label: 'Access token', secret: true, input: 'password', showWhen: { inputMode: ['api'] } },
    bucket: { label: 'Bucket', showWhen: { inputMode: ['file'] } },
  },
  async check(config, ctx) {
    if (config.inputMode === 'file') return [{ id: 'bucket', ok: Boolean(ctx.bucket), message: `reads ${ctx.bucket?.address ?? 'no bucket'}`, hint: null }];
    const ok = config.accessToken === THIRD_TOKEN;
    return [{ id: 'token', ok, message: ok ? 'token accepted' : 'token rejected', hint: ok ? null : 'use the token the upstream issued' }];
  },
  streams: (config) => (config.inputMode === 'file' ? [fileHosts()] : [apiHosts()]),
});
