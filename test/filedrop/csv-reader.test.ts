// The streaming CSV reader: quoting, multi-line records and their physical line numbers, CRLF, BOM,
// delimiter and encoding sniffing, binary files, chunk boundaries anywhere, and dates.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { detectKind, normHeader, type FileKind } from '../../src/filedrop/csv/columns.ts';
import { parseDate } from '../../src/filedrop/csv/dates.ts';
import { CsvFormatError, CsvParser, isBlankRecord, readCsv, sniffDelimiter } from '../../src/filedrop/csv/reader.ts';

async function readAll(input: Buffer | string, chunk = 7): Promise<{ fields: string[]; line: number }[]> {
  const buf = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const parts: Buffer[] = [];
  for (let i = 0; i < buf.length; i += chunk) parts.push(buf.subarray(i, i + chunk));
  const out: { fields: string[]; line: number }[] = [];
  for await (const batch of readCsv(Readable.from(parts), { sniffBytes: 16 })) out.push(...batch);
  return out;
}

test('quoted fields: delimiters, escaped quotes, newlines; line numbers are physical lines', async () => {
  const text = 'a,b,c\n1,"x, y","he said ""hi"""\n2,"line one\nline two\nline three",z\n3,,\n';
  const recs = await readAll(text);
  assert.deepEqual(
    recs.map((r) => r.fields),
    [
      ['a', 'b', 'c'],
      ['1', 'x, y', 'he said "hi"'],
      ['2', 'line one\nline two\nline three', 'z'],
      ['3', '', ''],
    ],
  );
  assert.deepEqual(
    recs.map((r) => r.line),
    [1, 2, 3, 6],
    'the record after a 3-line record starts on line 6',
  );
});

test('CRLF, a BOM, no final newline; CR inside quotes is kept', async () => {
  const text = '\uFEFFPlugin,IP Address\r\n19506,"10.0.0.1"\r\n"1","a\r\nb"\r\n2,last';
  const recs = await readAll(text, 3);
  assert.deepEqual(
    recs.map((r) => r.fields),
    [
      ['Plugin', 'IP Address'],
      ['19506', '10.0.0.1'],
      ['1', 'a\r\nb'],
      ['2', 'last'],
    ],
  );
  assert.deepEqual(
    recs.map((r) => r.line),
    [1, 2, 3, 5],
  );
});

test('every chunk boundary gives the same records', async () => {
  const text = '"h1";"h2";"h3"\r\n"a;b";"x""y";"multi\nline"\r\n;;\r\n"last";"";"z"';
  const expected = await readAll(text, text.length);
  assert.equal(expected.length, 4);
  for (let size = 1; size <= 12; size++) assert.deepEqual(await readAll(text, size), expected, `chunk size ${size}`);
  // The parser alone, split at every position.
  for (let cut = 0; cut <= text.length; cut++) {
    const p = new CsvParser({ delimiter: ';' });
    p.push(text.slice(0, cut));
    p.push(text.slice(cut));
    p.end();
    assert.deepEqual(p.take(), expected, `cut at ${cut}`);
  }
});

test('delimiter sniffing: comma, semicolon, tab; quoted delimiters do not count', async () => {
  assert.equal(sniffDelimiter('a,b,c'), ',');
  assert.equal(sniffDelimiter('"a,1";"b,2";"c"'), ';');
  assert.equal(sniffDelimiter('a\tb\tc'), '\t');
  assert.equal(sniffDelimiter('single'), ',');
  const recs = await readAll('Plugin;Severity\n19506;Info\n');
  assert.deepEqual(recs[1]!.fields, ['19506', 'Info']);
});

test('encodings: UTF-16LE with BOM, Windows-1252 fallback', async () => {
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Name\tIP\r\nWS1\t10.0.0.1\r\n', 'utf16le')]);
  assert.deepEqual(
    (await readAll(utf16, 5)).map((r) => r.fields),
    [
      ['Name', 'IP'],
      ['WS1', '10.0.0.1'],
    ],
  );
  const cp1252 = Buffer.from([...Buffer.from('Name,Site\nJos'), 0xe9, ...Buffer.from(',M'), 0xfc, ...Buffer.from('nchen\n')]);
  assert.deepEqual(
    (await readAll(cp1252)).map((r) => r.fields),
    [
      ['Name', 'Site'],
      ['José', 'München'],
    ],
  );
});

