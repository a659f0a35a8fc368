// Recognising and validating the offline feed files: KEV JSON, EPSS CSV plain and gzipped, and every
// way a file can be neither.
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { test } from 'node:test';
import { InputError } from '../../src/core/errors.ts';
import { feedLimits, parseFeed, parseFeedStream, timeIso } from '../../src/feeds/parse.ts';
import { type KevEntry, kevEntryOfLine, type ParsedFeed } from '../../src/store/index.ts';
import { epssBomb, epssCsv, kevCatalog } from './fixtures.ts';

/** An EPSS feed's rows as objects. */
const rows = (f: ParsedFeed) =>
  f.kind === 'epss'
    ? f.entries.cves.split('\n').map((cve, i) => ({ cve, score: f.entries.scores[i], percentile: f.entries.percentiles[i] }))
    : f.entries.lines.split('\n').map(kevEntryOfLine);

test('a KEV catalog is recognised by its content and its entries read', async () => {
  const f = await parseFeed(
    kevCatalog('2026.11.20', '2026-11-20T17:01:02.1234Z', [
      { cve: 'CVE-2021-44228', added: '2021-12-10', due: '2021-12-24', ransomware: 'Known' },
      { cve: 'cve-2023-1234', added: '2023-05-01', due: null },
      { cve: 'CVE-2021-44228', added: '2022-01-01', due: '2022-01-15' },
    ]),
  );
  assert.equal(f.kind, 'kev');
  assert.equal(f.version, '2026.11.20');
  assert.equal(f.released, '2026-11-20T17:01:02.123Z');
  const entries = rows(f) as KevEntry[];
  assert.equal(f.records, 2, 'a CVE listed twice is one entry');
  assert.deepEqual(entries[0], {
    cve: 'CVE-2021-44228',
    dateAdded: '2021-12-10T00:00:00.000Z',
    dueDate: '2021-12-24T00:00:00.000Z',
    ransomware: 'Known',
    name: 'Example Product flaw (CVE-2021-44228)',
  });
  assert.equal(entries[1]!.cve, 'CVE-2023-1234');
  assert.equal(entries[1]!.dueDate, null);
});

test('an EPSS CSV is recognised with its model line, plain or gzipped', async () => {
  const scores: [string, number, number][] = [
    ['CVE-2021-44228', 0.97565, 0.99996],
    ['CVE-1999-0001', 0.01, 0.5],
  ];
  for (const gzip of [false, true]) {
    const f = await parseFeed(epssCsv('v2025.03.14', '2026-11-21T12:55:00+0000', scores, { gzip }));
    assert.equal(f.kind, 'epss');
    assert.equal(f.version, 'v2025.03.14');
    assert.equal(f.released, '2026-11-21T12:55:00.000Z');
    assert.equal(f.records, 2);
    assert.deepEqual(rows(f), [
      { cve: 'CVE-2021-44228', score: 0.97565, percentile: 0.99996 },
      { cve: 'CVE-1999-0001', score: 0.01, percentile: 0.5 },
    ]);
  }
  // CRLF line ends and a Z offset are read the same.
  const crlf = Buffer.from('#model_version:v2023.03.01,score_date:2026-11-21T00:00:00Z\r\ncve,epss,percentile\r\nCVE-2020-0001,0.1,0.2\r\n');
  assert.equal((await parseFeed(crlf)).records, 1);
});

test('a file that is neither feed, or breaks its format, is refused with the reason', async () => {
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
    await assert.rejects(parseFeed(buf), (err: unknown) => err instanceof InputError && re.test(err.message), `${buf.toString('utf8').slice(0, 60)} → ${re}`);
  }
});

