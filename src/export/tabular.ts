// CSV and JSON Lines of any model: every field of the model, in the model's order, as `query` prints them.
import { fieldsOf, type ModelName } from '../core/models.ts';

/** One CSV cell: lists joined with `;`, objects as JSON, quoted when needed; a leading = + - @ is quoted so spreadsheets do not run it. */
export function csvField(v: unknown): string {
  let s: string;
  if (v === null || v === undefined) s = '';
  else if (Array.isArray(v)) s = v.join(';');
  else if (typeof v === 'object') s = JSON.stringify(v);
  else s = String(v);
  return /[",\n\r]/.test(s) || /^[=+\-@]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvColumns(model: ModelName): string[] {
  return fieldsOf(model).map((f) => f.name);
}

export function csvHeader(model: ModelName): string {
  return csvColumns(model).map(csvField).join(',');
}

export function csvRow(columns: string[], rec: Record<string, unknown>): string {
  let line = '';
  for (let i = 0; i < columns.length; i++) line += (i === 0 ? '' : ',') + csvField(rec[columns[i]]);
  return line;
}
