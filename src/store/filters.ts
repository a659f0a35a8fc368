// The filter syntax shared by the CLI (--where) and the API (?where=): field, operator, value.
import { InputError } from '../core/errors.ts';
import type { Filter, FilterOp } from './records.ts';

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
