// Benchmark `bench/alert-add` (issue 31, speed): adding an alert rule to a filled store. Times the
// answer of `addAlert` (what the API and the CLI wait for before showing the secret) and the baseline
// beside it (every finding the rule's kinds already match, marked as reported), per kind set, then
// removes the rule. Runs on a store bench/query-latency kept:
//
//   node bench/query-latency.ts --findings 1000000 --store both --keep /tmp/qlat   # once (minutes)
//   node bench/alert-add.ts --data-dir /tmp/qlat/sqlite                            # SQLite
//   node bench/alert-add.ts --data-dir /tmp/qlat/postgres --db postgres://postgres@127.0.0.1:5432/tributary_qlat_1000000
//                            [--on sla,kev,act] [--runs 1]
import { parseArgs } from 'node:util';
import { addAlert, removeAlert } from '../src/alerts/index.ts';
import { openApp } from '../src/app/context.ts';
import { createLogger } from '../src/core/log.ts';

const { values: args } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    db: { type: 'string' },
    on: { type: 'string', default: 'sla;kev;act;kev,sla,act' },
    runs: { type: 'string', default: '1' },
  },
});
process.env.TRIBUTARY_MASTER_KEY ??= Buffer.alloc(32, 42).toString('base64');
const opened = performance.now();
const app = await openApp({ dataDir: args['data-dir'], db: args.db, log: createLogger({ level: 'warn' }) });
// (A store from before this branch is migrated here: its time is the open's.)
console.log(`opened (and migrated) in ${(performance.now() - opened).toFixed(0)} ms`);
try {
  const findings = await app.store.records.count('vulnerabilities');
  console.log(`${app.store.db.dialect}: ${findings} findings`);
  console.log('| kinds | answer ms | baseline ms | findings marked |\n|---|---:|---:|---:|');
  for (const on of args.on.split(';')) {
    for (let i = 0; i < Number(args.runs); i++) {
      const name = `bench-${on.replace(/,/g, '-')}-${i}`;
      const t0 = performance.now();
      const added = await addAlert(app, { name, url: 'https://hooks.example.com/bench', kinds: [on] });
      const answer = performance.now() - t0;
      await added.baseline;
      const baseline = performance.now() - t0;
      const rule = await app.store.alerts.get(name);
      const marked = Number((await app.store.db.all(`SELECT COUNT(*) AS "n" FROM "alert_marks" WHERE "rule_id" = ?`, [rule.id]))[0]!.n);
      console.log(`| ${on} | ${answer.toFixed(0)} | ${baseline.toFixed(0)} | ${marked} |`);
      await removeAlert(app, name);
    }
  }
} finally {
  await app.close();
}
