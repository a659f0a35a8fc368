// The files table of a source's bucket: each file's import status and, in a row below it, the rejection reasons.
import type { BucketFile } from '../api.ts';
import { ago, Badge, bytes, type Column, dateTime, num } from '../ui.tsx';

const STATUS: Record<BucketFile['status'], { tone: 'ok' | 'bad' | 'warn' | 'info' | 'neutral'; label: string; help: string }> = {
  pending: { tone: 'info', label: 'Waiting for sync', help: 'Imported by the next sync of this source.' },
  changed: { tone: 'info', label: 'Changed, waiting for sync', help: 'A new version of an imported file; the next sync imports it again.' },
  imported: { tone: 'ok', label: 'Imported', help: 'Every row was imported.' },
  partial: { tone: 'warn', label: 'Partly imported', help: 'Some rows were rejected; see the reasons.' },
  rejected: { tone: 'bad', label: 'Rejected', help: 'Nothing was imported from this file; see the reason.' },
  skipped: { tone: 'neutral', label: 'Skipped (older)', help: 'An export older than one already imported for its scope: it changed nothing.' },
};

export const FILE_COLUMNS: Column<BucketFile>[] = [
  { key: 'file', label: 'File', className: 'strong', render: (file) => file.key },
  { key: 'size', label: 'Size', render: (file) => bytes(file.size) },
  { key: 'uploaded', label: 'Uploaded', render: (file) => <span title={dateTime(file.lastModified)}>{ago(file.lastModified)}</span> },
  {
    key: 'status',
    label: 'Import status',
    render: (file) => {
      const st = STATUS[file.status] ?? STATUS.pending;
      const imp = file.import;
      return (
        <>
          <Badge tone={st.tone} title={st.help}>
            {st.label}
          </Badge>
          {imp?.kind && <span className="muted small"> as {imp.kind}</span>}
          {imp && <div className="muted small">{dateTime(imp.importedAt)}</div>}
        </>
      );
    },
  },
  { key: 'imported', label: 'Rows imported', className: 'num', render: (file) => (file.import ? num(file.import.rowsImported) : '—') },
  { key: 'rejected', label: 'Rows rejected', className: 'num', render: (file) => (file.import ? num(file.import.rowsRejected) : '—') },
];

/** What went wrong with a file's import, shown in a row under it; null when nothing did. */
export function fileDetail(file: BucketFile) {
  const imp = file.import;
  if (!imp || (!imp.error && imp.rejections.length === 0)) return null;
  return (
    <>
      {imp.error && <p className={imp.status === 'skipped' ? 'muted' : 'field-error'}>{imp.error}</p>}
      {imp.rejections.length > 0 && (
        <details>
          <summary>
            Rejection reasons for {file.key} ({num(imp.rowsRejected)} row{imp.rowsRejected === 1 ? '' : 's'})
          </summary>
          <ul className="rejections">
            {imp.rejections.slice(0, 100).map((r) => (
              <li key={`${r.line}|${r.reason}`}>
                <span className="muted">Line {r.line}:</span> {r.reason}
              </li>
            ))}
            {imp.rejections.length > 100 && <li className="muted">…and {num(imp.rejections.length - 100)} more</li>}
          </ul>
        </details>
      )}
    </>
  );
}
