// CSV cells: text a spreadsheet would run as a formula gets a `'` (OWASP's CSV injection advice), plain
// numbers and numbers from the record stay as they are, and `neutralise = false` writes cells raw.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvField, csvLine, neutraliseCsvText } from '../../src/export/tabular.ts';
import { csvRows, HOSTILE_NAMES } from './hostile-cells.ts';

test('text that starts with = + - @, tab or CR is prefixed with a quote; plain numbers are not', () => {
  for (const [upstream, want] of HOSTILE_NAMES) assert.equal(neutraliseCsvText(upstream), want, JSON.stringify(upstream));
  for (const plain of ['-1', '+3.5', '1e5', '-0.25E-3', '.5', '-.5', '12.', '']) assert.equal(neutraliseCsvText(plain), plain);
  for (const formula of ['-', '+', '=1', '-1-1', '+1e', '@', '-Infinity', '--1']) assert.equal(neutraliseCsvText(formula), `'${formula}`);
});

test('csvField neutralises text, lists and quoting alike, leaves numbers, and writes raw on request', async () => {
  assert.equal(csvField(-1), '-1');
  assert.equal(csvField(Number.NEGATIVE_INFINITY), '-Infinity', 'a number of the record is no text cell');
  assert.equal(csvField(['=1+1', 'b']), "'=1+1;b");
  assert.equal(csvField('=HYPERLINK("x","y")'), `"'=HYPERLINK(""x"",""y"")"`);
  assert.equal(csvField('=HYPERLINK("x","y")', false), `"=HYPERLINK(""x"",""y"")"`);
  assert.equal(csvField('-2+3', false), '-2+3');
  const line = csvLine(
    HOSTILE_NAMES.map(([upstream]) => upstream),
    true,
  );
  assert.deepEqual(await csvRows(`${line}\n`), [HOSTILE_NAMES.map(([, want]) => want)], 'a CSV reader gets the neutralised cells back');
  const raw = csvLine(
    HOSTILE_NAMES.map(([upstream]) => upstream),
    false,
  );
  assert.deepEqual(await csvRows(`${raw}\n`), [HOSTILE_NAMES.map(([upstream]) => upstream)], 'raw: the cells as upstream sent them');
});

/** csvField as it was written before its fast paths (numbers, booleans, nothing; one test for the usual text). */
function csvFieldReference(v: unknown, neutralise = true): string {
  let s: string;
  if (v === null || v === undefined) s = '';
  else if (Array.isArray(v)) s = v.join(';');
  else if (typeof v === 'object') s = JSON.stringify(v);
  else s = String(v);
  if (neutralise && typeof v !== 'number' && typeof v !== 'bigint') s = neutraliseCsvText(s);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

test('csvField writes every kind of value exactly as the plain reference does, neutralised or raw', () => {
  const texts = [...HOSTILE_NAMES.map(([upstream]) => upstream), '', 'plain', 'a,b', 'say "hi"', 'two\nlines', 'cr\r', '-', '+', '=', '@x', '1', '-1', '--1'];
  const values: unknown[] = [
    ...texts,
    null,
    undefined,
    0,
    -1,
    3.5,
    -0.25,
    1e21,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    true,
    false,
    -5n,
    7n,
    [],
    ['a'],
    ['=1', 'b,c'],
    [1, null, 'x'],
    {},
    { a: 1, b: '=x' },
    { note: 'say "hi"' },
  ];
  for (const v of values)
    for (const neutralise of [true, false]) assert.equal(csvField(v, neutralise), csvFieldReference(v, neutralise), `${String(v)} ${neutralise}`);
});
