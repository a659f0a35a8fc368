// The remediation SLA: days allowed per severity from a finding's first-seen date (TRIBUTARY_SLA_DAYS,
// default critical 15, high 30, medium 90, low 180), capped by the CISA KEV due date where a feed lists
// one of its CVEs. `dueAt` and `overdue` are computed when read (the policy and the clock change; the
// stored columns do not), and their filters become plain comparisons of stored text dates.
import { InputError } from '../../core/errors.ts';
import type { Severity } from '../../core/models.ts';
import { exceptedFindingsClause } from '../exceptions/exceptions.ts';
import type { Filter } from './filter-syntax.ts';

export type SlaPolicy = Partial<Record<Severity, number>>;

export const DEFAULT_SLA: SlaPolicy = { critical: 15, high: 30, medium: 90, low: 180 };
const SEVERITIES: Severity[] = ['info', 'low', 'medium', 'high', 'critical'];
const DAY_MS = 86_400_000;

/** `critical:15,high:30,…`: the severities named replace their defaults; `low:0` or `low:off` drops one. */
export function parseSlaPolicy(spec: string | undefined): SlaPolicy {
  const policy: SlaPolicy = { ...DEFAULT_SLA };
  if (!spec || spec.trim() === '') return policy;
  for (const part of spec.split(',')) {
    const m = /^\s*(info|low|medium|high|critical)\s*[:=]\s*(\d+|off)\s*$/i.exec(part);
    if (!m)
      throw new InputError(`TRIBUTARY_SLA_DAYS: '${part.trim()}' is not severity:days (e.g. critical:15,high:30,medium:90,low:180)`, 'TRIBUTARY_SLA_DAYS');
    const sev = m[1].toLowerCase() as Severity;
    if (m[2].toLowerCase() === 'off' || m[2] === '0') delete policy[sev];
    else policy[sev] = Number(m[2]);
  }
  return policy;
}

let cached: { spec: string | undefined; policy: SlaPolicy } | null = null;

/** The policy in force (TRIBUTARY_SLA_DAYS, read each time so a changed setting applies at once). */
export function slaPolicy(): SlaPolicy {
  const spec = process.env.TRIBUTARY_SLA_DAYS;
  if (!cached || cached.spec !== spec) cached = { spec, policy: parseSlaPolicy(spec) };
  return cached.policy;
}

const isOpen = (status: unknown) => status === 'open' || status === 'reopened';

type SlaFacts = { status?: unknown; severity?: unknown; firstSeen?: unknown; kevDueDate?: unknown };

/** The last first-seen text parsed and its time: a host's findings of one scan share it, and an export reads them in a row. */
let lastFirstSeen = '';
let lastFirstMs = Number.NaN;

function firstSeenMs(text: string): number {
  if (text !== lastFirstSeen) {
    lastFirstMs = Date.parse(text);
    lastFirstSeen = text;
  }
  return lastFirstMs;
}

/** dueAtOf as epoch milliseconds; NaN for none. */
function dueMsOf(r: SlaFacts, policy: SlaPolicy): number {
  if (!isOpen(r.status)) return Number.NaN;
  const days = policy[r.severity as Severity];
  const first = typeof r.firstSeen === 'string' ? firstSeenMs(r.firstSeen) : Number.NaN;
  let due = days !== undefined && Number.isFinite(first) ? first + days * DAY_MS : Number.NaN;
  const kev = typeof r.kevDueDate === 'string' ? Date.parse(r.kevDueDate) : Number.NaN;
  if (Number.isFinite(kev) && !(kev >= due)) due = kev;
  return due;
}

/** A finding's due date: first seen + its severity's days, or the KEV due date if earlier; null when fixed or without a policy. */
export function dueAtOf(r: SlaFacts, policy = slaPolicy()): string | null {
  const due = dueMsOf(r, policy);
  return Number.isFinite(due) ? new Date(due).toISOString() : null;
}

