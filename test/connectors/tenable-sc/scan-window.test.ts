// The incremental window from the scan results (streams/scan-window.ts): the page schema on a wire
// example, the window computation, and the streams' use of it against a fake client (fallback, resume).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page, StreamContext } from '../../../src/core/connector.ts';
import { UpstreamError } from '../../../src/core/errors.ts';
import type { AnalysisQuery, TenableScClient } from '../../../src/connectors/tenable-sc/client.ts';
import { requireApi, tenableScConfigSchema } from '../../../src/connectors/tenable-sc/config.ts';
import { type Cursor, OVERLAP_SECONDS } from '../../../src/connectors/tenable-sc/streams/cursor.ts';
import {
  readScanImports,
  SCAN_LOOKBACK_SECONDS,
  SCAN_MARGIN_SECONDS,
  ScanWindows,
  windowStart,
} from '../../../src/connectors/tenable-sc/streams/scan-window.ts';
import { softwareStream } from '../../../src/connectors/tenable-sc/streams/inventory.ts';
import { vulnerabilitiesStream } from '../../../src/connectors/tenable-sc/streams/vulnerabilities.ts';
import { streamContext } from '../../filedrop/memory-bucket.ts';
import { AFTER, AGENT, LAST_RUN, LATE, OLD, RUNNING, scanResultAnswer } from './fixtures/scan-results.ts';

const config = requireApi(tenableScConfigSchema.parse({ apiUrl: 'https://sc.example', accessKey: 'ak', secretKey: 'sk', pageSize: 3 }));
const M = SCAN_MARGIN_SECONDS;

test('the page schema reads the wire example: both lists, each result once, "-1" as not set', () => {
  const scans = readScanImports(scanResultAnswer([OLD, LATE, RUNNING], [LATE]));
  assert.deepEqual(scans, [
    { id: '41', startTime: LAST_RUN - 5 * 3600, importFinish: LAST_RUN - 3 * 3600 + 400, seenDuringScan: true },
    { id: '42', startTime: LAST_RUN - 3 * 3600, importFinish: LAST_RUN + 40 * 60, seenDuringScan: true },
    { id: '44', startTime: LAST_RUN + 23 * 3600 + 5, importFinish: null, seenDuringScan: true },
  ]);
  assert.equal(readScanImports({ usable: [AGENT] })[0]!.seenDuringScan, false);
  assert.deepEqual(readScanImports({ manageable: [] }), []);
  // What the window cannot rely on fails the read (the stream then keeps the 12-hour overlap).
  assert.throws(() => readScanImports(''), /not a list of scan results/);
  assert.throws(() => readScanImports({}), /not a list of scan results/);
  assert.throws(() => readScanImports({ usable: [{ ...LATE, importFinish: 'yesterday' }] }), /usable\.0\.importFinish/);
  assert.throws(() => readScanImports({ usable: [{ id: '7', startTime: '1' }] }), /importFinish/);
});

test('window: the earliest start of the scans imported since the last run, less the margin', () => {
  const scans = readScanImports(scanResultAnswer([OLD, LATE, AFTER, RUNNING]));
  // The late import started 3 h before the last run: its findings were seen after that.
  assert.deepEqual(windowStart(LAST_RUN, scans), { since: LAST_RUN - 3 * 3600 - M, imported: 2 });
  // Only scans started after the last run: the window starts at the earliest of them, or at the last run.
  assert.deepEqual(windowStart(LAST_RUN, readScanImports({ usable: [AFTER] })), { since: LAST_RUN - M, imported: 1 });
  // Nothing imported since (an old one, one still running): the window is the margin alone.
  assert.deepEqual(windowStart(LAST_RUN, readScanImports({ usable: [OLD, RUNNING] })), { since: LAST_RUN - M, imported: 0 });
  // An import that finished within the margin before the last run still counts.
  const edge = { id: '9', startTime: LAST_RUN - 7200, importFinish: LAST_RUN - M, seenDuringScan: true };
  assert.equal(windowStart(LAST_RUN, [edge]).since, LAST_RUN - 7200 - M);
  assert.equal(windowStart(LAST_RUN, [{ ...edge, importFinish: LAST_RUN - M - 1 }]).since, LAST_RUN - M);
  // An agent result, or a start the console did not give: the 12-hour overlap for that scan.
  assert.equal(windowStart(LAST_RUN, readScanImports({ usable: [AFTER, AGENT] })).since, LAST_RUN - OVERLAP_SECONDS);
  assert.equal(windowStart(LAST_RUN, [{ ...edge, importFinish: LAST_RUN + 60, startTime: null }]).since, LAST_RUN - OVERLAP_SECONDS);
  // A scan that ran for days before its import reaches back as far as it started (the overlap would not).
  assert.equal(windowStart(LAST_RUN, [{ ...edge, startTime: LAST_RUN - 3 * 86400, importFinish: LAST_RUN + 60 }]).since, LAST_RUN - 3 * 86400 - M);
  assert.equal(windowStart(100, []).since, 0);
});

