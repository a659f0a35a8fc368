// One source: Configure (the form generated from the connector's field metadata, Test Connection,
// Save Configuration), Files (file-mode uploads and the file-drop guide) and Runs; and adding a source.
import { useEffect, useState } from 'react';
import { describeError, call } from '../api.ts';
import { ConfigureForm } from '../components/configure-form.tsx';
import { Link, navigate, setQuery } from '../router.tsx';
import { Alert, PageHeader, Spinner, useLoad, usePageTitle } from '../ui.tsx';
import { ExportStatusPanel } from '../components/export-status.tsx';
import { FilesPanel } from './files.tsx';
import { TicketsPanel } from './tickets.tsx';
import { LiveRun, RunsTable } from './runs.tsx';
import { Health, inputModeLabel, shortName } from './sources.tsx';

export { ConfigureForm } from '../components/configure-form.tsx';

export function NewSourcePage({ type }: { type: string }) {
  const connectors = useLoad((s) => call('GET /api/v1/connectors', {}, s), 'connectors');
  const connector = connectors.data?.items.find((c) => c.type === type) ?? null;
  usePageTitle(`Add ${connector ? shortName(connector) : 'source'}`);
  if (connectors.error)
    return (
      <Alert tone="error" title="Could not load the connector types">
        {connectors.error}
      </Alert>
    );
  if (!connectors.data) return <Spinner />;
  if (!connector)
    return (
      <Alert tone="error" title={`Unknown source type '${type}'`}>
        Go back to <Link href="/sources">Sources</Link>.
      </Alert>
    );
  return (
    <div>
      <PageHeader
        crumbs={
          <>
            <span>Data Sources Settings</span> › <Link href="/sources">Sources</Link> › <span>New</span>
          </>
        }
        title={`Add a ${shortName(connector)} source`}
        subtitle={connector.title}
      />
      <ConfigureForm connector={connector} source={null} onSaved={(s) => navigate(`/sources/${encodeURIComponent(s.name)}?saved=1`)} />
    </div>
  );
}

