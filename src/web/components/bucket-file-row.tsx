// One file of a source's bucket in the files table: its import status and, below it, the rejection reasons.
import type { BucketFile } from '../api.ts';
import { ago, Badge, bytes, dateTime, num } from '../ui.tsx';

const STATUS: Record<BucketFile['status'], { tone: 'ok' | 'bad' | 'warn' | 'info' | 'neutral'; label: string; help: string }> = {
  pending: { tone: 'info', label: 'Waiting for sync', help: 'Imported by the next sync of this source.' },
  changed: { tone: 'info', label: 'Changed, waiting for sync', help: 'A new version of an imported file; the next sync imports it again.' },
  imported: { tone: 'ok', label: 'Imported', help: 'Every row was imported.' },
  partial: { tone: 'warn', label: 'Partly imported', help: 'Some rows were rejected; see the reasons.' },
  rejected: { tone: 'bad', label: 'Rejected', help: 'Nothing was imported from this file; see the reason.' },
  skipped: { tone: 'neutral', label: 'Skipped (older)', help: 'An export older than one already imported for its scope: it changed nothing.' },
};

export function FileRow({ file }: { file: BucketFile }) {
  const st = STATUS[file.status] ?? STATUS.pending;
  const imp = file.import;
  return (
    <>
      <tr>
        <td className="strong">{file.key}</td>
        <td>{bytes(file.size)}</td>
        <td title={dateTime(file.lastModified)}>{ago(file.lastModified)}</td>
        <td>
          <Badge tone={st.tone} title={st.help}>
            {st.label}
          </Badge>
          {imp?.kind && <span className="muted small"> as {imp.kind}</span>}
          {imp && <div className="muted small">{dateTime(imp.importedAt)}</div>}
        </td>
        <td className="num">{imp ? num(imp.rowsImported) : '—'}</td>
        <td className="num">{imp ? num(imp.rowsRejected) : '—'}</td>
      </tr>
      {imp && (imp.error || imp.rejections.length > 0) && (
        <tr className="detail-row">
          <td colSpan={6}>
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
          </td>
        </tr>
      )}
    </>
  );
}
