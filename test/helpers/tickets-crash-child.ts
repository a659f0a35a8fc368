// A worker that applies remediation tickets and is killed (SIGKILL) right after its first create call
// answered, before the answer is recorded: the crash the marker search must survive. Arguments: the
// store URL, the simulator URL and API key, the ticket source's id and name.
import { SdpTicketWriter } from '../../src/connectors/servicedesk-plus/ticket-writer.ts';
import { silentLogger } from '../../src/core/log.ts';
import { remediationTicketsSchema } from '../../src/core/tickets.ts';
import { applyTickets } from '../../src/tickets/index.ts';
import { memState, parseConfig } from '../connectors/servicedesk-plus/helpers.ts';
import { openTestStore } from './store.ts';

const [url, simUrl, apiKey, sourceId, sourceName] = process.argv.slice(2) as [string, string, string, string, string];
const store = await openTestStore({ url });
const writer = new SdpTicketWriter(parseConfig({ serverUrl: simUrl, apiKey }), { sourceName, log: silentLogger, state: memState() }, null);
await applyTickets(store, { id: sourceId, name: sourceName }, remediationTicketsSchema.parse({ enabled: true }), writer, {
  // A short claim, so the next run may take the key over once this worker is dead.
  claimMs: 1,
  afterCreate: (_a, requestId) => {
    process.stdout.write(`created ${requestId}\n`);
    process.kill(process.pid, 'SIGKILL');
  },
});
process.stdout.write('not killed\n');
