// Benchmark `bench/alert-eval` (issue 31, speed): an alert rule's later evaluations and its removal on a
// filled store. Adds a rule (kinds sla, kev, act) and waits for its baseline, then per run: `--changed`
// findings are updated (their severity raised, as a sync that changes some would), the clock moves
// `--hours` on, and the rule is evaluated as after a sync (what the background evaluation does). Beside
// it, in the same run and on the same data:
//   floor:  the simplest SQL answering the same question — the candidate findings read through the
//           same indexes (the queue of updated findings and the change feed since the rule's last
//           position, the first-seen and KEV due-date ranges whose due dates passed meanwhile), each
//           finding's row fetched once, with no condition, marks or writes (timed before and after the
//           evaluation; the mean is the floor);
//   before: the full scan every evaluation made before (each kind's condition over every finding, marks
//           anti-joined: marks.ts markFindings), which also checks the evaluation: it must find nothing
//           the incremental one left.
// Then the rule is removed (timed) against a floor (deleting a rule that has no marks), and the marks it
// leaves are deleted as the next evaluation does (timed, in batches). Runs on a store bench/query-latency kept:
//
//   node bench/query-latency.ts --findings 1000000 --store both --keep /tmp/qlat   # once (minutes)
//   node bench/alert-eval.ts --data-dir /tmp/qlat/sqlite
//   node bench/alert-eval.ts --data-dir /tmp/qlat/postgres --db postgres://postgres@127.0.0.1:5432/tributary_qlat_1000000
//                            [--runs 3] [--changed 5000] [--hours 24]
import { parseArgs } from 'node:util';
import { addAlert, removeAlert } from '../src/alerts/index.ts';
import { evaluateRules } from '../src/alerts/evaluate.ts';
import { openApp } from '../src/app/context.ts';
import { createLogger } from '../src/core/log.ts';
import { FINDING_ALERT_KINDS, type Store } from '../src/store/index.ts';

const { values: args } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    db: { type: 'string' },
    runs: { type: 'string', default: '3' },
    changed: { type: 'string', default: '5000' },
    hours: { type: 'string', default: '24' },
  },
});
process.env.TRIBUTARY_MASTER_KEY ??= Buffer.alloc(32, 42).toString('base64');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SLA_DAYS = [15, 30, 90, 180]; // the default policy's (TRIBUTARY_SLA_DAYS unset)
delete process.env.TRIBUTARY_SLA_DAYS;

const ms = async (fn: () => Promise<unknown>): Promise<number> => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};
const count = async (store: Store, sql: string, params: unknown[] = []) => Number((await store.db.all(sql, params))[0]?.n ?? 0);
const iso = (t: number) => new Date(t).toISOString();

/** The floor: the candidate findings since `prev` (a kind's kept position and time) read through the same indexes, once each. */
async function floor(store: Store, prev: { at: number; touched: number; changes: number }, now: number): Promise<{ ms: number; rows: number }> {
  let rows = 0;
  const t = await ms(async () => {
    const parts: [string, unknown[]][] = [
      [`SELECT COUNT(r."status") AS "n" FROM "alert_touched" t JOIN "rec_vulnerabilities" r ON r."id" = t."finding_id" WHERE t."seq" > ?`, [prev.touched]],
      [
        `SELECT COUNT(r."status") AS "n" FROM "changes" c JOIN "rec_vulnerabilities" r ON r."id" = c."record_id" WHERE c."model" = 'vulnerabilities' AND c."seq" > ?`,
        [prev.changes],
      ],
      ...SLA_DAYS.map((d): [string, unknown[]] => [
        `SELECT COUNT(r."status") AS "n" FROM "rec_vulnerabilities" r WHERE (r."first_seen" || '') >= ? AND (r."first_seen" || '') < ?`,
        [iso(prev.at - d * DAY), iso(now - d * DAY)],
      ]),
      [
        `SELECT COUNT(r."status") AS "n" FROM "rec_vulnerabilities" r WHERE r."kev_due_date" IS NOT NULL AND (r."kev_due_date" || '') >= ? AND (r."kev_due_date" || '') < ?`,
        [iso(prev.at), iso(now)],
      ],
    ];
    for (const [sql, params] of parts) rows += await count(store, sql, params);
  });
  return { ms: t, rows };
}

