// Child process for the crash test: runs a sync of the fixture source and SIGKILLs itself just before
// reading findings page `crashAt`, leaving the run 'running' with the checkpoints of the pages stored.
import { runSync } from '../../src/sync/runner.ts';
import { newControl, openFixtureApp } from './fixture-connector.ts';

const [dbUrl, dataDir, sourceName, controlJson, crashAt] = process.argv.slice(2);
const control = newControl(JSON.parse(controlJson));
control.beforeFindingsPage = (page) => {
  if (page === Number(crashAt)) process.kill(process.pid, 'SIGKILL');
};
const app = await openFixtureApp({ dataDir, url: dbUrl }, control);
await runSync(app, sourceName, { full: true });
process.stderr.write('crash-sync: the sync finished without crashing\n');
process.exit(3);
