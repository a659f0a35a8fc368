// Rendering for the terminal: tables, CSV, the sync progress line.
import type { StreamCounts } from '../store/index.ts';

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

/**
 * Where a cell may be cut: after a space or a comma, so what is kept are whole words, names and
 * addresses ("fin-ws-00131 …", "10.0.0.1,10.0.0.2,…"), never half of one ("(10.20.0.1…").
 */
function boundaries(s: string): number[] {
  const at: number[] = [];
  for (let i = 1; i < s.length; i++) if (s[i - 1] === ' ' || s[i - 1] === ',') at.push(i);
  return at;
}

/** `s` in at most `w` characters: whole leading tokens and …; a single token longer than `w` is cut where it must. */
export function cutAtWord(s: string, w: number): string {
  if (s.length <= w) return s;
  const fits = boundaries(s).filter((i) => i + 1 <= w);
  const end = fits.length ? fits[fits.length - 1]! : w - 1;
  return s.slice(0, end) + '…';
}

/** The narrowest a cell can be shown without cutting a token: its first token and …, or all of it. */
function narrowest(s: string): number {
  const first = boundaries(s)[0];
  return first === undefined ? s.length : Math.min(s.length, first + 1);
}

function cell(v: unknown, max: number): string {
  let s: string;
  if (v === null || v === undefined) s = '';
  else if (Array.isArray(v)) s = v.join(',');
  else if (typeof v === 'object') s = JSON.stringify(v);
  else s = String(v);
  return cutAtWord(terminalSafe(s.replace(/[ \t\r\n]+/g, ' ')), max);
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
 * A table that fits `width` columns: cells are cut at 40 characters, then columns are narrowed until
 * the lines fit, the one with the most room to spare first, each only as far as its cells can be cut
 * after a word or comma and its header stays whole (a time, a name or an address is never cut). A table
 * that cannot fit that way is shown wider than `width`.
 */
export function fitTable(columns: string[], rows: Record<string, unknown>[], width: number): string {
  const cells = rows.map((r) => columns.map((c) => cell(r[c], 40)));
  const headers = columns.map((c) => c.toUpperCase());
  // How wide column i is when cut to w: its longest cell once cut (a cut can end short of w).
  const shownWidth = (i: number, w: number) => Math.max(headers[i]!.length, ...cells.map((r) => cutAtWord(r[i]!, w).length));
  const widths = columns.map((_, i) => shownWidth(i, Number.POSITIVE_INFINITY));
  const floors = columns.map((_, i) => Math.max(headers[i]!.length, ...cells.map((r) => narrowest(r[i]!))));
  const total = () => widths.reduce((a, w) => a + w, 0) + 2 * (columns.length - 1);
  while (total() > width) {
    const spare = widths.map((w, i) => w - floors[i]!);
    const roomiest = spare.indexOf(Math.max(...spare));
    if (spare[roomiest]! <= 0) break;
    widths[roomiest] = shownWidth(roomiest, widths[roomiest]! - 1);
  }
  const line = (vals: string[]) =>
    vals
      .map((v, i) => cutAtWord(v, widths[i]!).padEnd(widths[i]!))
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
