// When a finding was opened and fixed, as SQL over one of its events `e` joined to the finding `v`: the
// scanner's own dates where it sent them (first seen, mitigation), else when a run saw the change. The
// trends and the remediation report both read these, so a first import already has the scanner's history
// and every view gives one answer.

/**
 * The feed's finding events, for a query that also bounds their time: the model compared as an
 * expression, so SQLite (which keeps no statistics) reads the window from the time index instead of
 * every finding event from the model's.
 */
export const FINDING_EVENTS_IN_WINDOW = `(e."model" || '') = 'vulnerabilities'`;

/** Events that fix a finding: a fix a run saw, or a finding first stored already fixed (a first import of the scanner's fixed set). */
export const FIX_EVENT = `(e."change" = 'fixed' OR (e."change" = 'new' AND e."to" = 'fixed'))`;

/**
 * The scanner's mitigation date is fix event e's when it is not after the event and not before a
 * reopening that came before the event (a fix after a later reopening has a later date).
 */
const SCANNER_FIXED = `(v."mitigated_at" IS NOT NULL AND v."mitigated_at" <= e."at" AND (v."reopened_at" IS NULL OR v."reopened_at" > e."at" OR v."mitigated_at" >= v."reopened_at"))`;

/**
 * When fix event e fixed its finding: the scanner's mitigation date, else when the run saw it fixed;
 * NULL for a finding first stored already fixed without the scanner's date (nobody knows when).
 */
export const FIX_DATE = `(CASE WHEN ${SCANNER_FIXED} THEN v."mitigated_at" WHEN e."change" = 'fixed' THEN e."at" END)`;

/** When event e opened its finding: a finding's first event at the scanner's first-seen date (not after the event), a reopening when a run saw it. */
export const OPEN_DATE = `(CASE WHEN e."change" = 'new' AND v."first_seen" < e."at" THEN v."first_seen" ELSE e."at" END)`;

/** Why the mean time to remediate is blank, or null when it is a number. */
export function meanBlankReason(fixed: number, undated: number): string | null {
  if (fixed === 0) return 'no finding fixed in this window';
  if (undated >= fixed) return 'no mitigation date: found already fixed by the first import, and the scanner sent no date';
  return null;
}
