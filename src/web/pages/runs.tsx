// Runs: live progress of a running sync (records per stream, rate, retries), the history with
// durations, counts, retries and errors (filtered by source and status), and one run with the files and
// rows it could not use and its log excerpt.
import { useEffect, useRef, useState } from 'react';
import { type Run, type RunStatus, call, routeUrl } from '../api.ts';
import { SelectFilter } from '../components/inventory-filters.tsx';
import { RunShortfalls, shortfallSummary } from '../components/run-shortfalls.tsx';
import { Link, setQuery, useLocation } from '../router.tsx';
import { Alert, ago, DataTable, dateTime, duration, num, PageHeader, RunBadge, Spinner, timeOfDay, useLoad, usePageTitle } from '../ui.tsx';

const total = (r: Run): { records: number; errors: number } =>
  Object.values(r.counts ?? {}).reduce((a, c) => ({ records: a.records + (c.records ?? 0), errors: a.errors + (c.errors ?? 0) }), { records: 0, errors: 0 });

const trigger = (t: string | null): string => {
  if (!t) return '—';
  if (t.startsWith('api:')) return `by ${t.slice(4)}`;
  if (t === 'schedule' || t.startsWith('schedule')) return 'schedule';
  return t;
};

/** Polls a run every second while it runs; shows records per stream and the current rate. */
/** `title`: the heading of a finished run (default "Latest sync"; a run's own page names it otherwise). */
/** `ownPage`: on the run's page, which lists what the run could not use (elsewhere a line links to it). */
export function LiveRun({
  id,
  onFinished,
  title = 'Latest sync',
  ownPage = false,
}: {
  id: string;
  onFinished?: () => void;
  title?: string;
  ownPage?: boolean;
}) {
  const loaded = useLoad((s) => call('GET /api/v1/runs/:id', { params: { id } }, s), `run/${id}`, {
    pollMs: (r) => (r && r.status !== 'running' ? false : 1000),
  });
  const run = loaded.data;
  const error = loaded.error;
  const [rate, setRate] = useState<number | null>(null);
  const last = useRef<{ id: string; at: number; records: number } | null>(null);
  const finished = useRef<{ id: string; call: (() => void) | undefined }>({ id, call: onFinished });
  finished.current.call = onFinished;
  useEffect(() => {
    if (!run) return;
    const now = Date.now();
    const recs = total(run).records;
    const prev = last.current;
    if (prev && prev.id === run.id && now > prev.at) setRate(((recs - prev.records) * 1000) / (now - prev.at));
    last.current = { id: run.id, at: now, records: recs };
    // Told once per run, when it is seen finished.
    if (run.status !== 'running' && finished.current.id === run.id && finished.current.call) {
      const notify = finished.current.call;
      finished.current = { id: '', call: undefined };
      notify();
    }
  }, [run]);
  useEffect(() => {
    finished.current = { id, call: finished.current.call };
  }, [id]);

  if (!run) return error ? <Alert tone="error">{error}</Alert> : <Spinner label="Loading the run…" />;
  const t = total(run);
  const avg = run.durationMs > 0 ? (t.records * 1000) / run.durationMs : 0;
  const streams = Object.entries(run.counts ?? {});
  return (
    <section className="card live-run" aria-labelledby={`run-${run.id}-title`}>
      <div className="section-head">
        <h2 id={`run-${run.id}-title`}>
          {run.status === 'running' ? 'Sync in progress' : title}: <Link href={`/sources/${encodeURIComponent(run.source ?? '')}`}>{run.source}</Link>
        </h2>
        <RunBadge status={run.status} />
      </div>
      <div className="stats-row" aria-live="polite">
        <div className="stat">
          <div className="stat-value">{num(t.records)}</div>
          <div className="stat-label">records</div>
        </div>
        <div className="stat">
          <div className="stat-value">{run.status === 'running' && rate !== null ? num(Math.max(0, Math.round(rate))) : num(Math.round(avg))}</div>
          <div className="stat-label">{run.status === 'running' ? 'records/s now' : 'records/s average'}</div>
        </div>
        <div className="stat">
          <div className="stat-value">{duration(run.durationMs)}</div>
          <div className="stat-label">{run.status === 'running' ? 'elapsed' : 'duration'}</div>
        </div>
        <div className="stat">
          <div className={`stat-value${t.errors ? ' bad-text' : ''}`}>{num(t.errors)}</div>
          <div className="stat-label">errors</div>
        </div>
        {run.activity && (
          <>
            <div className="stat">
              <div className="stat-value">{num(run.activity.retries)}</div>
              <div className="stat-label">retries</div>
            </div>
            <div className="stat">
              <div className={`stat-value${run.activity.rateLimited ? ' warn-text' : ''}`}>{num(run.activity.rateLimited)}</div>
              <div className="stat-label">rate limited (429)</div>
            </div>
          </>
        )}
      </div>
      {run.status === 'running' && <progress aria-label="Sync in progress" className="indeterminate" />}
      {streams.length > 0 && (
        <DataTable
          caption="Records per stream"
          rows={streams}
          rowKey={([name]) => name}
          columns={[
            { key: 'stream', label: 'Stream', render: ([name]) => name },
            { key: 'records', label: 'Records', className: 'num', render: ([, c]) => num(c.records) },
            { key: 'errors', label: 'Errors', className: 'num', render: ([, c]) => num(c.errors) },
          ]}
        />
      )}
      {run.error && (
        <Alert tone="error" title="The sync reported an error">
          {run.error}
        </Alert>
      )}
      {!ownPage && shortfallSummary(run) && (
        <Alert tone="warning">
          {`${shortfallSummary(run)}: `}
          <Link href={`/runs/${run.id}`}>see which, and why</Link>
        </Alert>
      )}
    </section>
  );
}

