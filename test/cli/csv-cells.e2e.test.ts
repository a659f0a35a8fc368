// Issue 27: upstream text a spreadsheet would run as a formula reaches every CSV the CLI writes
// (`query`, `export`, `changes`) with a `'` before it; plain numbers stay numbers; --no-csv-escape
// writes the cells raw and goes with --format csv only.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openApp } from '../../src/app/context.ts';
import { createLogger } from '../../src/core/log.ts';
import { csvRows, expectedNames, HOSTILE_TICKET, hostileCells, seedHostile } from '../export/hostile-cells.ts';
import { cliEnv, runCli } from '../helpers/cli.ts';
import { createSqlite, type TestDatabase } from '../helpers/databases.ts';

let db: TestDatabase;
const env = cliEnv();

before(async () => {
  db = await createSqlite();
  const app = await openApp({ dataDir: db.dataDir, env, log: createLogger({ level: 'silent' }) });
  await seedHostile(app);
  await app.close();
});
after(() => db?.drop());

const ok = (...args: string[]) => {
  const r = runCli(['--data-dir', db.dataDir, ...args], env);
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};

test('query --format csv: formula-like text prefixed, numbers untouched; --no-csv-escape raw', async () => {
  for (const raw of [false, true]) {
    const out = ok('query', 'vulnerabilities', '--source', 'hostile', '--format', 'csv', ...(raw ? ['--no-csv-escape'] : []));
    const { names, ports } = await hostileCells(out);
    assert.deepEqual(names, expectedNames(raw), raw ? 'raw' : 'neutralised');
    assert.deepEqual(new Set(ports), new Set(['-1']), 'a negative number is a number');
  }
});

test('export --format csv to stdout and to a file: the same rule; --no-csv-escape raw; the file mode 0600', async () => {
  const { names, ports } = await hostileCells(ok('export', 'vulnerabilities', '--source', 'hostile', '--format', 'csv'));
  assert.deepEqual(names, expectedNames(false));
  assert.deepEqual(new Set(ports), new Set(['-1']));
  const file = join(db.dataDir, 'raw.csv');
  ok('export', 'vulnerabilities', '--source', 'hostile', '--format', 'csv', '--no-csv-escape', '--out', file);
  assert.deepEqual((await hostileCells(readFileSync(file, 'utf8'))).names, expectedNames(true));
  assert.equal(statSync(file).mode & 0o777, 0o600, 'an export file is mode 0600, like the database');
});

test('changes and query changes --format csv: a ticket status from upstream is prefixed too', async () => {
  const [header, ...rows] = await csvRows(ok('changes', '--source', 'hostile-desk', '--format', 'csv'));
  const to = header!.indexOf('to');
  assert.deepEqual(
    rows.map((r) => r[to]),
    [`'${HOSTILE_TICKET.status}`],
  );
  const [, ...raw] = await csvRows(ok('query', 'changes', '--source', 'hostile-desk', '--format', 'csv', '--no-csv-escape'));
  assert.deepEqual(
    raw.map((r) => r[to]),
    [HOSTILE_TICKET.status],
  );
  const [ticketHeader, ...tickets] = await csvRows(ok('query', 'tickets', '--format', 'csv'));
  assert.equal(tickets[0]![ticketHeader!.indexOf('subject')], `'${HOSTILE_TICKET.subject}`);
});

test('--no-csv-escape goes with --format csv only (exit 2)', () => {
  for (const args of [
    ['query', 'hosts', '--no-csv-escape'],
    ['changes', '--format', 'jsonl', '--no-csv-escape'],
    ['export', 'hosts', '--format', 'jsonl', '--no-csv-escape'],
  ]) {
    const r = runCli(['--data-dir', db.dataDir, ...args], env);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /--no-csv-escape goes with --format csv/);
  }
});
