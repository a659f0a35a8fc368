// What keeps a run on bad upstream data from doing harm: the sweep guard (a full run that read far
// fewer records than the last complete one does not mark the rest removed), the page budget (a
// stream cannot page forever), and the run deadline. The last complete full run's figures are the
// baseline, kept in the source's state.
import { formatDuration } from '../core/http.ts';
import type { SweepPreview } from '../store/records.ts';

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
