// Trends (GET /api/v1/reports/trends): open findings by severity per day and the mean time to remediate
// per severity, from the scanner's dates and the change history, drawn with Chart.js; the same numbers as
// tables underneath, where a blank time to remediate says why.
import { counted } from '../../core/format.ts';
import { capitalize, call, routeUrl, type TrendsReport } from '../api.ts';
import { Chart, ChartCanvas, colour } from '../components/charts.tsx';
import { setQuery, useLocation } from '../router.tsx';
import { Alert, DataTable, dateOnly, num, PageHeader, SEVERITIES, Spinner, useLoad, usePageTitle } from '../ui.tsx';

const WINDOWS = [30, 90, 180, 365];

export function TrendsPage() {
  const { query } = useLocation();
  const days = WINDOWS.includes(Number(query.get('days'))) ? Number(query.get('days')) : 30;
  const source = query.get('source') ?? '';
  const sources = useLoad((s) => call('GET /api/v1/sources', {}, s), 'sources');
  const input = { query: { days, source: source ? [source] : undefined } };
  const url = routeUrl('GET /api/v1/reports/trends', input);
  const report = useLoad((s) => call('GET /api/v1/reports/trends', input, s), url);
  usePageTitle('Trends');

  const r = report.data;
  /** Without any finding there is no history: earlier days are drawn as a gap and shown as a dash (before the earliest first-seen date, none was open). */
  const known = (date: string) => !!r?.historyFrom || date === r?.generatedAt.slice(0, 10);
  const latest = r?.days.at(-1)?.open;
  const openSummary = r
    ? `Open findings by severity per day, ${dateOnly(r.from)} to ${dateOnly(r.to)}; on ${dateOnly(r.to)}: ${SEVERITIES.map((s) => `${s} ${latest?.[s] ?? 0}`).join(', ')}`
    : '';
  const mttrSummary = r
    ? `Mean time to remediate per severity, fixes from ${dateOnly(r.from)} to ${dateOnly(r.to)}: ${r.remediation
        .map(
          (m) =>
            `${m.severity} ${m.meanDaysToRemediate === null ? (m.meanBlankReason ?? 'no fixes') : `${m.meanDaysToRemediate} days over ${counted(m.fixed, 'fix', 'fixes')}`}`,
        )
        .join(', ')}`
    : '';

  return (
    <div>
      <PageHeader
        crumbs={
          <>
            <span>Reports</span> › <span>Trends</span>
          </>
        }
        title="Trends"
        subtitle="Open findings per day and how long fixes take, from the scanner's dates and the change history"
        actions={
          <div className="filters-inline">
            <label className="inline">
              Period
              <select value={days} onChange={(e) => setQuery({ days: e.target.value === '30' ? null : e.target.value })}>
                {WINDOWS.map((w) => (
                  <option key={w} value={w}>
                    Last {w} days
                  </option>
                ))}
              </select>
            </label>
            <label className="inline">
              Source
              <select value={source} onChange={(e) => setQuery({ source: e.target.value || null })}>
                <option value="">All sources</option>
                {(sources.data?.items ?? []).map((s) => (
                  <option key={s.name} value={s.name}>
                    {s.name}
                  </option>
                ))}
              </select>
            </label>
          </div>
        }
      />
      {report.error && (
        <Alert tone="error" title="Could not load the trends">
          {report.error}
        </Alert>
      )}
      {!r && !report.error && <Spinner />}
      {r && (
        <>
          <section className="card" aria-labelledby="trend-open">
            <h2 id="trend-open">Open findings by severity</h2>
            <p className="muted small">
              At the end of each day (today: now). Earlier days come from each finding's dates: the scanner's first-seen date, its mitigation date where it sent
              one (else the sync that saw the fix) and the reopenings the syncs saw
              {r.historyFrom ? `; the history starts on ${dateOnly(r.historyFrom)}, when the earliest finding was first seen` : '; there is none yet'}.
            </p>
            <ChartCanvas
              id="chart-open"
              summary={openSummary}
              build={(canvas) =>
                new Chart(canvas, {
                  type: 'line',
                  data: {
                    labels: r.days.map((d) => dateOnly(d.date)),
                    datasets: SEVERITIES.map((s) => ({
                      label: capitalize(s),
                      data: r.days.map((d) => (known(d.date) ? d.open[s] : null)),
                      borderColor: colour(s),
                      backgroundColor: colour(s),
                      pointRadius: r.days.length > 60 ? 0 : 2,
                      borderWidth: 2,
                      tension: 0,
                    })),
                  },
                  options: {
                    animation: false,
                    maintainAspectRatio: false,
                    interaction: { mode: 'index', intersect: false },
                    scales: { y: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: 'Open findings' } } },
                  },
                })
              }
            />
            <details className="trend-numbers">
              <summary>Show the numbers</summary>
              <DataTable
                caption="Open findings by severity per day"
                rows={[...r.days].reverse()}
                rowKey={(d) => d.date}
                columns={[
                  { key: 'day', label: 'Day', rowHeader: true, render: (d) => <time dateTime={d.date}>{dateOnly(d.date)}</time> },
                  ...SEVERITIES.map((s) => ({
                    key: s,
                    label: capitalize(s),
                    className: 'num',
                    render: (d: TrendsReport['days'][number]) => (known(d.date) ? num(d.open[s]) : <span className="muted">—</span>),
                  })),
                ]}
              />
            </details>
          </section>
          <section className="card" aria-labelledby="trend-mttr">
            <h2 id="trend-mttr">Mean time to remediate</h2>
            <p className="muted small">
              Days from first seen (or the last reopening) to the fix (the scanner's mitigation date, else the sync that saw it), for the fixes dated from{' '}
              {dateOnly(r.from)} to {dateOnly(r.to)}.
            </p>
            <ChartCanvas
              id="chart-mttr"
              summary={mttrSummary}
              build={(canvas) =>
                new Chart(canvas, {
                  type: 'bar',
                  data: {
                    labels: r.remediation.map((m) => capitalize(m.severity)),
                    datasets: [
                      {
                        label: 'Mean days to remediate',
                        data: r.remediation.map((m) => m.meanDaysToRemediate ?? 0),
                        backgroundColor: r.remediation.map((m) => colour(m.severity)),
                      },
                    ],
                  },
                  options: {
                    animation: false,
                    maintainAspectRatio: false,
                    plugins: {
                      legend: { display: false },
                      tooltip: {
                        callbacks: {
                          label: (c) => {
                            const m = r.remediation[c.dataIndex];
                            return m?.meanDaysToRemediate === null
                              ? (m.meanBlankReason ?? 'no fixes')
                              : `${m?.meanDaysToRemediate} days (${counted(m?.fixed ?? 0, 'fix', 'fixes')})`;
                          },
                        },
                      },
                    },
                    scales: { y: { beginAtZero: true, title: { display: true, text: 'Days' } } },
                  },
                })
              }
            />
            <DataTable
              caption="Mean time to remediate per severity"
              rows={r.remediation}
              rowKey={(m) => m.severity}
              columns={[
                { key: 'severity', label: 'Severity', rowHeader: true, render: (m) => capitalize(m.severity) },
                { key: 'fixed', label: 'Fixes', className: 'num', render: (m) => num(m.fixed) },
                {
                  key: 'mean',
                  label: 'Mean days to remediate',
                  className: 'num',
                  render: (m) => (
                    <>
                      {m.meanDaysToRemediate === null ? (
                        <>
                          — <span className="muted small">{m.meanBlankReason}</span>
                        </>
                      ) : (
                        m.meanDaysToRemediate.toFixed(1)
                      )}
                      {m.meanDaysToRemediate !== null && m.undatedFixes > 0 && <span className="muted small"> ({m.undatedFixes} without a date left out)</span>}
                    </>
                  ),
                },
                {
                  key: 'median',
                  label: 'Median',
                  className: 'num',
                  render: (m) => (m.medianDaysToRemediate === null ? '—' : m.medianDaysToRemediate.toFixed(1)),
                },
              ]}
            />
          </section>
        </>
      )}
    </div>
  );
}
