// A streaming CSV reader: a hand-written state machine over decoded text chunks (RFC 4180 quoting,
// `""` escapes, quoted fields spanning lines), with BOM handling, encoding and delimiter sniffing and
// physical line numbers. Memory is bounded by one chunk plus the longest record (capped).
import type { Readable } from 'node:stream';
import { TextDecoder } from 'node:util';

export interface CsvRecord {
  fields: string[];
  /** 1-based physical line the record starts on (the header is line 1 in a file without blank lines before it). */
  line: number;
}

export class CsvFormatError extends Error {
  /** Physical line the problem starts on. */
  readonly line: number;
  constructor(message: string, line: number) {
    super(message);
    this.line = line;
  }
}

export interface CsvReaderOptions {
  /** Field delimiter; sniffed from the first line when omitted. */
  delimiter?: string;
  /** Longest record accepted, in characters (default 32 Mi); a longer one ends the read with a CsvFormatError. */
  maxRecordChars?: number;
}

export const DELIMITERS = [',', ';', '\t', '|'] as const;

/** The delimiter of a header line: the candidate seen most often outside quotes (comma on a tie or none). */
export function sniffDelimiter(line: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '"') quoted = !quoted;
    else if (!quoted && counts.has(c)) counts.set(c, counts.get(c)! + 1);
  }
  let best = ',';
  let n = counts.get(',')!;
  for (const d of DELIMITERS) {
    if (counts.get(d)! > n) {
      best = d;
      n = counts.get(d)!;
    }
  }
  return best;
}

const QUOTE = 34;
const LF = 10;
const CR = 13;

/**
 * The parser proper: feed it text, take the completed records. Kept separate from the byte handling so
 * the benchmark can time it alone and tests can feed it awkward chunk boundaries.
 */
export class CsvParser {
  delimiter: string | null;
  #delim = 44;
  readonly #max: number;
  #records: CsvRecord[] = [];
  #fields: string[] = [];
  #field = '';
  /** Inside a quoted field. */
  #quoted = false;
  /** A quote ended the last chunk inside a quoted field: escape or end, decided by the next char. */
  #quotePending = false;
  /** The last chunk ended with CR (a CRLF may be split). */
  #crPending = false;
  /** Characters of the current record so far (for the cap). */
  #size = 0;
  #line = 1;
  #recordLine = 1;
  /** At the start of a field (a quote here opens a quoted field). */
  #fieldStart = true;
  /** Text before the delimiter is known (the first line, unless a delimiter was given). */
  #pending: string | null;

  constructor(opts: CsvReaderOptions = {}) {
    this.delimiter = opts.delimiter ?? null;
    if (this.delimiter) this.#delim = this.delimiter.charCodeAt(0);
    this.#max = opts.maxRecordChars ?? 32 * 1024 * 1024;
    this.#pending = this.delimiter ? null : '';
  }

  /** Physical line the parser is on (1-based). */
  get line(): number {
    return this.#line;
  }

  push(text: string): void {
    if (this.#pending !== null) {
      this.#pending += text;
      const nl = this.#pending.search(/[\r\n]/);
      if (nl < 0 && this.#pending.length < 1024 * 1024) return;
      this.#setDelimiter(sniffDelimiter(nl < 0 ? this.#pending : this.#pending.slice(0, nl)));
      text = this.#pending;
      this.#pending = null;
    }
    this.#parse(text);
  }

  /** Ends the input: a last record without a newline is completed; an open quote is an error. */
  end(): void {
    if (this.#pending !== null) {
      const t = this.#pending;
      this.#setDelimiter(sniffDelimiter(t.split(/[\r\n]/, 1)[0] ?? ''));
      this.#pending = null;
      this.#parse(t);
    }
    if (this.#quotePending) {
      this.#quotePending = false;
      this.#quoted = false;
    }
    if (this.#quoted) {
      const line = this.#recordLine;
      this.#reset();
      throw new CsvFormatError(`a quoted field opened on line ${line} never ends`, line);
    }
    if (!this.#fieldStart || this.#fields.length > 0 || this.#field !== '') this.#endRecord();
  }

  /** Completed records since the last call. */
  take(): CsvRecord[] {
    const r = this.#records;
    this.#records = [];
    return r;
  }

  #setDelimiter(d: string): void {
    this.delimiter = d;
    this.#delim = d.charCodeAt(0);
  }

  #reset(): void {
    this.#fields = [];
    this.#field = '';
    this.#fieldStart = true;
    this.#size = 0;
  }

