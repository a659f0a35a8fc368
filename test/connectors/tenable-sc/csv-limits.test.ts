// Hostile CSV rows: one row may produce only so much (a cell over the cap, or a row yielding too many
// records, is rejected with its line and reason; the file and the files after it still import), and an
// IP address that is not one rejects its row.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tenableScConfigSchema } from '../../../src/connectors/tenable-sc/config.ts';
import { tenableScFileStreams } from '../../../src/connectors/tenable-sc/csv/index.ts';
import { rowLimits } from '../../../src/filedrop/csv/stream.ts';
import { csvText, MemoryBucket, readPages, recordsOf, streamContext } from '../../filedrop/memory-bucket.ts';
import { SC_HEADER, scRow } from './csv-fixtures.ts';

const streamOf = () => tenableScFileStreams(tenableScConfigSchema.parse({ inputMode: 'file' }))[0]!;

function packages(n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) lines.push(`  pkg${i}-1.${i % 10}-1.el7|(none)`);
  return `Plugin Output: \nHere is the list of packages installed on the remote CentOS Linux system : \n\n${lines.join('\n')}\n`;
}

const softwareRow = (output: string, ip = '10.0.0.1') =>
  scRow({ Plugin: '22869', 'Plugin Name': 'Software Enumeration (SSH)', Severity: 'Info', Port: '0', 'IP Address': ip, 'Plugin Output': output });

test('a 21.8 MB row (a million packages in one Plugin Output) is rejected with its line; the rest of the file and the next file import', async () => {
  const huge = packages(1_000_000);
  assert.ok(huge.length > 20_000_000, `${huge.length}`);
  const bucket = new MemoryBucket();
  bucket.chunk = 1 << 20;
  bucket.put('big.csv', csvText(SC_HEADER, [scRow({}), softwareRow(huge), softwareRow(packages(3), '10.0.0.2')]));
  bucket.put('hosts.csv', csvText(['Name', 'IP Address', 'OS'], [['db9', '10.0.0.9', 'Linux']]));
  const pages = await readPages(streamOf(), streamContext(bucket));
  const r = bucket.last('big.csv')!;
  assert.equal(r.status, 'partial');
  assert.equal(r.rowsImported, 2);
  assert.equal(r.rowsRejected, 1);
  assert.equal(r.rejections[0]!.line, 5, 'the line the row starts on (the first row spans three)');
  assert.match(r.rejections[0]!.reason, /^Plugin Output holds \d+ characters, over the 4194304-character limit of one cell \(TRIBUTARY_CSV_MAX_CELL_CHARS\)$/);
  assert.equal(recordsOf(pages, 'software').length, 3, 'only the packages of the row within the limits');
  assert.equal(bucket.last('hosts.csv')!.status, 'imported');
  assert.ok(recordsOf(pages, 'hosts').some((h) => h.fields.ipAddresses && (h.fields.ipAddresses as string[]).includes('10.0.0.9')));
});

test('a row yielding more records than the limit is rejected whole (nothing of it is stored); the limits come from the environment', async () => {
  const env = { TRIBUTARY_CSV_MAX_ROW_RECORDS: '100', TRIBUTARY_CSV_MAX_CELL_CHARS: '20000' };
  assert.deepEqual(rowLimits(env), { maxRowRecords: 100, maxCellChars: 20_000 });
  assert.throws(() => rowLimits({ TRIBUTARY_CSV_MAX_ROW_RECORDS: 'lots' }), /TRIBUTARY_CSV_MAX_ROW_RECORDS must be a whole number/);
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const bucket = new MemoryBucket();
    bucket.put(
      'x.csv',
      csvText(SC_HEADER, [
        softwareRow(packages(150), '10.0.0.1'),
        softwareRow(packages(90), '10.0.0.2'),
        scRow({ 'IP Address': '10.0.0.3', Synopsis: 'x'.repeat(20_001) }),
      ]),
    );
    const pages = await readPages(streamOf(), streamContext(bucket));
    const r = bucket.last('x.csv')!;
    assert.equal(r.rowsImported, 1);
    assert.deepEqual(
      r.rejections.map((j) => j.reason),
      [
        'the row yields more than 100 records (software, ports, …), the limit of one row (TRIBUTARY_CSV_MAX_ROW_RECORDS)',
        'Synopsis holds 20001 characters, over the 20000-character limit of one cell (TRIBUTARY_CSV_MAX_CELL_CHARS)',
      ],
    );
    const hostsOfSoftware = new Set(recordsOf(pages, 'software').map((s) => s.hostKey?.split('|')[1]));
    assert.deepEqual([...hostsOfSoftware], ['10.0.0.2'], 'no record of the rejected row was kept');
    assert.ok(!recordsOf(pages, 'hosts').some((h) => h.key.includes('10.0.0.1')), 'nor its host');
  } finally {
    for (const k of Object.keys(env)) delete process.env[k];
    Object.assign(process.env, saved);
  }
});

test('an IP address that is not one rejects its row, counted with its line; valid rows import', async () => {
  const bucket = new MemoryBucket();
  bucket.put(
    'v.csv',
    csvText(SC_HEADER, [
      scRow({ 'IP Address': '10.0.0.1' }),
      scRow({ 'IP Address': '10.0.0.999' }),
      scRow({ 'IP Address': "'; DROP TABLE hosts;--" }),
      scRow({ 'IP Address': 'fe80::1' }),
    ]),
  );
  bucket.put(
    'h.csv',
    csvText(
      ['Name', 'IP Address', 'OS'],
      [
        ['a', '10.0.0.1, 10.0.0.2', 'Linux'],
        ['b', '10.0.0.4 not-an-ip', 'Linux'],
      ],
    ),
  );
  const pages = await readPages(streamOf(), streamContext(bucket));
  const v = bucket.last('v.csv')!;
  assert.equal(v.rowsImported, 2);
  assert.deepEqual(v.rejections, [
    { line: 5, reason: "IP Address '10.0.0.999' is not an IPv4 or IPv6 address" },
    { line: 8, reason: "IP Address ''; DROP TABLE hosts;--' is not an IPv4 or IPv6 address" },
  ]);
  const h = bucket.last('h.csv')!;
  assert.equal(h.rowsImported, 1);
  assert.deepEqual(h.rejections, [{ line: 3, reason: "IP Address 'not-an-ip' is not an IPv4 or IPv6 address" }]);
  assert.deepEqual(
    recordsOf(pages, 'vulnerabilities')
      .map((x) => x.hostKey?.split('|')[1])
      .sort(),
    ['10.0.0.1', 'fe80::1'],
  );
});