export function SourcePage({ name, tab }: { name: string; tab: 'configure' | 'files' | 'runs' | 'tickets' }) {
  const connectors = useLoad((s) => call('GET /api/v1/connectors', {}, s), 'connectors');
  const [version, setVersion] = useState(0);
  const source = useLoad((s) => call('GET /api/v1/sources/:name', { params: { name } }, s), `source:${name}|${version}`);
  const [message, setMessage] = useState<{ tone: 'error' | 'success' | 'info'; text: string } | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [flash, setFlash] = useState<string | null>(() =>
    new URLSearchParams(location.search).get('saved') ? 'Configuration saved. Use Test Connection to check the credentials.' : null,
  );
  const [runId, setRunId] = useState<string | null>(null);
  // The banner is shown once: a reload or a later visit does not bring back a stale "saved".
  useEffect(() => {
    if (new URLSearchParams(location.search).has('saved')) setQuery({ saved: null });
  }, []);
  usePageTitle(`${name} · Sources`);
  useEffect(() => {
    if (source.data?.lastRun?.status === 'running') setRunId(source.data.lastRun.id);
  }, [source.data]);

  if (source.error && !source.data)
    return (
      <Alert tone="error" title={`Could not load the source '${name}'`}>
        {source.error}
      </Alert>
    );
  if (!source.data || !connectors.data) return <Spinner />;
  const s = source.data;
  const connector = connectors.data.items.find((c) => c.type === s.type);
  const fileMode = s.config.inputMode === 'file';
  const base = `/sources/${encodeURIComponent(name)}`;

  const syncNow = async () => {
    setMessage(null);
    try {
      const r = await call('POST /api/v1/sources/:name/sync', { params: { name }, body: {} });
      setRunId(r.runId);
      if (tab !== 'runs') navigate(`${base}/runs`);
    } catch (err) {
      setMessage({ tone: 'error', text: `Could not start a sync: ${describeError(err)}` });
    }
  };
  const remove = async () => {
    try {
      const r = await call('DELETE /api/v1/sources/:name', { params: { name } });
      navigate(r.warnings.length ? `/sources?removed=${encodeURIComponent(name)}&warnings=${encodeURIComponent(r.warnings.join('; '))}` : '/sources');
    } catch (err) {
      setConfirmDelete(false);
      setMessage({ tone: 'error', text: `Could not remove the source: ${describeError(err)}` });
    }
  };

  const tabs: { id: typeof tab; label: string; href: string }[] = [
    { id: 'configure', label: 'Configure', href: base },
    { id: 'files', label: fileMode ? 'Files' : 'Files (file import)', href: `${base}/files` },
    { id: 'runs', label: 'Runs', href: `${base}/runs` },
    // A service desk's sources (they read tickets) can take remediation tickets.
    ...(connector?.models?.includes('tickets') ? [{ id: 'tickets' as const, label: 'Remediation tickets', href: `${base}/tickets` }] : []),
  ];

  return (
    <div>
      <PageHeader
        crumbs={
          <>
            <span>Data Sources Settings</span> › <Link href="/sources">Sources</Link> › <span>{name}</span>
          </>
        }
        title={name}
        subtitle={
          <>
            {connector ? connector.title : s.type} · {inputModeLabel(s, connectors.data.items)} · {s.schedule ? `every ${s.schedule}` : 'manual sync only'}
          </>
        }
        actions={
          <>
            <button type="button" className="primary" onClick={syncNow} disabled={runId !== null && s.lastRun?.status === 'running'}>
              Sync now
            </button>
            {confirmDelete ? (
              <span className="confirm">
                <span>Remove {name} and all its records?</span>
                <button type="button" className="danger" onClick={remove}>
                  Remove source
                </button>
                <button type="button" onClick={() => setConfirmDelete(false)}>
                  Cancel
                </button>
              </span>
            ) : (
              <button type="button" className="danger-outline" onClick={() => setConfirmDelete(true)}>
                Remove…
              </button>
            )}
          </>
        }
      />
      <div className="source-health">
        <Health source={s} />
      </div>
      {message && <Alert tone={message.tone}>{message.text}</Alert>}
      <nav className="tabs" aria-label="Source sections">
        {tabs.map((t) => (
          <Link key={t.id} href={t.href} aria-current={t.id === tab ? 'page' : undefined}>
            {t.label}
          </Link>
        ))}
      </nav>
      {tab === 'configure' &&
        (connector ? (
          <ConfigureForm
            key={`${s.name}|${s.updatedAt}`}
            connector={connector}
            source={s}
            flash={flash}
            onChecked={() => {
              setFlash(null);
              setVersion((v) => v + 1);
            }}
            onSaved={() => {
              setFlash('Configuration saved. Use Test Connection to check the credentials.');
              setVersion((v) => v + 1);
            }}
          />
        ) : (
          <Alert tone="error">This source's type '{s.type}' is not available in this server.</Alert>
        ))}
      {tab === 'files' &&
        (fileMode ? (
          <FilesPanel source={s} uploadHint={connector?.files?.uploadHint} onImported={() => setVersion((v) => v + 1)} />
        ) : (
          <Alert tone="info" title="This source reads from the API">
            Files are imported only when Input Mode is file import. Switch it under <Link href={base}>Configure</Link> to upload exports here.
          </Alert>
        ))}
      {tab === 'tickets' && <TicketsPanel source={name} />}
      {tab === 'runs' && (
        <div>
          {runId && <LiveRun id={runId} onFinished={() => setVersion((v) => v + 1)} />}
          <RunsTable source={name} refreshKey={`${version}|${runId}`} />
          <ExportStatusPanel source={name} exports={s.exports ?? []} />
        </div>
      )}
    </div>
  );
}
