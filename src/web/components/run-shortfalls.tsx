// What a run could not use: the files it rejected and the rows it could not store, each with why (the
// run keeps the first 1000 of each; the totals count the rest).
import type { Run } from '../api.ts';
import { Alert, DataTable, num } from '../ui.tsx';

/** One line for a list of runs: "3 files rejected, 2 rows not stored", or null when there is nothing. */
export function shortfallSummary(r: Pick<Run, 'rejectedTotal' | 'errorsTotal'>): string | null {
  const parts: string[] = [];
  if (r.rejectedTotal) parts.push(`${num(r.rejectedTotal)} file${r.rejectedTotal === 1 ? '' : 's'} rejected`);
  if (r.errorsTotal) parts.push(`${num(r.errorsTotal)} row${r.errorsTotal === 1 ? '' : 's'} not stored`);
  return parts.length ? parts.join(', ') : null;
}

const more = (total: number, shown: number) =>
  total > shown ? <p className="muted small">{`… and ${num(total - shown)} more, not kept with the run.`}</p> : null;

export function RunShortfalls({ run }: { run: Run }) {
  const rejected = run.rejected ?? [];
  const errors = run.errors ?? [];
  if (!run.rejectedTotal && !run.errorsTotal) return null;
  return (
    <section className="card" aria-labelledby="run-shortfalls-title">
      <h2 id="run-shortfalls-title">What the run could not use</h2>
      <Alert tone="warning">{`${shortfallSummary(run)}: the run is partial. Fix or remove them and sync again.`}</Alert>
      {rejected.length > 0 && (
        <>
          <DataTable
            caption="Rejected files"
            showCaption
            rows={rejected}
            rowKey={(f) => f.file}
            columns={[
              { key: 'file', label: 'File', render: (f) => f.file },
              { key: 'reason', label: 'Reason', className: 'error-cell', render: (f) => f.reason },
            ]}
          />
          {more(run.rejectedTotal, rejected.length)}
        </>
      )}
      {errors.length > 0 && (
        <>
          <DataTable
            caption="Rows not stored"
            showCaption
            rows={errors}
            // Rows have no id of their own; their order is the run's, and the list never changes once the run is over.
            rowKey={(_e, i) => String(i)}
            columns={[
              { key: 'model', label: 'Model', render: (e) => e.model },
              { key: 'row', label: 'Row', render: (e) => e.row },
              { key: 'field', label: 'Field', render: (e) => e.field ?? <span className="muted">—</span> },
              { key: 'reason', label: 'Reason', className: 'error-cell', render: (e) => e.reason },
            ]}
          />
          {more(run.errorsTotal, errors.length)}
        </>
      )}
    </section>
  );
}
