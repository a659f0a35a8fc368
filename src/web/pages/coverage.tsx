// Coverage gaps (GET /api/v1/reports/coverage): the four numbers, each opening the records behind it.
import { useState } from 'react';
import { type CoverageCounts, type CoverageRecords, get, qs, type Rec } from '../api.ts';
import { Link, setQuery, useLocation } from '../router.tsx';
import { Alert, cell, DataTable, num, PageHeader, Spinner, useLoad, usePageTitle } from '../ui.tsx';

const KINDS = [
  {
    kind: 'cmdbNotScanned',
    label: 'CMDB assets not scanned',
    columns: ['name', 'assetTag', 'ipAddresses', 'state', 'site', 'source'],
    link: (r: Rec) => (r.assetId ? `/inventory/assets/${r.assetId}` : null),
  },
  {
    kind: 'scannedNotInCmdb',
    label: 'Scanned hosts not in the CMDB',
    columns: ['hostname', 'ipAddresses', 'repository', 'os', 'source'],
    link: (r: Rec) => `/inventory/hosts/${r.id}`,
  },
  {
    kind: 'findingsWithoutTicket',
    label: 'Urgent findings without a ticket',
    columns: ['pluginName', 'severity', 'knownExploited', 'owner', 'department', 'status'],
    link: (r: Rec) => `/inventory/vulnerabilities/${r.id}`,
  },
  {
    kind: 'ticketsForFixedFindings',
    label: 'Open tickets whose findings are fixed',
    columns: ['displayId', 'subject', 'status', 'assignee', 'source'],
    link: () => null,
  },
  {
    kind: 'ticketsClosedFindingsOpen',
    label: 'Remediation requests closed, findings open',
    columns: ['displayId', 'subject', 'status', 'assignee', 'source'],
    link: () => null,
  },
] as const;

/** Column headings of the lists (the API's field names are not for people). */
const LABELS: Record<string, string> = {
  name: 'Name',
  assetTag: 'Asset tag',
  ipAddresses: 'IP addresses',
  state: 'State',
  site: 'Site',
  source: 'Source',
  hostname: 'Host name',
  repository: 'Repository',
  os: 'Operating system',
  pluginName: 'Vulnerability',
  severity: 'Severity',
  knownExploited: 'Known exploited',
  owner: 'Owner',
  department: 'Department',
  status: 'Status',
  displayId: 'Ticket',
  subject: 'Subject',
  assignee: 'Assignee',
};

export function CoveragePage() {
  const { query } = useLocation();
  const days = Number(query.get('days') ?? 30) || 30;
  const open = KINDS.find((k) => k.kind === query.get('list')) ?? null;
  const report = useLoad((s) => get<CoverageCounts>(`/api/v1/reports/coverage${qs({ days })}`, s), `coverage:${days}`);
  const list = useLoad<Pick<CoverageRecords, 'items'>>(
    (s) => (open ? get<CoverageRecords>(`/api/v1/reports/coverage${qs({ days, list: open.kind })}`, s) : Promise.resolve({ items: [] })),
    `${days}:${open?.kind}`,
  );
  const [daysInput, setDaysInput] = useState(String(days));
  usePageTitle('Coverage');
  if (report.error)
    return (
      <Alert tone="error" title="Could not load the coverage report">
        {report.error}
      </Alert>
    );
  if (!report.data) return <Spinner />;
  const r = report.data;
  return (
    <div>
      <PageHeader
        title="Coverage"
        subtitle="Where the scanner and the CMDB disagree, and where findings and tickets do not meet"
        actions={
          <form
            onSubmit={(e) => {
              e.preventDefault();
              setQuery({ days: daysInput });
            }}
          >
            <label>
              Scanned within <input type="number" min={0} value={daysInput} onChange={(e) => setDaysInput(e.target.value)} style={{ width: '5em' }} /> days
            </label>{' '}
            <button type="submit">Apply</button>
          </form>
        }
      />
      <div className="cards">
        {KINDS.map((k) => (
          <a
            key={k.kind}
            href={`?${new URLSearchParams({ days: String(days), list: k.kind })}`}
            className="card stat"
            aria-current={open?.kind === k.kind ? 'true' : undefined}
            onClick={(e) => {
              e.preventDefault();
              setQuery({ list: k.kind });
            }}
          >
            <div className="stat-value">{num(r[k.kind])}</div>
            <div className="stat-label">{k.label}</div>
          </a>
        ))}
      </div>
      {open && (
        <section className="card" aria-labelledby="coverage-list">
          <h2 id="coverage-list">{open.label}</h2>
          {list.data && (
            <p className="muted small">
              {num(list.data.items.length)} {list.data.items.length === 1 ? 'record' : 'records'}
            </p>
          )}
          {list.error ? (
            <Alert tone="error">{list.error}</Alert>
          ) : !list.data ? (
            <Spinner />
          ) : (
            <DataTable
              caption={open.label}
              rows={list.data.items}
              empty="Nothing here."
              columns={open.columns.map((c, i) => ({
                key: c,
                label: LABELS[c] ?? c,
                render: (row: Rec) => {
                  const href = i === 0 ? open.link(row) : null;
                  return href ? <Link href={href}>{cell(row[c])}</Link> : cell(row[c]);
                },
              }))}
            />
          )}
        </section>
      )}
    </div>
  );
}
