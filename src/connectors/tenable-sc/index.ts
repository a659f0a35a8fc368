// The Tenable Security Center connector: configuration, credential check and streams (API mode, or
// file mode reading CSV exports from the source's bucket).
import { type ConnectorContext, defineConnector, type Stream } from '../../core/connector.ts';
import { checkTenableSc } from './check.ts';
import { DEFAULT_BUCKET, requireApi, type TenableScConfig, tenableScConfigSchema, tenableScFields } from './config.ts';
import { tenableScFileStreams } from './csv/index.ts';
import { SharedHosts } from './streams/common.ts';
import { hostsStream } from './streams/hosts.ts';
import { complianceStream, portsStream, softwareStream } from './streams/inventory.ts';
import { ScanWindows } from './streams/scan-window.ts';
import { vulnerabilitiesStream } from './streams/vulnerabilities.ts';

export type { TenableScConfig } from './config.ts';

export function tenableScStreams(config: TenableScConfig): Stream[] {
  if (config.inputMode === 'file') return tenableScFileStreams(config);
  if (config.inputMode !== 'api') return [];
  // One SharedHosts per run: the runner asks for a run's streams once.
  const deps = { config: requireApi(config), hosts: new SharedHosts(), scanWindows: new ScanWindows() };
  return [hostsStream(deps), softwareStream(deps), portsStream(deps), vulnerabilitiesStream(deps), complianceStream(deps)];
}

export const tenableScConnector = defineConnector<TenableScConfig>({
  type: 'tenable-sc',
  title: 'Tenable Security Center',
  shortName: 'Tenable.sc',
  // One console per address: its API (and its licence) is what the concurrency limit protects.
  upstream: (config) => String(config.apiUrl ?? ''),
  files: {
    defaultBucket: DEFAULT_BUCKET,
    kinds: ['csv'],
    reads: (config) => config.inputMode === 'file',
    uploadHint: 'Upload the CSV exports of the console\u2019s Vulnerabilities (Vulnerability Detail List) and Host Assets pages.',
  },
  models: ['hosts', 'software', 'ports', 'vulnerabilities', 'compliance', 'plugins'],
  sections: [{ keys: ['inputMode', 'apiUrl', 'accessKey', 'secretKey', 'verifySsl', 'includeInformational', 'bucket'] }],
  product: { vendor: 'Tenable', name: 'Tenable Security Center', namespace: 'tenable' },
  // A ticket saying "Nessus 19506" or "Tenable ID 156032" names a finding's plugin.
  references: { pluginIdWords: ['nessus', 'tenable'] },
  configSchema: tenableScConfigSchema,
  fields: tenableScFields,
  check: (config: TenableScConfig, ctx: ConnectorContext) => checkTenableSc(config, ctx),
  streams: (config: TenableScConfig) => tenableScStreams(config),
});

export default tenableScConnector;