  #endField(): void {
    this.#fields.push(this.#field);
    this.#field = '';
    this.#fieldStart = true;
  }

  #endRecord(): void {
    this.#fields.push(this.#field);
    this.#records.push({ fields: this.#fields, line: this.#recordLine });
    this.#fields = [];
    this.#field = '';
    this.#fieldStart = true;
    this.#size = 0;
  }

  #grow(n: number): void {
    this.#size += n;
    if (this.#size > this.#max) {
      const line = this.#recordLine;
      throw new CsvFormatError(`the record starting on line ${line} is longer than ${this.#max} characters (an unbalanced quote?)`, line);
    }
  }

  #parse(s: string): void {
    const n = s.length;
    const delim = this.#delim;
    let i = 0;
    if (this.#crPending) {
      this.#crPending = false;
      if (n > 0 && s.charCodeAt(0) === LF) i = 1;
    }
    if (this.#quotePending) {
      this.#quotePending = false;
      if (n > 0 && s.charCodeAt(0) === QUOTE) {
        this.#field += '"';
        i = 1;
      } else this.#quoted = false;
    }
    while (i < n) {
      if (this.#quoted) {
        const j = s.indexOf('"', i);
        const end = j < 0 ? n : j;
        if (end > i) {
          const part = s.slice(i, end);
          this.#grow(part.length);
          this.#field += part;
          // Count physical lines inside the quoted value (CRLF and LF count once; a lone CR too).
          let k = part.indexOf('\n');
          while (k >= 0) {
            this.#line++;
            k = part.indexOf('\n', k + 1);
          }
          if (part.indexOf('\r') >= 0) this.#countLoneCr(part);
        }
        if (j < 0) return;
        if (j + 1 >= n) {
          this.#quotePending = true;
          return;
        }
        if (s.charCodeAt(j + 1) === QUOTE) {
          this.#field += '"';
          i = j + 2;
        } else {
          this.#quoted = false;
          i = j + 1;
        }
        continue;
      }
      // Unquoted: scan to the next delimiter, quote or line end.
      const c = s.charCodeAt(i);
      if (this.#fieldStart && c === QUOTE) {
        this.#quoted = true;
        this.#fieldStart = false;
        this.#recordLine = this.#fields.length === 0 ? this.#line : this.#recordLine;
        i++;
        continue;
      }
      if (this.#fieldStart && this.#fields.length === 0) this.#recordLine = this.#line;
      let k = i;
      let ch = c;
      while (k < n) {
        ch = s.charCodeAt(k);
        if (ch === delim || ch === LF || ch === CR) break;
        k++;
      }
      if (k > i) {
        this.#grow(k - i);
        // A stray quote inside an unquoted field is kept as text (lenient, like most exporters' readers).
        this.#field += s.slice(i, k);
        this.#fieldStart = false;
      }
      if (k >= n) return;
      if (ch === delim) {
        this.#endField();
        i = k + 1;
        continue;
      }
      // Line end.
      this.#endRecord();
      this.#line++;
      if (ch === CR) {
        if (k + 1 >= n) {
          this.#crPending = true;
          return;
        }
        i = s.charCodeAt(k + 1) === LF ? k + 2 : k + 1;
      } else i = k + 1;
    }
  }

  #countLoneCr(part: string): void {
    for (let k = part.indexOf('\r'); k >= 0; k = part.indexOf('\r', k + 1)) {
      if (part.charCodeAt(k + 1) !== LF && k + 1 < part.length) this.#line++;
    }
  }
}

export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

/** What the first bytes of a file say: its text encoding, or why it is not a text file. */
export function sniffEncoding(head: Uint8Array): { encoding: TextEncodingName } | { binary: string } {
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le' };
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be' };
  // Known binary signatures people upload by mistake (zip/xlsx, pdf, gzip, old xls).
  const sig = Buffer.from(head.subarray(0, 8)).toString('latin1');
  if (sig.startsWith('PK\u0003\u0004')) return { binary: 'a ZIP archive (an .xlsx workbook?); export as CSV instead' };
  if (sig.startsWith('%PDF')) return { binary: 'a PDF document; export as CSV instead' };
  if (head[0] === 0x1f && head[1] === 0x8b) return { binary: 'a gzip archive; upload the uncompressed CSV' };
  if (head[0] === 0xd0 && head[1] === 0xcf && head[2] === 0x11 && head[3] === 0xe0) return { binary: 'an old Excel/Office document; export as CSV instead' };
  if (head.includes(0)) return { binary: 'a binary file (it contains NUL bytes), not CSV text' };
  // Valid UTF-8? (ignore a sequence cut at the end of the sample)
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, trimIncomplete(head)));
    return { encoding: 'utf-8' };
  } catch {
    return { encoding: 'windows-1252' };
  }
}