interface FakeScanResults {
  answer?: unknown;
  error?: Error;
}

function fakeClient(rows: (q: AnalysisQuery) => Record<string, unknown>[], sr: FakeScanResults) {
  const calls: AnalysisQuery[] = [];
  const gets: { path: string; query?: Record<string, unknown> }[] = [];
  const client = {
    async fetchAnalysisPage(q: AnalysisQuery) {
      calls.push(q);
      const all = rows(q);
      return { rows: all.slice(q.offset, q.offset + q.limit), total: all.length, returned: Math.min(q.limit, all.length - q.offset) };
    },
    async get(path: string, query?: Record<string, unknown>) {
      gets.push({ path, query });
      if (path !== '/scanResult') throw new Error(`unexpected GET ${path}`);
      if (sr.error) throw sr.error;
      return sr.answer;
    },
    async close() {},
  };
  return { calls, gets, factory: () => client as unknown as TenableScClient };
}

function capture() {
  const lines: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
  const at =
    (level: string) =>
    (obj: Record<string, unknown>, msg = '') =>
      lines.push({ level, obj, msg });
  const log = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => log } as unknown as StreamContext['log'];
  return { lines, log };
}

async function collect(it: AsyncIterable<Page>): Promise<Page[]> {
  const out: Page[] = [];
  for await (const p of it) out.push(p);
  return out;
}

const prev: Cursor = { v: 1, phase: 'done', offset: 0, since: null, until: LAST_RUN };
const windowOf = (q: AnalysisQuery, name: string) => q.filters.find((f) => f.filterName === name)?.value;

test('an incremental run starts its lastSeen and lastMitigated windows at the scans imported since', async () => {
  const fake = fakeClient(() => [], { answer: scanResultAnswer([OLD, LATE, AFTER, RUNNING]) });
  const pages = await collect(
    vulnerabilitiesStream({ config, client: fake.factory }).read(streamContext(undefined, { mode: 'incremental', checkpoint: prev })),
  );
  const since = LAST_RUN - 3 * 3600 - M;
  assert.match(String(windowOf(fake.calls[0]!, 'lastMitigated')), new RegExp(`^${since}-\\d+$`));
  assert.equal(windowOf(fake.calls[1]!, 'lastSeen'), windowOf(fake.calls[0]!, 'lastMitigated'));
  assert.equal((pages.at(-1)!.checkpoint as Cursor).since, since, 'the window is in the checkpoint');
  assert.deepEqual(fake.gets[0], {
    path: '/scanResult',
    query: {
      fields: 'id,status,importStatus,createdTime,startTime,finishTime,importStart,importFinish,resultType,resultSource',
      filter: 'completed,optimizeCompletedScans',
      startTime: LAST_RUN - SCAN_LOOKBACK_SECONDS,
    },
  });
});

test('a role that may not list scan results keeps the 12-hour overlap, and the run says so once', async () => {
  const forbidden = new UpstreamError('GET /rest/scanResult failed with Tenable.sc error 143: Permission denied', { status: 403 });
  const { lines, log } = capture();
  const windows = new ScanWindows();
  for (const [stream, answer] of [
    [vulnerabilitiesStream, { error: forbidden }],
    [softwareStream, { error: forbidden }],
    [softwareStream, { answer: { unexpected: true } }],
  ] as const) {
    const fake = fakeClient(() => [], answer);
    await collect(
      stream({ config, client: fake.factory, scanWindows: windows }).read(streamContext(undefined, { mode: 'incremental', checkpoint: prev, log })),
    );
    assert.match(String(windowOf(fake.calls.at(-1)!, 'lastSeen')), new RegExp(`^${LAST_RUN - OVERLAP_SECONDS}-\\d+$`));
  }
  const warnings = lines.filter((l) => l.level === 'warn');
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!.msg, /cannot read the scan results.*12 hours/);
  assert.match(String(warnings[0]!.obj.err), /error 143/);
});

test('a resumed run pages with the window of its checkpoint, without asking for scan results again', async () => {
  const fake = fakeClient(() => [], { answer: scanResultAnswer([AFTER]) });
  const mid: Cursor = { v: 1, phase: 'cumulative', offset: 3, since: LAST_RUN - 4000, until: LAST_RUN + 86400 };
  await collect(
    vulnerabilitiesStream({ config, client: fake.factory }).read(streamContext(undefined, { mode: 'incremental', resumed: true, checkpoint: mid })),
  );
  assert.deepEqual(fake.gets, []);
  assert.match(String(windowOf(fake.calls[0]!, 'lastSeen')), new RegExp(`^${LAST_RUN - 4000}-\\d+$`));
  // A full run asks for none either.
  const full = fakeClient(() => [], { answer: scanResultAnswer([AFTER]) });
  await collect(vulnerabilitiesStream({ config, client: full.factory }).read(streamContext(undefined, { mode: 'full', checkpoint: prev })));
  assert.deepEqual(full.gets, []);
});
