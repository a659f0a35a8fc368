// A worker that applies remediation tickets and kills itself (SIGKILL) at one step of one kind of write
// (tickets/apply.ts APPLY_STEPS): the crash the intent, the marker search and the write in flight must
// survive. Arguments: the store URL, the simulator URL and API key, the ticket source's id and name, the
// step, and the settings (JSON). Prints `at <step> <key> <request id>` just before the kill.
import { SdpTicketWriter } from '../../src/connectors/servicedesk-plus/ticket-writer.ts';
import { silentLogger } from '../../src/core/log.ts';
import { remediationTicketsSchema } from '../../src/core/tickets.ts';
import { applyTickets } from '../../src/tickets/index.ts';
import { memState, parseConfig } from '../connectors/servicedesk-plus/helpers.ts';
import { openTestStore } from './store.ts';

const [url, simUrl, apiKey, sourceId, sourceName, killAt = 'create:after-call', settings = '{"enabled":true}'] = process.argv.slice(2) as string[];
const store = await openTestStore({ url: url! });
const writer = new SdpTicketWriter(parseConfig({ serverUrl: simUrl, apiKey }), { sourceName: sourceName!, log: silentLogger, state: memState() }, null);
await applyTickets(store, { id: sourceId!, name: sourceName! }, remediationTicketsSchema.parse(JSON.parse(settings)), writer, {
  // A short claim, so the next run may take the key over once this worker is dead.
  claimMs: 1,
  step: (step, a, requestId) => {
    if (step !== killAt) return;
    process.stdout.write(`at ${step} ${a.key} ${requestId ?? '-'}\n`);
    process.kill(process.pid, 'SIGKILL');
  },
});
process.stdout.write('not killed\n');
