// Scheduled exports (Settings > Exports): the destinations written after each successful sync of their
// source (or of every source), with the last result per source; add one, edit one, run one now, remove
// one. The same as `tributary export schedule …` and /api/v1/exports. The API has no update: an edit
// removes the destination and adds it again under its name (a failed add puts the old one back).
import { type FormEvent, useState } from 'react';
import { call, describeError, type ExportDestination, type ExportStatus } from '../api.ts';
import { Alert, Badge, DataTable, dateTime, num, PageHeader, Spinner, useLoad, usePageTitle } from '../ui.tsx';

type Mode = 'full' | 'changes';
interface Draft {
  name: string;
  source: string;
  target: string;
  /** An entry of the export menu (GET /api/v1/export/formats): a format and its options. */
  choice: string;
  ecsBulk: boolean;
  models: string[];
  mode: Mode;
}
const EMPTY: Draft = { name: '', source: '', target: '', choice: '', ecsBulk: false, models: [], mode: 'full' };

const TONE = { succeeded: 'ok', failed: 'bad', running: 'info', never: 'neutral' } as const;

/** How a destination's last export went, per source. */
function LastResult({ status }: { status: ExportStatus[] }) {
  if (status.length === 0) return <span className="muted">not run yet</span>;
  return (
    <ul className="plain-list">
      {status.map((s) => (
        <li key={s.source}>
          <span className="muted">{s.source}:</span> <Badge tone={TONE[s.status]}>{s.status === 'never' ? 'not run yet' : s.status}</Badge>
          {s.status !== 'never' && (
            <span className="small">
              {' '}
              {num(s.records)} records, {dateTime(s.finishedAt ?? s.startedAt)}
              {s.attempts > 1 ? `, ${s.attempts} attempts` : ''}
            </span>
          )}
          {s.error && <div className="bad-text small">{s.error}</div>}
        </li>
      ))}
    </ul>
  );
}

