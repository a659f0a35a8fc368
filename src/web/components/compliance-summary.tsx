// Compliance benchmark results: passed, failed, warning and error rules per benchmark (and host).
import { useState } from 'react';
import { type ComplianceSummaryItem, call, routeUrl } from '../api.ts';
import { Link } from '../router.tsx';
import { Alert, DataTable, num, useLoad } from '../ui.tsx';

/** Rows of the summary shown before "Show all". */
const FEW = 3;

export function ComplianceSummary({ source, hostId }: { source?: string; hostId?: string }) {
  const input = { query: { source: source ? [source] : undefined, hostId, limit: 200 } };
  const url = routeUrl('GET /api/v1/compliance/summary', input);
  const summary = useLoad((s) => call('GET /api/v1/compliance/summary', input, s), url);
  const all = summary.data?.items ?? [];
  // The list below is what one works through: the summary shows the worst few (most failures first) until asked for all.
  const [expanded, setExpanded] = useState(false);
  const items = expanded ? all : all.slice(0, FEW);
  const failed = all.reduce((n, i) => n + i.failed, 0);
  return (
    <section className="card compliance-summary" aria-labelledby="compliance-summary-title">
      <div className="summary-head">
        <h2 id="compliance-summary-title">Benchmark results {hostId ? '' : 'per host'}</h2>
        {all.length > 0 && (
          <span className="muted small">
            {num(all.length)} {hostId ? 'benchmarks' : 'hosts × benchmarks'}, {num(failed)} failed rules
          </span>
        )}
        {all.length > FEW && (
          <button type="button" className="link small" aria-expanded={expanded} onClick={() => setExpanded(!expanded)}>
            {expanded ? `Show the ${FEW} with most failures` : `Show all ${num(all.length)}`}
          </button>
        )}
      </div>
      {summary.error && <Alert tone="error">{summary.error}</Alert>}
      {items.length === 0 ? (
        <p className="muted">{summary.loading ? 'Loading…' : 'No compliance results.'}</p>
      ) : (
        <DataTable
          compact
          caption={`Passed and failed rules per benchmark${hostId ? '' : ' and host'}, most failures first`}
          rows={items}
          rowKey={(i) => `${i.hostId}|${i.benchmark}`}
          columns={[
            ...(hostId
              ? []
              : [
                  {
                    key: 'host',
                    label: 'Host',
                    render: (i: ComplianceSummaryItem) =>
                      i.hostId ? <Link href={`/inventory/hosts/${i.hostId}`}>{i.hostname ?? i.ipAddresses[0] ?? 'host'}</Link> : '—',
                  },
                ]),
            { key: 'benchmark', label: 'Benchmark', render: (i) => i.benchmark },
            { key: 'passed', label: 'Passed', className: 'num', render: (i) => num(i.passed) },
            { key: 'failed', label: 'Failed', className: 'num', cellClassName: (i) => (i.failed ? 'bad-text' : undefined), render: (i) => num(i.failed) },
            { key: 'warning', label: 'Warning', className: 'num', render: (i) => num(i.warning) },
            { key: 'error', label: 'Error', className: 'num', render: (i) => num(i.error) },
            {
              key: 'rate',
              label: 'Pass rate',
              render: (i) => {
                const rate = i.total ? Math.round((i.passed / i.total) * 100) : 0;
                return (
                  <>
                    <meter min={0} max={100} low={60} high={90} optimum={100} value={rate} aria-label={`Pass rate ${rate}%`} /> {rate}%
                  </>
                );
              },
            },
          ]}
        />
      )}
    </section>
  );
}
