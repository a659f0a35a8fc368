// CSV and JSON Lines of any model: every field of the model, in the model's order, as `query` prints them.
import { fieldsOf, type ModelName } from '../core/models.ts';

/** A number as a spreadsheet reads one (`-1`, `+3.5`, `.5`, `1e5`): left as it is, never taken for a formula. */
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
/** What a spreadsheet starts a formula (or, for tab and CR, a formula after trimming) with. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** What makes a cell need more than its text: a formula's first character (FORMULA_START), or a character to quote. */
const CELL_AS_IS = /^[=+\-@\t\r]|[",\n\r]/;

/**
 * A text cell a spreadsheet could run as a formula (`=HYPERLINK(…)`, `+cmd|…`, `@SUM(…)`, `-2+3`)
 * prefixed with `'`, as OWASP's CSV injection advice has it; plain numbers stay as they are.
 */
export function neutraliseCsvText(s: string): string {
  return FORMULA_START.test(s) && !PLAIN_NUMBER.test(s) ? `'${s}` : s;
}

/**
 * One CSV cell: lists joined with `;`, objects as JSON, quoted when needed. Upstream text is neutralised
 * (neutraliseCsvText) unless `neutralise` is false (`--no-csv-escape`, `?csvEscape=false`: the cells raw).
 */
export function csvField(v: unknown, neutralise = true): string {
  // Most cells of a record: nothing, a number or a boolean, which need no test (no quote, no formula).
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  let s: string;
  if (Array.isArray(v)) s = v.join(';');
  else if (typeof v === 'object') s = JSON.stringify(v);
  else s = String(v);
  // The usual text: neither a formula's start nor anything to quote (one test rather than two).
  if (!CELL_AS_IS.test(s)) return s;
  // A number from the record is no text cell (`-1` and `-Infinity` alike; numbers returned above).
  if (neutralise && typeof v !== 'bigint') s = neutraliseCsvText(s);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV line of cells (csvField each). */
export function csvLine(cells: unknown[], neutralise = true): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) line += (i === 0 ? '' : ',') + csvField(cells[i], neutralise);
  return line;
}

export function csvColumns(model: ModelName): string[] {
  return fieldsOf(model).map((f) => f.name);
}

export function csvHeader(model: ModelName): string {
  return csvLine(csvColumns(model));
}

export function csvRow(columns: string[], rec: Record<string, unknown>, neutralise = true): string {
  let line = '';
  for (let i = 0; i < columns.length; i++) line += (i === 0 ? '' : ',') + csvField(rec[columns[i]], neutralise);
  return line;
}
