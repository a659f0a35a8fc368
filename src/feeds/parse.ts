// Offline prioritisation feeds, recognised by content: the CISA Known Exploited Vulnerabilities
// catalog (JSON: catalogVersion, dateReleased, vulnerabilities[]) and FIRST's EPSS scores (CSV whose
// first line is `#model_version:…,score_date:…`, then `cve,epss,percentile`), either one gzipped or not.
// A file that is neither, or breaks its format anywhere, is refused whole.
import { gunzipSync } from 'node:zlib';
import { InputError } from '../core/errors.ts';
import type { EpssEntry, KevEntry, ParsedFeed } from '../store/feeds.ts';

const CVE_ID = /^CVE-\d{4}-\d{4,}$/i;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
/** Uncompressed size a gzipped feed may have (today's EPSS file is ~10 MB). */
const MAX_INFLATED = 1 << 30;

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

export function parseFeed(data: Buffer): ParsedFeed {
  let buf = data;
  if (buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) {
    try {
      buf = gunzipSync(buf, { maxOutputLength: MAX_INFLATED });
    } catch (err) {
      throw notAFeed(`a gzip file that does not inflate (${(err as Error).message})`);
    }
  }
  const text = buf.toString('utf8').replace(/^\uFEFF/, '');
  const head = text.trimStart();
  if (head.startsWith('{')) return parseKev(text);
  if (head.startsWith('#model_version') || /^cve\s*,\s*epss/i.test(head)) return parseEpss(head);
  throw notAFeed('it is neither JSON nor a CSV that starts with the #model_version line');
}

function parseKev(text: string): ParsedFeed {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw notAFeed(`JSON that does not parse (${(err as Error).message})`);
  }
  const d = doc as Record<string, unknown>;
  if (!d || typeof d !== 'object' || Array.isArray(d)) throw notAFeed('the JSON is not an object');
  if (typeof d.catalogVersion !== 'string' || d.catalogVersion.trim() === '')
    throw notAFeed('a JSON without catalogVersion (a KEV catalog has catalogVersion, dateReleased and vulnerabilities)');
  const released = timeIso(d.dateReleased);
  if (!released) throw new InputError(`KEV catalog: dateReleased '${String(d.dateReleased)}' is not a date`, 'file');
  if (!Array.isArray(d.vulnerabilities)) throw new InputError('KEV catalog: vulnerabilities is not a list', 'file');
  const seen = new Map<string, KevEntry>();
  d.vulnerabilities.forEach((v: unknown, i: number) => {
    const e = (v ?? {}) as Record<string, unknown>;
    const where = `KEV catalog: vulnerabilities[${i}]`;
    if (typeof e.cveID !== 'string' || !CVE_ID.test(e.cveID.trim())) throw new InputError(`${where}: cveID '${String(e.cveID)}' is not a CVE id`, 'file');
    const dateAdded = dayIso(e.dateAdded);
    if (!dateAdded) throw new InputError(`${where} (${e.cveID}): dateAdded '${String(e.dateAdded)}' is not a YYYY-MM-DD date`, 'file');
    const dueDate = e.dueDate === undefined || e.dueDate === null || e.dueDate === '' ? null : dayIso(e.dueDate);
    if (dueDate === null && e.dueDate !== undefined && e.dueDate !== null && e.dueDate !== '')
      throw new InputError(`${where} (${e.cveID}): dueDate '${String(e.dueDate)}' is not a YYYY-MM-DD date`, 'file');
    const cve = e.cveID.trim().toUpperCase();
    const str = (x: unknown) => (typeof x === 'string' && x.trim() !== '' ? x.trim() : null);
    // A CVE listed twice keeps its earliest dates.
    const prev = seen.get(cve);
    if (prev && prev.dateAdded <= dateAdded) return;
    seen.set(cve, { cve, dateAdded, dueDate, ransomware: str(e.knownRansomwareCampaignUse), name: str(e.vulnerabilityName) });
  });
  return { kind: 'kev', version: d.catalogVersion.trim(), released, entries: [...seen.values()] };
}

function parseEpss(text: string): ParsedFeed {
  const lines = text.split(/\r?\n/);
  const first = lines[0]!.trim();
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
  const header = (lines[1] ?? '')
    .trim()
    .toLowerCase()
    .split(',')
    .map((h) => h.trim());
  if (header[0] !== 'cve' || header[1] !== 'epss' || header[2] !== 'percentile')
    throw new InputError(`EPSS CSV: line 2 must be the header cve,epss,percentile, got '${(lines[1] ?? '').slice(0, 80)}'`, 'file');
  const entries: EpssEntry[] = [];
  for (let n = 2; n < lines.length; n++) {
    const line = lines[n]!;
    if (line.trim() === '') continue;
    const [cve, epss, pct] = line.split(',');
    const score = Number(epss);
    const percentile = Number(pct);
    if (!cve || !CVE_ID.test(cve.trim())) throw new InputError(`EPSS CSV line ${n + 1}: '${cve ?? ''}' is not a CVE id`, 'file');
    if (!(epss?.trim() && score >= 0 && score <= 1) || !(pct?.trim() && percentile >= 0 && percentile <= 1))
      throw new InputError(`EPSS CSV line ${n + 1}: epss and percentile must be numbers from 0 to 1`, 'file');
    entries.push({ cve: cve.trim().toUpperCase(), score, percentile });
  }
  if (entries.length === 0) throw new InputError('EPSS CSV: no scores after the header', 'file');
  return { kind: 'epss', version, released, entries };
}
