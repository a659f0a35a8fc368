// What keeps a run on bad upstream data from doing harm: the sweep guard (a full run that read far
// fewer records than the last complete one does not mark the rest removed), the page budget (a
// stream cannot page forever), the repeated-page guard (nor page through the same rows), and the run
// deadline. The last complete full run's figures are the baseline, kept in the source's state.
import { createHash } from 'node:crypto';
import type { Page, ScopedSweep, SweepScope } from '../core/connector.ts';
import type { ModelName } from '../core/models.ts';
import { UpstreamError } from '../core/errors.ts';
import { formatDuration } from '../core/format.ts';
import type { SweepPreview } from '../store/index.ts';

/** A sweep that would remove more than this share of a model's live records needs confirmation… */
export const MAX_REMOVAL_SHARE = 0.5;
/** …when the run stored fewer than this share of the records the last complete full run stored. */
export const MIN_READ_SHARE = 0.5;
/** The share rule leaves small removals alone (a handful of records is no wiped inventory). */
export const MIN_GUARDED_REMOVAL = 10;
/** Without a baseline (or TRIBUTARY_MAX_PAGES), a stream reads at most this many pages in a run. */
export const DEFAULT_MAX_PAGES = 100_000;
export const DEFAULT_RUN_DEADLINE_MS = 24 * 3600_000;

/** Kept in the source state under `syncBaseline` after each succeeded full run. */
export interface SyncBaseline {
  runId: string;
  at: string;
  /** Records of each model the run stored. */
  records: Record<string, number>;
  /** Pages each stream read. */
  pages: Record<string, number>;
}

/** Kept in the source state under `syncGuard` while a refused sweep awaits a good full run. */
export interface SyncGuardState {
  refusedGeneration: string;
}

export function readBaseline(state: Record<string, unknown>): SyncBaseline | null {
  const b = state.syncBaseline as SyncBaseline | undefined;
  return b && typeof b === 'object' && b.records && b.pages ? b : null;
}

export function readGuard(state: Record<string, unknown>): SyncGuardState | null {
  const g = state.syncGuard as SyncGuardState | undefined;
  return g && typeof g.refusedGeneration === 'string' ? g : null;
}

/**
 * The models whose sweep is refused, each with why: it would remove every live record, or more than
 * half of them (when more than 10) when the run stored less than half of what the last complete run stored.
 */
export function refusedSweeps(preview: Record<string, SweepPreview>, lastRecords: Record<string, number> | null): string[] {
  const out: string[] = [];
  for (const [model, p] of Object.entries(preview)) {
    if (p.unseen === 0 || p.live === 0) continue;
    const last = lastRecords?.[model];
    const all = p.unseen >= p.live;
    const fewer = last !== undefined && p.seen < last * MIN_READ_SHARE;
    if (!all && !(p.unseen > MIN_GUARDED_REMOVAL && p.unseen > p.live * MAX_REMOVAL_SHARE && fewer)) continue;
    const read = `this run stored ${p.seen}${last !== undefined ? ` (the last complete run ${last})` : ''}`;
    out.push(`${model}: it would mark ${all ? 'all' : p.unseen} of ${p.live} records removed and ${read}`);
  }
  return out;
}

/**
 * Within one scope of a file snapshot (a repository, a file name): the models whose sweep would mark
 * more than half of the scope's live records removed (when more than 10), each with why. The snapshot
 * of that scope looks truncated; the scope is left as it was.
 */
export function refusedScopeSweeps(scope: string, preview: Record<string, { live: number; unseen: number }>): string[] {
  const out: string[] = [];
  for (const [model, p] of Object.entries(preview)) {
    if (p.unseen > MIN_GUARDED_REMOVAL && p.unseen > p.live * MAX_REMOVAL_SHARE)
      out.push(`${model} of ${scope}: it would mark ${p.unseen} of its ${p.live} records removed`);
  }
  return out;
}

export const isScopedSweep = (x: unknown): x is ScopedSweep => typeof x === 'object' && x !== null && 'scope' in x;

/**
 * The sweep guard per scope of a file snapshot: each repository and each file name a scoped sweep
 * covers is previewed alone, and one whose sweep would remove most of what it held is left out (unless
 * the user allowed large removals). Returns the sweeps to run and the refusals.
 */
