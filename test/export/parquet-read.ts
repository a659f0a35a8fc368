// Reads an OCSF Parquet export back with an independent reader (hyparquet) as the JSON export spells
// events: absent values (Parquet nulls, empty lists) left out, long integers as numbers.
import { parquetMetadata, parquetReadObjects } from 'hyparquet';

function normalize(v: unknown): unknown {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) {
    const out = v.map(normalize).filter((x) => x !== undefined);
    return out.length ? out : undefined;
  }
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const n = normalize(x);
      if (n !== undefined) out[k] = n;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return v;
}

function arrayBufferOf(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

export async function readOcsfParquet(bytes: Uint8Array): Promise<Record<string, unknown>[]> {
  const rows = await parquetReadObjects({ file: arrayBufferOf(bytes) });
  return rows.map((r) => (normalize(r) ?? {}) as Record<string, unknown>);
}

export function parquetInfo(bytes: Uint8Array): { rows: number; rowGroups: number; columns: string[]; kv: Record<string, string | undefined> } {
  const meta = parquetMetadata(arrayBufferOf(bytes));
  return {
    rows: Number(meta.num_rows),
    rowGroups: meta.row_groups.length,
    columns: meta.schema.map((s) => s.name),
    kv: Object.fromEntries((meta.key_value_metadata ?? []).map((e) => [e.key, e.value])),
  };
}
