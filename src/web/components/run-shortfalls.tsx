// What a run could not use: the files it rejected and the rows it could not store, each with why (the
// run keeps the first 1000 of each; the totals count the rest).
import type { Run } from '../api.ts';
import { Alert, num } from '../ui.tsx';

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
        <div className="table-wrap">
          <table>
            <caption>Rejected files</caption>
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {rejected.map((f) => (
                <tr key={f.file}>
                  <td>{f.file}</td>
                  <td className="error-cell">{f.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {more(run.rejectedTotal, rejected.length)}
        </div>
      )}
      {errors.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption>Rows not stored</caption>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Row</th>
                <th scope="col">Field</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {errors.map((e, i) => (
                // Rows have no id of their own; their order is the run's.
                // biome-ignore lint/suspicious/noArrayIndexKey: the list never changes once the run is over
                <tr key={i}>
                  <td>{e.model}</td>
                  <td>{e.row}</td>
                  <td>{e.field ?? <span className="muted">—</span>}</td>
                  <td className="error-cell">{e.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {more(run.errorsTotal, errors.length)}
        </div>
      )}
    </section>
  );
}
