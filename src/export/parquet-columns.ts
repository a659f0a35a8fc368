// The columns of an OCSF Parquet row group, filled event by event in one walk of each event: every leaf
// of the schema (a column) takes its value, definition level and repetition level as the event is
// added, as hyparquet-writer's Dremel encoding would compute them from the whole group's events (one
// generic walk per leaf column, after every event of the group was copied for it). What the writer is
// then handed per column is exactly that encoding's page data.
import type { ParquetWriter } from 'hyparquet-writer';

type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number];

/** One leaf column of a row group as hyparquet-writer's page data: values (undefined for null) and levels. */
export interface LeafColumn {
  /** The column's dotted path below the root, as the writer names it. */
  name: string;
  element: SchemaElement;
  /** The schema elements from the root to the leaf. */
  schemaPath: SchemaElement[];
  maxDefinitionLevel: number;
  /** Whether the leaf is inside a list (its repetition levels are written). */
  repeated: boolean;
  values: unknown[];
  definitionLevels: number[];
  repetitionLevels: number[];
}

/** Adds a value (or its absence) at a definition and repetition level. */
type Emit = (v: unknown, def: number, rep: number) => void;

interface Built {
  emit: Emit;
  /** Every leaf below absent, at this definition and repetition level. */
  nulls: (def: number, rep: number) => void;
}

/** The value as the column stores it: long integers as BigInt, text as a string. */
function leafValue(e: SchemaElement): (v: unknown) => unknown {
  if (e.type === 'INT64') return (v) => (typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v))));
  if (e.converted_type === 'UTF8') return (v) => (typeof v === 'string' ? v : String(v));
  return (v) => v;
}

/**
 * The leaf columns of a flattened schema (root first, depth-first, as parquetSchema writes it: every
 * field optional, lists in the three-level form) and the walk that fills them from one event. An
 * attribute the schema has no column for is an error (it would be dropped from the file silently).
 */
export function columnWalker(schema: SchemaElement[]): { leaves: LeafColumn[]; add: (event: Record<string, unknown>) => void } {
  const leaves: LeafColumn[] = [];
  let at = 1;
  /** The node at `at` (its parents' elements in `path`), whose value's presence makes the definition level `def`, inside `reps` lists. */
  const node = (path: SchemaElement[], def: number, reps: number, name: string): Built => {
    const e = schema[at++]!;
    const here = [...path, e];
    if (!e.num_children) {
      const leaf: LeafColumn = {
        name: here
          .slice(1)
          .map((s) => s.name)
          .join('.'),
        element: e,
        schemaPath: here,
        maxDefinitionLevel: def,
        repeated: reps > 0,
        values: [],
        definitionLevels: [],
        repetitionLevels: [],
      };
      leaves.push(leaf);
      const as = leafValue(e);
      const { values, definitionLevels: defs, repetitionLevels: repLevels } = leaf;
      const nulls = (d: number, r: number) => {
        values.push(undefined);
        defs.push(d);
        if (reps > 0) repLevels.push(r);
      };
      const emit: Emit = (v, d, r) => {
        if (v === null || v === undefined) return nulls(d, r);
        values.push(as(v));
        defs.push(d + 1);
        if (reps > 0) repLevels.push(r);
      };
      return { emit, nulls };
    }
    if (e.converted_type === 'LIST') {
      // <name> (LIST, optional) → list (repeated) → element (optional).
      const list = schema[at++]!;
      const element = node([...here, list], def + 2, reps + 1, name);
      const rep = reps + 1;
      const emit: Emit = (v, d, r) => {
        if (v === null || v === undefined) return element.nulls(d, r);
        if (!Array.isArray(v)) throw new Error(`OCSF Parquet: ${name} is not an array`);
        if (v.length === 0) return element.nulls(d + 1, r);
        for (let i = 0; i < v.length; i++) element.emit(v[i], d + 2, i === 0 ? r : rep);
      };
      return { emit, nulls: element.nulls };
    }
    const children: { key: string; built: Built }[] = [];
    for (let i = 0; i < e.num_children; i++) {
      const key = schema[at]!.name;
      children.push({ key, built: node(here, def + 1, reps, `${name}.${key}`) });
    }
    const known = new Set(children.map((c) => c.key));
    const nulls = (d: number, r: number) => {
      for (const c of children) c.built.nulls(d, r);
    };
    const emit: Emit = (v, d, r) => {
      if (v === null || v === undefined) return nulls(d, r);
      if (typeof v !== 'object' || Array.isArray(v))
        throw new Error(`OCSF Parquet: ${name} is ${Array.isArray(v) ? 'an array' : typeof v}, the schema has an object`);
      const o = v as Record<string, unknown>;
      for (const k in o) if (!known.has(k)) throw new Error(`OCSF Parquet: no column for ${name}.${k}`);
      for (const c of children) c.built.emit(o[c.key], d + 1, r);
    };
    return { emit, nulls };
  };
  // The root: its fields are the top-level columns (an event is never absent).
  const root = schema[0]!;
  const top: { key: string; built: Built }[] = [];
  for (let i = 0; i < (root.num_children ?? 0); i++) {
    const key = schema[at]!.name;
    top.push({ key, built: node([root], 1, 0, `event.${key}`) });
  }
  const known = new Set(top.map((c) => c.key));
  const add = (event: Record<string, unknown>) => {
    for (const k in event) if (!known.has(k)) throw new Error(`OCSF Parquet: no column for event.${k}`);
    for (const c of top) c.built.emit(event[c.key], 0, 0);
  };
  return { leaves, add };
}
