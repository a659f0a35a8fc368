// Data Sources Settings > Sources: every source with its type, input mode, schedule and health, and an
// add button per connector type.
import { useState } from 'react';
import { type ConnectorMeta, describeError, type SourceView, call } from '../api.ts';
import { Link, navigate } from '../router.tsx';
import { Alert, ago, Badge, DataTable, dateTime, PageHeader, RunBadge, Spinner, useLoad, usePageTitle } from '../ui.tsx';

/** Short product names for the connector types (titles come from the API). */
export const shortName = (c: { title: string; shortName?: string }): string => c.shortName || c.title;

export function inputModeLabel(source: SourceView, connectors: ConnectorMeta[] | null): string {
  const mode = String(source.config.inputMode ?? 'api');
  const field = connectors?.find((c) => c.type === source.type)?.fields.find((f) => f.key === 'inputMode');
  return field?.options?.find((o) => o.value === mode)?.label ?? (mode === 'file' ? 'File import' : 'API');
}

export function Health({ source }: { source: SourceView }) {
  const run = source.lastRun;
  const fresh = run && (run.status === 'succeeded' || run.status === 'partial') ? run.finishedAt : null;
  return (
    <div className="health">
      <div>
        <span className="muted">Check: </span>
        {source.lastCheck ? (
          <Badge tone={source.lastCheck.ok ? 'ok' : 'bad'} title={dateTime(source.lastCheck.at)}>
            {source.lastCheck.ok ? 'Passed' : 'Failed'}
          </Badge>
        ) : (
          <span className="muted">not run</span>
        )}
        {source.lastCheck && <span className="muted small"> {ago(source.lastCheck.at)}</span>}
      </div>
      <div>
        <span className="muted">Last run: </span>
        {run ? <RunBadge status={run.status} /> : <span className="muted">never</span>}
        {run && <span className="muted small"> {ago(run.finishedAt ?? run.startedAt)}</span>}
      </div>
      <div>
        <span className="muted">Data age: </span>
        {fresh ? <span title={dateTime(fresh)}>{ago(fresh).replace(/ ago$/, '')}</span> : <span className="muted">no data yet</span>}
      </div>
    </div>
  );
}

export function SourcesPage() {
  usePageTitle('Sources');
  const connectors = useLoad((s) => call('GET /api/v1/connectors', {}, s), 'connectors');
  const sources = useLoad((s) => call('GET /api/v1/sources', {}, s), 'sources', { pollMs: 5000 });
  const [message, setMessage] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);

  const syncNow = async (name: string) => {
    setMessage(null);
    try {
      const { runId } = await call('POST /api/v1/sources/:name/sync', { params: { name }, body: {} });
      // In PostgreSQL mode a queued sync may wait for a free worker: then show the run list.
      navigate(runId ? `/runs/${runId}` : '/runs');
    } catch (err) {
      setMessage({ tone: 'error', text: `Could not start a sync of ${name}: ${describeError(err)}` });
    }
  };

  const items = sources.data?.items ?? [];
  const conns = connectors.data?.items ?? [];
  return (
    <div>
      <PageHeader
        crumbs={<span>Data Sources Settings</span>}
        title="Sources"
        subtitle="Where Tributary imports from. Select a source to configure it, upload files or follow its runs."
        actions={conns.map((c) => (
          <Link key={c.type} className="button primary" href={`/sources/new/${c.type}`}>
            Add {shortName(c)} source
          </Link>
        ))}
      />
      {message && <Alert tone={message.tone}>{message.text}</Alert>}
      {sources.error && (
        <Alert tone="error" title="Could not load the sources">
          {sources.error}
        </Alert>
      )}
      {sources.loading && !sources.data ? (
        <Spinner />
      ) : items.length === 0 ? (
        <div className="empty-state">
          <h2>No sources yet</h2>
          <p>Add a {conns.length ? conns.map(shortName).join(' or a ') : 'data'} source to start building the inventory.</p>
        </div>
      ) : (
        <DataTable
          caption="Configured sources"
          rows={items}
          rowKey={(s) => s.name}
          columns={[
            {
              key: 'name',
              label: 'Name',
              render: (s) => (
                <Link href={`/sources/${encodeURIComponent(s.name)}`} className="strong">
                  {s.name}
                </Link>
              ),
            },
            {
              key: 'type',
              label: 'Type',
              render: (s) => {
                const c = conns.find((x) => x.type === s.type);
                return c ? shortName(c) : s.type;
              },
            },
            { key: 'input', label: 'Input mode', render: (s) => inputModeLabel(s, conns) },
            { key: 'schedule', label: 'Schedule', render: (s) => (s.schedule ? <code>{s.schedule}</code> : <span className="muted">Manual only</span>) },
            { key: 'health', label: 'Health', render: (s) => <Health source={s} /> },
            {
              key: 'actions',
              label: <span className="sr-only">Actions</span>,
              className: 'row-actions',
              render: (s) => (
                <>
                  <Link className="button" href={`/sources/${encodeURIComponent(s.name)}`} aria-label={`Configure ${s.name}`}>
                    Configure
                  </Link>
                  <button type="button" onClick={() => syncNow(s.name)} disabled={s.lastRun?.status === 'running'} aria-label={`Sync ${s.name} now`}>
                    {s.lastRun?.status === 'running' ? 'Syncing…' : 'Sync now'}
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
