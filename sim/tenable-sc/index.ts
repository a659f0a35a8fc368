// Tenable.sc console simulator: public entry points used by the CLI and the tests.
export { runTenableSimCli } from './cli.ts';
export type { FaultRule, FaultSettings, RunningTenableSim, SimCredentials, TenableSimOptions } from './options.ts';
export { startTenableSim } from './start.ts';
export { CORPUS_PATCH_SET, type CommonPatchSet } from './patch-sets.ts';
