// OCSF as Parquet (`--format ocsf-parquet`, what Amazon Security Lake ingests): the events of ocsf.ts
// in a Parquet file whose schema nests OCSF's objects (ocsf-parquet-schema.ts), written a row group
// at a time with hyparquet-writer (pure JavaScript): memory holds one row group of events, the bytes of
// each group are handed on as soon as it is encoded, and the footer (schema, row group index) comes last.
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { writeColumn } from 'hyparquet-writer/src/column.js';
import { columnWalker } from './parquet-columns.ts';
import type { ModelName } from '../core/models.ts';
import type { OcsfVersion } from './ocsf.ts';
import { ocsfShape, type Shape } from './ocsf-parquet-schema.ts';

type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number];

/** Events per row group: big enough for column statistics and compression to pay, small enough to stay inside the memory budget (10,000: peak RSS 197-205 MB at 100,000 findings under load, 5,000: 182-196 MB). */
export const PARQUET_ROW_GROUP = 5_000;
/** Bytes of a data page (ParquetWriter.write's default). */
const PAGE_SIZE = 1_048_576;

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

/** Encodes OCSF events of one class into a Parquet file, a row group at a time. */
export class OcsfParquetEncoder {
  readonly #out = new ByteWriter(1 << 20);
  readonly #pq: ParquetWriter;
  readonly #columns: ReturnType<typeof columnWalker>;
  #rows = 0;
  readonly rowGroup: number;

  constructor(model: ModelName, version: OcsfVersion, rowGroup = PARQUET_ROW_GROUP) {
    this.rowGroup = rowGroup;
    const schema = parquetSchema(ocsfShape(model, version));
    this.#columns = columnWalker(schema);
    this.#pq = new ParquetWriter({ writer: this.#out, schema, createdBy: 'tributary', kvMetadata: [{ key: 'ocsf.version', value: version }] });
  }

  /** Adds an event (its values into the row group's columns); true when a row group is full (take it with `flush`). */
  add(event: Record<string, unknown>): boolean {
    this.#columns.add(event);
    return ++this.#rows >= this.rowGroup;
  }

  /** The bytes of the events added so far as one row group (after the file header on the first call); empty when none. */
  flush(): Uint8Array {
    if (this.#rows > 0) this.#writeGroup();
    return this.#take();
  }

  /**
   * The row group's columns written as ParquetWriter.write writes a group (its column chunks, page
   * indexes kept for the footer, the group in the file's metadata), from the page data the columns
   * already hold rather than from the events.
   */
  #writeGroup(): void {
    const pq = this.#pq;
    const writer = this.#out;
    const start = writer.offset;
    const chunks = [];
    for (const leaf of this.#columns.leaves) {
      const column = {
        columnName: leaf.name,
        element: leaf.element,
        schemaPath: leaf.schemaPath,
        codec: pq.codec,
        compressors: pq.compressors,
        stats: pq.statistics,
        statisticsTruncateLength: pq.statisticsTruncateLength,
        pageSize: PAGE_SIZE,
        columnIndex: false,
        offsetIndex: true,
      };
      const pageData = {
        values: leaf.values,
        definitionLevels: leaf.definitionLevels,
        repetitionLevels: leaf.repetitionLevels,
        maxDefinitionLevel: leaf.maxDefinitionLevel,
      };
      const result = writeColumn({ writer, column, pageData });
      chunks.push(result.chunk);
      pq.pendingIndexes.push(result);
      // Emptied in place (the walk fills these arrays); the writer keeps none of them (hyparquet-writer 0.17).
      leaf.values.length = 0;
      leaf.definitionLevels.length = 0;
      leaf.repetitionLevels.length = 0;
    }
    let total = 0n;
    for (const c of chunks) total += c.meta_data?.total_uncompressed_size ?? 0n;
    const rows = BigInt(this.#rows);
    pq.num_rows += rows;
    pq.row_groups.push({ columns: chunks, total_byte_size: total, num_rows: rows, total_compressed_size: BigInt(writer.offset - start) });
    this.#rows = 0;
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