/** A run's retries, with the 429s among them. */
const retries = (r: Run) => (r.activity ? `${num(r.activity.retries)}${r.activity.rateLimited ? ` (${num(r.activity.rateLimited)} × 429)` : ''}` : '—');

export function RunsTable({ source, status, refreshKey = '' }: { source?: string; status?: RunStatus; refreshKey?: string }) {
  const [limit, setLimit] = useState(25);
  const query = { limit, status: status ? [status] : undefined };
  const url = source ? routeUrl('GET /api/v1/sources/:name/runs', { params: { name: source }, query }) : routeUrl('GET /api/v1/runs', { query });
  const runs = useLoad(
    (s) => (source ? call('GET /api/v1/sources/:name/runs', { params: { name: source }, query }, s) : call('GET /api/v1/runs', { query }, s)),
    `${url}|${refreshKey}`,
    { pollMs: 3000 },
  );
  const items = runs.data?.items ?? [];
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      {runs.error && (
        <Alert tone="error" title="Could not load the runs">
          {runs.error}
        </Alert>
      )}
      {!runs.data && !runs.error ? (
        <Spinner />
      ) : (
        <DataTable
          caption="Sync runs, newest first"
          rows={items}
          empty={
            status ? (
              'No runs with this status.'
            ) : (
              <>
                No runs yet. Use <strong>Sync now</strong> to start one.
              </>
            )
          }
          columns={[
            {
              key: 'started',
              label: 'Started',
              render: (r) => (
                <>
                  <Link href={`/runs/${r.id}`} title={dateTime(r.startedAt)}>
                    {dateTime(r.startedAt)}
                  </Link>
                  <div className="muted small">{ago(r.startedAt)}</div>
                </>
              ),
            },
            ...(source
              ? []
              : [
                  {
                    key: 'source',
                    label: 'Source',
                    render: (r: Run) => <Link href={`/sources/${encodeURIComponent(r.source ?? '')}/runs`}>{r.source ?? '—'}</Link>,
                  },
                ]),
            { key: 'status', label: 'Status', render: (r) => <RunBadge status={r.status} /> },
            { key: 'mode', label: 'Mode', render: (r) => r.mode },
            { key: 'trigger', label: 'Trigger', render: (r) => trigger(r.trigger) },
            { key: 'duration', label: 'Duration', className: 'num', render: (r) => duration(r.durationMs) },
            { key: 'records', label: 'Records', className: 'num', render: (r) => num(total(r).records) },
            { key: 'errors', label: 'Errors', className: 'num', render: (r) => num(total(r).errors) },
            { key: 'retries', label: 'Retries', className: 'num', render: (r) => retries(r) },
            { key: 'error', label: 'Error', className: 'error-cell', render: (r) => r.error ?? shortfallSummary(r) ?? <span className="muted">—</span> },
          ]}
        />
      )}
      {items.length >= limit && (
        <button type="button" onClick={() => setLimit((l) => l + 50)}>
          Show older runs
        </button>
      )}
    </section>
  );
}

