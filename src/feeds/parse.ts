// Offline prioritisation feeds, recognised by content and read as a stream: the CISA Known Exploited
// Vulnerabilities catalog (JSON: catalogVersion, dateReleased, vulnerabilities[]) and FIRST's EPSS
// scores (CSV whose first line is `#model_version:…,score_date:…`, then `cve,epss,percentile`), either
// one gzipped or not. The text is never held whole: decompressed bytes and entries each have a cap
// (TRIBUTARY_FEED_MAX_BYTES, TRIBUTARY_FEED_MAX_ENTRIES), so a bomb costs the cap, not the process.
// A file that is neither, breaks its format anywhere, or passes a cap is refused whole.
import { createHash } from 'node:crypto';
import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { InputError } from '../core/errors.ts';
import { formatBytes } from '../core/format.ts';
import { type EpssColumns, kevLine, type ParsedFeed } from '../store/index.ts';
import { KevJsonScanner, kevEntryOf, parsePiece } from './kev-json.ts';

const CVE_ID = /^CVE-\d{4}-\d{4,}$/i;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
/** The longest line an EPSS file may have (its lines are some 35 characters). */
const MAX_LINE_CHARS = 64 * 1024;

/** What one feed file may hold; well above the real ones (EPSS: ~300k rows, ~10 MB uncompressed; KEV: ~1.5k entries, ~1.5 MB). */
export interface FeedLimits {
  /** Bytes of the file's text once decompressed. */
  maxBytes: number;
  /** Entries (EPSS rows, KEV vulnerabilities). */
  maxEntries: number;
}

export function feedLimits(env: NodeJS.ProcessEnv = process.env): FeedLimits {
  const num = (name: string, fallback: number): number => {
    const v = env[name];
    if (v === undefined || v === '') return fallback;
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < 1) throw new InputError(`${name} must be a whole number above 0, got '${v}'`, name);
    return n;
  };
  return { maxBytes: num('TRIBUTARY_FEED_MAX_BYTES', 128 * 1024 * 1024), maxEntries: num('TRIBUTARY_FEED_MAX_ENTRIES', 1_000_000) };
}

function notAFeed(reason: string): InputError {
  return new InputError(`not a CISA KEV catalog (JSON) or a FIRST EPSS CSV: ${reason}`, 'file');
}

/** `YYYY-MM-DD` → ISO-8601 at midnight UTC; anything else null. */
export function dayIso(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const m = DAY.exec(v.trim());
  if (!m) return null;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCDate() === Number(m[3]) && d.getUTCMonth() === Number(m[2]) - 1 ? d.toISOString() : null;
}

