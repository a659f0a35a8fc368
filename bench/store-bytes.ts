// Benchmark `bench/store-bytes` (issue 30 target 4, store size): where a filled store's bytes go, per
// table and index, in bytes per stored finding, so that the size per finding is read with its parts.
//
//   node bench/store-bytes.ts --sqlite FILE            (a SQLite store, e.g. DIR/sqlite/tributary.db of
//                                                      `bench/query-latency --keep DIR` or `bench/tenable-sc-api --keep DIR`)
//   node bench/store-bytes.ts --pg-url postgres://…/DB  (a PostgreSQL store, e.g. database tributary_qlat_<findings>)
//                            [--top 30]
//
// SQLite: the dbstat virtual table's pages per table and index (the file without its WAL). PostgreSQL:
// pg_relation_size of each table, index and TOAST relation (the TOAST counted with its table). Read only.
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import pg from 'pg';

const { values: args } = parseArgs({ options: { sqlite: { type: 'string' }, 'pg-url': { type: 'string' }, top: { type: 'string', default: '30' } } });
if (!args.sqlite === !args['pg-url']) {
  console.error('usage: node bench/store-bytes.ts --sqlite FILE | --pg-url URL [--top 30]');
  process.exit(2);
}

async function sizes(): Promise<{ findings: number; parts: { name: string; kind: string; bytes: number }[] }> {
  if (args.sqlite) {
    const db = new DatabaseSync(args.sqlite, { readOnly: true });
    try {
      const findings = Number((db.prepare('SELECT count(*) AS n FROM rec_vulnerabilities').get() as { n: number }).n);
      const rows = db
        .prepare(
          `SELECT d.name AS name, coalesce(m.type, 'table') AS kind, sum(d.pgsize) AS bytes FROM dbstat d
           LEFT JOIN sqlite_schema m ON m.name = d.name GROUP BY d.name ORDER BY bytes DESC`,
        )
        .all() as { name: string; kind: string; bytes: number }[];
      return { findings, parts: rows.map((r) => ({ name: r.name, kind: r.name.startsWith('sqlite_autoindex') ? 'index' : r.kind, bytes: Number(r.bytes) })) };
    } finally {
      db.close();
    }
  }
  const c = new pg.Client({ connectionString: args['pg-url'] });
  await c.connect();
  try {
    const findings = Number((await c.query('SELECT count(*) AS n FROM rec_vulnerabilities')).rows[0].n);
    const r = await c.query(
      `SELECT c.relname AS name, CASE c.relkind WHEN 'i' THEN 'index' ELSE 'table' END AS kind,
         pg_relation_size(c.oid) + CASE WHEN c.reltoastrelid <> 0 THEN pg_total_relation_size(c.reltoastrelid) ELSE 0 END AS bytes
       FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace
       WHERE c.relkind IN ('r', 'i', 'm') AND ns.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') ORDER BY bytes DESC`,
    );
    return { findings, parts: r.rows.map((x) => ({ name: String(x.name), kind: String(x.kind), bytes: Number(x.bytes) })) };
  } finally {
    await c.end();
  }
}

const { findings, parts } = await sizes();
const total = parts.reduce((n, p) => n + p.bytes, 0);
const per = (b: number) => (findings > 0 ? (b / findings).toFixed(0) : '-');
const byKind = (k: string) => parts.filter((p) => p.kind === k).reduce((n, p) => n + p.bytes, 0);
console.log(`${findings.toLocaleString('en-US')} findings; ${(total / 1e6).toFixed(1)} MB = ${per(total)} bytes per finding`);
console.log(`tables ${per(byKind('table'))} B/finding, indexes ${per(byKind('index'))} B/finding\n`);
console.log('| relation | kind | MB | bytes per finding |\n|---|---|---:|---:|');
for (const p of parts.slice(0, Number(args.top))) console.log(`| ${p.name} | ${p.kind} | ${(p.bytes / 1e6).toFixed(1)} | ${per(p.bytes)} |`);
const rest = parts.slice(Number(args.top)).reduce((n, p) => n + p.bytes, 0);
if (rest > 0) console.log(`| (${parts.length - Number(args.top)} more) | | ${(rest / 1e6).toFixed(1)} | ${per(rest)} |`);