const RUN_STATUSES: RunStatus[] = ['running', 'succeeded', 'partial', 'failed', 'interrupted'];

export function RunsPage() {
  usePageTitle('Runs');
  const { query } = useLocation();
  const source = query.get('source') ?? '';
  const status = query.get('status') ?? '';
  const runStatus = RUN_STATUSES.find((s) => s === status);
  const sources = useLoad((s) => call('GET /api/v1/sources', {}, s), 'sources');
  const running = useLoad((s) => call('GET /api/v1/runs', { query: { limit: 20, status: ['running'] } }, s), 'running', { pollMs: 3000 });
  const live = (running.data?.items ?? []).filter((r) => r.status === 'running' && (!source || r.source === source));
  return (
    <div>
      <PageHeader crumbs={<span>Data Sources Settings</span>} title="Runs" subtitle="Syncs of every source: what runs now and what ran before." />
      {live.map((r) => (
        <LiveRun key={r.id} id={r.id} onFinished={running.reload} />
      ))}
      <form className="filters" aria-label="Filter the runs" onSubmit={(e) => e.preventDefault()}>
        <SelectFilter
          id="runs-source"
          label="Source"
          value={source}
          options={(sources.data?.items ?? []).map((s) => ({ value: s.name, label: s.name }))}
          onChange={(v) => setQuery({ source: v })}
        />
        <SelectFilter id="runs-status" label="Status" value={status} options={RUN_STATUSES} onChange={(v) => setQuery({ status: v })} />
      </form>
      {source ? (
        <RunsTable key={source} source={source} status={runStatus} refreshKey={live.map((r) => r.id).join(',')} />
      ) : (
        <RunsTable status={runStatus} refreshKey={live.map((r) => r.id).join(',')} />
      )}
    </div>
  );
}

export function RunPage({ id }: { id: string }) {
  usePageTitle('Run');
  const run = useLoad((s) => call('GET /api/v1/runs/:id', { params: { id } }, s), `run/${id}`);
  const log = run.data?.activity?.log ?? [];
  return (
    <div>
      <PageHeader
        crumbs={
          <>
            <span>Data Sources Settings</span> › <Link href="/runs">Runs</Link>
          </>
        }
        title={run.data ? `Sync run of ${run.data.source ?? 'a removed source'}, ${dateTime(run.data.startedAt)}` : 'Sync run'}
        subtitle={
          run.data ? (
            <>
              {run.data.mode} run, {trigger(run.data.trigger)}
              {run.data.resumedFrom && (
                <>
                  {' '}
                  · resumed <Link href={`/runs/${run.data.resumedFrom}`}>an interrupted run</Link>; its counts include what that run stored
                </>
              )}
            </>
          ) : undefined
        }
      />
      {run.error && <Alert tone="error">{run.error}</Alert>}
      <LiveRun id={id} onFinished={run.reload} title="Summary" ownPage />
      {run.data && <RunShortfalls run={run.data} />}
      {run.data && (
        <section className="card" aria-labelledby="run-log-title">
          <h2 id="run-log-title">Log excerpt</h2>
          {log.length === 0 ? (
            <p className="muted">{run.data.activity ? 'Nothing was logged.' : 'This run is older than the log excerpts Tributary keeps.'}</p>
          ) : (
            <ol className="run-log" aria-label="Latest log lines of the run">
              {log.map((l) => (
                <li key={`${l.at}|${l.level}|${l.msg}`} className={`log-${l.level}`}>
                  <time dateTime={l.at} title={dateTime(l.at)}>
                    {timeOfDay(l.at)}
                  </time>{' '}
                  <span className="log-level">{l.level}</span> {l.msg}
                </li>
              ))}
            </ol>
          )}
        </section>
      )}
      {run.data?.source && <RunsTable source={run.data.source} refreshKey={run.data.status} />}
    </div>
  );
}