/** Length of `b` without a trailing incomplete UTF-8 sequence. */
function trimIncomplete(b: Uint8Array): number {
  const i = b.length;
  for (let back = 1; back <= 3 && i - back >= 0; back++) {
    const x = b[i - back]!;
    if ((x & 0xc0) === 0x80) continue;
    if (x >= 0xc0) {
      const need = x >= 0xf0 ? 4 : x >= 0xe0 ? 3 : 2;
      return need > back ? i - back : i;
    }
    return i;
  }
  return i;
}

/** Bytes decoded at a time. */
const SLICE = 16 * 1024;

export interface CsvReadOptions extends CsvReaderOptions {
  /** Bytes to look at before deciding the encoding (default 64 KiB). */
  sniffBytes?: number;
}

export interface CsvBatches extends AsyncIterable<CsvRecord[]> {
  /** Known after the first batch. */
  readonly encoding: TextEncodingName | null;
  readonly delimiter: string | null;
}

/**
 * Reads a byte stream as batches of records (one batch per input chunk). Throws a CsvFormatError for a
 * binary file (at line 0, before any record) or a record that never ends; records before it are delivered.
 */
export function readCsv(input: Readable | AsyncIterable<Uint8Array | string>, opts: CsvReadOptions = {}): CsvBatches {
  const parser = new CsvParser(opts);
  const sniffBytes = opts.sniffBytes ?? 64 * 1024;
  const state = { encoding: null as TextEncodingName | null };
  async function* gen(): AsyncGenerator<CsvRecord[]> {
    let decoder: TextDecoder | null = null;
    const head: Buffer[] = [];
    let headLen = 0;
    // Records completed before a format error are still delivered, then the error is thrown.
    let failure: unknown = null;
    const feed = (fn: () => void): CsvRecord[] => {
      try {
        fn();
      } catch (err) {
        failure = err;
      }
      return parser.take();
    };
    const start = (bytes: Uint8Array): CsvRecord[] => {
      const s = sniffEncoding(bytes);
      if ('binary' in s) throw new CsvFormatError(`not a CSV file: ${s.binary}`, 0);
      state.encoding = s.encoding;
      // The decoder drops a leading BOM itself (ignoreBOM false).
      const d = new TextDecoder(s.encoding);
      decoder = d;
      return feed(() => parser.push(d.decode(bytes, { stream: true })));
    };
    for await (const chunk of input) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      let recs: CsvRecord[];
      if (!decoder) {
        head.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
        headLen += bytes.byteLength;
        if (headLen < sniffBytes) continue;
        recs = start(Buffer.concat(head, headLen));
        head.length = 0;
      } else {
        const d: TextDecoder = decoder;
        // Decoded in slices: small strings stay ordinary young objects that die with their batch
        // (one decoded 256 KiB chunk would be a large object, promoted while its records are in use).
        for (let i = SLICE; i < bytes.byteLength; i += SLICE) {
          const part = bytes.subarray(i - SLICE, i);
          const some = feed(() => parser.push(d.decode(part, { stream: true })));
          if (some.length) yield some;
          if (failure) throw failure;
        }
        const tail = bytes.subarray(Math.floor((bytes.byteLength - 1) / SLICE) * SLICE);
        recs = bytes.byteLength === 0 ? [] : feed(() => parser.push(d.decode(tail, { stream: true })));
      }
      if (recs.length) yield recs;
      if (failure) throw failure;
    }
    if (!decoder) {
      if (headLen === 0) return;
      const recs = start(Buffer.concat(head, headLen));
      if (recs.length) yield recs;
      if (failure) throw failure;
    }
    const d = decoder as unknown as TextDecoder;
    const recs = feed(() => {
      parser.push(d.decode());
      parser.end();
    });
    if (recs.length) yield recs;
    if (failure) throw failure;
  }
  return {
    get encoding() {
      return state.encoding;
    },
    get delimiter() {
      return parser.delimiter;
    },
    [Symbol.asyncIterator]: gen,
  };
}

/** A record whose every field is empty or whitespace (e.g. the `,,,,` rows some exports end with). */
export function isBlankRecord(fields: string[]): boolean {
  for (const f of fields) if (f !== '' && f.trim() !== '') return false;
  return true;
}
