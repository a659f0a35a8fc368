// File drop of a file-mode source: drag-and-drop upload with progress, the bucket's files with their
// import status (rows imported/rejected, rejection reasons), and the file-drop guide with generated
// upload credentials, ready-to-paste commands and revocation.
import { type DragEvent, useRef, useState } from 'react';
import { api, type BucketFile, describeError, type FileDropGuide, get, type SourceView, type UploadToken, uploadFile } from '../api.ts';
import { Alert, ago, Badge, bytes, dateTime, num, Spinner, useLoad } from '../ui.tsx';

interface Upload {
  id: number;
  name: string;
  size: number;
  loaded: number;
  state: 'uploading' | 'done' | 'failed';
  error?: string;
}

const STATUS: Record<BucketFile['status'], { tone: 'ok' | 'bad' | 'warn' | 'info' | 'neutral'; label: string; help: string }> = {
  pending: { tone: 'info', label: 'Waiting for sync', help: 'Imported by the next sync of this source.' },
  changed: { tone: 'info', label: 'Changed, waiting for sync', help: 'A new version of an imported file; the next sync imports it again.' },
  imported: { tone: 'ok', label: 'Imported', help: 'Every row was imported.' },
  partial: { tone: 'warn', label: 'Partly imported', help: 'Some rows were rejected; see the reasons.' },
  rejected: { tone: 'bad', label: 'Rejected', help: 'Nothing was imported from this file; see the reason.' },
};

let nextUploadId = 1;