test('binary files are refused before any record; an unterminated quote names its line', async () => {
  await assert.rejects(
    readAll(Buffer.from([0x50, 0x4b, 3, 4, 0, 0, 1, 2])),
    (e: unknown) => e instanceof CsvFormatError && /ZIP archive/.test(e.message) && e.line === 0,
  );
  await assert.rejects(readAll(Buffer.from('a,b\n1,\u0000\u0001\n')), /NUL bytes/);
  const recs: string[][] = [];
  await assert.rejects(
    (async () => {
      for await (const b of readCsv(Readable.from([Buffer.from('a,b\n1,2\n3,"never\nends\n')]))) recs.push(...b.map((r) => r.fields));
    })(),
    (e: unknown) => e instanceof CsvFormatError && e.line === 3 && /never ends/.test(e.message),
  );
  assert.deepEqual(
    recs,
    [
      ['a', 'b'],
      ['1', '2'],
    ],
    'records before the bad one are delivered',
  );
  const p = new CsvParser({ maxRecordChars: 10 });
  assert.throws(() => p.push('a,b\n"0123456789abcdef'), /longer than 10 characters/);
});

test('blank records (only delimiters or spaces) are recognised', () => {
  assert.ok(isBlankRecord(['', '', ' ']));
  assert.ok(!isBlankRecord(['', 'x']));
});

test('dates: Tenable.sc UTC and local zones, N/A, SDP display style, ISO, numeric, epoch; garbage is undefined', () => {
  assert.equal(parseDate('Feb 9, 2024 10:48:42 UTC'), '2024-02-09T10:48:42.000Z');
  assert.equal(parseDate('Jan 5, 2021 10:24:08 MST'), '2021-01-05T17:24:08.000Z');
  assert.equal(parseDate('Aug 18, 2004 12:00:00 MDT'), '2004-08-18T18:00:00.000Z');
  assert.equal(parseDate('Oct 17, 2024 17:24:54 GMT+02:00'), '2024-10-17T15:24:54.000Z');
  assert.equal(parseDate('N/A'), null);
  assert.equal(parseDate(''), null);
  assert.equal(parseDate('Jun 24, 2020 03:05 PM'), '2020-06-24T15:05:00.000Z');
  assert.equal(parseDate('Jun 24, 2020 12:05 AM'), '2020-06-24T00:05:00.000Z');
  assert.equal(parseDate('2024-07-01 09:00:00'), '2024-07-01T09:00:00.000Z');
  assert.equal(parseDate('2024-07-01T09:00:00+02:00'), '2024-07-01T07:00:00.000Z');
  assert.equal(parseDate('7/1/2024 9:00 AM'), '2024-07-01T09:00:00.000Z');
  assert.equal(parseDate('25/12/2024 10:00'), '2024-12-25T10:00:00.000Z');
  assert.equal(parseDate('9 Feb 2024'), '2024-02-09T00:00:00.000Z');
  assert.equal(parseDate('1707475722'), '2024-02-09T10:48:42.000Z');
  assert.equal(parseDate('Feb 30, 2024 10:00:00 UTC'), undefined);
  assert.equal(parseDate('Feb 9, 2024 10:48:42 XYZT'), undefined);
  assert.equal(parseDate('yesterday'), undefined);
});

test('header detection: any case/spacing, aliases, the best kind wins, missing required columns are named', () => {
  assert.equal(normHeader(' DueBy  Time '), normHeader('Due By Time'.replace(' By', 'By')));
  assert.equal(normHeader('Exploit?'), 'exploit');
  const kinds: FileKind[] = [
    {
      name: 'a',
      label: 'Alpha',
      columns: [
        { field: 'id', headers: ['ID', 'Identifier'] },
        { field: 'x', headers: ['X'] },
        { field: 'y', headers: ['Y'] },
      ],
      required: ['id'],
      signature: ['id', 'x', 'y'],
      writes: [],
      group: 'a',
      sweeps: [],
      mapper: () => ({ map() {} }),
    },
    {
      name: 'b',
      label: 'Beta',
      columns: [
        { field: 'name', headers: ['Name'] },
        { field: 'x', headers: ['X'] },
      ],
      required: ['name'],
      signature: ['name', 'x'],
      writes: [],
      group: 'b',
      sweeps: [],
      mapper: () => ({ map() {} }),
    },
  ];
  const a = detectKind(['identifier', 'x ', 'Y', 'extra'], kinds, 'test');
  assert.ok(a.ok && a.match.kind.name === 'a' && a.match.index.get('id') === 0 && a.match.unknown[0] === 'extra');
  const missing = detectKind(['X', 'Y'], kinds, 'test');
  assert.ok(!missing.ok && /looks like a Alpha export but lacks the required column: ID \(or Identifier\)/.test(missing.reason), JSON.stringify(missing));
  const none = detectKind(['foo', 'bar'], kinds, 'test');
  assert.ok(!none.ok && /not a test export/.test(none.reason) && /"foo", "bar"/.test(none.reason));
});
