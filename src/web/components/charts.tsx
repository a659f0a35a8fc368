// Every chart of the web UI, drawn with Chart.js: a canvas described for screen readers by a summary of its
// numbers, and the severity bar chart of the overview and host pages.
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip } from 'chart.js';
import { useEffect, useId, useRef } from 'react';
import { num, SEVERITIES } from '../ui.tsx';

Chart.register(LineController, LineElement, PointElement, BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

export { Chart };

export type Severity = (typeof SEVERITIES)[number];

/** A severity's colour, from the stylesheet's variables (the same as the badges); grey for a name the stylesheet lacks. */
export function colour(s: Severity | (string & {})): string {
  const v = getComputedStyle(document.documentElement)
    .getPropertyValue(s === 'info' ? '--sev-info' : `--${s}`)
    .trim();
  return v || '#888';
}

/** A Chart.js chart on a canvas, rebuilt when its data change and destroyed with the component. */
export function ChartCanvas({
  build,
  summary,
  id,
  className = 'trend-chart',
}: {
  build: (canvas: HTMLCanvasElement) => Chart;
  summary: string;
  id: string;
  className?: string;
}) {
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
    <div className={className}>
      <canvas ref={ref} id={id} role="img" aria-label={summary} />
    </div>
  );
}

const label = (s: Severity) => s[0].toUpperCase() + s.slice(1);

/** Open findings per severity as horizontal bars, each labelled with its count. */
export function SeverityChart({ counts, title = 'Open vulnerabilities by severity' }: { counts: Record<string, number>; title?: string }) {
  const id = useId();
  const summary = `${title}: ${SEVERITIES.map((s) => `${s} ${counts[s] ?? 0}`).join(', ')}`;
  return (
    <figure className="chart">
      <ChartCanvas
        id={id}
        className="severity-chart"
        summary={summary}
        build={(canvas) =>
          new Chart(canvas, {
            type: 'bar',
            data: {
              labels: SEVERITIES.map((s) => `${label(s)}  ${num(counts[s] ?? 0)}`),
              datasets: [{ label: 'Open', data: SEVERITIES.map((s) => counts[s] ?? 0), backgroundColor: SEVERITIES.map(colour), borderRadius: 3 }],
            },
            options: {
              indexAxis: 'y',
              animation: false,
              maintainAspectRatio: false,
              plugins: { legend: { display: false } },
              scales: { x: { beginAtZero: true, ticks: { precision: 0 } }, y: { grid: { display: false } } },
            },
          })
        }
      />
      <figcaption>{title}</figcaption>
    </figure>
  );
}
