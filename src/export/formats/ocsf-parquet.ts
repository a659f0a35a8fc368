// OCSF as Parquet: the OCSF events of ocsf.ts packed into row groups.
import { ocsfEvents, ocsfModels } from './ocsf.ts';
import type { ExportFormatDef } from './types.ts';

export const ocsfParquet: ExportFormatDef = {
  ...ocsfModels,
  extension: 'ocsf.parquet',
  contentType: 'application/vnd.apache.parquet',
  menu: [{ label: 'OCSF 1.1 as Parquet (Security Lake)' }],
  binary: {
    events: ocsfEvents,
    encoder: async (model, opts, rowGroup) => {
      // Loaded when a Parquet export runs: every other export, sync and server start goes without the
      // Parquet writer and its live heap.
      const { OcsfParquetEncoder } = await import('../parquet.ts');
      return new OcsfParquetEncoder(model, opts.ocsfVersion ?? '1.1.0', rowGroup);
    },
  },
};
