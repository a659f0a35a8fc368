// Overview: record counts, open vulnerabilities by severity, known-exploited and overdue findings, source health
// and recent runs.
import { call, routeUrl } from '../api.ts';
import { Link } from '../router.tsx';
import { SeverityChart } from '../components/charts.tsx';
import { Alert, ago, num, PageHeader, RunBadge, useLoad, usePageTitle } from '../ui.tsx';
import { Health } from './sources.tsx';

const MODELS: [string, string][] = [
  ['hosts', 'Hosts'],
  ['vulnerabilities', 'Vulnerabilities'],
  ['compliance', 'Compliance results'],
  ['software', 'Software'],
  ['ports', 'Open ports'],
  ['tickets', 'Tickets'],
  ['cmdb-assets', 'CMDB assets'],
  ['users', 'Users'],
  ['services', 'Services'],
];

export function OverviewPage() {
  usePageTitle('Overview');
  const stats = useLoad((s) => call('GET /api/v1/stats', {}, s), 'stats', { pollMs: 15000 });
  const sevInput = { params: { model: 'vulnerabilities' as const }, query: { by: ['severity', 'knownExploited'], removed: 'false', 'status!': 'fixed' } };
  const sevUrl = routeUrl('GET /api/v1/:model/counts', sevInput);
  const sev = useLoad((s) => call('GET /api/v1/:model/counts', sevInput, s), sevUrl, { pollMs: 15000 });
  // The open findings by decision, less those an approved risk exception covers.
  const decisions = useLoad((s) => call('GET /api/v1/reports/decisions', {}, s), 'decisions', { pollMs: 15000 });
  const all = decisions.data?.items[0];
  const byDecision: Record<string, number> = { act: all?.act ?? 0, attend: all?.attend ?? 0, 'track-star': all?.trackStar ?? 0, track: all?.track ?? 0 };
  const sources = useLoad((s) => call('GET /api/v1/sources', {}, s), 'sources', { pollMs: 10000 });
  const runs = useLoad((s) => call('GET /api/v1/runs', { query: { limit: 5 } }, s), 'runs', { pollMs: 5000 });

  const bySeverity: Record<string, number> = {};
  let kev = 0;
  let open = 0;
  for (const i of sev.data?.items ?? []) {
    const severity = String(i.values.severity);
    bySeverity[severity] = (bySeverity[severity] ?? 0) + i.count;
    if (i.values.knownExploited) kev += i.count;
    open += i.count;
  }
  const overdueTotal = Object.values(stats.data?.overdue ?? {}).reduce((a, n) => a + n, 0);
  const noSources = sources.data && sources.data.items.length === 0;
  return (
    <div>
      <PageHeader title="Overview" subtitle="Everything Tributary has imported, at a glance." />
      {noSources && (
        <Alert tone="info" title="Welcome to Tributary">
          No sources are configured yet. Go to <Link href="/sources">Data Sources Settings › Sources</Link> to add one.
        </Alert>
      )}
      {stats.error && <Alert tone="error">{stats.error}</Alert>}
      <section className="card act-now" aria-labelledby="act-title">
        <h2 id="act-title">Act now</h2>
        <p>
          <Link href="/inventory/vulnerabilities?decision=act&excepted=false&sort=-priority" className="act-count">
            <strong className={byDecision.act ? 'bad-text' : undefined}>{decisions.data ? num(byDecision.act ?? 0) : '…'}</strong> open findings to act on
          </Link>{' '}
          <span className="muted">
            (CISA SSVC: Attend {num(byDecision.attend ?? 0)} · Track* {num(byDecision['track-star'] ?? 0)} · Track {num(byDecision.track ?? 0)})
          </span>{' '}
          · <Link href="/reports/remediations">Top remediations</Link>
        </p>
      </section>
      <section aria-labelledby="counts-title">
        <h2 id="counts-title" className="sr-only">
          Record counts
        </h2>
        <ul className="cards">
          {MODELS.map(([m, label]) => (
            <li key={m}>
              <Link href={`/inventory/${m}`} className="count-card">
                <span className="count">{stats.data ? num(stats.data.models[m] ?? 0) : '…'}</span>
                <span className="count-label">{label}</span>
              </Link>
            </li>
          ))}
        </ul>
      </section>
      <div className="grid-2">
        <section className="card" aria-labelledby="sev-title">
          <div className="section-head">
            <h2 id="sev-title">Open vulnerabilities</h2>
            <Link href="/inventory/vulnerabilities?status=open%2Creopened">View all</Link>
          </div>
          <SeverityChart counts={bySeverity} />
          <p>
            <strong>{num(open)}</strong> open findings, of which{' '}
            <Link href="/inventory/vulnerabilities?knownExploited=true&status=open%2Creopened">
              <strong className={kev ? 'bad-text' : undefined}>{num(kev)}</strong> known exploited
            </Link>
            .
          </p>
          {stats.data?.overdue && (
            <p>
              <Link href="/inventory/vulnerabilities?overdue=true">
                <strong className={overdueTotal ? 'bad-text' : undefined}>{num(overdueTotal)}</strong> past their SLA due date
              </Link>
              {overdueTotal > 0 && ` (${['critical', 'high', 'medium', 'low'].map((sv) => `${sv} ${num(stats.data?.overdue?.[sv] ?? 0)}`).join(' · ')})`}.
            </p>
          )}
        </section>
        <section className="card" aria-labelledby="health-title">
          <div className="section-head">
            <h2 id="health-title">Sources</h2>
            <Link href="/sources">Manage</Link>
          </div>
          {(sources.data?.items ?? []).length === 0 ? (
            <p className="muted">No sources yet.</p>
          ) : (
            <ul className="source-list">
              {(sources.data?.items ?? []).map((s) => (
                <li key={s.name}>
                  <Link href={`/sources/${encodeURIComponent(s.name)}`} className="strong">
                    {s.name}
                  </Link>
                  <Health source={s} />
                </li>
              ))}
            </ul>
          )}
          <h3>Recent runs</h3>
          {(runs.data?.items ?? []).length === 0 ? (
            <p className="muted">No runs yet.</p>
          ) : (
            <ul className="run-list">
              {(runs.data?.items ?? []).map((r) => (
                <li key={r.id}>
                  <RunBadge status={r.status} /> <Link href={`/runs/${r.id}`}>{r.source}</Link> <span className="muted small">{ago(r.startedAt)}</span>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </div>
  );
}
