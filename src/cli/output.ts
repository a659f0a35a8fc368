// Rendering for the terminal: tables, CSV, the sync progress line.
import type { StreamCounts } from '../store/store.ts';

export { csvField, csvLine } from '../export/tabular.ts';

/** The help of `--no-csv-escape` (query, changes, export). */
export const CSV_ESCAPE_HELP = "CSV: write text cells raw (by default one that starts with = + - @, tab or CR gets a ' so spreadsheets do not run it)";

// C0 and C1 control characters, DEL, and the bidirectional overrides that reorder what a line shows.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from upstream (names, messages, cells) made safe for a terminal: control characters are shown
 * escaped (`\x1b`, `\n`) instead of being sent, so an upstream value cannot move the cursor, clear the
 * screen, set the window title or hide text.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

function cell(v: unknown, max: number): string {
  let s: string;
  if (v === null || v === undefined) s = '';
  else if (Array.isArray(v)) s = v.join(',');
  else if (typeof v === 'object') s = JSON.stringify(v);
  else s = String(v);
  s = terminalSafe(s.replace(/[ \t\r\n]+/g, ' '));
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

export function renderTable(columns: string[], rows: Record<string, unknown>[], max = 40): string {
  const cells = rows.map((r) => columns.map((c) => cell(r[c], max)));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i].length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n');
}

/**
 * A table that fits `width` columns: cells are cut at 40 characters (with …), then the widest columns
 * are narrowed further until the lines fit (headers included, never below 4 characters).
 */
export function fitTable(columns: string[], rows: Record<string, unknown>[], width: number): string {
  const cells = rows.map((r) => columns.map((c) => cell(r[c], 40)));
  const headers = columns.map((c) => c.toUpperCase());
  const widths = columns.map((_, i) => Math.max(headers[i]!.length, ...cells.map((r) => r[i]!.length)));
  const total = () => widths.reduce((a, w) => a + w, 0) + 2 * (columns.length - 1);
  while (total() > width) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest]! <= 4) break;
    widths[widest]! -= 1;
  }
  const cut = (s: string, w: number) => (s.length > w ? s.slice(0, w - 1) + '…' : s);
  const line = (vals: string[]) =>
    vals
      .map((v, i) => cut(v, widths[i]!).padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(headers), ...cells.map(line)].join('\n');
}

export function formatRate(records: number, ms: number): string {
  const perSec = ms > 0 ? (records * 1000) / ms : 0;
  return perSec >= 1000 ? `${(perSec / 1000).toFixed(1)}k/s` : `${Math.round(perSec)}/s`;
}

export function progressLine(stream: string, counts: Record<string, StreamCounts>, elapsedMs: number): string {
  const total = Object.values(counts).reduce((a, c) => a + c.records, 0);
  const parts = Object.entries(counts)
    .filter(([, c]) => c.records > 0 || c.errors > 0)
    .map(([m, c]) => `${m} ${c.records}${c.errors ? ` (${c.errors} err)` : ''}`);
  return `syncing ${stream}: ${parts.join(', ') || 'starting'} · ${total} records · ${formatRate(total, elapsedMs)} · ${(elapsedMs / 1000).toFixed(0)}s`;
}