const opened = performance.now();
const app = await openApp({ dataDir: args['data-dir'], db: args.db, log: createLogger({ level: 'warn' }) });
console.log(`opened (and migrated) in ${(performance.now() - opened).toFixed(0)} ms`);
try {
  const store = app.store;
  const findings = await store.records.count('vulnerabilities');
  console.log(`${store.db.dialect}: ${findings} findings; ${args.changed} changed and ${args.hours} h between evaluations`);
  // A rule an earlier run left, and the marks of removed rules, out of the way first.
  for (const r of await store.alerts.list()) if (r.name.startsWith('bench-eval')) await removeAlert(app, r.name);
  await store.alerts.purgeRemovedMarks();
  const name = `bench-eval-${Date.now()}`;
  const t0 = performance.now();
  const added = await addAlert(app, { name, url: 'https://hooks.example.com/bench', kinds: ['sla,kev,act'] });
  await added.baseline;
  const rule = await store.alerts.get(name);
  const marked = () => count(store, `SELECT COUNT(*) AS "n" FROM "alert_marks" WHERE "rule_id" = ?`, [rule.id]);
  console.log(`baseline: ${((performance.now() - t0) / 1000).toFixed(1)} s, ${await marked()} marks`);
  const state = async () =>
    JSON.parse(String((await store.db.all(`SELECT "state" FROM "alert_state" WHERE "rule_id" = ? AND "kind" = 'cursor:sla'`, [rule.id]))[0]!.state));
  console.log(
    `| run | candidates read | floor ms | evaluation ms | ratio | items (${FINDING_ALERT_KINDS.join('/')}) | before: full scan ms | full scan found |\n|---|---:|---:|---:|---:|---:|---:|---:|`,
  );
  let now = Date.now();
  const ids = (await store.db.all(`SELECT "id" FROM "rec_vulnerabilities" WHERE "status" IN ('open', 'reopened') ORDER BY "id"`)).map((r) => String(r.id));
  for (let run = 1; run <= Number(args.runs); run++) {
    // A sync that changed some findings: a run of open findings from a point of its own, their severity raised.
    const start = Math.floor((ids.length * (run - 0.5)) / (Number(args.runs) + 1));
    const chosen = ids.slice(start, start + Number(args.changed));
    for (let i = 0; i < chosen.length; i += 1000)
      await store.db.run(
        `UPDATE "rec_vulnerabilities" SET "severity" = CASE "severity" WHEN 'info' THEN 'low' WHEN 'low' THEN 'medium' WHEN 'medium' THEN 'high' ELSE 'critical' END WHERE "id" IN (${chosen
          .slice(i, i + 1000)
          .map(() => '?')
          .join(', ')})`,
        chosen.slice(i, i + 1000),
      );
    now += Number(args.hours) * HOUR;
    const prev = await state();
    const f1 = await floor(store, prev, now);
    const before = await count(store, `SELECT COUNT(*) AS "n" FROM "alert_deliveries" WHERE "rule_id" = ?`, [rule.id]);
    const evaluation = await ms(() => evaluateRules(app, { cause: 'sync' }, { rules: [rule], now }));
    const logged = await store.db.all(`SELECT "kind", "total" FROM "alert_deliveries" WHERE "rule_id" = ? ORDER BY "created_at" DESC LIMIT 3`, [rule.id]);
    const fresh = (await count(store, `SELECT COUNT(*) AS "n" FROM "alert_deliveries" WHERE "rule_id" = ?`, [rule.id])) - before;
    const items = Object.fromEntries(FINDING_ALERT_KINDS.map((k) => [k, 0]));
    for (const l of logged.slice(0, fresh)) items[String(l.kind)] = Number(l.total);
    const f2 = await floor(store, prev, now);
    // Before: the full scan of each kind, on the same data just after: it finds what the evaluation left (nothing).
    let found = 0;
    const full = await ms(async () => {
      for (const kind of FINDING_ALERT_KINDS) found += (await store.alerts.markFindings(rule.id, kind, `bench-full-${run}`, now)) ?? 0;
    });
    await store.alerts.pruneTouched();
    const fl = (f1.ms + f2.ms) / 2;
    console.log(
      `| ${run} | ${f1.rows} | ${fl.toFixed(0)} | ${evaluation.toFixed(0)} | ${(evaluation / fl).toFixed(2)} | ${FINDING_ALERT_KINDS.map((k) => items[k]).join('/')} | ${full.toFixed(0)} | ${found} |`,
    );
  }
  // Removal: the rule and its marks, against deleting a rule that has none.
  const marks = await marked();
  const spare = await store.alerts.create({
    name: `${name}-spare`,
    kinds: ['sync'],
    format: 'json',
    url: 'https://hooks.example.com/x',
    secret: 'a-secret-of-16+chars',
    maxItems: 5,
    createdBy: null,
  });
  const floorRemove = await ms(() => store.alerts.remove(spare.name));
  const removal = await ms(() => removeAlert(app, name));
  const purge = await ms(() => store.alerts.purgeRemovedMarks());
  console.log(
    `removal: ${removal.toFixed(1)} ms with ${marks} marks (floor, a rule without marks: ${floorRemove.toFixed(1)} ms; ratio ${(removal / floorRemove).toFixed(2)}); its marks deleted after the next evaluation, in batches: ${(purge / 1000).toFixed(1)} s`,
  );
} finally {
  await app.close();
}
