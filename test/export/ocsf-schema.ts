// Validates OCSF events against the schema subset generated from the official repository at a release
// tag (schemas/README.md): required attributes, no attribute the class or object does not define,
// data types (with their patterns), enumerations, and object constraints. Returns every problem found
// but one deviation Tributary makes on purpose (NO_CVE_DEVIATION).
import { readFileSync } from 'node:fs';

interface Attr {
  type: string;
  object_type?: string;
  requirement: string;
  is_array?: boolean;
  enum?: number[];
  profile?: string;
}
interface Subset {
  version: string;
  classes: Record<string, { name: string; attributes: Record<string, Attr> }>;
  objects: Record<string, { attributes: Record<string, Attr>; constraints?: { at_least_one?: string[]; just_one?: string[] } }>;
  types: Record<string, { type?: string; regex?: string; max_len?: number; values?: unknown[] }>;
}

const cache = new Map<string, Subset>();

export function ocsfSubset(version: string): Subset {
  let s = cache.get(version);
  if (!s) {
    s = JSON.parse(readFileSync(new URL(`./schemas/ocsf-${version}.json`, import.meta.url), 'utf8')) as Subset;
    cache.set(version, s);
  }
  return s;
}

/** The base type of a data type (`hostname_t` → `string_t`) and every pattern on the way. */
function typeChain(s: Subset, type: string): { base: string; checks: { regex?: string; max_len?: number; name: string }[] } {
  const checks: { regex?: string; max_len?: number; name: string }[] = [];
  let t = type;
  for (let i = 0; i < 5; i++) {
    const def = s.types[t];
    if (!def) break;
    if (def.regex || def.max_len) checks.push({ regex: def.regex, max_len: def.max_len, name: t });
    if (!def.type) break;
    t = def.type;
  }
  return { base: t, checks };
}

function checkScalar(s: Subset, path: string, attr: Attr, v: unknown, errors: string[]): void {
  const { base, checks } = typeChain(s, attr.type);
  const ok =
    base === 'string_t'
      ? typeof v === 'string'
      : base === 'integer_t' || base === 'long_t'
        ? typeof v === 'number' && Number.isInteger(v)
        : base === 'float_t'
          ? typeof v === 'number' && Number.isFinite(v)
          : base === 'boolean_t'
            ? typeof v === 'boolean'
            : base === 'json_t';
  if (!ok) {
    errors.push(`${path}: ${JSON.stringify(v)} is not ${attr.type} (${base})`);
    return;
  }
  for (const c of checks) {
    if (c.regex && typeof v === 'string' && !new RegExp(c.regex).test(v)) errors.push(`${path}: '${v}' does not match ${c.name}`);
    if (c.max_len && typeof v === 'string' && v.length > c.max_len) errors.push(`${path}: longer than ${c.max_len} (${c.name})`);
  }
  if (attr.enum && !attr.enum.includes(v as number)) errors.push(`${path}: ${JSON.stringify(v)} is not one of ${attr.enum.join(', ')}`);
}

function checkObject(s: Subset, path: string, name: string, value: unknown, profiles: string[], errors: string[]): void {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    errors.push(`${path}: expected a ${name} object`);
    return;
  }
  // `object` is OCSF's free-form object (e.g. `unmapped`).
  if (name === 'object') return;
  const def = s.objects[name];
  if (!def) {
    errors.push(`${path}: object '${name}' is not in the generated subset (regenerate it)`);
    return;
  }
  checkAttributes(s, path, def.attributes, value as Record<string, unknown>, profiles, errors);
  const present = (k: string) => (value as Record<string, unknown>)[k] !== undefined && (value as Record<string, unknown>)[k] !== null;
  if (def.constraints?.at_least_one && !def.constraints.at_least_one.some(present))
    errors.push(`${path}: needs at least one of ${def.constraints.at_least_one.join(', ')}`);
  if (def.constraints?.just_one && def.constraints.just_one.filter(present).length !== 1)
    errors.push(`${path}: needs exactly one of ${def.constraints.just_one.join(', ')}`);
}

function checkAttributes(s: Subset, path: string, attrs: Record<string, Attr>, value: Record<string, unknown>, profiles: string[], errors: string[]): void {
  for (const [k, a] of Object.entries(attrs)) {
    const inProfile = !a.profile || profiles.includes(a.profile);
    if (a.requirement === 'required' && inProfile && (value[k] === undefined || value[k] === null)) errors.push(`${path}.${k}: required`);
  }
  for (const [k, v] of Object.entries(value)) {
    const a = attrs[k];
    const p = `${path}.${k}`;
    if (!a) {
      errors.push(`${p}: not an attribute here`);
      continue;
    }
    if (a.profile && !profiles.includes(a.profile)) errors.push(`${p}: belongs to profile '${a.profile}', not in metadata.profiles`);
    if (v === null) {
      errors.push(`${p}: null (leave it out instead)`);
      continue;
    }
    if (a.is_array && !Array.isArray(v)) {
      errors.push(`${p}: expected an array`);
      continue;
    }
    const items = a.is_array ? (v as unknown[]) : [v];
    items.forEach((item, i) => {
      const ip = a.is_array ? `${p}[${i}]` : p;
      if (a.type === 'object_t') checkObject(s, ip, a.object_type!, item, profiles, errors);
      else checkScalar(s, ip, a, item, errors);
    });
  }
}

/**
 * The one rule of the schema Tributary's events break on purpose: OCSF 1.1/1.3 want a CVE or CWE on every
 * vulnerability, and a finding without a CVE has neither (a made-up CVE id would pass for one in queries
 * by CVE; its plugin names it in the title and finding_info.analytic instead).
 */
export const NO_CVE_DEVIATION = /^vulnerability_finding\.vulnerabilities\[\d+\]: needs at least one of cve, cwe$/;

/** Problems with one event of the given OCSF version, but for NO_CVE_DEVIATION; empty when it validates. */
export function validateOcsf(version: string, event: Record<string, unknown>): string[] {
  return strictOcsfProblems(version, event).filter((e) => !NO_CVE_DEVIATION.test(e));
}

/** Every problem with one event of the given OCSF version (NO_CVE_DEVIATION included). */
export function strictOcsfProblems(version: string, event: Record<string, unknown>): string[] {
  const s = ocsfSubset(version);
  const cls = s.classes[String(event.class_uid)];
  if (!cls) return [`class_uid ${String(event.class_uid)} is not a class of the subset`];
  const errors: string[] = [];
  const profiles = ((event.metadata as { profiles?: string[] } | undefined)?.profiles ?? []) as string[];
  checkAttributes(s, cls.name, cls.attributes, event, profiles, errors);
  if (event.type_uid !== Number(event.class_uid) * 100 + Number(event.activity_id)) errors.push('type_uid is not class_uid * 100 + activity_id');
  if ((event.metadata as { version?: string } | undefined)?.version !== s.version) errors.push(`metadata.version is not ${s.version}`);
  return errors;
}
