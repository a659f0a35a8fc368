// JSON Lines: every model, each record as the API returns it.
import type { ExportFormatDef } from './types.ts';

export const jsonl: ExportFormatDef = {
  extension: 'jsonl',
  contentType: 'application/x-ndjson; charset=utf-8',
  models: () => null,
  label: () => 'JSON Lines',
  menu: [{ label: 'JSON Lines' }],
  lines: () => ({ header: null, needsHost: false, line: (rec) => JSON.stringify(rec) }),
};
