// Checkpoints of the Tenable.sc streams and the paged reads they drive.
//
// A stream runs a fixed list of phases (e.g. patched → cumulative); each page's checkpoint says where
// to resume: {v, phase, offset, since, until}. `until` is when the run started, by the console's clock
// (the first answer's envelope timestamp; this machine's clock until then); `since` the start of its
// lastSeen window (null on a full run). The last page of a run carries phase "done", and the next
// incremental run asks for what changed since the earliest start of the scans imported after `until`
// (scan-window.ts), or since `until - OVERLAP` when the console will not list them.
import type { Page, RowFailure, StreamContext } from '../../../core/connector.ts';
import { z } from 'zod';
import { readCheckpoint } from '../../../core/checkpoint.ts';
import type { Logger } from '../../../core/log.ts';
import type { RowsAt } from '../../../core/map-rows.ts';
import type { IncomingRecord, ModelName } from '../../../core/models.ts';
import { errorMessage, UpstreamError } from '../../../core/errors.ts';
import type { AnalysisFilter, AnalysisQuery, TenableScClient } from '../client.ts';
import type { AnalysisPage as AnalysisPageResult } from '../map/envelope.ts';
import type { HostResolver } from '../map/host-resolver.ts';
import type { PageKind, PageWorker } from './page-worker.ts';

/** Tenable.sc error 146: a filter name this console does not know. */
export function isUnknownFilterError(err: unknown): boolean {
  return err instanceof UpstreamError && /error 146\b|filter '[^']*' is invalid/i.test(err.message);
}

/**
 * The incremental window's start when the scan results cannot be read: this long before the last run.
 *
 * Why a window reaches back at all: a finding's `lastSeen` is when the scan saw it, but /analysis
 * shows it only once that scan's results are imported (fact sheet §12, "Data freshness"), which is the
 * scan's duration plus its import later. A finding seen at T − 3 h by a scan whose import finished after
 * the last run (at T) has a `lastSeen` before T: a window starting at T would never read it. Clock skew
 * is not the reason: `until` is already the console's own clock (the first answer's envelope timestamp).
 * Issue 30 narrowed it: a fresh incremental run reads the scan results imported since the last run
 * (GET /rest/scanResult, scan-window.ts) and starts at the earliest start of those scans, less a margin;
 * only when the console will not list them (no permission, an error, an answer not understood), or for
 * a scan whose findings may predate its start (agent results, uploaded files), does it keep these 12 h.
 */
export const OVERLAP_SECONDS = 12 * 3600;

/** A stream's checkpoint, as stored: read back through this schema (core/checkpoint.ts). */
export const cursorSchema = z.object({
  v: z.literal(1),
  phase: z.string(),
  offset: z.number().int().nonnegative(),
  since: z.number().nullable(),
  until: z.number(),
});
export type Cursor = z.infer<typeof cursorSchema>;

export function isCursor(v: unknown): v is Cursor {
  return cursorSchema.safeParse(v).success;
}

type StartContext = Pick<StreamContext, 'mode' | 'checkpoint' | 'resumed'> & { log?: Logger; stream?: string };

/**
 * Where a run starts: the stored page on resume, else from scratch (`since` null). On a fresh
 * incremental run `prevUntil` is the last run's `until`, for the caller to set `since` from
 * (scan-window.ts); otherwise null. A stored checkpoint that is not valid is logged (ctx.log) and read
 * as none: a full read.
 */
export function planStart(ctx: StartContext, phases: string[], now = Math.floor(Date.now() / 1000)): { cursor: Cursor; prevUntil: number | null } {
  const cp = readCheckpoint(cursorSchema, ctx.checkpoint, { stream: ctx.stream ?? phases.join('/'), log: ctx.log }).value;
  if (ctx.resumed && cp && (cp.phase === 'done' || phases.includes(cp.phase))) return { cursor: { ...cp }, prevUntil: null };
  const first = phases[0] ?? 'done';
  const cursor: Cursor = { v: 1, phase: first, offset: 0, since: null, until: now };
  return ctx.mode === 'incremental' && cp ? { cursor, prevUntil: cp.until } : { cursor, prevUntil: null };
}

/** planStart with the fixed overlap: the window the streams fall back to (scan-window.ts says when). */
export function startCursor(ctx: StartContext, phases: string[], now = Math.floor(Date.now() / 1000)): Cursor {
  const { cursor, prevUntil } = planStart(ctx, phases, now);
  return prevUntil === null ? cursor : { ...cursor, since: Math.max(0, prevUntil - OVERLAP_SECONDS) };
}

/** How far past `since` the window reaches: open-ended in practice, and fixed by `since` alone so a
 * resumed run sends exactly the filter the interrupted one paged with. */
const WINDOW_SPAN = 10 * 365 * 86400;

export function windowValue(c: Pick<Cursor, 'since'>): string | null {
  return c.since === null ? null : `${c.since}-${c.since + WINDOW_SPAN}`;
}

