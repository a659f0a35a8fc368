// The ManageEngine ServiceDesk Plus connector (API mode, or file mode reading CSV exports from the bucket): cloud through Zoho OAuth (authorization code
// exchanged on save, refresh token in encrypted source state) or on-premises with a technician API key.
import { type ConnectorContext, defineConnector, type Stream } from '../../core/connector.ts';
import { errorMessage, InputError } from '../../core/errors.ts';
import { checkSdp } from './check.ts';
import { sdpFileStreams } from './csv/index.ts';
import { DEFAULT_BUCKET, deploymentOf, RECOMMENDED_SCOPES, type SdpConfig, sdpConfigSchema, sdpFields, ticketSettingsOf, tokenOwner } from './config.ts';
import { SdpTicketWriter } from './ticket-writer.ts';
import { exchangeAuthorizationCode, revokeToken, TokenManager, type TokenState } from './oauth.ts';
import { sdpStreams } from './streams/index.ts';

export type { SdpConfig } from './config.ts';

function isCloudApi(config: SdpConfig): boolean {
  return config.inputMode === 'api' && deploymentOf(config) === 'cloud';
}

function tokensFor(config: SdpConfig, ctx: ConnectorContext): TokenManager | null {
  return isCloudApi(config) ? new TokenManager(config, ctx.state, ctx.log) : null;
}

/** Streams of a source; one token manager is shared by all of them (one in-flight refresh). */
export function servicedeskPlusStreams(config: SdpConfig, ctx: ConnectorContext): Stream[] {
  if (config.inputMode === 'file') return sdpFileStreams();
  if (config.inputMode !== 'api') return [];
  return sdpStreams({ config, tokens: tokensFor(config, ctx) });
}

/** Exchanges a new authorization code at once; the stored configuration never holds the code. */
export async function saveSdpConfig(config: SdpConfig, previous: SdpConfig | null, ctx: ConnectorContext): Promise<SdpConfig> {
  const { authorizationCode, ...rest } = config;
  if (!isCloudApi(config)) return rest;
  const before = (await ctx.state.get()) as TokenState;
  if (authorizationCode) {
    // A connection test exchanged this code already (it works once): keep the tokens it obtained.
    const tested = ctx.tested as TokenState | undefined;
    const adopt = !!tested?.refreshToken && tested.tokenOwner === tokenOwner(config);
    if (adopt) await ctx.state.set(tested as Record<string, unknown>);
    const after = adopt ? (tested as TokenState) : await exchangeAuthorizationCode(config, authorizationCode, ctx.state, ctx.log);
    // A test works on a scratch copy of the state: the stored token stays in use until the save.
    if (!ctx.trial && before.refreshToken && before.refreshToken !== after.refreshToken) {
      // The old refresh token is replaced; revoke it so it does not count against Zoho's 20 per user.
      try {
        await revokeToken(previous && isCloudApi(previous) ? previous : config, before.refreshToken, ctx.log);
      } catch (err) {
        ctx.log.warn({ err: errorMessage(err) }, 'could not revoke the replaced refresh token');
      }
    }
    return rest;
  }
  if (!before.refreshToken) {
    throw new InputError(
      `authorizationCode is required for ServiceDesk Plus Cloud: in the Zoho API console choose Self Client > Generate Code with the scopes ${RECOMMENDED_SCOPES.join(',')}, then save at once (the code is valid for a few minutes)`,
      'authorizationCode',
    );
  }
  if (before.tokenOwner && before.tokenOwner !== tokenOwner(config)) {
    throw new InputError(
      'the Client ID, region or accounts server changed, so the stored refresh token no longer applies: enter a new authorization code generated for this client',
      'authorizationCode',
    );
  }
  return rest;
}

export const servicedeskPlusConnector = defineConnector<SdpConfig>({
  type: 'servicedesk-plus',
  title: 'ManageEngine ServiceDesk Plus',
  shortName: 'ServiceDesk Plus',
  // On-premises the server; on cloud the accounts server or the region that picks it.
  upstream: (config) => String(config.serverUrl ?? config.accountsUrl ?? config.region ?? ''),
  files: {
    defaultBucket: DEFAULT_BUCKET,
    kinds: ['csv'],
    reads: (config) => config.inputMode === 'file',
    uploadHint: 'Upload the CSV exports (e.g. export.csv).',
  },
  models: ['tickets', 'cmdb-assets', 'users', 'services'],
  sections: [
    { keys: ['inputMode', 'region', 'authorizationCode', 'clientId', 'clientSecret', 'revokeTokenOnDeletion', 'portal', 'bucket'] },
    {
      title: 'On-premises server',
      help: 'For ServiceDesk Plus on your own server: enter its address and a technician API key, and leave Client ID, Client Secret and Authorization Code blank.',
      keys: ['serverUrl', 'apiKey', 'verifySsl'],
    },
    {
      title: 'Remediation tickets',
      help: 'Off unless enabled: requests for the fixes of open findings, created once, noted as findings change and resolved when the scanner confirms every fix.',
      keys: ['remediationTickets', 'ticketDecisions', 'ticketGroupBy', 'ticketMaxPerRun', 'ticketKeyField'],
    },
  ],
  product: { vendor: 'ManageEngine', name: 'ServiceDesk Plus', namespace: 'servicedesk_plus' },
  configSchema: sdpConfigSchema,
  fields: sdpFields,
  check: (config, ctx) => checkSdp(config, ctx, tokensFor(config, ctx)),
  streams: (config, ctx) => servicedeskPlusStreams(config, ctx),
  onSave: saveSdpConfig,
  tickets: {
    settings: ticketSettingsOf,
    writer: (config, ctx) => new SdpTicketWriter(config, ctx, tokensFor(config, ctx)),
  },
  async onRemove(config, ctx) {
    if (!isCloudApi(config) || !config.revokeTokenOnDeletion) return;
    const st = (await ctx.state.get()) as TokenState;
    if (!st.refreshToken) return;
    await revokeToken(config, st.refreshToken, ctx.log);
    await ctx.state.set({ refreshToken: null, accessToken: null, accessTokenExpiresAt: null });
  },
});

export default servicedeskPlusConnector;
