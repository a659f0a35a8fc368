// The scheduled exports that follow a source's syncs, with how the last one went (from the source's
// view: GET /api/v1/sources/{name} → exports).
import type { ExportStatus } from '../api.ts';
import { type Column, DataTable, dateTime } from '../ui.tsx';

type Row = ExportStatus & { id: string };

const columns: Column<Row>[] = [
  { key: 'destination', label: 'Export' },
  {
    key: 'status',
    label: 'Last export',
    render: (r) => <span className={`status status-${r.status}`}>{r.status === 'never' ? 'not run yet' : r.status}</span>,
  },
  { key: 'finishedAt', label: 'Finished', render: (r) => dateTime(r.finishedAt ?? r.startedAt) },
  { key: 'records', label: 'Records', render: (r) => String(r.records) },
  { key: 'attempts', label: 'Attempts', render: (r) => String(r.attempts) },
  { key: 'files', label: 'Files / error', render: (r) => r.error ?? (r.files.join(', ') || '—') },
];

export function ExportStatusPanel({ source, exports }: { source: string; exports: ExportStatus[] }) {
  if (exports.length === 0) return null;
  return (
    <section aria-label="Scheduled exports">
      <h2>Scheduled exports</h2>
      <DataTable
        caption={`Scheduled exports after syncs of ${source}`}
        columns={columns}
        rows={exports.map((e) => ({ ...e, id: e.destination }))}
        empty="No scheduled exports."
      />
    </section>
  );
}
