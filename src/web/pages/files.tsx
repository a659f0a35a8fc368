// File drop of a file-mode source: drag-and-drop upload with progress, the bucket's files with their
// import status (rows imported/rejected, rejection reasons), and the file-drop guide with generated
// upload credentials, ready-to-paste commands and revocation.
import { type DragEvent, useRef, useState } from 'react';
import { describeError, type SourceView, uploadFile, call } from '../api.ts';
import { FILE_COLUMNS, fileDetail } from '../components/bucket-file-row.tsx';
import { Guide } from '../components/file-drop-guide.tsx';
import { Alert, bytes, DataTable, Spinner, useLoad } from '../ui.tsx';

interface Upload {
  id: number;
  name: string;
  size: number;
  loaded: number;
  state: 'uploading' | 'done' | 'failed';
  error?: string;
}

let nextUploadId = 1;

export function FilesPanel({ source, uploadHint, onImported }: { source: SourceView; uploadHint?: string | null; onImported?: () => void }) {
  const files = useLoad((s) => call('GET /api/v1/sources/:name/files', { params: { name: source.name } }, s), `files:${source.name}`, { pollMs: 4000 });
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [over, setOver] = useState(false);
  const [syncMsg, setSyncMsg] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);

  const start = (list: FileList | File[]) => {
    for (const file of Array.from(list)) {
      const id = nextUploadId++;
      setUploads((u): Upload[] => [{ id, name: file.name, size: file.size, loaded: 0, state: 'uploading' as const }, ...u].slice(0, 20));
      const patch = (p: Partial<Upload>) => setUploads((u) => u.map((x) => (x.id === id ? { ...x, ...p } : x)));
      uploadFile(source.name, file, (loaded) => patch({ loaded })).promise.then(
        () => {
          patch({ state: 'done', loaded: file.size });
          files.reload();
        },
        (err) => patch({ state: 'failed', error: describeError(err) }),
      );
    }
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    if (e.dataTransfer.files.length) start(e.dataTransfer.files);
  };

  const syncNow = async () => {
    setSyncMsg(null);
    try {
      await call('POST /api/v1/sources/:name/sync', { params: { name: source.name }, body: {} });
      setSyncMsg({ tone: 'success', text: 'Sync started: the waiting files are being imported. Their status updates here.' });
      setTimeout(() => {
        files.reload();
        onImported?.();
      }, 1500);
    } catch (err) {
      setSyncMsg({ tone: 'error', text: `Could not start a sync: ${describeError(err)}` });
    }
  };

  const items = files.data?.items ?? [];
  const waiting = items.filter((f) => f.status === 'pending' || f.status === 'changed').length;
  return (
    <div className="files">
      <section aria-labelledby="upload-title" className="card">
        <h2 id="upload-title">Upload files</h2>
        <p className="muted">
          {files.data?.folder ? (
            <>
              Files go to the folder <code>{files.data.folder}</code>
            </>
          ) : (
            <>
              Files go to <code>{files.data?.address ?? `s3://${String(source.config.bucket ?? '')}/`}</code>
            </>
          )}{' '}
          and are imported by the source's next sync. {uploadHint ?? 'Upload the exports.'}
        </p>
        {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target for the mouse; the labelled file input inside is the keyboard path */}
        <div
          className={`dropzone${over ? ' over' : ''}`}
          onDragOver={(e) => {
            e.preventDefault();
            setOver(true);
          }}
          onDragLeave={() => setOver(false)}
          onDrop={onDrop}
        >
          <p>
            <strong>Drag and drop files here</strong>
            <br />
            <span className="muted">or</span>
          </p>
          <label className="button" htmlFor="file-input">
            Choose files…
          </label>
          <input
            id="file-input"
            ref={inputRef}
            className="sr-only-input"
            type="file"
            multiple
            accept=".csv,.txt,.json,text/csv"
            aria-label="Files to upload"
            onChange={(e) => {
              if (e.target.files?.length) start(e.target.files);
              e.target.value = '';
            }}
          />
        </div>
        {uploads.length > 0 && (
          <ul className="uploads" aria-label="Uploads">
            {uploads.map((u) => (
              <li key={u.id}>
                <div className="upload-row">
                  <span className="strong">{u.name}</span>
                  <span className="muted small">
                    {u.state === 'uploading' ? `${bytes(u.loaded)} of ${bytes(u.size)}` : u.state === 'done' ? `Uploaded (${bytes(u.size)})` : 'Upload failed'}
                  </span>
                </div>
                <progress max={Math.max(1, u.size)} value={u.state === 'done' ? Math.max(1, u.size) : u.loaded} aria-label={`Upload of ${u.name}`} />
                {u.error && <p className="field-error">{u.error}</p>}
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="files-title" className="card">
        <div className="section-head">
          <h2 id="files-title">Files in the bucket</h2>
          <div className="actions">
            {waiting > 0 && <span className="muted">{waiting} waiting for import</span>}
            <button type="button" className="primary" onClick={syncNow}>
              Import now (sync)
            </button>
          </div>
        </div>
        {syncMsg && <Alert tone={syncMsg.tone}>{syncMsg.text}</Alert>}
        {files.error && (
          <Alert tone="error" title="Could not list the files">
            {files.error}
          </Alert>
        )}
        {!files.data && !files.error ? (
          <Spinner />
        ) : (
          <DataTable
            caption="Files and their import status"
            rows={items}
            rowKey={(f) => f.key}
            columns={FILE_COLUMNS}
            rowDetail={fileDetail}
            empty="No files yet. Upload an export above, or use the file-drop guide below."
          />
        )}
      </section>

      <Guide source={source} />
    </div>
  );
}