export function FilesPanel({ source, onImported }: { source: SourceView; onImported?: () => void }) {
  const enc = encodeURIComponent(source.name);
  const files = useLoad((s) => get<{ bucket: string; address: string; items: BucketFile[] }>(`/api/v1/sources/${enc}/files`, s), source.name, { pollMs: 4000 });
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
      await api('POST', `/api/v1/sources/${enc}/sync`, {});
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
          Files go to <code>{files.data?.address ?? `s3://${String(source.config.bucket ?? '')}/`}</code> and are imported by the source's next sync.{' '}
          {source.type === 'tenable-sc' ? 'Upload the CSV exports of the console’s Vulnerabilities (Vulnerability Detail List) and Host Assets pages.' : 'Upload the CSV exports (e.g. export.csv).'}
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
        {files.error && <Alert tone="error" title="Could not list the files">{files.error}</Alert>}
        {!files.data && !files.error ? (
          <Spinner />
        ) : (
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Files and their import status</caption>
              <thead>
                <tr>
                  <th scope="col">File</th>
                  <th scope="col">Size</th>
                  <th scope="col">Uploaded</th>
                  <th scope="col">Import status</th>
                  <th scope="col" className="num">
                    Rows imported
                  </th>
                  <th scope="col" className="num">
                    Rows rejected
                  </th>
                </tr>
              </thead>
              <tbody>
                {items.length === 0 ? (
                  <tr>
                    <td colSpan={6} className="empty">
                      No files yet. Upload an export above, or use the file-drop guide below.
                    </td>
                  </tr>
                ) : (
                  items.map((f) => (
                    <FileRow key={f.key} file={f} />
                  ))
                )}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <Guide source={source} />
    </div>
  );
}

function FileRow({ file }: { file: BucketFile }) {
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
            {imp.error && <p className="field-error">{imp.error}</p>}
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

function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="small-button"
      aria-label={label}
      onClick={() => {
        navigator.clipboard?.writeText(text).then(
          () => {
            setCopied(true);
            setTimeout(() => setCopied(false), 1500);
          },
          () => setCopied(false),
        );
      }}
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

function Guide({ source }: { source: SourceView }) {
  const enc = encodeURIComponent(source.name);
  const [guide, setGuide] = useState<FileDropGuide | null>(null);
  const [expires, setExpires] = useState('1h');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [version, setVersion] = useState(0);
  const tokens = useLoad((s) => get<{ items: UploadToken[] }>(`/api/v1/sources/${enc}/file-drop/tokens`, s), `${source.name}|${version}`);

  const generate = async () => {
    setBusy(true);
    setError(null);
    try {
      setGuide(await api<FileDropGuide>('POST', `/api/v1/sources/${enc}/file-drop`, { expires }));
      setVersion((v) => v + 1);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  const revoke = async (id: string) => {
    setError(null);
    try {
      await api('DELETE', `/api/v1/sources/${enc}/file-drop/tokens/${encodeURIComponent(id)}`);
      if (guide?.token?.id === id) setGuide(null);
      setVersion((v) => v + 1);
    } catch (err) {
      setError(describeError(err));
    }
  };

  const active = (tokens.data?.items ?? []).filter((t) => t.active);
  return (
    <section aria-labelledby="guide-title" className="card">
      <h2 id="guide-title">File-drop guide</h2>
      <p className="muted">
        Upload from another machine or a script: generate credentials scoped to this source's bucket alone, then paste one of the commands. Credentials expire, and upload tokens
        can be revoked at any time.
      </p>
      <div className="inline-form">
        <label className="inline" htmlFor="guide-expires">
          Valid for
        </label>
        <select id="guide-expires" value={expires} onChange={(e) => setExpires(e.target.value)}>
          <option value="15m">15 minutes</option>
          <option value="1h">1 hour</option>
          <option value="24h">24 hours</option>
          <option value="7d">7 days</option>
        </select>
        <button type="button" className="primary" onClick={generate} disabled={busy}>
          {busy ? 'Generating…' : 'Generate upload credentials'}
        </button>
      </div>
      {error && <Alert tone="error">{error}</Alert>}
      {guide && (
        <div className="guide" aria-live="polite">
          <dl className="props">
            <dt>Bucket address</dt>
            <dd>
              <code>{guide.address}</code> <CopyButton text={guide.address} label="Copy the bucket address" />
            </dd>
            <dt>Storage</dt>
            <dd>{guide.storage}</dd>
            {guide.token && (
              <>
                <dt>Upload token</dt>
                <dd>
                  <code className="secret-value">{guide.token.token}</code> <CopyButton text={guide.token.token} label="Copy the upload token" />
                  <div className="help">Shown only now. Valid until {dateTime(guide.token.expiresAt)}.</div>
                </dd>
                <dt>Upload endpoint</dt>
                <dd>
                  <code>{guide.uploadUrl}</code>
                </dd>
              </>
            )}
            {guide.presignedUrl && (
              <>
                <dt>Presigned upload URL</dt>
                <dd>
                  <code className="wrap">{guide.presignedUrl}</code> <CopyButton text={guide.presignedUrl} label="Copy the presigned URL" />
                </dd>
              </>
            )}
          </dl>
          <h3>Commands</h3>
          <ul className="commands">
            {guide.commands.map((c) => (
              <li key={c.command}>
                <div className="muted small">{c.label}</div>
                <div className="command">
                  <pre>
                    <code>{c.command}</code>
                  </pre>
                  <CopyButton text={c.command} label={`Copy command: ${c.label}`} />
                </div>
              </li>
            ))}
          </ul>
          {guide.notes.length > 0 && (
            <ul className="notes">
              {guide.notes.map((n) => (
                <li key={n}>{n}</li>
              ))}
            </ul>
          )}
          {guide.token && (
            <button type="button" className="danger-outline" onClick={() => guide.token && revoke(guide.token.id)}>
              Revoke these credentials
            </button>
          )}
        </div>
      )}
      <h3>Active upload tokens</h3>
      {tokens.error && <Alert tone="error">{tokens.error}</Alert>}
      {active.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Active upload tokens</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">By</th>
                <th scope="col">For file</th>
                <th scope="col">Expires</th>
                <th scope="col" className="num">
                  Uploads
                </th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {active.map((t) => (
                <tr key={t.id}>
                  <td>{dateTime(t.createdAt)}</td>
                  <td>{t.createdBy ?? '—'}</td>
                  <td>{t.file ?? 'any'}</td>
                  <td>{ago(t.expiresAt)}</td>
                  <td className="num">{t.uploads}</td>
                  <td>
                    <button type="button" className="danger-outline" onClick={() => revoke(t.id)} aria-label={`Revoke the token created ${dateTime(t.createdAt)}`}>
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
