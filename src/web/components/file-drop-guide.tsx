// The file-drop guide of a file-mode source: generated upload credentials, ready-to-paste commands,
// and the active upload tokens with revocation.
import { useState } from 'react';
import { describeError, type FileDropGuide, type SourceView, call } from '../api.ts';
import { Alert, ago, dateTime, useLoad, DataTable } from '../ui.tsx';
import { CopyButton } from './copy-button.tsx';

export function Guide({ source }: { source: SourceView }) {
  const [guide, setGuide] = useState<FileDropGuide | null>(null);
  const [expires, setExpires] = useState('1h');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [version, setVersion] = useState(0);
  const tokens = useLoad(
    (s) => call('GET /api/v1/sources/:name/file-drop/tokens', { params: { name: source.name } }, s),
    `upload-tokens:${source.name}|${version}`,
  );

  const generate = async () => {
    setBusy(true);
    setError(null);
    try {
      setGuide(await call('POST /api/v1/sources/:name/file-drop', { params: { name: source.name }, body: { expires } }));
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
      await call('DELETE /api/v1/sources/:name/file-drop/tokens/:id', { params: { name: source.name, id } });
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
        Upload from another machine or a script: generate credentials scoped to this source's bucket alone, then paste one of the commands. Credentials expire,
        and upload tokens can be revoked at any time.
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
            {guide.folder ? (
              <>
                <dt>Folder</dt>
                <dd>
                  <code>{guide.folder}</code> <CopyButton text={guide.folder} label="Copy the folder" />
                </dd>
              </>
            ) : (
              <>
                <dt>Bucket address</dt>
                <dd>
                  <code>{guide.address}</code> <CopyButton text={guide.address} label="Copy the bucket address" />
                </dd>
              </>
            )}
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
        <DataTable
          caption="Active upload tokens"
          rows={active}
          columns={[
            { key: 'created', label: 'Created', render: (t) => dateTime(t.createdAt) },
            { key: 'by', label: 'By', render: (t) => t.createdBy ?? '—' },
            { key: 'file', label: 'For file', render: (t) => t.file ?? 'any' },
            { key: 'expires', label: 'Expires', render: (t) => ago(t.expiresAt) },
            { key: 'uploads', label: 'Uploads', className: 'num', render: (t) => t.uploads },
            {
              key: 'actions',
              label: <span className="sr-only">Actions</span>,
              render: (t) => (
                <button type="button" className="danger-outline" onClick={() => revoke(t.id)} aria-label={`Revoke the token created ${dateTime(t.createdAt)}`}>
                  Revoke
                </button>
              ),
            },
          ]}
        />
      )}
    </section>
  );
}
