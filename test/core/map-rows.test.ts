// The one mapRows: rows that throw or lack their identity are counted and logged by row number and reason,
// never with their values; the other rows of the page are mapped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { LOGGED_ROW_FAILURES, mapRows } from '../../src/core/map-rows.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'warn' }, { write: (s: string) => lines.push(JSON.parse(s)) });
  return { log, lines };
}

type Row = { id?: string; name?: string; secret?: string };

test('a row that throws or lacks its identity is skipped and logged with its row number and reason, not its values', () => {
  const { log, lines } = capture();
  const rows: Row[] = [
    { id: '1', name: 'a' },
    { name: 'no id', secret: 'hunter2-value' },
    { id: '3', name: 'boom', secret: 'hunter2-value' },
    { id: '4', name: 'd' },
  ];
  const out = mapRows(
    rows,
    (row, add) => {
      if (row.name === 'boom') throw new Error('cannot read the name');
      add('users', { key: `user:${row.id}`, fields: { name: row.name } });
    },
    { what: 'users', firstRow: 101, log, missing: (row) => (row.id ? null : 'a user without id'), rowId: (row) => row.id ?? null },
  );
  assert.equal(out.errors, 2);
  assert.deepEqual(
    out.records.users?.map((r) => r.key),
    ['user:1', 'user:4'],
  );
  assert.equal(lines.length, 2);
  assert.deepEqual(
    lines.map((l) => [l.stream, l.row, l.id, l.reason]),
    [
      ['users', 102, undefined, 'a user without id'],
      ['users', 103, '3', 'cannot read the name'],
    ],
  );
  assert.doesNotMatch(JSON.stringify(lines), /hunter2/);
});

test('past the first failures of a page, one summary line; without a logger, failures are only counted', () => {
  const { log, lines } = capture();
  const rows = Array.from({ length: 12 }, (_, i) => ({ id: String(i) }));
  const fail = () => {
    throw new Error('bad row');
  };
  assert.equal(mapRows(rows, fail, { what: 'tickets', log }).errors, 12);
  assert.equal(lines.length, LOGGED_ROW_FAILURES + 1);
  assert.match(String(lines.at(-1)!.msg), new RegExp(`^${12 - LOGGED_ROW_FAILURES} more rows`));
  assert.deepEqual(mapRows(rows, fail), { records: {}, errors: 12 });
});
