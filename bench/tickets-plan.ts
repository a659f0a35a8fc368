// Benchmark `bench/tickets-plan` (issue 32, Speed): how long a remediation-ticket plan takes over a store
// of N open findings (target: under 10 s at 1,000,000), and that a plan of a store whose tickets are
// all written has no action (a run that changes nothing sends no write).
//
//   node bench/tickets-plan.ts [--findings 1000000] [--store sqlite|postgres|both] [--pg-url …]
//
// The store is filled through the store's own page writes (one source, one host per 20 findings, 400
// plugins, five departments on the hosts); the plan is read through src/tickets (what `tickets plan` runs).
// Then every planned create is recorded as written (no service desk involved) and the plan asked again.
import { parseArgs } from 'node:util';
import type { IncomingRecord } from '../src/core/models.ts';
import { SecretBox } from '../src/core/secrets.ts';
import { remediationTicketsSchema } from '../src/core/tickets.ts';
import { openStore } from '../src/store/index.ts';
import { ticketPlan } from '../src/tickets/index.ts';
import { withScratchDatabase } from './scratch-database.ts';

const { values } = parseArgs({
  options: {
    findings: { type: 'string', default: '1000000' },
    store: { type: 'string', default: 'sqlite' },
    'pg-url': { type: 'string', default: process.env.TRIBUTARY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
  },
});
const total = Number(values.findings);
const kinds = values.store === 'both' ? (['sqlite', 'postgres'] as const) : ([values.store] as ('sqlite' | 'postgres')[]);
const SEV = ['critical', 'high', 'high', 'medium', 'low'];
const DEPTS = ['Finance', 'HR', 'Engineering', 'Sales', 'IT'];

for (const kind of kinds) {
  await withScratchDatabase(kind, values['pg-url']!, async (url) => {
    const store = await openStore(url, new SecretBox(Buffer.alloc(32, 1)), () => []);
    try {
      const lab = await store.sources.create('lab', 'fixture', {}, null);
      const desk = await store.sources.create('desk', 'fixture', {}, null);
      const t0 = Date.now();
      const perPage = 20_000;
      for (let start = 0, page = 0; start < total; start += perPage, page++) {
        const hosts: IncomingRecord[] = [];
        const vulns: IncomingRecord[] = [];
        for (let i = start; i < Math.min(total, start + perPage); i++) {
          const h = Math.floor(i / 20);
          if (i % 20 === 0) hosts.push({ key: `h${h}`, externalId: `h${h}`, fields: { hostname: `host${h}`, department: DEPTS[h % DEPTS.length] } });
          const plugin = (i * 7919) % 400;
          vulns.push({
            key: `h${h}|${plugin}|${i}`,
            hostKey: `h${h}`,
            fields: { pluginId: String(plugin), pluginName: `Fix ${plugin}`, severity: SEV[plugin % 5], status: 'open' },
          });
        }
        const stamp = { sourceId: lab.id, sourceName: 'lab', runId: 'r', generation: 'g', now: new Date().toISOString() };
        await store.records.writePage(stamp, 's', 'full', { hosts, vulnerabilities: vulns }, { value: page, complete: false });
      }
      const fillS = (Date.now() - t0) / 1000;
      const settings = remediationTicketsSchema.parse({ enabled: true, maxCreatesPerRun: 10_000 });
      const p0 = performance.now();
      const plan = await ticketPlan(store, desk, settings);
      const planMs = performance.now() - p0;
      // Every create recorded as written: the next plan must have nothing to do.
      for (const a of plan.actions) {
        await store.tickets.recordIntent({ sourceId: desk.id, key: a.key, marker: a.marker, title: a.title, findingIds: [] });
        await store.tickets.update(desk.id, a.key, { requestId: a.marker, state: 'open', findingIds: a.findingIds });
      }
      const q0 = performance.now();
      const again = await ticketPlan(store, desk, settings);
      const againMs = performance.now() - q0;
      process.stdout.write(
        `${kind}: ${total} findings (filled in ${fillS.toFixed(1)} s): plan ${(planMs / 1000).toFixed(2)} s, ${plan.findings} ticketed in ${plan.groups} groups (${plan.counts.create} creates); ` +
          `plan with every request written ${(againMs / 1000).toFixed(2)} s, ${again.actions.length} actions\n`,
      );
    } finally {
      await store.close();
    }
  });
}
