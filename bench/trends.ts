// Benchmark `bench/trends` (issue 17 §2, Trends): how long GET /api/v1/reports/trends's query takes on a
// store whose feed holds a first import of N findings (one `new` event each, the worst case for a
// window that covers it) and 30 days of fixes (5 %) and reopenings (1 %).
//
//   node bench/trends.ts [--findings 1000000] [--store sqlite|postgres|both] [--repeat 5] [--quick]
//
// The store is filled directly through its migrations and the driver's bulk insert (a sync would take far
// longer than what is measured); then trendsReport is asked for 30 and 365 days, `--repeat` times each,
// and the median and slowest times printed. --quick: 100,000 findings.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { SecretBox } from '../src/core/secrets.ts';
import { openStore, recordId, type Store } from '../src/store/index.ts';
import { withScratchDatabase } from './scratch-database.ts';

type StoreKind = 'sqlite' | 'postgres';
const { values } = parseArgs({
  options: {
    findings: { type: 'string' },
    store: { type: 'string', default: 'both' },
    quick: { type: 'boolean', default: false },
    repeat: { type: 'string', default: '5' },
    'pg-url': { type: 'string', default: process.env.TRIBUTARY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
  },
});
const findings = Number(values.findings ?? (values.quick ? 100_000 : 1_000_000));
const repeat = Math.max(1, Number(values.repeat));
const stores: StoreKind[] = values.store === 'both' ? ['sqlite', 'postgres'] : [values.store as StoreKind];
const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'];
const DAY = 86_400_000;
const NOW = Date.now();
const T0 = NOW - 40 * DAY;
const iso = (ms: number) => new Date(ms).toISOString();

async function fill(store: Store): Promise<void> {
  const db = store.db;
  const source = await store.sources.create('lab', 'tenable-sc', {}, null);
  const runs = Array.from({ length: 31 }, () => randomUUID());
  const batch = async (table: string, columns: string[], rows: unknown[][], key: string | null = '"id"') => {
    const head = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(',')})`;
    const tail = key ? ` ON CONFLICT (${key}) DO NOTHING` : '';
    for (let i = 0; i < rows.length; i += 5000) await db.transaction((tx) => tx.insertMany({ head, columns: columns.length, tail }, rows.slice(i, i + 5000)));
  };
  const common = ['id', 'source_id', 'natural_key', 'external_id', 'first_seen', 'last_seen', 'removed', 'seen_gen', 'seen_run'];
  for (let f = 0; f < findings; f += 50_000) {
    const recs: unknown[][] = [];
    const events: unknown[][] = [];
    for (let i = f; i < Math.min(findings, f + 50_000); i++) {
      const key = `uuid:host-${i % 20_000}|443|tcp|${10000 + i}`;
      const id = recordId('lab', 'vulnerabilities', key);
      // 5 % fixed on one of the 30 days after the import, 1 % of those reopened the day after.
      const fixedDay = i % 20 === 0 ? 1 + (i % 30) : null;
      const reopened = fixedDay !== null && i % 100 === 0 && fixedDay < 30;
      const status = reopened ? 'reopened' : fixedDay !== null ? 'fixed' : 'open';
      recs.push([id, source.id, key, null, iso(T0 - (i % 400) * DAY), iso(T0), 0, 'g', runs[0], String(i), SEVERITIES[i % 5], status]);
      events.push([iso(T0), id, 'new', source.id, 'vulnerabilities', null, null, 'open', runs[0]]);
      if (fixedDay !== null) events.push([iso(T0 + fixedDay * DAY), id, 'fixed', source.id, 'vulnerabilities', null, 'open', 'fixed', runs[fixedDay]]);
      if (reopened) events.push([iso(T0 + (fixedDay + 1) * DAY), id, 'reopened', source.id, 'vulnerabilities', null, 'fixed', 'reopened', runs[fixedDay + 1]]);
    }
    await batch('rec_vulnerabilities', [...common, 'plugin_id', 'severity', 'status'], recs);
    await batch('changes', ['at', 'record_id', 'change', 'source_id', 'model', 'external_id', 'from', 'to', 'run_id'], events, null);
  }
  if (db.dialect === 'postgres') await db.run('ANALYZE');
}

for (const kind of stores) {
  await withScratchDatabase(kind, values['pg-url']!, async (url) => {
    const store = await openStore(url, new SecretBox(Buffer.alloc(32, 7)), () => []);
    try {
      const t = performance.now();
      await fill(store);
      console.log(`${kind}: ${findings.toLocaleString('en-US')} findings and their events stored in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      for (const days of [30, 365]) {
        const times: number[] = [];
        let open = 0;
        for (let i = 0; i < repeat; i++) {
          const s = performance.now();
          const r = await store.reports.trends({ days, now: iso(NOW) });
          times.push(performance.now() - s);
          open = Object.values(r.days.at(-1)!.open).reduce((a: number, b) => a + Number(b), 0);
        }
        times.sort((a, b) => a - b);
        console.log(
          `${kind}: trends over ${days} days: median ${times[Math.floor(times.length / 2)]!.toFixed(0)} ms, slowest ${times.at(-1)!.toFixed(0)} ms (${open.toLocaleString('en-US')} open today)`,
        );
      }
    } finally {
      await store.close();
    }
  });
}
