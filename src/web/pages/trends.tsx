// Trends (GET /api/v1/reports/trends): open findings by severity per day and the mean time to remediate
// per severity, from the scanner's dates and the change history, drawn with Chart.js; the same numbers as
// tables underneath, where a blank time to remediate says why.
import { counted } from '../../core/format.ts';
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip } from 'chart.js';
import { useEffect, useRef } from 'react';
import { capitalize, call, routeUrl } from '../api.ts';
import { setQuery, useLocation } from '../router.tsx';
import { Alert, num, PageHeader, SEVERITIES, Spinner, useLoad, usePageTitle } from '../ui.tsx';

Chart.register(LineController, LineElement, PointElement, BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

type Severity = (typeof SEVERITIES)[number];

const WINDOWS = [30, 90, 180, 365];

/** A severity's colour, from the stylesheet's variables (the same as the badges and bars). */
function colour(s: Severity): string {
  const v = getComputedStyle(document.documentElement)
    .getPropertyValue(s === 'info' ? '--sev-info' : `--${s}`)
    .trim();
  return v || '#888';
}

/** A Chart.js chart on a canvas, rebuilt when its data change and destroyed with the component. */
function ChartCanvas({ build, summary, id }: { build: (canvas: HTMLCanvasElement) => Chart; summary: string; id: string }) {
  const ref = useRef<HTMLCanvasElement>(null);
  const buildRef = useRef(build);
  buildRef.current = build;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the summary text changes exactly when the data do
  useEffect(() => {
    if (!ref.current) return;
    const chart = buildRef.current(ref.current);
    return () => chart.destroy();
  }, [summary]);
  return (
    <div className="trend-chart">
      <canvas ref={ref} id={id} role="img" aria-label={summary} />
    </div>
  );
}

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
    ? `Open findings by severity per day, ${r.from} to ${r.to}; on ${r.to}: ${SEVERITIES.map((s) => `${s} ${latest?.[s] ?? 0}`).join(', ')}`
    : '';
  const mttrSummary = r
    ? `Mean time to remediate per severity, fixes from ${r.from} to ${r.to}: ${r.remediation
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
              {r.historyFrom ? `; the history starts on ${r.historyFrom}, when the earliest finding was first seen` : '; there is none yet'}.
            </p>
            <ChartCanvas
              id="chart-open"
              summary={openSummary}
              build={(canvas) =>
                new Chart(canvas, {
                  type: 'line',
                  data: {
                    labels: r.days.map((d) => d.date),
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
              <div className="table-wrap">
                <table aria-label="Open findings by severity per day">
                  <thead>
                    <tr>
                      <th scope="col">Day</th>
                      {SEVERITIES.map((s) => (
                        <th key={s} scope="col" className="num">
                          {capitalize(s)}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {[...r.days].reverse().map((d) => (
                      <tr key={d.date}>
                        <th scope="row">{d.date}</th>
                        {SEVERITIES.map((s) => (
                          <td key={s} className="num">
                            {known(d.date) ? num(d.open[s]) : <span className="muted">—</span>}
                          </td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </details>
          </section>
          <section className="card" aria-labelledby="trend-mttr">
            <h2 id="trend-mttr">Mean time to remediate</h2>
            <p className="muted small">
              Days from first seen (or the last reopening) to the fix (the scanner's mitigation date, else the sync that saw it), for the fixes dated from{' '}
              {r.from} to {r.to}.
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
                        backgroundColor: r.remediation.map((m) => colour(m.severity as Severity)),
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
            <div className="table-wrap">
              <table aria-label="Mean time to remediate per severity">
                <thead>
                  <tr>
                    <th scope="col">Severity</th>
                    <th scope="col" className="num">
                      Fixes
                    </th>
                    <th scope="col" className="num">
                      Mean days to remediate
                    </th>
                    <th scope="col" className="num">
                      Median
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {r.remediation.map((m) => (
                    <tr key={m.severity}>
                      <th scope="row">{capitalize(m.severity)}</th>
                      <td className="num">{num(m.fixed)}</td>
                      <td className="num">
                        {m.meanDaysToRemediate === null ? (
                          <>
                            — <span className="muted small">{m.meanBlankReason}</span>
                          </>
                        ) : (
                          m.meanDaysToRemediate.toFixed(1)
                        )}
                        {m.meanDaysToRemediate !== null && m.undatedFixes > 0 && (
                          <span className="muted small"> ({m.undatedFixes} without a date left out)</span>
                        )}
                      </td>
                      <td className="num">{m.medianDaysToRemediate === null ? '—' : m.medianDaysToRemediate.toFixed(1)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        </>
      )}
    </div>
  );
}