test('a KEV catalog read in pieces of any size: members in any order, brackets and quotes inside strings, pretty-printed', async () => {
  const doc = JSON.stringify(
    {
      vulnerabilities: [
        {
          cveID: 'CVE-2021-44228',
          dateAdded: '2021-12-10',
          vulnerabilityName: 'Log4j "Log4Shell" [RCE], {JNDI}, a\\b',
          notes: '',
          cwes: ['CWE-20', 'CWE-917'],
        },
        { cveID: 'CVE-2023-1234', dateAdded: '2023-05-01', dueDate: null, extra: { nested: [1, { x: ']}' }] } },
      ],
      title: 'CISA Catalog',
      catalogVersion: '2026.11.20',
      dateReleased: '2026-11-20T17:01:02.1234Z',
      count: 2,
    },
    null,
    '\t',
  );
  for (const size of [1, 7, 4096]) {
    const pieces: Buffer[] = [];
    const bytes = Buffer.from(doc);
    for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size));
    const { feed, size: n } = await parseFeedStream(pieces, feedLimits({}));
    assert.equal(n, bytes.length);
    assert.equal(feed.kind === 'kev' && feed.version, '2026.11.20', `pieces of ${size}`);
    assert.deepEqual(
      rows(feed).map((e) => [e.cve, (e as { name: string | null }).name]),
      [
        ['CVE-2021-44228', 'Log4j "Log4Shell" [RCE], {JNDI}, a\\b'],
        ['CVE-2023-1234', null],
      ],
    );
  }
  for (const [text, re] of [
    ['{"catalogVersion": "1", "dateReleased": "2026-01-01", "vulnerabilities": []} {}', /more after the catalog/],
    ['{"catalogVersion": "1", "dateReleased": "2026-01-01", "vulnerabilities": [], }', /a key without a value|does not parse/],
    [
      '{"catalogVersion": "1", "dateReleased": "2026-01-01", "vulnerabilities": [{"cveID": "CVE-2020-0001", "dateAdded": "2020-01-01"},]}',
      /empty entry|does not parse/,
    ],
    ['{"catalogVersion": 1 2, "dateReleased": "2026-01-01", "vulnerabilities": []}', /does not parse/],
  ] as const) {
    await assert.rejects(parseFeed(Buffer.from(text)), (err: unknown) => err instanceof InputError && re.test(err.message), text);
  }
});

test('caps: a gzip bomb stops at the decompressed-byte cap, a long file at the entry cap, each named', async () => {
  // A few MB of gzip (members one after another, as gzip allows) inflating to 1 GiB of EPSS rows.
  const bomb = epssBomb(1 << 30);
  const before = process.memoryUsage().rss;
  await assert.rejects(
    parseFeedStream([bomb], { maxBytes: 8 * 1024 * 1024, maxEntries: 10_000_000 }),
    (err: unknown) => err instanceof InputError && /more than 8 MiB once decompressed, the limit TRIBUTARY_FEED_MAX_BYTES sets/.test(err.message),
  );
  assert.ok(process.memoryUsage().rss - before < 256 * 1024 * 1024, 'the bomb was not inflated whole');
  await assert.rejects(
    parseFeed(
      epssCsv('v1', '2026-01-01T00:00:00Z', [
        ['CVE-2020-0001', 0.1, 0.2],
        ['CVE-2020-0002', 0.1, 0.2],
        ['CVE-2020-0003', 0.1, 0.2],
      ]),
      { maxBytes: 1 << 20, maxEntries: 2 },
    ),
    (err: unknown) => err instanceof InputError && /more than 2 rows, the limit TRIBUTARY_FEED_MAX_ENTRIES sets/.test(err.message),
  );
  await assert.rejects(
    parseFeed(
      kevCatalog('1', '2026-01-01T00:00:00Z', [
        { cve: 'CVE-2020-0001', added: '2020-01-01' },
        { cve: 'CVE-2020-0002', added: '2020-01-01' },
      ]),
      { maxBytes: 1 << 20, maxEntries: 1 },
    ),
    (err: unknown) => err instanceof InputError && /more than 1 vulnerabilities, the limit TRIBUTARY_FEED_MAX_ENTRIES sets/.test(err.message),
  );
  assert.throws(() => feedLimits({ TRIBUTARY_FEED_MAX_BYTES: 'lots' }), /TRIBUTARY_FEED_MAX_BYTES must be a whole number/);
});

test('feed dates: plain days, +0000 offsets, Z; anything else is no date', () => {
  assert.equal(timeIso('2026-11-21'), '2026-11-21T00:00:00.000Z');
  assert.equal(timeIso('2026-11-21T12:00:00+0000'), '2026-11-21T12:00:00.000Z');
  assert.equal(timeIso('2026-11-21T12:00:00+0130'), '2026-11-21T10:30:00.000Z');
  assert.equal(timeIso('2026-11-21T12:00:00Z'), '2026-11-21T12:00:00.000Z');
  for (const v of ['', 'soon', '21/11/2026', '2026-13-01', undefined, 5]) assert.equal(timeIso(v), null, String(v));
});