export async function guardScopes(
  preview: (models: ModelName[], scope: SweepScope) => Promise<Record<string, { live: number; unseen: number }>>,
  sweeps: ScopedSweep[],
  allowLargeRemoval: boolean,
): Promise<{ scoped: ScopedSweep[]; refused: string[] }> {
  const scoped: ScopedSweep[] = [];
  const refused: string[] = [];
  for (const { models, scope } of sweeps) {
    const hf = scope.hostField;
    const origins: string[] = [];
    const originKeys: string[] = [];
    const values: string[] = [];
    for (const [i, origin] of scope.origins.entries()) {
      const key = scope.originKeys?.[i] ?? origin;
      const one: SweepScope = { origins: [origin] };
      const no = refusedScopeSweeps(`file '${key}'`, await preview(models, one));
      refused.push(...no);
      if (no.length === 0 || allowLargeRemoval) {
        origins.push(origin);
        originKeys.push(key);
      }
    }
    for (const v of hf?.values ?? []) {
      const one: SweepScope = { origins: [], hostField: { name: hf!.name, values: [v] } };
      const no = refusedScopeSweeps(`${hf!.name} '${v}'`, await preview(models, one));
      refused.push(...no);
      if (no.length === 0 || allowLargeRemoval) values.push(v);
    }
    if (origins.length > 0 || values.length > 0)
      scoped.push({ models, scope: { origins, originKeys, ...(hf && values.length > 0 ? { hostField: { name: hf.name, values } } : {}) } });
  }
  return { scoped, refused };
}

export function scopeRefusalMessage(refusals: string[]): string {
  return `did not sweep these scopes of the export (nothing in them was marked removed or fixed; the others were): ${refusals.join('; ')}. If those records really are gone, run sync --full --allow-large-removal`;
}

export function sweepRefusalMessage(refusals: string[]): string {
  return `did not sweep (nothing was marked removed or fixed): ${refusals.join('; ')}. If the upstream really dropped these records, run sync --full --allow-large-removal`;
}

const envInt = (name: string): number | null => {
  const v = Number(process.env[name]);
  return Number.isInteger(v) && v > 0 ? v : null;
};

/** Pages one stream may read in a run: TRIBUTARY_MAX_PAGES, else 4 × the last complete run's (at least +100), else 100,000. */
export function streamPageBudget(lastPages: number | undefined): { pages: number; why: string } {
  const set = envInt('TRIBUTARY_MAX_PAGES');
  if (set) return { pages: set, why: 'TRIBUTARY_MAX_PAGES' };
  if (lastPages !== undefined && lastPages > 0) {
    return 4 * lastPages >= lastPages + 100
      ? { pages: 4 * lastPages, why: `4 × the ${lastPages} pages of the last complete run` }
      : { pages: lastPages + 100, why: `the ${lastPages} pages of the last complete run + 100` };
  }
  return { pages: DEFAULT_MAX_PAGES, why: 'the default' };
}

export function pageBudgetMessage(stream: string, budget: { pages: number; why: string }): string {
  return `${stream}: stopped after ${budget.pages} pages, the page budget (${budget.why}); the upstream may be paging forever. If it really holds that much more, set TRIBUTARY_MAX_PAGES to a larger number of pages`;
}

export function runDeadlineMs(): number {
  return envInt('TRIBUTARY_SYNC_DEADLINE_MS') ?? DEFAULT_RUN_DEADLINE_MS;
}

export function runDeadlineMessage(ms: number): string {
  return `the run passed its deadline of ${formatDuration(ms)} and stopped (set TRIBUTARY_SYNC_DEADLINE_MS to allow longer runs); the next run resumes from its checkpoints`;
}

/** A page is compared with this many pages before it (a console may cycle through a few). */
export const REPEAT_WINDOW = 3;

/**
 * Stops a stream whose upstream answers the same records again: a console that ignores the page
 * position answers every page full with its first rows and a total of a billion, and would be paged
 * until the page budget. A page repeats when it has the keys of one of the last REPEAT_WINDOW
 * pages, in the same order, and the same first and last record of each model (fields and values):
 * a stream's phases may name the same records again on purpose (a host from the scan summary, then
 * its inventory facts, then the console's host list), and those carry other fields. Keys and two
 * records per model keep the check cheap (hashing every field of every record would cost more than
 * mapping the page). Pages without records are not compared. For API streams only: the
 * same export uploaded twice is read twice on purpose.
 */
export class PageRepeatGuard {
  #pages = 0;
  readonly #recent: { page: number; signature: string }[] = [];

  /** Throws an UpstreamError naming the repetition when this page repeats a recent one. */
  check(records: Page['records']): void {
    this.#pages++;
    let text = '';
    let n = 0;
    for (const [model, list] of Object.entries(records)) {
      if (!list?.length) continue;
      text += `${model}\u0001${JSON.stringify(list[0]!.fields)}\u0001${JSON.stringify(list[list.length - 1]!.fields)}\u0001`;
      for (const r of list) text += `${r.key}\u0000`;
      n += list.length;
    }
    if (n === 0) return;
    const signature = createHash('sha256').update(text).digest('base64');
    const earlier = this.#recent.find((p) => p.signature === signature);
    if (earlier) {
      const which = earlier.page === this.#pages - 1 ? 'the page before it' : `page ${earlier.page}`;
      throw new UpstreamError(
        `stopped at page ${this.#pages}: the upstream answered the same ${n} records as ${which} (repeated pages: the paging does not advance)`,
        {
          hint: 'The server ignores the page position or loops; nothing of this stream was swept. Check the server, its version and the page size',
        },
      );
    }
    this.#recent.push({ page: this.#pages, signature });
    if (this.#recent.length > REPEAT_WINDOW) this.#recent.shift();
  }
}