/** A run that did not resume from a stored page: it adopts the console's clock as `until`. */
export function isFresh(ctx: Pick<StreamContext, 'checkpoint' | 'resumed'>): boolean {
  return !(ctx.resumed && isCursor(ctx.checkpoint));
}

export type Mapped = Partial<Record<ModelName, IncomingRecord[]>>;

export interface AnalysisPhase {
  name: string;
  query: Omit<AnalysisQuery, 'offset' | 'limit'>;
  /**
   * Filters to use instead when the console rejects one of `query.filters` as unknown (error 146):
   * e.g. `lastMitigated` is not offered by every version (the patched set is then read whole).
   */
  fallbackFilters?: AnalysisFilter[];
  /** Maps one page of rows (through core's mapRows, given `at`); `errors` counts rows that could not be mapped, `failures` lists them. */
  map(rows: Record<string, unknown>[], at: RowsAt): { records: Mapped; errors: number; failures?: RowFailure[] };
  /**
   * The same mapping done on a page thread (page-worker.ts), when the stream has one: findings rows of
   * this set, their hosts resolved by `hosts` on this thread.
   */
  onThread?: { as: PageKind; hosts: HostResolver };
}

/** A page thread, and a client that can hand it answers (a test's fake client cannot). */
type Threaded = { pages: PageWorker; client: TenableScClient };

/**
 * Pages through the phases from `start`, at most three pages in memory at a time: while the caller
 * stores a page, the next one of the same phase is mapped and the one after it is being built by
 * the console. A phase ends on an empty or short page, or when the offset reaches totalRecords (when the
 * console sent one).
 */
