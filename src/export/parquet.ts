// OCSF as Parquet (`--format ocsf-parquet`, what Amazon Security Lake ingests): the events of ocsf.ts
// in a Parquet file whose schema nests OCSF's objects (ocsf-parquet-schema.ts), written a row group
// at a time with hyparquet-writer (pure JavaScript): memory holds one row group of events, the bytes of
// each group are handed on as soon as it is encoded, and the footer (schema, row group index) comes last.
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { ModelName } from '../core/models.ts';
import type { OcsfVersion } from './ocsf.ts';
import { ocsfShape, type Shape } from './ocsf-parquet-schema.ts';

type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number];

/** Events per row group: big enough for column statistics and compression to pay, small enough to stay well inside the memory budget. */
export const PARQUET_ROW_GROUP = 10_000;

const LEAF: Record<string, Partial<SchemaElement>> = {
  STRING: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
  JSON: { type: 'BYTE_ARRAY', converted_type: 'JSON' },
  INT32: { type: 'INT32' },
  INT64: { type: 'INT64' },
  DOUBLE: { type: 'DOUBLE' },
  BOOLEAN: { type: 'BOOLEAN' },
};

/** The Parquet schema (flattened depth-first, as the file footer spells it) of an event shape; every field optional. */
export function parquetSchema(shape: Record<string, Shape>): SchemaElement[] {
  const out: SchemaElement[] = [{ name: 'root', num_children: Object.keys(shape).length }];
  const add = (name: string, s: Shape): void => {
    if (typeof s === 'string') {
      out.push({ name, repetition_type: 'OPTIONAL', ...LEAF[s] } as SchemaElement);
    } else if (Array.isArray(s)) {
      // The standard three-level list: <name> (LIST) → repeated group list → element.
      out.push({ name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 });
      out.push({ name: 'list', repetition_type: 'REPEATED', num_children: 1 });
      add('element', s[0]);
    } else {
      out.push({ name, repetition_type: 'OPTIONAL', num_children: Object.keys(s).length });
      for (const [k, v] of Object.entries(s)) add(k, v);
    }
  };
  for (const [k, v] of Object.entries(shape)) add(k, v);
  return out;
}

/**
 * An event's values as the writer takes them: long integers as BigInt, absent values undefined. An
 * attribute the schema has no column for is an error (it would be dropped from the file silently).
 */
function prepare(s: Shape, v: unknown, path: string, shared: WeakMap<object, unknown>): unknown {
  if (v === null || v === undefined) return undefined;
  if (typeof s === 'string') {
    if (s === 'INT64') return typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v)));
    if (s === 'STRING') return typeof v === 'string' ? v : String(v);
    return v;
  }
  if (typeof v !== 'object') throw new Error(`OCSF Parquet: ${path} is ${typeof v}, the schema has an object`);
  // Frozen parts are shared by many events (a host's device in each of its findings): prepared once.
  const frozen = Object.isFrozen(v);
  if (frozen && shared.has(v)) return shared.get(v);
  let out: unknown;
  if (Array.isArray(s)) {
    if (!Array.isArray(v)) throw new Error(`OCSF Parquet: ${path} is not an array`);
    out = v.map((x) => prepare(s[0], x, path, shared));
  } else {
    const o: Record<string, unknown> = {};
    for (const k in v as Record<string, unknown>) {
      const child = s[k];
      if (child === undefined) throw new Error(`OCSF Parquet: no column for ${path}.${k}`);
      o[k] = prepare(child, (v as Record<string, unknown>)[k], `${path}.${k}`, shared);
    }
    out = o;
  }
  if (frozen) shared.set(v, out);
  return out;
}

/** Encodes OCSF events of one class into a Parquet file, a row group at a time. */
export class OcsfParquetEncoder {
  readonly #shape: Record<string, Shape>;
  readonly #names: string[];
  readonly #out = new ByteWriter(1 << 20);
  readonly #pq: ParquetWriter;
  #rows: Record<string, unknown>[] = [];
  #shared = new WeakMap<object, unknown>();
  readonly rowGroup: number;

  constructor(model: ModelName, version: OcsfVersion, rowGroup = PARQUET_ROW_GROUP) {
    this.rowGroup = rowGroup;
    this.#shape = ocsfShape(model, version);
    this.#names = Object.keys(this.#shape);
    this.#pq = new ParquetWriter({
      writer: this.#out,
      schema: parquetSchema(this.#shape),
      createdBy: 'tributary',
      kvMetadata: [{ key: 'ocsf.version', value: version }],
    });
  }

  /** Adds an event; true when a row group is full (take it with `flush`). */
  add(event: Record<string, unknown>): boolean {
    this.#rows.push(prepare(this.#shape, event, 'event', this.#shared) as Record<string, unknown>);
    return this.#rows.length >= this.rowGroup;
  }

  /** The bytes of the events added so far as one row group (after the file header on the first call); empty when none. */
  flush(): Uint8Array {
    const rows = this.#rows;
    if (rows.length > 0) {
      this.#rows = [];
      this.#shared = new WeakMap();
      const columnData = this.#names.map((name) => ({ name, data: rows.map((r) => r[name]) }));
      this.#pq.write({ columnData, rowGroupSize: rows.length });
    }
    return this.#take();
  }

  /** The last row group and the footer: the rest of the file. */
  finish(): Uint8Array {
    const last = this.flush();
    this.#pq.finish();
    const footer = this.#take();
    if (last.length === 0) return footer;
    const all = new Uint8Array(last.length + footer.length);
    all.set(last);
    all.set(footer, last.length);
    return all;
  }

  #take(): Uint8Array {
    const w = this.#out;
    const bytes = new Uint8Array(w.buffer.slice(0, w.index));
    w.index = 0;
    return bytes;
  }
}
