// Mapping between the models of src/core/models.ts and the record tables of the migrations.
// Table and column names are derived here once; the migration SQL spells the same names out
// (test/store/schema.test.ts checks that every model field has its column).
import { type FieldDef, MODEL_FIELDS, type ModelName } from '../../core/models.ts';

import { q } from './names.ts';

export { columnOf, q, tableOf } from './names.ts';

export function modelFieldMap(model: ModelName): Map<string, FieldDef> {
  return new Map(MODEL_FIELDS[model].map((f) => [f.name, f]));
}

// Mappers hand many records one shared object (a plugin's CVE list, its VPR drivers): its text is
// kept beside it, so a million findings do not write the same JSON a million times. The objects are
// never changed once mapped (frozen where they are cached).
const jsonOf = new WeakMap<object, string>();

/** Converts a model value to what the store keeps in its column. */
export function toColumnValue(f: FieldDef, v: unknown): unknown {
  if (v === undefined || v === null) return null;
  switch (f.kind) {
    case 'json': {
      if (typeof v !== 'object' || !Object.isFrozen(v)) return JSON.stringify(v);
      let text = jsonOf.get(v);
      if (text === undefined) {
        text = JSON.stringify(v);
        jsonOf.set(v, text);
      }
      return text;
    }
    case 'bool':
      return v ? 1 : 0;
    case 'int':
    case 'real':
      return typeof v === 'number' && Number.isFinite(v) ? v : null;
    default:
      return String(v);
  }
}

/** Converts a stored column value back to the model value. */
export function fromColumnValue(f: FieldDef, v: unknown): unknown {
  if (v === undefined || v === null) return null;
  switch (f.kind) {
    case 'json':
      return typeof v === 'string' ? JSON.parse(v) : v;
    case 'bool':
      return Number(v) === 1;
    case 'int':
    case 'real':
      return Number(v);
    default:
      return String(v);
  }
}

/**
 * Findings columns the list sorts by through an index of its own (migration 14), as expressions a
 * filter on the column never matches: a no-op concatenation or addition keeps the order and nulls.
 * Keyed by column; `col` is the column as the query names it.
 */
const SORT_ONLY: Record<string, (col: string) => string> = {
  last_seen: (c) => `${c} || ''`,
  plugin_name: (c) => `${c} || ''`,
  status: (c) => `${c} || ''`,
  epss_score: (c) => `${c} + 0`,
  cvss_v3_base_score: (c) => `${c} + 0`,
  vpr_score: (c) => `${c} + 0`,
  priority: (c) => `${c} + 0`,
};

/** Migration 14's index expressions, by column. */
export const SORT_ONLY_INDEXES: Record<string, string> = Object.fromEntries(Object.entries(SORT_ONLY).map(([c, f]) => [c, f(c)]));

/** The expression a findings sort by `column` (as `r."column"`) uses, or null when it sorts by the column itself. */
export function sortOnlyExpression(column: string): string | null {
  const f = SORT_ONLY[column];
  return f ? `(${f(`r.${q(column)}`)})` : null;
}
