// Terminal output: control bytes from upstream data (escape sequences, bidi overrides) are shown
// escaped in tables and human lines, never sent to the terminal.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { renderTable, terminalSafe } from '../../src/cli/output.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/databases.ts';
import { SC_HEADER, scRow } from '../connectors/tenable-sc/csv-fixtures.ts';
import { csvText } from '../filedrop/memory-bucket.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/;

test('terminalSafe escapes C0/C1 controls, DEL and bidi overrides, and keeps other text', () => {
  assert.equal(terminalSafe('a\x1b[2Jb\x07c\x9bd\u202ee\x7ff'), 'a\\x1b[2Jb\\x07c\\x9bd\\u202ee\\x7ff');
  assert.equal(terminalSafe('line\nnext\tcol'), 'line\\nnext\\tcol');
  assert.equal(terminalSafe('Zürich — 東京'), 'Zürich — 東京');
  const table = renderTable(['name'], [{ name: 'evil\x1b]0;pwned\x07name' }]);
  assert.doesNotMatch(table, CONTROL);
  assert.match(table, /evil\\x1b\]0;pwned\\x07name/);
});

test('a host name carrying an escape sequence reaches the terminal escaped', () => {
  const d = ['--data-dir', dir];
  assert.equal(runCli([...d, 'sources', 'add', 'tenable-sc', '--name', 'files', '--set', 'inputMode=file']).code, 0);
  const file = join(dir, 'export.csv');
  writeFileSync(file, csvText(SC_HEADER, [scRow({ 'DNS Name': 'web1\x1b[2J\x1b]0;owned\x07.corp.example' })]));
  assert.equal(runCli([...d, 'upload', 'files', file]).code, 0);
  const sync = runCli([...d, 'sync', 'files']);
  assert.equal(sync.code, 0, sync.stderr);
  const q = runCli([...d, 'query', 'hosts', '--limit', '5']);
  assert.equal(q.code, 0, q.stderr);
  assert.match(q.stdout, /web1\\x1b\[2J/i);
  assert.doesNotMatch(q.stdout, CONTROL);
});
