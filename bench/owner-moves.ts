// Benchmark `bench/owner-moves` (issue 31 §2): what a correlation pass adds when it moves hosts to
// another owner: the owners per plugin (sum_plugin_owners) follow the moved hosts' open plugins
// (store/reports/plugin-owners.ts), in the pass's transaction. Times that step for 1, 50, 500, 2,000 and 5,000
// moved hosts (the hosts with the most open findings first: the dearest), and one more past movesMax
// (a quarter of the hosts: the recount of every open finding instead), each in a transaction rolled
// back, so the kept store is left as it was; in it every host without an owner gets one first (16
// owners), and the hosts move to another. Runs on a store
// bench/query-latency kept:
//
//   node bench/owner-moves.ts --data-dir /tmp/qlat-31/sqlite
//   node bench/owner-moves.ts --data-dir /tmp/owner-moves-pg --db postgres://postgres@127.0.0.1:5432/tributary_qlat_1000000
//                             [--moves 1,50,500,2000,5000] [--runs 3]
import { parseArgs } from 'node:util';
import { openApp } from '../src/app/context.ts';
import { createLogger } from '../src/core/log.ts';
import { applyOwnerMoves, movesMax, recountPluginOwners } from '../src/store/index.ts';

const { values: args } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    db: { type: 'string' },
    moves: { type: 'string', default: '1,50,500,2000,5000' },
    runs: { type: 'string', default: '3' },
  },
});
process.env.TRIBUTARY_MASTER_KEY ??= Buffer.alloc(32, 42).toString('base64');
const opened = performance.now();
const app = await openApp({ dataDir: args['data-dir'], db: args.db, log: createLogger({ level: 'warn' }) });
// (A store from before migration 43 is migrated here: its time is the open's.)
console.log(`opened (and migrated) in ${(performance.now() - opened).toFixed(0)} ms`);
class Rollback extends Error {}
try {
  const db = app.store.db;
  const findings = await app.store.records.count('vulnerabilities');
  const max = movesMax(Number((await db.all(`SELECT COUNT(*) AS "n" FROM sum_hosts`))[0]!.n));
  const hosts = (await db.all(`SELECT "host_id", "owner", "total" FROM "sum_hosts" ORDER BY "total" DESC, "host_id" LIMIT ${max + 1}`)).map((r) => ({
    hostId: String(r.host_id),
    from: (r.owner ?? null) as string | null,
    total: Number(r.total),
  }));
  console.log(`${db.dialect}: ${findings} findings, ${hosts.length} hosts taken`);
  console.log('| moved hosts | their open findings | ms (each run) | rows of sum_plugin_owners after |\n|---:|---:|---|---:|');
  const sizes = [...args.moves.split(',').map(Number), max + 1];
  for (const k of sizes) {
    const moved = hosts.slice(0, k).map((h) => ({ hostId: h.hostId, from: h.from ?? `bench owner ${h.hostId.slice(0, 1)}`, to: 'bench owner moved' }));
    const times: number[] = [];
    let rows = 0;
    for (let i = 0; i < Number(args.runs); i++) {
      try {
        await db.transaction(async (tx) => {
          // Every host gets an owner first (kept stores have no CMDB), so the recount joins them all as an estate would.
          await tx.run(`UPDATE "rec_hosts" SET "owner" = 'bench owner ' || SUBSTR("id", 1, 1) WHERE "owner" IS NULL`);
          await recountPluginOwners(tx);
          const t0 = performance.now();
          await applyOwnerMoves(tx, moved);
          times.push(performance.now() - t0);
          rows = Number((await tx.all(`SELECT COUNT(*) AS "n" FROM sum_plugin_owners`))[0]!.n);
          throw new Rollback();
        });
      } catch (e) {
        if (!(e instanceof Rollback)) throw e;
      }
    }
    const label = k > max ? `${k} (past movesMax: the recount)` : String(k);
    console.log(`| ${label} | ${hosts.slice(0, k).reduce((n, h) => n + h.total, 0)} | ${times.map((t) => t.toFixed(0)).join(', ')} | ${rows} |`);
  }
} finally {
  await app.close();
}
