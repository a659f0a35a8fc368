// Top remediations (issue 31 §2, docs/priority.md): the open findings grouped by the fix that closes
// them, largest share of the total priority first, with the decisions each clears and its owners; a row
// drills down to the hosts the fix closes findings on (a page of 100 at a time). Downloadable as CSV or JSON.
import { call, type RemediationFix, type RemediationHosts, routeUrl } from '../api.ts';
import { Link, setQuery, useLocation } from '../router.tsx';
import { Alert, type Column, DataTable, num, PageHeader, useLoad, usePageTitle } from '../ui.tsx';

const drill = (key: string) => `/reports/remediations/fix?key=${encodeURIComponent(key)}`;
const pct = (share: number) => `${(share * 100).toFixed(1)}%`;

export const DECISION_TEXT: Record<string, string> = { act: 'Act', attend: 'Attend', 'track-star': 'Track*', track: 'Track' };

const COLUMNS: Column<RemediationFix & { id: string }>[] = [
  { key: 'fix', label: 'Fix', render: (r) => <Link href={drill(r.key)}>{r.fix}</Link> },
  { key: 'share', label: 'Share of priority', className: 'num', render: (r) => pct(r.share) },
  {
    key: 'hosts',
    label: 'Hosts',
    className: 'num',
    render: (r) =>
      r.hostsExact ? (
        <Link href={drill(r.key)}>{num(r.hosts)}</Link>
      ) : (
        <Link href={drill(r.key)} title="At most: a host with several of this fix's plugins counts once per plugin; the list of hosts names each once">
          ≤ {num(r.hosts)}
        </Link>
      ),
  },
  { key: 'findings', label: 'Findings', className: 'num', render: (r) => num(r.findings) },
  {
    key: 'decisions',
    label: 'Clears',
    render: (r) =>
      (['act', 'attend', 'track-star', 'track'] as const)
        .filter((d) => r.decisions[d] > 0)
        .map((d) => `${DECISION_TEXT[d]} ${num(r.decisions[d])}`)
        .join(' · ') || '—',
  },
  {
    key: 'owners',
    label: 'Owners',
    render: (r) =>
      r.owners.length === 0 ? (
        <span className="muted">—</span>
      ) : r.owners.length > 3 ? (
        `${r.owners.slice(0, 3).join(', ')} +${r.owners.length - 3}`
      ) : (
        r.owners.join(', ')
      ),
  },
];

export function RemediationsPage() {
  usePageTitle('Top remediations');
  const input = { query: { limit: 100 } };
  const report = useLoad((s) => call('GET /api/v1/reports/remediations', input, s), routeUrl('GET /api/v1/reports/remediations', input));
  const rows = (report.data?.items ?? []).map((r) => ({ ...r, id: r.key }));
  const total = report.data?.total;
  return (
    <div>
      <PageHeader
        crumbs={<span>Reports</span>}
        title="Top remediations"
        subtitle="Open findings grouped by the fix that closes them, the fix that removes the most priority first."
      />
      <p className="toolbar">
        {total && (
          <span className="muted">
            {num(total.fixes)} fixes for {num(total.findings)} open findings.{' '}
          </span>
        )}
        <a href="/api/v1/reports/remediations/export?format=csv&limit=1000" download>
          Download CSV
        </a>{' '}
        ·{' '}
        <a href="/api/v1/reports/remediations/export?format=json&limit=1000" download>
          JSON
        </a>
      </p>
      {report.error && <Alert tone="error">{report.error}</Alert>}
      <DataTable
        caption="Top remediations, largest share of priority first"
        columns={COLUMNS}
        rows={rows}
        busy={report.loading}
        empty={report.loading ? 'Loading…' : 'No open findings.'}
      />
    </div>
  );
}

type HostRow = RemediationHosts['hosts'][number] & { id: string };

const HOST_COLUMNS: Column<HostRow>[] = [
  { key: 'name', label: 'Host', render: (h) => <Link href={`/inventory/hosts/${encodeURIComponent(h.hostId)}`}>{h.name ?? h.hostId}</Link> },
  {
    key: 'decision',
    label: 'Decision',
    render: (h) => (h.decision ? <span className={`decision decision-${h.decision.replace('*', '-star')}`}>{DECISION_TEXT[h.decision]}</span> : '—'),
  },
  { key: 'findings', label: 'Findings', className: 'num', render: (h) => num(h.findings) },
  { key: 'priority', label: 'Priority', className: 'num', render: (h) => h.priority.toFixed(1) },
  { key: 'owner', label: 'Owner', render: (h) => h.owner ?? <span className="muted">—</span> },
  { key: 'department', label: 'Department', render: (h) => h.department ?? <span className="muted">—</span> },
];

/** Hosts in a page of the drill-down (a top fix has tens of thousands at a million findings). */
const HOSTS_PAGE = 100;

/** The drill-down: the hosts one fix closes open findings on, most priority first, a page at a time (the offset in the URL). */
export function RemediationHostsPage({ fixKey }: { fixKey: string }) {
  const { query } = useLocation();
  const offset = Math.max(0, Number(query.get('offset') ?? 0) || 0);
  const input = { query: { fix: fixKey, limit: HOSTS_PAGE, offset } };
  const r = useLoad((s) => call('GET /api/v1/reports/remediations/hosts', input, s), routeUrl('GET /api/v1/reports/remediations/hosts', input));
  const fix = r.data?.fix;
  usePageTitle(`${fix?.fix ?? 'Fix'} · Top remediations`);
  const rows = (r.data?.hosts ?? []).map((h) => ({ ...h, id: h.hostId }));
  const total = r.data?.total ?? 0;
  return (
    <div>
      <PageHeader
        crumbs={
          <>
            <Link href="/reports/remediations">Top remediations</Link> › <span>Fix</span>
          </>
        }
        title={fix?.fix ?? (r.loading ? 'Loading…' : 'No open findings for this fix')}
        subtitle={
          fix
            ? `${num(fix.findings)} open findings on ${num(fix.hosts)} hosts, ${pct(fix.share)} of the total priority; plugins ${fix.plugins.map((p) => p.pluginId).join(', ')}.`
            : undefined
        }
      />
      {r.error && <Alert tone="error">{r.error}</Alert>}
      <DataTable caption="Hosts this fix closes findings on" columns={HOST_COLUMNS} rows={rows} busy={r.loading} empty={r.loading ? 'Loading…' : 'No hosts.'} />
      <nav className="pager" aria-label="Pagination">
        <span className="muted pager-info">{total ? `${num(offset + 1)}–${num(offset + rows.length)} of ${num(total)} hosts` : 'No results'}</span>
        <button type="button" disabled={offset === 0} onClick={() => setQuery({ offset: offset - HOSTS_PAGE > 0 ? String(offset - HOSTS_PAGE) : null })}>
          Previous page
        </button>
        <button type="button" disabled={offset + HOSTS_PAGE >= total} onClick={() => setQuery({ offset: String(offset + HOSTS_PAGE) })}>
          Next page
        </button>
      </nav>
    </div>
  );
}
