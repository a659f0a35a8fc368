// Terminal output: control bytes from upstream data (escape sequences, bidi overrides) are shown
// escaped in tables and human lines, never sent to the terminal.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cutAtWord, fitTable, renderTable, terminalSafe } from '../../src/cli/output.ts';
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

test('a cut cell keeps whole words, names and addresses, with … after a space or comma', () => {
  assert.equal(cutAtWord('fin-ws-00131 (10.20.0.113)', 20), 'fin-ws-00131 …');
  assert.equal(cutAtWord('10.0.0.1,10.0.0.2,10.0.0.3', 22), '10.0.0.1,10.0.0.2,…');
  assert.equal(cutAtWord('short', 20), 'short');
  const finding = {
    severity: 'critical',
    pluginId: '187201',
    pluginName: 'Microsoft Windows Security Update for Remote Code Execution (May 2025)',
    host: 'fin-ws-00131 (10.20.0.113)',
    port: 445,
    status: 'reopened',
    lastSeen: '2026-11-27T10:11:12.000Z',
    source: 'tenable-prod',
  };
  const other = { ...finding, pluginName: 'OpenSSL 3.0 < 3.0.14 Multiple Vulnerabilities', host: 'db-srv-0042.corp.example.com (10.40.0.113)' };
  // 120 columns fit by cutting the plugin name at a word; 60 cannot without cutting a token, so the table is wider.
  for (const width of [120, 60]) {
    const table = fitTable(Object.keys(finding), [finding, other], width);
    const lines = table.split('\n');
    if (width === 120) for (const line of lines) assert.ok(line.length <= width, `${line.length} > ${width}: ${line}`);
    // Every … follows a whole token; no address, name or time loses its end.
    for (const m of table.matchAll(/(.)…/g)) assert.match(m[1]!, /[ ,]/, table);
    assert.match(lines[1]!, /fin-ws-00131 \(10\.20\.0\.113\)/, table);
    assert.match(table, /2026-11-27T10:11:12\.000Z/);
    assert.match(lines[0]!, /PLUGINID/);
  }
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
