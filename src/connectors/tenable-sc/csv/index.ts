// Tenable.sc file mode: one stream reading the CSV exports in the source's bucket (docs/csv-import.md).
import type { CheckResult, ConnectorContext, Stream } from '../../../core/connector.ts';
import { checkBucket, fileImportStream } from '../../../filedrop/csv/stream.ts';
import type { TenableScConfig } from '../config.ts';
import { HostResolver } from '../map/host-resolver.ts';
import { HOST_RESOLVER, tenableScFileKinds } from './kinds.ts';

export const TENABLE_SC_FILE_STREAM = 'csv-exports';

export function tenableScFileStreams(config: TenableScConfig): Stream[] {
  return [
    fileImportStream({
      name: TENABLE_SC_FILE_STREAM,
      models: ['hosts', 'software', 'ports', 'vulnerabilities', 'compliance', 'plugins'],
      kinds: tenableScFileKinds(config),
      what: 'Tenable.sc',
      prepare: async (ctx, shared) => {
        shared.set(HOST_RESOLVER, await HostResolver.load(ctx.knownHosts));
      },
    }),
  ];
}

export function checkTenableScFiles(config: TenableScConfig, ctx: ConnectorContext): Promise<CheckResult[]> {
  return checkBucket(ctx.bucket, tenableScFileKinds({ includeInformational: config.includeInformational }), 'Tenable.sc', config.bucket);
}
