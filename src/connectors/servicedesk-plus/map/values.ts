// Pure value helpers shared by the mappers: SDP time objects → ISO-8601 UTC, reference objects → names,
// blank strings → null. `undefined` (key absent on a reduced list row) stays undefined so the store
// leaves the field untouched; `null` clears it. Built on the shared coercions of core/values.ts.
import { decodeEntities, trimmedText, uniqueParts } from '../../../core/values.ts';
import type { Json } from './envelope.ts';

/** Epoch ms of a time value: `{display_value, value:"<ms>"}`, a ms number/string, or null. */
export function epochMs(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'object') return epochMs((v as Json).value);
  if (typeof v === 'number') return Number.isFinite(v) && v > 0 ? v : null;
  if (typeof v === 'string' && /^\d{9,}$/.test(v.trim())) return Number(v.trim());
  return null;
}

export function isoOf(v: unknown): string | null {
  const ms = epochMs(v);
  return ms === null ? null : new Date(ms).toISOString();
}

/** A field as ISO time: undefined when the key is absent. */
export function timeField(row: Json, key: string): string | null | undefined {
  return key in row ? isoOf(row[key]) : undefined;
}

export function text(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return trimmedText(v);
}

export function textField(row: Json, key: string): string | null | undefined {
  return key in row ? text(row[key]) : undefined;
}

/** Request descriptions are HTML: their text, tags dropped and entities decoded; null when blank. */
export function htmlText(v: unknown): string | null {
  const t = text(v);
  if (t === null) return null;
  const plain = decodeEntities(
    t
      .replace(/<br\s*\/?>|<\/(p|div|li|tr)>/gi, '\n')
      .replace(/<[^>]*>/g, ' ')
      .replace(/&nbsp;/g, ' '),
  )
    .replace(/[ \t]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .trim();
  return plain === '' ? null : plain;
}

/** The keys whose value is known (not undefined): fields added later stay out of rows that lack them. Give the model's FieldsOf as T so a misspelled key is a type error. */
export function known<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Name of a reference object `{id, name}` (or a plain string). */
export function refName(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'object' && !Array.isArray(v)) return text((v as Json).name) ?? text((v as Json).display_value);
  return text(v);
}

export function refField(row: Json, key: string): string | null | undefined {
  return key in row ? refName(row[key]) : undefined;
}

/** A person reference: its name, else its e-mail. */
export function personName(v: unknown): string | null {
  if (v === null || v === undefined || typeof v !== 'object') return text(v);
  const o = v as Json;
  return text(o.name) ?? text(o.email_id);
}

export function personField(row: Json, key: string): string | null | undefined {
  return key in row ? personName(row[key]) : undefined;
}

export function bool(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  return null;
}

/** Splits "10.0.0.1, 10.0.0.2" / arrays / `[{ip_address}]` into unique trimmed values. */
export function listOf(...values: unknown[]): string[] {
  const out: string[] = [];
  const add = (v: unknown) => {
    if (v === null || v === undefined) return;
    if (Array.isArray(v)) return v.forEach(add);
    if (typeof v === 'object') {
      const o = v as Json;
      return add(o.ip_address ?? o.mac_address ?? o.name ?? o.value ?? null);
    }
    uniqueParts(String(v), /[,;\s]+/, out);
  };
  values.forEach(add);
  return out;
}

/** A scalar view of any value for an `attributes` object: refs → name, times → ISO, lists → arrays. */
export function attributeValue(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map(attributeValue);
  if (typeof v === 'object') {
    const o = v as Json;
    if ('value' in o && 'display_value' in o) return isoOf(o) ?? text(o.display_value);
    if ('name' in o) return text(o.name);
    const out: Json = {};
    for (const [k, x] of Object.entries(o)) out[k] = attributeValue(x);
    return out;
  }
  if (typeof v === 'string') return v.trim() === '' ? null : v;
  return v;
}
