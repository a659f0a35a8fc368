// The one mapRows: rows that throw or lack their identity are counted, listed for the run (id or number,
// field, reason) and logged by row number and reason, never with their values; the other rows are mapped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { FieldError, LOGGED_ROW_FAILURES, mapRows } from '../../src/core/map-rows.ts';

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
    { id: '5', name: 'no-name' },
  ];
  const out = mapRows(
    rows,
    (row, add) => {
      if (row.name === 'boom') throw new Error('cannot read the name');
      if (row.name === 'no-name') throw new FieldError('name', 'a user without a name');
      add('users', { key: `user:${row.id}`, fields: { name: row.name } });
    },
    { what: 'users', firstRow: 101, log, missing: (row) => (row.id ? null : { field: 'id', reason: 'a user without id' }), rowId: (row) => row.id ?? null },
  );
  assert.equal(out.errors, 3);
  assert.deepEqual(out.failures, [
    { row: 'row 102 of users', field: 'id', reason: 'a user without id' },
    { row: 'id 3', field: null, reason: 'cannot read the name' },
    { row: 'id 5', field: 'name', reason: 'a user without a name' },
  ]);
  assert.deepEqual(
    out.records.users?.map((r) => r.key),
    ['user:1', 'user:4'],
  );
  assert.equal(lines.length, 3);
  assert.deepEqual(
    lines.map((l) => [l.stream, l.row, l.id, l.reason]),
    [
      ['users', 102, undefined, 'a user without id'],
      ['users', 103, '3', 'cannot read the name'],
      ['users', 105, '5', 'a user without a name'],
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
  const quiet = mapRows(rows, fail);
  assert.deepEqual([quiet.records, quiet.errors, quiet.failures.length], [{}, 12, 12]);
});
