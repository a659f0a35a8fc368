// Compliance benchmark results: passed, failed, warning and error rules per benchmark (and host).
import { call, routeUrl } from '../api.ts';
import { Link } from '../router.tsx';
import { Alert, num, useLoad } from '../ui.tsx';

export function ComplianceSummary({ source, hostId }: { source?: string; hostId?: string }) {
  const input = { query: { source: source ? [source] : undefined, hostId, limit: 200 } };
  const url = routeUrl('GET /api/v1/compliance/summary', input);
  const summary = useLoad((s) => call('GET /api/v1/compliance/summary', input, s), url);
  const items = summary.data?.items ?? [];
  return (
    <section className="card" aria-labelledby="compliance-summary-title">
      <h2 id="compliance-summary-title">Benchmark results {hostId ? '' : 'per host'}</h2>
      {summary.error && <Alert tone="error">{summary.error}</Alert>}
      {items.length === 0 ? (
        <p className="muted">{summary.loading ? 'Loading…' : 'No compliance results.'}</p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Passed and failed rules per benchmark{hostId ? '' : ' and host'}, most failures first</caption>
            <thead>
              <tr>
                {!hostId && <th scope="col">Host</th>}
                <th scope="col">Benchmark</th>
                <th scope="col" className="num">
                  Passed
                </th>
                <th scope="col" className="num">
                  Failed
                </th>
                <th scope="col" className="num">
                  Warning
                </th>
                <th scope="col" className="num">
                  Error
                </th>
                <th scope="col">Pass rate</th>
              </tr>
            </thead>
            <tbody>
              {items.map((i) => {
                const rate = i.total ? Math.round((i.passed / i.total) * 100) : 0;
                return (
                  <tr key={`${i.hostId}|${i.benchmark}`}>
                    {!hostId && <td>{i.hostId ? <Link href={`/inventory/hosts/${i.hostId}`}>{i.hostname ?? i.ipAddresses[0] ?? 'host'}</Link> : '—'}</td>}
                    <td>{i.benchmark}</td>
                    <td className="num">{num(i.passed)}</td>
                    <td className={`num${i.failed ? ' bad-text' : ''}`}>{num(i.failed)}</td>
                    <td className="num">{num(i.warning)}</td>
                    <td className="num">{num(i.error)}</td>
                    <td>
                      <meter min={0} max={100} low={60} high={90} optimum={100} value={rate} aria-label={`Pass rate ${rate}%`} /> {rate}%
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
