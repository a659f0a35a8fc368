// ServiceDesk Plus simulator: one node:http server playing both Zoho Accounts (/oauth/v2/…) and the
// SDP API v3 for cloud (/app/<portal>/api/v3/…, Zoho-oauthtoken) and on-premises (/api/v3/…, authtoken),
// plus a control API (/_sim/…) to mint codes, change records between syncs and switch faults.
// Layout: server.ts (HTTP server, routing, faults), cli.ts (the command line), types.ts (public types),
// api.ts (the v3 modules), product-types.ts (the per-product-type asset API of build 15100+),
// oauth.ts (Zoho Accounts), data.ts (the generated records) and writes.ts (requests added, edited and
// noted through the API).

export { parseSdpSimArgs, runSdpSimCli } from './cli.ts';
export { DEFAULT_SCOPES } from './oauth.ts';
export { ASSET_API_MODES, type AssetApiMode } from './product-types.ts';
export { startSdpSim } from './server.ts';
export type { FaultRule, RunningSdpSim, SdpFaults, SdpSimOptions, SimStats } from './types.ts';
