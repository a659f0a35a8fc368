// Paging ahead (streams/cursor.ts runAnalysisPhases): the next page is asked for as soon as the console
// has built the last one (its answer starts to arrive), never two at the console at once, at most two
// pages ahead of the loop; pages are mapped and yielded in offset order even when a later answer
// completes first; a console without totals is read one page at a time.
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { test } from 'node:test';
import type { Page } from '../../../src/core/connector.ts';
import type { AnalysisQuery, CallOptions, TenableScClient } from '../../../src/connectors/tenable-sc/client.ts';
import { type AnalysisPhase, runAnalysisPhases, startCursor } from '../../../src/connectors/tenable-sc/streams/cursor.ts';
import { streamContext } from '../../filedrop/memory-bucket.ts';

const ROWS = 10;
const PAGE = 3;

/** A console whose answers start (headers) after `build` ms and complete after `transfer[offset]` more. */
function slowConsole(opts: { withTotal: boolean; transfer: (offset: number) => number }) {
  const log: string[] = [];
  let building = 0;
  let maxBuilding = 0;
  const client = {
    async fetchAnalysisPage(q: AnalysisQuery, o: CallOptions = {}) {
      log.push(`ask ${q.offset}`);
      building++;
      maxBuilding = Math.max(maxBuilding, building);
      await delay(5);
      building--;
      log.push(`built ${q.offset}`);
      o.onHeaders?.();
      await delay(opts.transfer(q.offset));
      const rows = Array.from({ length: Math.max(0, Math.min(PAGE, ROWS - q.offset)) }, (_, i) => ({ n: q.offset + i }));
      log.push(`arrived ${q.offset}`);
      return { rows, total: opts.withTotal ? ROWS : null, returned: rows.length };
    },
  };
  return { log, client: client as unknown as TenableScClient, maxBuilding: () => maxBuilding };
}

function phase(mapped: number[]): AnalysisPhase {
  return {
    name: 'p',
    query: { tool: 'vulndetails', sourceType: 'cumulative', filters: [] },
    map: (rows) => {
      for (const r of rows) mapped.push(r.n as number);
      return { records: { vulnerabilities: rows.map((r) => ({ key: String(r.n), hostKey: 'h', fields: {} })) }, errors: 0 };
    },
  };
}

async function read(c: ReturnType<typeof slowConsole>, mapped: number[], slowLoop = 0): Promise<Page[]> {
  const ctx = streamContext(undefined, { sourceName: 'sc' });
  const pages: Page[] = [];
  for await (const p of runAnalysisPhases(c.client, ctx, [phase(mapped)], startCursor(ctx, ['p']), PAGE)) {
    pages.push(p);
    if (slowLoop) await delay(slowLoop);
  }
  return pages;
}

const keys = (pages: Page[]) => pages.flatMap((p) => (p.records.vulnerabilities ?? []).map((r) => Number(r.key)));

test('the next page is asked for once the last one is built, before it has arrived; one at the console at a time', async () => {
  // Page 3's answer is slow to arrive: page 6 is asked for (and built) meanwhile. (Page 3 itself is
  // asked for once page 0 has arrived: the console's total is known from then on.)
  const c = slowConsole({ withTotal: true, transfer: (o) => (o === 3 ? 40 : 1) });
  const mapped: number[] = [];
  const pages = await read(c, mapped);
  assert.deepEqual(keys(pages), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.ok(c.log.indexOf('ask 6') < c.log.indexOf('arrived 3'), `page 6 asked for before page 3 arrived: ${c.log.join(', ')}`);
  assert.equal(c.maxBuilding(), 1, 'never two requests at the console');
  // Page 6 arrived before page 3 and still came after it.
  assert.ok(c.log.indexOf('arrived 6') < c.log.indexOf('arrived 3'), c.log.join(', '));
  assert.deepEqual(mapped, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'mapped in offset order');
  assert.deepEqual(pages.at(-1)?.checkpoint, { ...(pages.at(-1)?.checkpoint as object), phase: 'done', offset: 0 });
  assert.equal(c.log.filter((l) => l.startsWith('ask')).length, 4, 'no page past the total');
});

test('at most two pages ahead of a loop that is slow to take them', async () => {
  const c = slowConsole({ withTotal: true, transfer: () => 1 });
  const asked: number[] = [];
  const mapped: number[] = [];
  const ctx = streamContext(undefined, { sourceName: 'sc' });
  let taken = 0;
  for await (const p of runAnalysisPhases(c.client, ctx, [phase(mapped)], startCursor(ctx, ['p']), PAGE)) {
    assert.ok(p.records.vulnerabilities);
    taken++;
    await delay(30);
    asked.push(c.log.filter((l) => l.startsWith('ask')).length - taken);
  }
  assert.ok(Math.max(...asked) <= 2, `pages asked for ahead of the loop: ${asked.join(', ')}`);
});

test('a console without totals is read one page after another', async () => {
  const c = slowConsole({ withTotal: false, transfer: () => 2 });
  const mapped: number[] = [];
  const pages = await read(c, mapped);
  assert.deepEqual(keys(pages), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  for (const o of [3, 6, 9]) assert.ok(c.log.indexOf(`ask ${o}`) > c.log.indexOf(`arrived ${o - 3}`), c.log.join(', '));
});
