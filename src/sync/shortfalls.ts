// What a run could not use: the files it rejected and the rows it could not store, collected while it
// runs (the first RUN_LIST_CAP of each, with totals) for the run's record, its summary and the API.
import type { RowFailure } from '../core/connector.ts';
import type { FileImportResult } from '../core/files.ts';
import { RUN_LIST_CAP, type RunShortfalls } from '../store/index.ts';

export class Shortfalls {
  readonly value: RunShortfalls = { rejected: [], rejectedTotal: 0, errors: [], errorsTotal: 0 };
  /** A file's import may be recorded twice in one run (a restarted stream repeats it): it is named once. */
  readonly #files = new Set<string>();
  /** Models with a row that could not be stored (the run sweeps none of their records). */
  readonly failedModels = new Set<string>();

  get any(): boolean {
    return this.value.rejectedTotal + this.value.errorsTotal > 0;
  }

  /** Called with each file import the run records; a file rejected whole is listed with its reason. */
  fileRecorded(r: FileImportResult): void {
    if (r.status !== 'rejected' || this.#files.has(r.key)) return;
    this.#files.add(r.key);
    this.value.rejectedTotal++;
    if (this.value.rejected.length < RUN_LIST_CAP) this.value.rejected.push({ file: r.key, reason: r.error ?? 'rejected' });
  }

  /** Rows of a page that could not be stored; `model` where a failure names none (the stream's first). */
  rowsFailed(model: string, failures: readonly RowFailure[]): void {
    this.value.errorsTotal += failures.length;
    for (const f of failures) {
      this.failedModels.add(f.model ?? model);
      if (this.value.errors.length < RUN_LIST_CAP) this.value.errors.push({ model: f.model ?? model, row: f.row, field: f.field, reason: f.reason });
    }
  }

  /** One line for the log: what the run could not use. */
  describe(): string {
    const { rejectedTotal: files, errorsTotal: rows } = this.value;
    const parts = [];
    if (files) parts.push(`${files} file${files === 1 ? '' : 's'} rejected`);
    if (rows) parts.push(`${rows} row${rows === 1 ? '' : 's'} not stored`);
    return parts.join(', ');
  }
}
