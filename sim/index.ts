// The simulators `tributary sim <system>` can start, by source type: adding a simulator is its folder
// and one line here (loaded on demand, so the CLI does not load them otherwise).
export const SIMULATORS: Record<string, () => Promise<(argv: string[]) => Promise<void>>> = {
  'tenable-sc': async () => (await import('./tenable-sc/index.ts')).runTenableSimCli,
  'servicedesk-plus': async () => (await import('./servicedesk-plus/index.ts')).runSdpSimCli,
};
