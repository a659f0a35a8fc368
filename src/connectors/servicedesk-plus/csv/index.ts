// ServiceDesk Plus file mode: one stream reading the CSV exports in the source's bucket (docs/csv-import.md).
import type { CheckResult, ConnectorContext, Stream } from '../../../core/connector.ts';
import { checkBucket, fileImportStream } from '../../../filedrop/csv/stream.ts';
import type { SdpConfig } from '../config.ts';
import { sdpFileKinds } from './kinds.ts';

export const SDP_FILE_STREAM = 'csv-exports';

export function sdpFileStreams(): Stream[] {
  return [
    fileImportStream({ name: SDP_FILE_STREAM, models: ['tickets', 'cmdb-assets', 'users', 'services'], kinds: sdpFileKinds(), what: 'ServiceDesk Plus' }),
  ];
}

export function checkSdpFiles(config: SdpConfig, ctx: ConnectorContext): Promise<CheckResult[]> {
  return checkBucket(ctx.bucket, sdpFileKinds(), 'ServiceDesk Plus', config.bucket);
}
