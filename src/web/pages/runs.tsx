// Runs: live progress of a running sync (records per stream, rate) and the history with durations,
// counts and errors.
import { useEffect, useRef, useState } from 'react';
import { get, qs, type Run } from '../api.ts';
import { Link } from '../router.tsx';
import { Alert, ago, dateTime, duration, num, PageHeader, RunBadge, Spinner, useLoad } from '../ui.tsx';

const total = (r: Run): { records: number; errors: number } =>
  Object.values(r.counts ?? {}).reduce((a, c) => ({ records: a.records + (c.records ?? 0), errors: a.errors + (c.errors ?? 0) }), { records: 0, errors: 0 });

const trigger = (t: string | null): string => {
  if (!t) return '—';
  if (t.startsWith('api:')) return `by ${t.slice(4)}`;
  if (t === 'schedule' || t.startsWith('schedule')) return 'schedule';
  return t;
};

/** Polls a run every second while it runs; shows records per stream and the current rate. */
export function LiveRun({ id, onFinished }: { id: string; onFinished?: () => void }) {
  const [run, setRun] = useState<Run | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [rate, setRate] = useState<number | null>(null);
  const last = useRef<{ at: number; records: number } | null>(null);
  const finished = useRef(onFinished);
  finished.current = onFinished;

  useEffect(() => {
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    last.current = null;
    const tick = async () => {
      try {
        const r = await get<Run>(`/api/v1/runs/${encodeURIComponent(id)}`);
        if (stop) return;
        setRun(r);
        setError(null);
        const now = Date.now();
        const recs = total(r).records;
        if (last.current && now > last.current.at) setRate(((recs - last.current.records) * 1000) / (now - last.current.at));
        last.current = { at: now, records: recs };
        if (r.status === 'running') timer = setTimeout(tick, 1000);
        else finished.current?.();
      } catch (err) {
        if (stop) return;
        setError(err instanceof Error ? err.message : String(err));
        timer = setTimeout(tick, 3000);
      }
    };
    tick();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [id]);

  if (!run) return error ? <Alert tone="error">{error}</Alert> : <Spinner label="Loading the run…" />;
  const t = total(run);
  const avg = run.durationMs > 0 ? (t.records * 1000) / run.durationMs : 0;
  const streams = Object.entries(run.counts ?? {});
  return (
    <section className="card live-run" aria-labelledby={`run-${run.id}-title`}>
      <div className="section-head">
        <h2 id={`run-${run.id}-title`}>
          {run.status === 'running' ? 'Sync in progress' : 'Latest sync'}: <Link href={`/sources/${encodeURIComponent(run.source ?? '')}`}>{run.source}</Link>
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
      </div>
      {run.status === 'running' && <progress aria-label="Sync in progress" className="indeterminate" />}
      {streams.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Records per stream</caption>
            <thead>
              <tr>
                <th scope="col">Stream</th>
                <th scope="col" className="num">
                  Records
                </th>
                <th scope="col" className="num">
                  Errors
                </th>
              </tr>
            </thead>
            <tbody>
              {streams.map(([name, c]) => (
                <tr key={name}>
                  <td>{name}</td>
                  <td className="num">{num(c.records)}</td>
                  <td className="num">{num(c.errors)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {run.error && (
        <Alert tone="error" title="The sync reported an error">
          {run.error}
        </Alert>
      )}
    </section>
  );
}

export function RunsTable({ source, refreshKey = '' }: { source?: string; refreshKey?: string }) {
  const [limit, setLimit] = useState(25);
  const url = source ? `/api/v1/sources/${encodeURIComponent(source)}/runs${qs({ limit })}` : `/api/v1/runs${qs({ limit })}`;
  const runs = useLoad((s) => get<{ items: Run[] }>(url, s), `${url}|${refreshKey}`, { pollMs: 3000 });
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
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Sync runs, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Started</th>
                {!source && <th scope="col">Source</th>}
                <th scope="col">Status</th>
                <th scope="col">Mode</th>
                <th scope="col">Trigger</th>
                <th scope="col" className="num">
                  Duration
                </th>
                <th scope="col" className="num">
                  Records
                </th>
                <th scope="col" className="num">
                  Errors
                </th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {items.length === 0 ? (
                <tr>
                  <td colSpan={source ? 8 : 9} className="empty">
                    No runs yet. Use <strong>Sync now</strong> to start one.
                  </td>
                </tr>
              ) : (
                items.map((r) => {
                  const t = total(r);
                  return (
                    <tr key={r.id}>
                      <td>
                        <Link href={`/runs/${r.id}`} title={dateTime(r.startedAt)}>
                          {dateTime(r.startedAt)}
                        </Link>
                        <div className="muted small">{ago(r.startedAt)}</div>
                      </td>
                      {!source && (
                        <td>
                          <Link href={`/sources/${encodeURIComponent(r.source ?? '')}/runs`}>{r.source ?? '—'}</Link>
                        </td>
                      )}
                      <td>
                        <RunBadge status={r.status} />
                      </td>
                      <td>{r.mode}</td>
                      <td>{trigger(r.trigger)}</td>
                      <td className="num">{duration(r.durationMs)}</td>
                      <td className="num">{num(t.records)}</td>
                      <td className="num">{num(t.errors)}</td>
                      <td className="error-cell">{r.error ?? <span className="muted">—</span>}</td>
                    </tr>
                  );
                })
              )}
            </tbody>
          </table>
        </div>
      )}
      {items.length >= limit && (
        <button type="button" onClick={() => setLimit((l) => l + 50)}>
          Show older runs
        </button>
      )}
    </section>
  );
}

export function RunsPage() {
  useEffect(() => {
    document.title = 'Runs · Tributary';
  }, []);
  const running = useLoad((s) => get<{ items: Run[] }>('/api/v1/runs?limit=20', s), 'running', { pollMs: 3000 });
  const live = (running.data?.items ?? []).filter((r) => r.status === 'running');
  return (
    <div>
      <PageHeader crumbs={<span>Data Sources Settings</span>} title="Runs" subtitle="Syncs of every source: what runs now and what ran before." />
      {live.map((r) => (
        <LiveRun key={r.id} id={r.id} onFinished={running.reload} />
      ))}
      <RunsTable refreshKey={live.map((r) => r.id).join(',')} />
    </div>
  );
}

export function RunPage({ id }: { id: string }) {
  useEffect(() => {
    document.title = 'Run · Tributary';
  }, []);
  const run = useLoad((s) => get<Run>(`/api/v1/runs/${encodeURIComponent(id)}`, s), id);
  return (
    <div>
      <PageHeader
        crumbs={
          <>
            <span>Data Sources Settings</span> › <Link href="/runs">Runs</Link>
          </>
        }
        title="Sync run"
        subtitle={run.data ? `${run.data.mode} run of ${run.data.source}, started ${dateTime(run.data.startedAt)} (${trigger(run.data.trigger)})` : undefined}
      />
      {run.error && <Alert tone="error">{run.error}</Alert>}
      <LiveRun id={id} onFinished={run.reload} />
      {run.data?.source && <RunsTable source={run.data.source} refreshKey={run.data.status} />}
    </div>
  );
}