export function ExportsPage() {
  usePageTitle('Scheduled exports');
  const [version, setVersion] = useState(0);
  const list = useLoad((s) => call('GET /api/v1/exports', { query: {} }, s), `exports:${version}`);
  const sources = useLoad((s) => call('GET /api/v1/sources', {}, s), 'sources');
  const menu = useLoad((s) => call('GET /api/v1/export/formats', {}, s), 'export-formats');
  const formats = menu.data?.items ?? [];
  const [draft, setDraft] = useState<Draft | null>(null);
  /** The destination being edited (its name), or null when adding. */
  const [editing, setEditing] = useState<ExportDestination | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  const choiceOf = (d: { format: string; ocsfVersion: string | null }) =>
    formats.find((f) => f.format === d.format && (f.params.ocsfVersion ?? null) === (d.format === 'ocsf' ? d.ocsfVersion : null))?.id ??
    formats.find((f) => f.format === d.format)?.id ??
    '';
  const startAdd = () => {
    setEditing(null);
    setError(null);
    setDraft({ ...EMPTY, choice: formats[0]?.id ?? '' });
  };
  const startEdit = (d: ExportDestination) => {
    setEditing(d);
    setError(null);
    setDraft({ name: d.name, source: d.source ?? '', target: d.target, choice: choiceOf(d), ecsBulk: d.ecsBulk, models: d.models, mode: d.mode });
  };
  const chosen = formats.find((f) => f.id === draft?.choice);
  const bodyOf = (d: Draft) => {
    const f = formats.find((x) => x.id === d.choice);
    if (!f) throw new Error('choose a format');
    const models = d.models.filter((m) => f.models.includes(m));
    return {
      name: d.name.trim(),
      source: d.source || null,
      target: d.target.trim(),
      format: f.format as 'ocsf',
      ...(f.params.ocsfVersion ? { ocsfVersion: f.params.ocsfVersion as '1.1.0' } : {}),
      ...(f.format === 'ecs' ? { ecsBulk: d.ecsBulk } : {}),
      ...(models.length ? { models } : {}),
      mode: d.mode,
    };
  };
  const bodyOfExisting = (d: ExportDestination) => ({
    name: d.name,
    source: d.source,
    target: d.target,
    format: d.format as 'ocsf',
    ...(d.ocsfVersion ? { ocsfVersion: d.ocsfVersion as '1.1.0' } : {}),
    ecsBulk: d.ecsBulk,
    models: d.models,
    mode: d.mode,
  });

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!draft) return;
    setBusy('save');
    setError(null);
    setNotice(null);
    try {
      const body = bodyOf(draft);
      if (editing) {
        await call('DELETE /api/v1/exports/:name', { params: { name: editing.name } });
        try {
          await call('POST /api/v1/exports', { body });
        } catch (err) {
          // Put the destination back as it was, then say why the change was refused.
          await call('POST /api/v1/exports', { body: bodyOfExisting(editing) }).catch(() => undefined);
          throw err;
        }
      } else await call('POST /api/v1/exports', { body });
      setNotice(editing ? `Saved ${body.name}.` : `Added ${body.name}; it is written after each successful sync.`);
      setDraft(null);
      setEditing(null);
      setVersion((v) => v + 1);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(null);
    }
  };
  const runNow = async (d: ExportDestination) => {
    setBusy(`run:${d.name}`);
    setError(null);
    setNotice(null);
    try {
      const r = await call('POST /api/v1/exports/:name/run', { params: { name: d.name }, body: {} });
      const failed = r.items.filter((s) => s.status === 'failed');
      if (failed.length) setError(`${d.name}: ${failed.map((s) => `${s.source}: ${s.error ?? 'failed'}`).join('; ')}`);
      else setNotice(`Ran ${d.name}: ${r.items.map((s) => `${s.source} ${num(s.records)} records`).join(', ') || 'no source had a successful sync yet'}.`);
      setVersion((v) => v + 1);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(null);
    }
  };
  const remove = async (d: ExportDestination) => {
    setBusy(`remove:${d.name}`);
    setError(null);
    try {
      await call('DELETE /api/v1/exports/:name', { params: { name: d.name } });
      setNotice(`Removed ${d.name} (the files it wrote stay).`);
      setVersion((v) => v + 1);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(null);
    }
  };

  return (
    <div>
      <PageHeader
        crumbs={<span>Settings</span>}
        title="Scheduled exports"
        subtitle="Destinations written after each successful sync of their source: a folder under the export root or s3://bucket/prefix."
        actions={
          !draft && (
            <button type="button" className="primary" onClick={startAdd} disabled={formats.length === 0}>
              Add export
            </button>
          )
        }
      />
      {error && (
        <Alert tone="error" title="The export was not changed">
          {error}
        </Alert>
      )}
      {notice && <Alert tone="success">{notice}</Alert>}
      {draft && (
        <section className="card" aria-labelledby="export-form-title">
          <h2 id="export-form-title">{editing ? `Edit ${editing.name}` : 'New scheduled export'}</h2>
          <form onSubmit={save} className="export-form">
            <div className="field">
              <label htmlFor="x-name">Name</label>
              <input
                id="x-name"
                required
                maxLength={63}
                value={draft.name}
                disabled={!!editing}
                onChange={(e) => setDraft({ ...draft, name: e.target.value })}
              />
            </div>
            <div className="field">
              <label htmlFor="x-source">Source</label>
              <select id="x-source" value={draft.source} onChange={(e) => setDraft({ ...draft, source: e.target.value })}>
                <option value="">Every source</option>
                {(sources.data?.items ?? []).map((s) => (
                  <option key={s.name} value={s.name}>
                    {s.name}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor="x-target">Target</label>
              <input
                id="x-target"
                required
                value={draft.target}
                placeholder="siem/daily or s3://bucket/prefix"
                onChange={(e) => setDraft({ ...draft, target: e.target.value })}
              />
            </div>
            <div className="field">
              <label htmlFor="x-format">Format</label>
              <select id="x-format" value={draft.choice} onChange={(e) => setDraft({ ...draft, choice: e.target.value })}>
                {formats.map((f) => (
                  <option key={f.id} value={f.id}>
                    {f.label}
                  </option>
                ))}
              </select>
            </div>
            {chosen?.format === 'ecs' && (
              <label className="checkbox-inline">
                <input type="checkbox" checked={draft.ecsBulk} onChange={(e) => setDraft({ ...draft, ecsBulk: e.target.checked })} /> Elasticsearch _bulk action
                lines
              </label>
            )}
            <div className="field">
              <label htmlFor="x-mode">Records</label>
              <select id="x-mode" value={draft.mode} onChange={(e) => setDraft({ ...draft, mode: e.target.value === 'changes' ? 'changes' : 'full' })}>
                <option value="full">Every record (full)</option>
                <option value="changes">Only what changed since the last export</option>
              </select>
            </div>
            <fieldset className="field">
              <legend>Models (none ticked: every model the format writes)</legend>
              {(chosen?.models ?? []).map((m) => (
                <label key={m} className="checkbox-inline">
                  <input
                    type="checkbox"
                    checked={draft.models.includes(m)}
                    onChange={(e) => setDraft({ ...draft, models: e.target.checked ? [...draft.models, m] : draft.models.filter((x) => x !== m) })}
                  />{' '}
                  {m}
                </label>
              ))}
            </fieldset>
            <div className="actions">
              <button type="submit" className="primary" disabled={busy === 'save'}>
                {busy === 'save' ? 'Saving…' : editing ? 'Save changes' : 'Add export'}
              </button>
              <button
                type="button"
                onClick={() => {
                  setDraft(null);
                  setEditing(null);
                }}
              >
                Cancel
              </button>
            </div>
          </form>
        </section>
      )}
      {list.loading && !list.data ? (
        <Spinner />
      ) : list.error ? (
        <Alert tone="error" title="Could not load the exports">
          {list.error}
        </Alert>
      ) : (
        <DataTable<ExportDestination>
          caption="Scheduled exports"
          rows={list.data?.items ?? []}
          rowKey={(d) => d.name}
          empty="No scheduled exports yet."
          columns={[
            { key: 'name', label: 'Name', rowHeader: true },
            { key: 'source', label: 'Source', render: (d) => d.source ?? <span className="muted">every source</span> },
            { key: 'target', label: 'Target', render: (d) => <code>{d.target}</code> },
            {
              key: 'format',
              label: 'Format',
              render: (d) => `${d.format}${d.ocsfVersion && d.format === 'ocsf' ? ` ${d.ocsfVersion}` : ''}${d.ecsBulk ? ' (bulk)' : ''}`,
            },
            { key: 'models', label: 'Models', render: (d) => (d.models.length ? d.models.join(', ') : <span className="muted">all</span>) },
            { key: 'mode', label: 'Records', render: (d) => (d.mode === 'changes' ? 'changes' : 'full') },
            { key: 'status', label: 'Last result', render: (d) => <LastResult status={d.status} /> },
            {
              key: 'actions',
              label: <span className="sr-only">Actions</span>,
              className: 'row-actions',
              render: (d) => (
                <>
                  <button type="button" className="small-button" disabled={busy !== null} onClick={() => void runNow(d)} aria-label={`Run ${d.name} now`}>
                    {busy === `run:${d.name}` ? 'Running…' : 'Run now'}
                  </button>
                  <button type="button" className="small-button" disabled={busy !== null} onClick={() => startEdit(d)} aria-label={`Edit ${d.name}`}>
                    Edit
                  </button>
                  <button
                    type="button"
                    className="small-button danger-outline"
                    disabled={busy !== null}
                    onClick={() => void remove(d)}
                    aria-label={`Remove ${d.name}`}
                  >
                    Remove
                  </button>
                </>
              ),
            },
          ]}
        />
      )}
    </div>
  );
}
