// A real S3-compatible server for the tests: @20minutes/s3rver (a maintained s3rver fork) on
// 127.0.0.1 with an OS-assigned port, storing in a temp dir, with its built-in account
// (S3RVER / S3RVER). It checks SigV4 signatures and expiry, but canonicalizes bucket-level paths
// without the trailing slash the AWS SDK v3 signs (`/bucket/?list-type=2`), so bucket-level calls
// fail its check. `strict: true` servers (buckets pre-created) verify every signature and are used
// for presigned URLs and wrong credentials; the default server accepts a mismatched signature from a
// known access key, so listing and bucket creation can be exercised.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from '@20minutes/s3rver';

export const S3_ACCESS_KEY = 'S3RVER';
export const S3_SECRET_KEY = 'S3RVER';

export interface TestS3 {
  endpoint: string;
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

export async function startS3(opts: { strict?: boolean; buckets?: string[] } = {}): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'tributary-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    vhostBuckets: false,
    allowMismatchedSignatures: !opts.strict,
    configureBuckets: (opts.buckets ?? []).map((name) => ({ name, configs: [] })),
  });
  const addr = (await server.run()) as AddressInfo;
  const endpoint = `http://127.0.0.1:${addr.port}`;
  return {
    endpoint,
    env: {
      TRIBUTARY_FILE_DROP: 's3:',
      TRIBUTARY_S3_ENDPOINT: endpoint,
      TRIBUTARY_S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: S3_ACCESS_KEY,
      AWS_SECRET_ACCESS_KEY: S3_SECRET_KEY,
      AWS_REGION: 'us-east-1',
    },
    stop: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
