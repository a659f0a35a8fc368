// Where an incremental run's lastSeen window starts: at the earliest start of the scans whose import
// finished since the last run (GET /rest/scanResult), or 12 hours before the last run when the console
// will not say (cursor.ts, OVERLAP_SECONDS).
//
// A finding shows in /analysis only once the scan that saw it is imported, and its lastSeen is when
// that scan saw it (fact sheet §12, "Data freshness"). So what the last run could not have read is what
// scans imported after it brought, and every such finding was seen after its scan started. The scan
// results' times are the console's clock, as `until` is (cursor.ts).
import { z } from 'zod';
import type { StreamContext } from '../../../core/connector.ts';
import { errorMessage, UpstreamError } from '../../../core/errors.ts';
import type { CallOptions, TenableScClient } from '../client.ts';
import { num, text } from '../map/values.ts';
import type { StreamDeps } from './common.ts';
import { type Cursor, OVERLAP_SECONDS, planStart } from './cursor.ts';

/**
 * Slack on both ends of the window. A scan whose import finished this long before the last run's
 * `until` still counts: `until` is the first page's clock, and the console may show an import's rows a
 * little after stamping it finished (or the reverse). And the window starts this long before the scan
 * did: a finding's lastSeen comes from the scanner's clock, the scan's start from the console's.
 */
export const SCAN_MARGIN_SECONDS = 15 * 60;

/**
 * Scan results are listed by when they were created (the console's `startTime`/`endTime` parameters
 * compare createdTime): those created up to this long before the last run. A scan created earlier
 * still running or importing at the last run would be missed; 30 days is the console's own default.
 */
export const SCAN_LOOKBACK_SECONDS = 30 * 86400;

export const SCAN_RESULT_FIELDS = 'id,status,importStatus,createdTime,startTime,finishTime,importStart,importFinish,resultType,resultSource';

/** An epoch-seconds field: a number or a numeric string; "-1" (not set) reads as null. */
const epochField = z.union([z.number(), z.string().regex(/^\s*-?\d+\s*$/)]).transform((v) => num(v));

const scanResultSchema = z.looseObject({
  id: z.union([z.string(), z.number()]),
  startTime: epochField,
  importFinish: epochField,
  importStatus: z.string().optional(),
  resultType: z.string().optional(),
  resultSource: z.string().optional(),
});

/** GET /rest/scanResult's `response`: the usable and/or manageable lists (a result may be in both). */
export const scanResultPageSchema = z
  .looseObject({ usable: z.array(scanResultSchema).optional(), manageable: z.array(scanResultSchema).optional() })
  .refine((r) => r.usable !== undefined || r.manageable !== undefined, { message: 'neither a usable nor a manageable list' });

export interface ScanImport {
  id: string;
  /** When the scan started, or null when the console did not say. */
  startTime: number | null;
  /** When its import finished, or null while it has not. */
  importFinish: number | null;
  /**
   * An active scan run by the console itself: its findings were seen after it started. Agent results
   * and uploaded files carry sightings from before (an agent scanned earlier; a file holds an older scan).
   */
  seenDuringScan: boolean;
}

/** The scan results of one answer, each once (usable and manageable may list the same result). */
export function readScanImports(response: unknown): ScanImport[] {
  const parsed = scanResultPageSchema.safeParse(response);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UpstreamError(`GET /rest/scanResult: an answer that is not a list of scan results (${issue?.path.join('.') || 'response'}: ${issue?.message})`, {
      hint: null,
    });
  }
  const byId = new Map<string, ScanImport>();
  for (const r of [...(parsed.data.usable ?? []), ...(parsed.data.manageable ?? [])]) {
    const id = String(r.id);
    if (byId.has(id)) continue;
    const type = (text(r.resultType) ?? 'active').toLowerCase();
    const source = (text(r.resultSource) ?? 'internal').toLowerCase();
    byId.set(id, { id, startTime: r.startTime, importFinish: r.importFinish, seenDuringScan: type === 'active' && source === 'internal' });
  }
  return [...byId.values()];
}

/**
 * The window's start for a run after one whose `until` was `prevUntil`: the earliest start of the scans
 * imported since (minus the margin), never later than `prevUntil` minus the margin, so it is nearly empty
 * when nothing was imported. A scan whose findings may predate its start (or whose start is unknown)
 * takes the 12-hour overlap instead, as every scan did before.
 */
export function windowStart(prevUntil: number, scans: readonly ScanImport[]): { since: number; imported: number } {
  let since = prevUntil - SCAN_MARGIN_SECONDS;
  let imported = 0;
  for (const s of scans) {
    if (s.importFinish === null || s.importFinish < prevUntil - SCAN_MARGIN_SECONDS) continue;
    imported++;
    const from = s.seenDuringScan && s.startTime !== null ? s.startTime - SCAN_MARGIN_SECONDS : prevUntil - OVERLAP_SECONDS;
    if (from < since) since = from;
  }
  return { since: Math.max(0, since), imported };
}

/** The scans that may have been imported since `prevUntil`, by the console's scan results. */
export async function fetchScanImports(client: TenableScClient, prevUntil: number, opts: CallOptions = {}): Promise<ScanImport[]> {
  const response = await client.get(
    '/scanResult',
    { fields: SCAN_RESULT_FIELDS, filter: 'completed,optimizeCompletedScans', startTime: Math.max(0, prevUntil - SCAN_LOOKBACK_SECONDS) },
    opts,
  );
  return readScanImports(response);
}

/**
 * One run's window starts. Each stream reads the scan results itself, just before its first page: a
 * scan whose import finishes between that read and the page (its `until`) counts in the next run, whose
 * margin reaches back past it. When the console will not list them (a role without the permission, an
 * error, an answer not understood), the stream keeps the 12-hour overlap, and the run says so once.
 */
export class ScanWindows {
  #told = false;

  async since(client: TenableScClient, ctx: Pick<StreamContext, 'log' | 'signal'>, stream: string, prevUntil: number): Promise<number> {
    try {
      const w = windowStart(prevUntil, await fetchScanImports(client, prevUntil, { signal: ctx.signal }));
      ctx.log.debug(
        { stream, since: w.since, scansImported: w.imported, hoursBeforeLastRun: +((prevUntil - w.since) / 3600).toFixed(2) },
        'incremental window from the scan results',
      );
      return w.since;
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      if (!this.#told) {
        this.#told = true;
        ctx.log.warn(
          { stream, err: errorMessage(err) },
          'cannot read the scan results (GET /rest/scanResult): incremental windows start 12 hours before the last run instead of at the scans imported since',
        );
      }
      return Math.max(0, prevUntil - OVERLAP_SECONDS);
    }
  }
}

/**
 * Where a stream starts: as planStart says (a stored page on resume, from scratch on a full run), and on
 * a fresh incremental run at the window the scan results give. A resumed run keeps the window its
 * checkpoint holds, so it sends the filter it paged with.
 */
export async function streamStart(deps: StreamDeps, ctx: StreamContext, client: TenableScClient, stream: string, phases: string[]): Promise<Cursor> {
  const { cursor, prevUntil } = planStart({ ...ctx, stream }, phases);
  if (prevUntil === null) return cursor;
  const since = await (deps.scanWindows ?? new ScanWindows()).since(client, ctx, stream, prevUntil);
  return { ...cursor, since };
}
