// The filter syntax shared by the CLI (--where) and the API (?where=): field, operator, value.
import { InputError } from '../../core/errors.ts';
import type { ModelName } from '../../core/models.ts';

export type FilterOp = '=' | '!=' | '>' | '>=' | '<' | '<=' | '~';
export interface Filter {
  field: string;
  op: FilterOp;
  value: string;
  /** A findings `cves=` filter: the plugins whose findings may name the CVE (set by the store, cve-plugins.ts). */
  plugins?: string[];
}

const FILTER_RE = /^([A-Za-z][A-Za-z0-9]*)\s*(!=|>=|<=|=|>|<|~)(.*)$/s;

export function parseFilter(expr: string, param = 'where'): Filter {
  const m = FILTER_RE.exec(expr.trim());
  if (!m)
    throw new InputError(
      `malformed filter '${expr}': use field=value, field!=value, field>value, field>=value, field<value, field<=value or field~text`,
      param,
    );
  return { field: m[1], op: m[2] as FilterOp, value: m[3].trim() };
}

/**
 * A list's filters with the live-records default (interfaces.md §7.1): findings open or reopened and
 * not removed, other records not removed. A filter on `status` (findings) or `removed` widens it, and
 * so does `all`: what was fixed or removed is one filter away, never mixed into a default list.
 */
export function withLiveDefault(model: ModelName, filters: Filter[], all = false): Filter[] {
  if (all) return filters;
  const named = (field: string) => filters.some((f) => f.field === field);
  const out = [...filters];
  if (model === 'vulnerabilities') {
    if (named('status')) return filters;
    out.push({ field: 'status', op: '!=', value: 'fixed' });
  }
  if (!named('removed')) out.push({ field: 'removed', op: '=', value: 'false' });
  return out;
}
