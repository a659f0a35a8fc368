// The CISA KEV catalog read as a stream: the JSON object's members are cut out one at a time, and the
// `vulnerabilities` list one entry at a time, each parsed on its own; nothing holds the whole document,
// so its size costs only the entries kept (KevEntry, a few fields each), and each piece has a cap.
import { InputError } from '../core/errors.ts';
import type { KevEntry } from '../store/index.ts';

/** The most characters one member of the catalog (other than the list) or one entry of the list may hold. */
const MAX_PIECE_CHARS = 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

function notJson(reason: string): InputError {
  return new InputError(`not a CISA KEV catalog (JSON) or a FIRST EPSS CSV: JSON that does not parse (${reason})`, 'file');
}

/**
 * Feeds text to it with push(); it calls `member` for each top-level member but `vulnerabilities` (its
 * raw value text), and `entry` for each element of the `vulnerabilities` list (its raw text).
 */
export class KevJsonScanner {
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** What the text being collected is: a member's key, its value, an element of the list, the rest after the list. */
  #part: 'key' | 'value' | 'entry' | 'after-list' | 'done' | null = null;
  #piece = '';
  #key = '';
  /** Whether the current member is `vulnerabilities` and its value a list (entries then come one at a time). */
  #list = false;
  #sawListStart = false;
  /** A comma was the last thing at this level (a key or an entry must follow). */
  #afterComma = false;
  readonly #member: (key: string, raw: string) => void;
  readonly #entry: (raw: string) => void;

  constructor(member: (key: string, raw: string) => void, entry: (raw: string) => void) {
    this.#member = member;
    this.#entry = entry;
  }

  push(text: string): void {
    let from = 0;
    const take = (to: number) => {
      if (this.#part === 'key' || this.#part === 'value' || this.#part === 'entry') {
        this.#piece += text.slice(from, to);
        if (this.#piece.length > MAX_PIECE_CHARS) {
          const what = this.#part === 'entry' ? 'an entry of vulnerabilities' : this.#part === 'key' ? 'a key' : `'${this.#key}'`;
          throw new InputError(`KEV catalog: ${what} holds more than ${MAX_PIECE_CHARS} characters; a real catalog's are a few hundred`, 'file');
        }
      }
      from = to;
    };
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (c === BACKSLASH) this.#escaped = true;
        else if (c === QUOTE) this.#inString = false;
        continue;
      }
      if (c === QUOTE) {
        if (this.#depth === 0 || this.#part === 'after-list') throw notJson('text outside the catalog object');
        this.#inString = true;
        continue;
      }
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
      if (this.#part === 'done') throw notJson('more after the catalog object');
      if (this.#depth === 0) {
        if (c !== 0x7b) throw notJson('it does not start with {');
        this.#depth = 1;
        this.#part = 'key';
        from = i + 1;
        continue;
      }
      if (this.#part === 'after-list' && c !== COMMA && c !== 0x7d) throw notJson(`something after the vulnerabilities list`);
      if (this.#depth === 1) {
        if (this.#part === 'key' && c === COLON) {
          take(i);
          this.#key = this.#keyOf(this.#piece);
          this.#piece = '';
          this.#part = 'value';
          this.#sawListStart = false;
          from = i + 1;
          continue;
        }
        if (c === COMMA || c === 0x7d) {
          take(i);
          if (this.#part === 'value') this.#member(this.#key, this.#piece.trim());
          else if (this.#part === 'key' && (c === COMMA || this.#afterComma || this.#piece.trim() !== '')) throw notJson('a key without a value');
          this.#afterComma = c === COMMA;
          this.#piece = '';
          from = i + 1;
          if (c === 0x7d) {
            this.#depth = 0;
            this.#part = 'done';
          } else this.#part = 'key';
          continue;
        }
        if (this.#part === 'value' && !this.#sawListStart) {
          this.#sawListStart = true;
          if (this.#key === 'vulnerabilities' && c === 0x5b) {
            this.#depth = 2;
            this.#list = true;
            this.#afterComma = false;
            this.#part = 'entry';
            this.#piece = '';
            from = i + 1;
            continue;
          }
        }
      }
      if (this.#list && this.#depth === 2) {
        if (c === COMMA || c === 0x5d) {
          take(i);
          const raw = this.#piece.trim();
          if (raw !== '') this.#entry(raw);
          else if (c === COMMA || this.#afterComma) throw notJson('an empty entry in vulnerabilities');
          this.#afterComma = c === COMMA;
          this.#piece = '';
          from = i + 1;
          if (c === 0x5d) {
            this.#depth = 1;
            this.#list = false;
            this.#afterComma = false;
            this.#part = 'after-list';
            this.#member('vulnerabilities', '[]');
          }
          continue;
        }
      }
      if (this.#part === 'after-list') continue;
      if (c === 0x7b || c === 0x5b) this.#depth++;
      else if (c === 0x7d || c === 0x5d) {
        this.#depth--;
        if (this.#depth < 1) throw notJson('a bracket closed that was not opened');
      }
    }
    take(text.length);
  }

  /** Call at the end of the text: the catalog must have closed. */
  end(): void {
    if (this.#part !== 'done') throw notJson('it ends before the catalog object closes');
  }

  #keyOf(raw: string): string {
    let key: unknown;
    try {
      key = JSON.parse(raw);
    } catch {
      throw notJson(`a key that is not a string: ${raw.trim().slice(0, 40)}`);
    }
    if (typeof key !== 'string') throw notJson(`a key that is not a string: ${raw.trim().slice(0, 40)}`);
    return key;
  }
}

/** Parses one piece the scanner cut out (a member's value or an entry). */
export function parsePiece(raw: string, where: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw notJson(`${where}: ${(err as Error).message}`);
  }
}

/** The KEV entry of one element of `vulnerabilities`, checked; `dayIso` reads its dates. */
export function kevEntryOf(v: unknown, i: number, dayIso: (v: unknown) => string | null): KevEntry {
  const e = (v ?? {}) as Record<string, unknown>;
  const where = `KEV catalog: vulnerabilities[${i}]`;
  if (typeof e.cveID !== 'string' || !/^CVE-\d{4}-\d{4,}$/i.test(e.cveID.trim()))
    throw new InputError(`${where}: cveID '${String(e.cveID)}' is not a CVE id`, 'file');
  const dateAdded = dayIso(e.dateAdded);
  if (!dateAdded) throw new InputError(`${where} (${e.cveID}): dateAdded '${String(e.dateAdded)}' is not a YYYY-MM-DD date`, 'file');
  const dueDate = e.dueDate === undefined || e.dueDate === null || e.dueDate === '' ? null : dayIso(e.dueDate);
  if (dueDate === null && e.dueDate !== undefined && e.dueDate !== null && e.dueDate !== '')
    throw new InputError(`${where} (${e.cveID}): dueDate '${String(e.dueDate)}' is not a YYYY-MM-DD date`, 'file');
  const str = (x: unknown) => (typeof x === 'string' && x.trim() !== '' ? x.trim().slice(0, 1000) : null);
  return { cve: e.cveID.trim().toUpperCase(), dateAdded, dueDate, ransomware: str(e.knownRansomwareCampaignUse), name: str(e.vulnerabilityName) };
}
