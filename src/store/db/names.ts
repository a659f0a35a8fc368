// Record tables' and columns' names from models' and fields' names, with no import of the models
// themselves: the SQLite page writer's thread needs these and not the models' schemas (zod), which
// would cost its heap ~15 MB (issue 30). schema.ts re-exports them.
import type { ModelName } from '../../core/models.ts';

export function tableOf(model: ModelName): string {
  return 'rec_' + model.replace(/-/g, '_');
}

// Asked for every field of every row read or written; the names are a few hundred at most, so each
// is converted once (the regex was the largest single cost of an export's reading, by CPU profile).
const columns = new Map<string, string>();

export function columnOf(field: string): string {
  let col = columns.get(field);
  if (col === undefined) {
    col = field.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
    if (columns.size < 10_000) columns.set(field, col);
  }
  return col;
}

/** Quotes an identifier (some columns, like "group", are reserved words). */
export function q(ident: string): string {
  return '"' + ident.replace(/"/g, '""') + '"';
}