/** Adds `dueAt` and `overdue` to a finding as read; a finding an approved risk exception covers (`excepted`) is not overdue. */
export function withSla(r: Record<string, unknown>, now = Date.now(), policy = slaPolicy()): void {
  const due = dueMsOf(r, policy);
  // `overdue` compares the due time itself (no second parse of its text).
  const finite = Number.isFinite(due);
  r.dueAt = finite ? dueText(due) : null;
  r.overdue = finite && due < now && r.excepted !== true;
}

/**
 * Due times recently written as text: a host's findings of one scan share their first-seen time, so
 * an export's findings mostly fall on a handful of due dates (one per severity). Emptied when full.
 */
const dueTexts = new Map<number, string>();

function dueText(ms: number): string {
  let text = dueTexts.get(ms);
  if (text === undefined) {
    if (dueTexts.size >= 64) dueTexts.clear();
    text = new Date(ms).toISOString();
    dueTexts.set(ms, text);
  }
  return text;
}

/** Later than any due date (and still a four-digit year, so it compares as text). */
const FAR_FUTURE = Date.parse('9999-01-01T00:00:00.000Z');
const OPEN_SQL = `r."status" IN ('open', 'reopened')`;

/**
 * SQL for `dueAt OP t`: dueAt is the least of the parts (severity's deadline, KEV due date), so
 * `< t` holds when some part is before t (first_seen < t - days), `> t` when every part is after it.
 */
function dueCompare(op: '<' | '<=' | '>' | '>=', t: number, params: unknown[], policy: SlaPolicy): string {
  const parts: string[] = [];
  const below = op === '<' || op === '<=';
  for (const sev of SEVERITIES) {
    const days = policy[sev];
    if (days === undefined) continue;
    params.push(sev, new Date(t - days * DAY_MS).toISOString());
    parts.push(`(r."severity" = ? AND r."first_seen" ${op} ?)`);
  }
  params.push(new Date(t).toISOString());
  const kev = `r."kev_due_date" ${op} ?`;
  if (below) return `(${OPEN_SQL} AND (${[...parts, kev].join(' OR ') || 'FALSE'}))`;
  // Every part after t: the severity's deadline (when it has one) and the KEV date (when there is one), and at least one part.
  const sevs = SEVERITIES.filter((s) => policy[s] !== undefined);
  const sevIn = sevs.length ? `r."severity" IN (${sevs.map((s) => `'${s}'`).join(', ')})` : 'FALSE';
  return `(${OPEN_SQL} AND (${sevIn} OR r."kev_due_date" IS NOT NULL) AND (NOT (${sevIn}) OR ${parts.join(' OR ') || 'FALSE'}) AND (r."kev_due_date" IS NULL OR ${kev}))`;
}

/** The WHERE term of a filter on `dueAt` or `overdue`. */
export function slaFilterClause(f: Filter, params: unknown[], now = Date.now(), policy = slaPolicy()): string {
  if (f.field === 'overdue') {
    const s = f.value.toLowerCase();
    if ((s !== 'true' && s !== 'false') || (f.op !== '=' && f.op !== '!='))
      throw new InputError(`overdue is true or false (overdue=true), got '${f.op}${f.value}'`, f.field);
    const want = (s === 'true') === (f.op === '=');
    // Past due and not covered by an approved, unexpired risk exception (exceptions.ts).
    const due = dueCompare('<', now, params, policy);
    const cond = `(${due} AND NOT ${exceptedFindingsClause('r', new Date(now).toISOString(), params)})`;
    return want ? cond : `NOT COALESCE(${cond}, FALSE)`;
  }
  const v = f.value.trim();
  if (v.toLowerCase() === 'null' && (f.op === '=' || f.op === '!=')) {
    const hasDue = dueCompare('<', FAR_FUTURE, params, policy);
    return f.op === '=' ? `NOT COALESCE(${hasDue}, FALSE)` : hasDue;
  }
  const t = Date.parse(v);
  if (f.op === '=' || f.op === '!=' || f.op === '~' || Number.isNaN(t))
    throw new InputError(`dueAt compares with <, <=, > or >= and a date (dueAt<2026-12-01), or =null`, f.field);
  return dueCompare(f.op, t, params, policy);
}
