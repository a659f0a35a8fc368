// Recognising and validating the offline feed files: KEV JSON, EPSS CSV plain and gzipped, and every
// way a file can be neither.
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { test } from 'node:test';
import { InputError } from '../../src/core/errors.ts';
import { parseFeed, timeIso } from '../../src/feeds/parse.ts';
import { epssCsv, kevCatalog } from './fixtures.ts';

test('a KEV catalog is recognised by its content and its entries read', () => {
  const f = parseFeed(
    kevCatalog('2026.11.20', '2026-11-20T17:01:02.1234Z', [
      { cve: 'CVE-2021-44228', added: '2021-12-10', due: '2021-12-24', ransomware: 'Known' },
      { cve: 'cve-2023-1234', added: '2023-05-01', due: null },
      { cve: 'CVE-2021-44228', added: '2022-01-01', due: '2022-01-15' },
    ]),
  );
  assert.equal(f.kind, 'kev');
  assert.equal(f.version, '2026.11.20');
  assert.equal(f.released, '2026-11-20T17:01:02.123Z');
  assert.equal(f.entries.length, 2, 'a CVE listed twice is one entry');
  assert.deepEqual(f.entries[0], {
    cve: 'CVE-2021-44228',
    dateAdded: '2021-12-10T00:00:00.000Z',
    dueDate: '2021-12-24T00:00:00.000Z',
    ransomware: 'Known',
    name: 'Example Product flaw (CVE-2021-44228)',
  });
  assert.equal(f.kind === 'kev' && f.entries[1]!.cve, 'CVE-2023-1234');
  assert.equal(f.kind === 'kev' && f.entries[1]!.dueDate, null);
});

test('an EPSS CSV is recognised with its model line, plain or gzipped', () => {
  const rows: [string, number, number][] = [
    ['CVE-2021-44228', 0.97565, 0.99996],
    ['CVE-1999-0001', 0.01, 0.5],
  ];
  for (const gzip of [false, true]) {
    const f = parseFeed(epssCsv('v2025.03.14', '2026-11-21T12:55:00+0000', rows, { gzip }));
    assert.equal(f.kind, 'epss');
    assert.equal(f.version, 'v2025.03.14');
    assert.equal(f.released, '2026-11-21T12:55:00.000Z');
    assert.deepEqual(f.entries, [
      { cve: 'CVE-2021-44228', score: 0.97565, percentile: 0.99996 },
      { cve: 'CVE-1999-0001', score: 0.01, percentile: 0.5 },
    ]);
  }
  // CRLF line ends and a Z offset are read the same.
  const crlf = Buffer.from('#model_version:v2023.03.01,score_date:2026-11-21T00:00:00Z\r\ncve,epss,percentile\r\nCVE-2020-0001,0.1,0.2\r\n');
  assert.equal(parseFeed(crlf).entries.length, 1);
});

test('a file that is neither feed, or breaks its format, is refused with the reason', () => {
  const bad: [Buffer, RegExp][] = [
    [Buffer.from('hello world\n'), /not a CISA KEV catalog \(JSON\) or a FIRST EPSS CSV/],
    [Buffer.from(''), /neither/],
    [Buffer.from('{"catalogVersion": "1", '), /does not parse/],
    [Buffer.from('[1, 2]'), /neither|not an object/],
    [Buffer.from('{"title": "something else", "items": []}'), /without catalogVersion/],
    [Buffer.from('{"catalogVersion": "2026.01.01", "dateReleased": "yesterday", "vulnerabilities": []}'), /dateReleased 'yesterday' is not a date/],
    [Buffer.from('{"catalogVersion": "2026.01.01", "dateReleased": "2026-01-01T00:00:00Z", "vulnerabilities": {}}'), /vulnerabilities is not a list/],
    [kevCatalog('1', '2026-01-01T00:00:00Z', [{ cve: 'CVE-2021-1', added: '2021-01-01' }]), /vulnerabilities\[0\]: cveID 'CVE-2021-1' is not a CVE id/],
    [kevCatalog('1', '2026-01-01T00:00:00Z', [{ cve: 'CVE-2021-1111', added: '01/02/2021' }]), /dateAdded '01\/02\/2021'/],
    [kevCatalog('1', '2026-01-01T00:00:00Z', [{ cve: 'CVE-2021-1111', added: '2021-01-01', due: '2021-02-30' }]), /dueDate '2021-02-30'/],
    [Buffer.from('cve,epss,percentile\nCVE-2020-0001,0.1,0.2\n'), /first line must be #model_version/],
    [Buffer.from('#model_version:v1\ncve,epss,percentile\nCVE-2020-0001,0.1,0.2\n'), /no model_version and score_date/],
    [Buffer.from('#model_version:v1,score_date:2026-01-01T00:00:00Z\ncve,score\nCVE-2020-0001,0.1\n'), /line 2 must be the header cve,epss,percentile/],
    [epssCsv('v1', '2026-01-01T00:00:00Z', [['CVE-2020-0001', 1.5, 0.2]]), /line 3: epss and percentile must be numbers from 0 to 1/],
    [Buffer.from('#model_version:v1,score_date:2026-01-01T00:00:00Z\ncve,epss,percentile\nnot-a-cve,0.1,0.2\n'), /line 3: 'not-a-cve' is not a CVE id/],
    [Buffer.from('#model_version:v1,score_date:2026-01-01T00:00:00Z\ncve,epss,percentile\n'), /no scores/],
    [Buffer.concat([gzipSync('#model_version:v1,score_date:2026-01-01T00:00:00Z\n').subarray(0, 12)]), /gzip file that does not inflate/],
    [gzipSync('just text'), /neither/],
  ];
  for (const [buf, re] of bad) {
    assert.throws(
      () => parseFeed(buf),
      (err: unknown) => err instanceof InputError && re.test(err.message),
      `${buf.toString('utf8').slice(0, 60)} → ${re}`,
    );
  }
});

test('feed dates: plain days, +0000 offsets, Z; anything else is no date', () => {
  assert.equal(timeIso('2026-11-21'), '2026-11-21T00:00:00.000Z');
  assert.equal(timeIso('2026-11-21T12:00:00+0000'), '2026-11-21T12:00:00.000Z');
  assert.equal(timeIso('2026-11-21T12:00:00+0130'), '2026-11-21T10:30:00.000Z');
  assert.equal(timeIso('2026-11-21T12:00:00Z'), '2026-11-21T12:00:00.000Z');
  for (const v of ['', 'soon', '21/11/2026', '2026-13-01', undefined, 5]) assert.equal(timeIso(v), null, String(v));
});
