// Header handling for CSV exports: headers are matched by name, case-, spacing- and punctuation-
// insensitively, through per-kind alias tables; the kind of a file is recognised from its header.
import { isIP } from 'node:net';
import type { AddRecord, IncomingRecord, ModelName } from '../../core/models.ts';

/** "DueBy Time" → "duebytime", "Exploit?" → "exploit", "IP Address" → "ipaddress". */
export function normHeader(h: string): string {
  return h
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

export interface ColumnDef {
  /** Our name for the column's value. */
  field: string;
  /** Header spellings accepted (any case, spacing or punctuation); the first is the one shown in messages. */
  headers: string[];
}

/** A copy of `s` that does not share the memory of the string it was cut from. */
export function detach(s: string): string {
  return ` ${s}`.slice(1);
}

/** A data row of a file, read through the header's column map. */
export class CsvRow {
  readonly fields: string[];
  readonly line: number;
  readonly #index: Map<string, number>;

  constructor(fields: string[], line: number, index: Map<string, number>) {
    this.fields = fields;
    this.line = line;
    this.#index = index;
  }

  /** Whether the file has the column at all. */
  has(field: string): boolean {
    return this.#index.has(field);
  }

  /** The raw cell; undefined when the file has no such column. */
  raw(field: string): string | undefined {
    const i = this.#index.get(field);
    return i === undefined ? undefined : (this.fields[i] ?? '');
  }

  /**
   * Trimmed cell, null when blank or `N/A`; undefined when the file has no such column. A value kept
   * in a record is a copy: a substring would keep the whole decoded chunk it came from alive (V8 sliced
   * strings), and with it a page's worth of file text.
   */
  get(field: string): string | null | undefined {
    const i = this.#index.get(field);
    if (i === undefined) return undefined;
    const v = (this.fields[i] ?? '').trim();
    if (v === '' || v === 'N/A' || v === 'n/a') return null;
    return v.length >= 13 ? detach(v) : v;
  }
}

/** Thrown by a row mapper to reject one row with a reason (the row's line is added by the caller). */
export class RowError extends Error {}

/** A cell's value for a message: at most 60 characters. */
export function shown(v: string): string {
  return v.length > 60 ? `${v.slice(0, 57)}…` : v;
}

/**
 * The IP addresses of a cell (several separated by commas, semicolons or spaces), each checked: a row
 * naming something that is not an IPv4 or IPv6 address is rejected rather than keyed on it.
 */
export function ipAddressesOf(cell: string | null | undefined, header: string): string[] {
  const out: string[] = [];
  for (const part of (cell ?? '').split(/[\s,;]+/)) {
    if (part === '') continue;
    if (!isIP(part)) throw new RowError(`${header} '${shown(part)}' is not an IPv4 or IPv6 address`);
    out.push(part);
  }
  return out;
}

export type MappedRecords = Partial<Record<ModelName, IncomingRecord[]>>;

export interface RowMapper {
  /** Maps one row; `add` collects records. Throws RowError to reject the row. */
  map(row: CsvRow, add: AddRecord): void;
}

/** One kind of export a connector accepts (e.g. the Vulnerability Detail List). */
export interface FileKind {
  /** Stored with each import as its `kind`. */
  name: string;
  /** Shown in messages ("Vulnerability Detail List export"). */
  label: string;
  columns: ColumnDef[];
  /** Fields a record cannot live without; each entry is one field, or alternatives separated by `|`. */
  required: string[];
  /** Fields that mark a header as this kind: at least `minSignature` of them (default 2) must be present. */
  signature: string[];
  minSignature?: number;
  /** Header spellings whose presence rules this kind out (e.g. a plugin column in a host list). */
  excludes?: string[];
  /** Models its rows write. */
  writes: ModelName[];
  /**
   * Export kinds read together: when a run reads new files of a group but none of a kind that builds
   * the host index (`hostIndex`), the group's imported files of such kinds are read again for that
   * state alone, storing nothing (a host list finds the hosts a vulnerability export named).
   */
  group: string;
  /** Its rows build the state (the host index) later kinds of its group rely on. */
  hostIndex?: boolean;
  /** Models every run sweeps within the scope its clean exports covered (docs/csv-import.md). */
  sweeps: ModelName[];
  /**
   * The part of the upstream an export covers beyond its own file name: each row names one (e.g.
   * its repository, in the CSV field `column`), the host field `hostField` holds it, and a newer
   * export naming it is its whole state. Rows naming none are in their file name's scope.
   */
  scope?: { hostField: string; column: string; of(row: CsvRow): string | null | undefined };
  /** A mapper for one file (it may keep per-file state). `shared` lives for one run of the stream. */
  mapper(shared: Map<string, unknown>, header: HeaderInfo): RowMapper;
}

export interface HeaderInfo {
  /** The header cells as written. */
  names: string[];
  /** Column index of each field the file has. */
  index: Map<string, number>;
}

export interface HeaderMatch {
  kind: FileKind;
  index: Map<string, number>;
  /** Headers that matched no column of the kind (ignored). */
  unknown: string[];
}

export type Detection = { ok: true; match: HeaderMatch } | { ok: false; reason: string };

function indexFor(kind: FileKind, normalized: string[]): { index: Map<string, number>; unknown: number[] } {
  const byHeader = new Map<string, string>();
  for (const c of kind.columns) for (const h of c.headers) byHeader.set(normHeader(h), c.field);
  const index = new Map<string, number>();
  const unknown: number[] = [];
  normalized.forEach((h, i) => {
    const f = byHeader.get(h);
    // The first column of a name wins; later duplicates are ignored.
    if (f && !index.has(f)) index.set(f, i);
    else if (!f) unknown.push(i);
  });
  // Alias order matters when a file has two spellings of one field (e.g. `Plugin Output` and `Plugin Text`):
  // prefer the spelling listed first.
  for (const c of kind.columns) {
    for (const h of c.headers) {
      const i = normalized.indexOf(normHeader(h));
      if (i >= 0) {
        index.set(c.field, i);
        break;
      }
    }
  }
  return { index, unknown };
}

function label(kind: FileKind, field: string): string {
  const alts = field.split('|');
  return alts
    .map((f) => {
      const c = kind.columns.find((x) => x.field === f);
      if (!c) return f;
      const [first, ...rest] = c.headers;
      return rest.length ? `${first} (or ${rest.slice(0, 3).join(', ')})` : first!;
    })
    .join(' or ');
}

/** Recognises the export kind of a header row; says exactly what is missing when it is close. */
export function detectKind(header: string[], kinds: FileKind[], what: string): Detection {
  const normalized = header.map(normHeader);
  if (normalized.every((h) => h === '')) return { ok: false, reason: 'the first line is empty: no header row' };
  let best: { kind: FileKind; index: Map<string, number>; unknown: number[]; sig: number; score: number } | null = null;
  for (const kind of kinds) {
    if (kind.excludes?.some((h) => normalized.includes(normHeader(h)))) continue;
    const { index, unknown } = indexFor(kind, normalized);
    const sig = kind.signature.filter((f) => index.has(f)).length;
    const score = sig * 1000 + index.size;
    if (!best || score > best.score) best = { kind, index, unknown, sig, score };
  }
  const missing = best ? best.kind.required.filter((req) => !req.split('|').some((f) => best.index.has(f))) : [];
  if (best && (best.sig >= (best.kind.minSignature ?? 2) || (best.sig >= 2 && missing.length > 0))) {
    if (missing.length) {
      return {
        ok: false,
        reason: `looks like a ${best.kind.label} export but lacks the required column${missing.length > 1 ? 's' : ''}: ${missing.map((f) => label(best.kind, f)).join('; ')}`,
      };
    }
  } else {
    const shown = header
      .slice(0, 8)
      .map((h) => JSON.stringify(h.length > 40 ? `${h.slice(0, 40)}…` : h))
      .join(', ');
    return {
      ok: false,
      reason: `not a ${what} export: the header (${shown}${header.length > 8 ? ', …' : ''}) matches none of the accepted exports (${kinds.map((k) => k.label).join(', ')}); see docs/csv-import.md for the accepted columns`,
    };
  }
  return { ok: true, match: { kind: best.kind, index: best.index, unknown: best.unknown.map((i) => header[i] ?? '') } };
}