/** A timestamp as ISO-8601 (accepts `+0000` offsets and plain dates); null when it is none. */
export function timeIso(v: unknown): string | null {
  if (typeof v !== 'string' || v.trim() === '') return null;
  const day = dayIso(v);
  if (day) return day;
  const s = v.trim().replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  if (!/^\d{4}-\d{2}-\d{2}T/.test(s)) return null;
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** A parsed feed file: the feed, and the size and SHA-256 of the file as given (compressed or not). */
export interface ReadFeed {
  feed: ParsedFeed;
  size: number;
  sha256: string;
}

/** Reads a feed file from its bytes as they come; refuses it (InputError) at the first fault or cap passed. */
export async function parseFeedStream(input: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, limits: FeedLimits): Promise<ReadFeed> {
  const hash = createHash('sha256');
  let size = 0;
  const raw = (async function* () {
    for await (const chunk of input) {
      hash.update(chunk);
      size += chunk.length;
      yield chunk;
    }
  })();
  // The first bytes say whether the file is gzipped (0x1f 0x8b).
  let first = await raw.next();
  while (!first.done && first.value.length < 2) {
    const more = await raw.next();
    if (more.done) break;
    first = { done: false, value: Buffer.concat([first.value, more.value]) };
  }
  const head = first.done ? Buffer.alloc(0) : first.value;
  const all = (async function* () {
    if (head.length) yield head;
    yield* raw;
  })();
  const gzipped = head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
  let text: AsyncIterable<Uint8Array> = all;
  if (gzipped) {
    const gunzip = createGunzip();
    // Errors reach the loop below through gunzip; leaving the loop early destroys both streams.
    pipeline(Readable.from(all), gunzip, () => {});
    text = gunzip;
  }
  const reader = new FeedTextReader(limits);
  const decoder = new TextDecoder('utf-8');
  let inflated = 0;
  try {
    for await (const chunk of text) {
      inflated += chunk.length;
      if (inflated > limits.maxBytes) {
        throw new InputError(
          `the feed holds more than ${formatBytes(limits.maxBytes)}${gzipped ? ' once decompressed' : ''}, the limit TRIBUTARY_FEED_MAX_BYTES sets (a real EPSS file is ~10 MB); nothing was read further`,
          'TRIBUTARY_FEED_MAX_BYTES',
        );
      }
      reader.push(decoder.decode(chunk, { stream: true }));
    }
  } catch (err) {
    if (err instanceof InputError) throw err;
    if (gzipped) throw notAFeed(`a gzip file that does not inflate (${(err as Error).message})`);
    throw err;
  }
  reader.push(decoder.decode());
  return { feed: reader.end(), size, sha256: hash.digest('hex') };
}

/** Reads a feed's text pushed in pieces: recognises which feed it is from its start, then hands it on. */
class FeedTextReader {
  readonly #limits: FeedLimits;
  #head = '';
  #feed: KevReader | EpssReader | null = null;

  constructor(limits: FeedLimits) {
    this.#limits = limits;
  }

  push(text: string): void {
    if (this.#feed) {
      this.#feed.push(text);
      return;
    }
    this.#head += text;
    const start = this.#head.trimStart();
    if (start.startsWith('{')) this.#feed = new KevReader(this.#limits);
    else if (start.length > 0 && (this.#head.includes('\n') || this.#head.length >= 4096)) {
      if (!(start.startsWith('#model_version') || /^cve\s*,\s*epss/i.test(start)))
        throw notAFeed('it is neither JSON nor a CSV that starts with the #model_version line');
      this.#feed = new EpssReader(this.#limits);
    } else return;
    const head = this.#head;
    this.#head = '';
    this.#feed.push(head);
  }

  end(): ParsedFeed {
    if (!this.#feed) {
      const start = this.#head.trimStart();
      if (!(start.startsWith('#model_version') || /^cve\s*,\s*epss/i.test(start)))
        throw notAFeed('it is neither JSON nor a CSV that starts with the #model_version line');
      this.#feed = new EpssReader(this.#limits);
      this.#feed.push(this.#head);
    }
    return this.#feed.end();
  }
}

function tooManyEntries(limits: FeedLimits, what: string): InputError {
  return new InputError(
    `the feed holds more than ${limits.maxEntries} ${what}, the limit TRIBUTARY_FEED_MAX_ENTRIES sets (a real EPSS file has ~300k rows); nothing was changed`,
    'TRIBUTARY_FEED_MAX_ENTRIES',
  );
}

class KevReader {
  readonly #limits: FeedLimits;
  readonly #scanner: KevJsonScanner;
  readonly #members = new Map<string, unknown>();
  // A CVE listed twice keeps its earliest dates. Kept as lines (KevLines), not objects: a third of the memory.
  readonly #entries = new Map<string, string>();
  #count = 0;

  constructor(limits: FeedLimits) {
    this.#limits = limits;
    this.#scanner = new KevJsonScanner(
      (key, raw) => this.#members.set(key, key === 'vulnerabilities' && raw === '[]' ? [] : parsePiece(raw, key)),
      (raw) => {
        if (this.#count >= this.#limits.maxEntries) throw tooManyEntries(this.#limits, 'vulnerabilities');
        const e = kevEntryOf(parsePiece(raw, `vulnerabilities[${this.#count}]`), this.#count++, dayIso);
        const prev = this.#entries.get(e.cve);
        // A line starts with the CVE and its dateAdded.
        if (!prev || e.dateAdded < prev.slice(e.cve.length + 1, e.cve.length + 1 + e.dateAdded.length)) this.#entries.set(e.cve, kevLine(e));
      },
    );
  }

  push(text: string): void {
    this.#scanner.push(text);
  }

  end(): ParsedFeed {
    this.#scanner.end();
    const version = this.#members.get('catalogVersion');
    if (typeof version !== 'string' || version.trim() === '')
      throw notAFeed('a JSON without catalogVersion (a KEV catalog has catalogVersion, dateReleased and vulnerabilities)');
    const dateReleased = this.#members.get('dateReleased');
    const released = timeIso(dateReleased);
    if (!released) throw new InputError(`KEV catalog: dateReleased '${String(dateReleased)}' is not a date`, 'file');
    if (!Array.isArray(this.#members.get('vulnerabilities'))) throw new InputError('KEV catalog: vulnerabilities is not a list', 'file');
    const lines = [...this.#entries.values()].join('\n');
    return { kind: 'kev', version: version.trim(), released, records: this.#entries.size, entries: { lines } };
  }
}

class EpssReader {
  readonly #limits: FeedLimits;
  #rest = '';
  #line = 0;
  #version = '';
  #released = '';
  #count = 0;
  #scores = new Float64Array(1024);
  #percentiles = new Float64Array(1024);
  /** CVE ids one per line, joined in batches (a string per row would cost far more). */
  readonly #cveBatches: string[] = [];
  #batch: string[] = [];

  constructor(limits: FeedLimits) {
    this.#limits = limits;
  }

  push(text: string): void {
    let buf = this.#rest + text;
    let from = 0;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n', from)) {
      this.#take(buf.slice(from, nl));
      from = nl + 1;
    }
    buf = buf.slice(from);
    if (buf.length > MAX_LINE_CHARS) throw new InputError(`EPSS CSV line ${this.#line + 1} is longer than ${MAX_LINE_CHARS} characters`, 'file');
    this.#rest = buf;
  }

  #take(raw: string): void {
    const n = ++this.#line;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (n === 1) {
      this.#meta(line.trim());
      return;
    }
    if (n === 2) {
      const header = line
        .trim()
        .toLowerCase()
        .split(',')
        .map((h) => h.trim());
      if (header[0] !== 'cve' || header[1] !== 'epss' || header[2] !== 'percentile')
        throw new InputError(`EPSS CSV: line 2 must be the header cve,epss,percentile, got '${line.slice(0, 80)}'`, 'file');
      return;
    }
    if (line.length === 0 || line.trim() === '') return;
    if (this.#count >= this.#limits.maxEntries) throw tooManyEntries(this.#limits, 'rows');
    // Cut at the commas by hand: split() costs several times more on the hundreds of thousands of lines.
    const c1 = line.indexOf(',');
    const c2 = c1 < 0 ? -1 : line.indexOf(',', c1 + 1);
    const c3 = c2 < 0 ? -1 : line.indexOf(',', c2 + 1);
    const cve = (c1 < 0 ? line : line.slice(0, c1)).trim();
    const epss = c1 < 0 ? '' : line.slice(c1 + 1, c2 < 0 ? line.length : c2);
    const pct = c2 < 0 ? '' : line.slice(c2 + 1, c3 < 0 ? line.length : c3);
    const score = Number(epss);
    const percentile = Number(pct);
    if (!CVE_ID.test(cve)) throw new InputError(`EPSS CSV line ${n}: '${cve.slice(0, 40)}' is not a CVE id`, 'file');
    if (!(epss.trim() && score >= 0 && score <= 1) || !(pct.trim() && percentile >= 0 && percentile <= 1))
      throw new InputError(`EPSS CSV line ${n}: epss and percentile must be numbers from 0 to 1`, 'file');
    if (this.#count === this.#scores.length) {
      const grow = (a: Float64Array) => {
        const b = new Float64Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.#scores = grow(this.#scores);
      this.#percentiles = grow(this.#percentiles);
    }
    this.#scores[this.#count] = score;
    this.#percentiles[this.#count] = percentile;
    this.#count++;
    this.#batch.push(cve.toUpperCase());
    if (this.#batch.length === 8192) this.#flushBatch();
  }

  #flushBatch(): void {
    if (this.#batch.length) this.#cveBatches.push(this.#batch.join('\n'));
    this.#batch = [];
  }

  #meta(first: string): void {
    if (!first.startsWith('#'))
      throw new InputError('EPSS CSV: the first line must be #model_version:…,score_date:… (the published files start with it)', 'file');
    const meta = new Map<string, string>();
    for (const part of first.slice(1).split(',')) {
      const i = part.indexOf(':');
      if (i > 0) meta.set(part.slice(0, i).trim(), part.slice(i + 1).trim());
    }
    const version = meta.get('model_version');
    const released = timeIso(meta.get('score_date'));
    if (!version || !released) throw new InputError(`EPSS CSV: the first line '${first.slice(0, 120)}' has no model_version and score_date`, 'file');
    this.#version = version;
    this.#released = released;
  }

  end(): ParsedFeed {
    if (this.#rest !== '') this.#take(this.#rest);
    this.#rest = '';
    if (this.#line === 1) throw new InputError("EPSS CSV: line 2 must be the header cve,epss,percentile, got ''", 'file');
    if (this.#count === 0) throw new InputError('EPSS CSV: no scores after the header', 'file');
    this.#flushBatch();
    const entries: EpssColumns = {
      cves: this.#cveBatches.join('\n'),
      scores: this.#scores.slice(0, this.#count),
      percentiles: this.#percentiles.slice(0, this.#count),
    };
    return { kind: 'epss', version: this.#version, released: this.#released, records: this.#count, entries };
  }
}

/** Reads a whole feed file held in memory (tests, small files): parseFeedStream over it. */
export function parseFeed(data: Buffer, limits: FeedLimits = feedLimits({})): Promise<ParsedFeed> {
  return parseFeedStream([data], limits).then((r) => r.feed);
}
