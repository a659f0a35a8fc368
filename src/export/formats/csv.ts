// CSV: every model, one column per field; text cells a spreadsheet would run as a formula are
// neutralised unless csvEscape is false (tabular.ts).
import { csvColumns, csvHeader, csvRow } from '../tabular.ts';
import type { ExportFormatDef } from './types.ts';

export const csv: ExportFormatDef = {
  extension: 'csv',
  contentType: 'text/csv; charset=utf-8',
  models: () => null,
  label: () => 'CSV',
  menu: [{ label: 'CSV' }],
  lines: (model, opts) => {
    const columns = csvColumns(model);
    const neutralise = opts.csvEscape !== false;
    return { header: csvHeader(model), needsHost: false, line: (rec) => csvRow(columns, rec, neutralise) };
  },
};
