// Normalised machine identifiers: each source spells serials, MACs, names and addresses its own way
// (case, `aa-bb-…` vs `aabb.ccdd.eeff`, `DOMAIN\NAME`, FQDN vs short name, trailing dots), and some
// values are placeholders that identify nothing ("To Be Filled By O.E.M.", an all-zero MAC).

/** Serials that BIOSes and CMDB imports put where the real one is missing. */
const JUNK_SERIAL =
  /^(0+|1234567890?|123456789|none|null|n\/?a|na|unknown|default|default string|to be filled by o\.?e\.?m\.?|system serial number|chassis serial number|not specified|not available|not applicable|invalid|serial|x+|-+|\.+)$/i;

export function normSerial(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v.trim().replace(/\s+/g, ' ');
  if (s === '' || JUNK_SERIAL.test(s)) return null;
  // VMware's serial ("VMware-42 1a 2b …") and a dashed one are the same with spaces and dashes dropped.
  return s.replace(/[\s-]+/g, '').toUpperCase();
}

export function normUuid(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const hex = v
    .trim()
    .replace(/^\{|\}$/g, '')
    .replace(/[-\s]/g, '')
    .toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex) || /^0+$/.test(hex) || /^f+$/.test(hex)) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function normMac(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const hex = v
    .trim()
    .toLowerCase()
    .replace(/[\s:.-]/g, '');
  if (!/^[0-9a-f]{12}$/.test(hex) || /^0+$/.test(hex) || /^f+$/.test(hex)) return null;
  return hex.match(/../g)!.join(':');
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

export function normIp(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v.trim();
  const m = IPV4.exec(s);
  if (m) {
    const parts = m.slice(1).map(Number);
    if (parts.some((p) => p > 255)) return null;
    const ip = parts.join('.');
    return ip === '0.0.0.0' || ip === '255.255.255.255' || parts[0] === 127 ? null : ip;
  }
  if (s.includes(':') && /^[0-9a-f:.]+$/i.test(s) && s !== '::1' && s !== '::') return s.toLowerCase();
  return null;
}

const looksLikeIp = (s: string) => IPV4.test(s) || (s.includes(':') && /^[0-9a-f:]+$/i.test(s));

/** A DNS name with at least one dot, lower case, no trailing dot; null for short names and addresses. */
export function normFqdn(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v.trim().toLowerCase().replace(/\.+$/, '');
  if (s === '' || s.includes('\\') || s.includes(' ') || !s.includes('.') || looksLikeIp(s)) return null;
  return s;
}

/** The short host name: `DOMAIN\NAME` → name, `name.corp.example.` → name; lower case; null for addresses. */
export function shortName(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  let s = v.trim().toLowerCase().replace(/\.+$/, '');
  if (s === '' || looksLikeIp(s)) return null;
  const slash = s.lastIndexOf('\\');
  if (slash >= 0) s = s.slice(slash + 1);
  s = s.split('.')[0]!;
  if (s === '' || s === 'localhost' || s.includes(' ')) return null;
  return s;
}

/** Two FQDNs agree when equal or when one is the other with labels cut off its end (`ws1.corp` vs `ws1.corp.example`). */
export function fqdnsAgree(a: string, b: string): boolean {
  return a === b || a.startsWith(b + '.') || b.startsWith(a + '.');
}

/** NetBIOS names stop at 15 characters: `verylongservern` is `verylongservername`'s NetBIOS name. */
export function namesAgree(a: string, b: string): boolean {
  if (a === b) return true;
  return (a.length === 15 && b.length > 15 && b.startsWith(a)) || (b.length === 15 && a.length > 15 && a.startsWith(b));
}

/** The empty list every record without a value of some kind shares (a few hundred thousand records are held at once). */
const NONE: string[] = Object.freeze([]) as unknown as string[];

function uniq(values: (string | null)[]): string[] {
  let out: string[] | null = null;
  for (const v of values) {
    if (v === null) continue;
    if (out === null) out = [v];
    else if (!out.includes(v)) out.push(v);
  }
  return out ?? NONE;
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === null || v === undefined ? [] : [v]);

/** A MAC list as stored may also carry annotations (`00:50:… (uuid: …)`): the first token counts. */
const macToken = (v: unknown) => (typeof v === 'string' ? v.trim().split(/[\s,;]+/)[0] : v);

/** The normalised identifiers of one record: single-valued kinds may still hold two spellings (NetBIOS and DNS names). */
export interface Identifiers {
  id: string;
  serial: string[];
  biosUuid: string[];
  mac: string[];
  fqdn: string[];
  hostname: string[];
  ip: string[];
  /** Network partition: the scanner's repository, the CMDB's site. */
  scope: string | null;
}

/** Identifiers of a scanner host record (fields of the `hosts` model; `biosUuid` when the store has it). */
export function hostIdentifiers(h: Record<string, unknown>): Identifiers {
  const fqdn = uniq([normFqdn(h.fqdn), normFqdn(h.hostname)]);
  return {
    id: String(h.id),
    serial: uniq([normSerial(h.serialNumber)]),
    biosUuid: uniq([normUuid(h.biosUuid)]),
    mac: uniq(list(h.macAddresses).map((m) => normMac(macToken(m)))),
    fqdn,
    hostname: uniq([shortName(h.netbiosName), shortName(h.hostname), shortName(h.fqdn)]),
    ip: uniq(list(h.ipAddresses).map(normIp)),
    scope: typeof h.repository === 'string' && h.repository.trim() !== '' ? h.repository.trim().toLowerCase() : null,
  };
}

/** Identifiers of a CMDB record (fields of the `cmdb-assets` model): its name may be short or an FQDN. */
export function cmdbIdentifiers(c: Record<string, unknown>): Identifiers {
  return {
    id: String(c.id),
    serial: uniq([normSerial(c.serialNumber)]),
    biosUuid: uniq([normUuid(c.biosUuid)]),
    mac: uniq(list(c.macAddresses).map((m) => normMac(macToken(m)))),
    fqdn: uniq([normFqdn(c.fqdn), normFqdn(c.name)]),
    hostname: uniq([shortName(c.name), shortName(c.fqdn)]),
    ip: uniq(list(c.ipAddresses).map(normIp)),
    scope: typeof c.site === 'string' && c.site.trim() !== '' ? c.site.trim().toLowerCase() : null,
  };
}