export async function* runAnalysisPhases(
  client: TenableScClient,
  ctx: StreamContext,
  phases: AnalysisPhase[],
  start: Cursor,
  pageSize: number,
  after = 'done',
  pages?: PageWorker,
): AsyncGenerator<Page> {
  const threaded: Threaded | null = pages && typeof client.fetchAnalysisPageOn === 'function' ? { pages, client } : null;
  let cursor = start;
  let adoptClock = isFresh(ctx);
  let i = phases.findIndex((p) => p.name === cursor.phase);
  if (i < 0) i = phases.length;
  /** A page as the loop needs it once mapped: its rows are let go then, not held while it waits its turn. */
  type Fetched = { page: PageShape; mapped: ReturnType<AnalysisPhase['map']> };
  /** One phase's pages asked for and not taken by the loop yet, in offset order. */
  let queue: { offset: number; fetched: Promise<Fetched> }[] = [];
  /** Requests whose answer has not started to arrive: the console is still building it. */
  let atConsole = 0;
  let requestAt = 0;
  let total: number | null = null;
  let ended = false;
  /** Pages are mapped in offset order (the mappers learn hosts and plugins as they go). */
  let mappedBefore: Promise<unknown> = Promise.resolve();
  /** Requests of an abandoned queue (restart) no longer steer the current one. */
  let generation = 0;
  const request = (phase: AnalysisPhase, q: AnalysisPhase['query'], offset: number): void => {
    atConsole++;
    const mine = generation;
    let arrived = false;
    const onHeaders = () => {
      if (arrived) return;
      arrived = true;
      if (mine !== generation) return;
      atConsole--;
      pump(phase, q);
    };
    /** What the page's arrival tells the queue: the console's total, whether the phase ends here. */
    const learn = (shape: PageShape) => {
      onHeaders();
      if (mine !== generation) return;
      if (shape.total !== null) total = shape.total;
      if (isLastPage(shape, offset, pageSize)) ended = true;
      else pump(phase, q);
    };
    const before = mappedBefore;
    const at = { what: phase.name, firstRow: offset + 1, log: ctx.log };
    const remote = threaded ? phase.onThread : undefined;
    let page: Promise<unknown>;
    let fetched: Promise<Fetched>;
    if (threaded && remote) {
      // Parsed and mapped on the page thread; the hosts resolved here, in page order (`before`).
      const p = threaded.client.fetchAnalysisPageOn(threaded.pages, { ...q, offset, limit: pageSize }, { signal: ctx.signal, onHeaders });
      page = p;
      fetched = p.then(async (parsed) => {
        const shape: PageShape = { rowCount: parsed.rowCount, total: parsed.total, timestamp: parsed.timestamp };
        learn(shape);
        return { page: shape, mapped: await threaded.pages.map(parsed.id, remote.as, at, remote.hosts, before) };
      });
    } else {
      const p = client.fetchAnalysisPage({ ...q, offset, limit: pageSize }, { signal: ctx.signal, onHeaders });
      page = p;
      fetched = p.then(async (answer) => {
        const shape = shapeOf(answer);
        learn(shape);
        await before;
        const mapped = answer.rows.length > 0 ? phase.map(answer.rows, at) : { records: {}, errors: 0 };
        return { page: shape, mapped };
      });
    }
    // A failed request is no longer at the console; its error is handled where it is awaited. This
    // only keeps a page asked for ahead and then abandoned from counting as an unhandled rejection.
    page.catch(onHeaders);
    fetched.catch(() => {});
    // (settles with nothing: holding the page itself would keep it in memory until the next request)
    mappedBefore = fetched.then(
      () => undefined,
      () => undefined,
    );
    queue.push({ offset, fetched });
    requestAt = offset + pageSize;
  };
  /**
   * Asks for the next page as soon as the console has built the last one asked for (its answer
   * starts to arrive), so it builds one page while we read, parse and map another; at most one
   * request at the console and two pages ahead of the loop. Past the first page only while the
   * console's total says there is more.
   */
  const pump = (phase: AnalysisPhase, q: AnalysisPhase['query']): void => {
    while (!ended && atConsole === 0 && queue.length < 2 && !ctx.signal.aborted && (queue.length === 0 || (total !== null && requestAt < total)))
      request(phase, q, requestAt);
  };
  const restart = (offset: number) => {
    generation++;
    atConsole = 0;
    queue = [];
    ended = false;
    total = null;
    requestAt = offset;
  };
  for (; i < phases.length; i++) {
    const phase = phases[i]!;
    let offset = phase.name === cursor.phase ? cursor.offset : 0;
    let query = phase.query;
    // The page budget of this phase, from the first total the console gave (it may grow while paging a
    // live database, hence the margin; it cannot grow page after page to keep a run going forever).
    let budget: { pages: number; why: string } | null = null;
    let pages = 0;
    for (;;) {
      ctx.signal.throwIfAborted();
      let fetched: Fetched;
      try {
        if (queue[0]?.offset !== offset) {
          restart(offset);
          pump(phase, query);
        }
        fetched = await queue[0]!.fetched;
        queue.shift();
      } catch (err) {
        restart(offset);
        if (!phase.fallbackFilters || query !== phase.query || !isUnknownFilterError(err)) throw err;
        ctx.log.warn({ phase: phase.name, err: errorMessage(err) }, 'the console rejected a filter; using the fallback filters');
        query = { ...phase.query, filters: phase.fallbackFilters };
        continue;
      }
      const { page } = fetched;
      if (adoptClock && page.timestamp) cursor = { ...cursor, until: page.timestamp };
      adoptClock = false;
      const n = page.rowCount;
      pages++;
      if (budget === null && page.total !== null) budget = pageBudget(page.total, offset, pageSize);
      if (budget !== null && pages > budget.pages) {
        throw new UpstreamError(`${phase.name}: stopped after ${budget.pages} pages, the page budget (${budget.why})`, {
          hint: 'The console keeps answering full pages past its own total; if it really holds more, set TRIBUTARY_MAX_PAGES to a larger number of pages',
        });
      }
      const next = offset + n;
      const last = isLastPage(page, offset, pageSize);
      // (a new phase, or a page that was not where the queue expected it, restarts the queue above)
      if (!last) pump(phase, query);
      const nextPhase = phases[i + 1]?.name ?? after;
      cursor = last ? { ...cursor, phase: nextPhase, offset: 0 } : { ...cursor, phase: phase.name, offset: next };
      const { records, errors, failures } = fetched.mapped;
      if (n > 0 || last) {
        ctx.log.debug({ phase: phase.name, offset, rows: n, total: page.total }, 'tenable-sc page');
        yield { records, checkpoint: cursor, ...(errors > 0 ? { errors, failures } : {}) };
      }
      if (last) break;
      offset = next;
    }
  }
}

/** What the paging loop reads of a page: its size, the console's total and its clock. */
interface PageShape {
  rowCount: number;
  total: number | null;
  timestamp?: number | null;
}

function shapeOf(p: AnalysisPageResult): PageShape {
  return { rowCount: p.rows.length, total: p.total, timestamp: p.timestamp };
}

/** Whether a phase ends with this page: an empty or short page, or the offset reaches the console's total. */
function isLastPage(page: PageShape, offset: number, pageSize: number): boolean {
  const n = page.rowCount;
  return n === 0 || n < pageSize || (page.total !== null && offset + n >= page.total);
}

/** Pages one query may take: TRIBUTARY_MAX_PAGES, else twice what the console's own total needs (+10). */
export function pageBudget(total: number, offset: number, pageSize: number): { pages: number; why: string } {
  const set = Number(process.env.TRIBUTARY_MAX_PAGES);
  if (Number.isInteger(set) && set > 0) return { pages: set, why: 'TRIBUTARY_MAX_PAGES' };
  return { pages: 2 * Math.ceil(Math.max(0, total - offset) / pageSize) + 10, why: `twice what the console's total of ${total} rows needs` };
}

export function timeFilter(name: string, c: Cursor): AnalysisFilter[] {
  const w = windowValue(c);
  return w ? [{ filterName: name, operator: '=', value: w }] : [];
}
