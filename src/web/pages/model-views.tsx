// The inventory models the UI shows: per model its columns, searchable fields and default sort.
import { DECISION_TEXT } from './remediations.tsx';
import type { ModelRecord, Rec } from '../api.ts';
import { type AnyModelView, modelView } from '../components/record-list.tsx';
import { Link } from '../router.tsx';
import { type Column, cell, dateTime, SeverityBadge } from '../ui.tsx';

/** A list's date: the day, with the time in its tooltip (keeps wide lists within a laptop's width). */
function Day({ iso, className }: { iso: string | null | undefined; className?: string }) {
  if (!iso) return <span className="muted">—</span>;
  const d = new Date(iso);
  const day = Number.isNaN(d.getTime()) ? iso : d.toLocaleDateString('en-GB', { dateStyle: 'medium' });
  return (
    <span className={className} title={dateTime(iso)}>
      {day}
    </span>
  );
}

const lastSeen: Column<Pick<Rec, 'id'> & { lastSeen: string | null }> = {
  key: 'lastSeen',
  label: 'Last seen',
  sortable: true,
  render: (r) => <Day iso={r.lastSeen} />,
};
const source: Column<Rec> = { key: 'source', label: 'Source', sortable: true };
/** The date alone (the time is in the cell's title), to keep the hosts list narrow. */
const day = (iso: string | null | undefined): string => {
  const d = iso ? new Date(iso) : null;
  return d && !Number.isNaN(d.getTime()) ? d.toLocaleDateString('en-GB', { dateStyle: 'medium' }) : '—';
};

/** What the finding is, how to fix it and what the scanner saw, folded under the name. */
function FindingDetail({ r }: { r: ModelRecord<'vulnerabilities'> }) {
  if (!r.synopsis && !r.solution && !r.proof) return null;
  return (
    <details className="finding-detail">
      <summary className="small">Details</summary>
      {r.synopsis ? <p>{r.synopsis}</p> : null}
      {r.solution ? (
        <p>
          <strong>Solution:</strong> {r.solution}
        </p>
      ) : null}
      {r.proof ? (
        <pre className="proof">
          {r.proof}
          {r.proofTruncated ? '\n…' : ''}
        </pre>
      ) : null}
    </details>
  );
}

export const VULN_COLUMNS: Column<ModelRecord<'vulnerabilities'>>[] = [
  { key: 'severity', label: 'Severity', sortable: true, render: (r) => <SeverityBadge severity={r.severity} /> },
  {
    key: 'pluginName',
    label: 'Vulnerability',
    sortable: true,
    render: (r) => (
      <>
        <div>
          <Link href={`/inventory/vulnerabilities/${r.id}`}>{r.pluginName ?? `Plugin ${r.pluginId ?? ''}`}</Link>
        </div>
        <div className="muted small">
          Plugin {r.pluginId ?? '—'}
          {r.port ? ` · port ${r.port}/${r.protocol ?? ''}` : ''}
        </div>
        <FindingDetail r={r} />
      </>
    ),
  },
  {
    key: 'cves',
    label: 'CVEs',
    render: (r) => {
      const cves = r.cves ?? [];
      if (cves.length === 0) return <span className="muted">—</span>;
      return (
        <span className="cves" title={cves.join(', ')}>
          <span className="cve">{cves[0]}</span>
          {cves.length > 1 && <span className="muted small"> +{cves.length - 1} more</span>}
        </span>
      );
    },
  },
  {
    key: 'priority',
    label: 'Priority',
    sortable: true,
    className: 'num',
    render: (r) =>
      r.decision ? (
        <span title={typeof r.priorityReason === 'string' ? r.priorityReason : undefined}>
          <span className={`decision decision-${String(r.decision).replace('*', '-star')}`}>{DECISION_TEXT[String(r.decision)] ?? String(r.decision)}</span>{' '}
          {typeof r.priority === 'number' ? r.priority.toFixed(1) : ''}
        </span>
      ) : (
        <span className="muted">—</span>
      ),
  },
  { key: 'cvssV3BaseScore', label: 'CVSS', sortable: true, className: 'num' },
  { key: 'epssScore', label: 'EPSS', sortable: true, className: 'num' },
  { key: 'vprScore', label: 'VPR', sortable: true, className: 'num' },
  {
    key: 'knownExploited',
    label: 'KEV',
    sortable: true,
    render: (r) =>
      r.knownExploited ? (
        <span
          className="kev"
          title={r.knownExploitedBy === 'scanner' ? 'Known exploited: the scanner says so' : 'Known exploited: listed in the CISA KEV catalog'}
        >
          Yes
        </span>
      ) : (
        'No'
      ),
  },
  {
    key: 'status',
    label: 'Status',
    sortable: true,
    render: (r) => (
      <>
        {cell(r.status)}
        {r.excepted ? (
          <div className="small excepted" title={`Risk exception until ${String(r.exceptionExpiresAt ?? '').slice(0, 10)}: ${String(r.exceptionReason ?? '')}`}>
            excepted
          </div>
        ) : r.acceptedRisk ? (
          <div className="small muted" title="Risk accepted in the scanner">
            accepted (scanner)
          </div>
        ) : null}
      </>
    ),
  },
  {
    key: 'dueAt',
    label: 'Due',
    render: (r) => <Day iso={r.dueAt} className={r.overdue ? 'bad-text' : undefined} />,
  },
  {
    key: 'owner',
    label: 'Owner',
    sortable: true,
    render: (r) => (
      <>
        {r.assetId ? <Link href={`/inventory/assets/${r.assetId}`}>{cell(r.owner ?? '—')}</Link> : cell(r.owner)}
        {r.department ? <div className="muted small">{r.department}</div> : null}
      </>
    ),
  },
  lastSeen,
];

export const MODEL_VIEWS: AnyModelView[] = [
  modelView({
    model: 'hosts',
    title: 'Hosts',
    singular: 'host',
    columns: [
      {
        key: 'hostname',
        label: 'Host name',
        sortable: true,
        render: (r) => <Link href={`/inventory/hosts/${r.id}`}>{r.hostname ?? r.fqdn ?? r.netbiosName ?? r.ipAddresses?.[0] ?? r.id}</Link>,
      },
      { key: 'ipAddresses', label: 'IP addresses' },
      {
        // The hardware under the system, to keep the list (with its per-severity counts) within 1280 px.
        key: 'os',
        label: 'Operating system',
        sortable: true,
        render: (r) => (
          <>
            <div>{cell(r.os)}</div>
            {r.manufacturer || r.model ? <div className="muted small">{[r.manufacturer, r.model].filter(Boolean).join(' ')}</div> : null}
          </>
        ),
      },
      { key: 'lastLoggedOnUser', label: 'Last user', sortable: true },
      { key: 'credentialed', label: 'Credentialed', sortable: true },
      source,
      {
        key: 'scannerLastSeen',
        label: 'Last seen',
        sortable: true,
        render: (r) =>
          r.scannerLastSeen ? (
            <span title={`The scanner last saw this host at ${dateTime(r.scannerLastSeen)}; Tributary last stored it at ${dateTime(r.lastSeen)}`}>
              {day(r.scannerLastSeen)}
            </span>
          ) : (
            <span className="muted">—</span>
          ),
      },
    ],
    search: [
      { field: 'hostname', label: 'Host name' },
      { field: 'ipAddresses', label: 'IP address' },
      { field: 'os', label: 'Operating system' },
      { field: 'serialNumber', label: 'Serial number' },
      { field: 'lastLoggedOnUser', label: 'Last user' },
    ],
    defaultSort: 'hostname',
    hostCounts: true,
  }),
  modelView({
    model: 'vulnerabilities',
    title: 'Vulnerabilities',
    singular: 'vulnerability',
    columns: VULN_COLUMNS,
    search: [
      { field: 'pluginName', label: 'Name' },
      { field: 'pluginId', label: 'Plugin ID' },
      { field: 'owner', label: 'Owner' },
      { field: 'department', label: 'Department' },
      { field: 'site', label: 'Site' },
    ],
    defaultSort: '-severity',
    perHost: true,
  }),
  modelView({
    model: 'assets',
    title: 'Assets',
    singular: 'asset',
    columns: [
      { key: 'name', label: 'Asset', sortable: true, render: (r) => <Link href={`/inventory/assets/${r.id}`}>{r.name ?? r.id}</Link> },
      { key: 'matchRule', label: 'Linked by', sortable: true },
      { key: 'hostIds', label: 'Scanner hosts', render: (r) => String(r.hostIds?.length ?? 0) },
      { key: 'cmdbAssetIds', label: 'CMDB records', render: (r) => String(r.cmdbAssetIds?.length ?? 0) },
      { key: 'owner', label: 'Owner', sortable: true },
      { key: 'department', label: 'Department', sortable: true },
      { key: 'site', label: 'Site', sortable: true },
      { key: 'lastScanned', label: 'Last scanned', sortable: true, render: (r) => dateTime(r.lastScanned) },
    ],
    search: [
      { field: 'name', label: 'Name' },
      { field: 'owner', label: 'Owner' },
      { field: 'department', label: 'Department' },
      { field: 'matchRule', label: 'Linked by' },
      { field: 'ipAddresses', label: 'IP address' },
    ],
    defaultSort: 'name',
  }),
  modelView({
    model: 'compliance',
    title: 'Compliance',
    singular: 'compliance result',
    columns: [
      { key: 'benchmark', label: 'Benchmark', sortable: true },
      { key: 'ruleId', label: 'Rule', sortable: true },
      { key: 'ruleName', label: 'Rule name', sortable: true },
      { key: 'result', label: 'Result', sortable: true, render: (r) => <span className={`result result-${r.result ?? ''}`}>{cell(r.result)}</span> },
      lastSeen,
    ],
    search: [
      { field: 'ruleName', label: 'Rule name' },
      { field: 'benchmark', label: 'Benchmark' },
      { field: 'ruleId', label: 'Rule ID' },
    ],
    perHost: true,
  }),
  modelView({
    model: 'software',
    title: 'Software',
    singular: 'software package',
    columns: [{ key: 'name', label: 'Name', sortable: true }, { key: 'version', label: 'Version', sortable: true }, source, lastSeen],
    search: [{ field: 'name', label: 'Name' }],
    defaultSort: 'name',
    perHost: true,
  }),
  modelView({
    model: 'ports',
    title: 'Open ports',
    singular: 'open port',
    columns: [
      { key: 'port', label: 'Port', sortable: true, className: 'num' },
      { key: 'protocol', label: 'Protocol', sortable: true },
      { key: 'service', label: 'Service', sortable: true },
      source,
      lastSeen,
    ],
    search: [{ field: 'service', label: 'Service' }],
    defaultSort: 'port',
    perHost: true,
  }),
  modelView({
    model: 'tickets',
    title: 'Tickets',
    singular: 'ticket',
    columns: [
      { key: 'displayId', label: 'ID', sortable: true, render: (r) => <Link href={`/inventory/tickets/${r.id}`}>{r.displayId ?? r.id}</Link> },
      {
        key: 'subject',
        label: 'Subject',
        sortable: true,
        render: (r) => <Link href={`/inventory/tickets/${r.id}`}>{r.subject ?? '(no subject)'}</Link>,
      },
      { key: 'kind', label: 'Kind', sortable: true },
      { key: 'status', label: 'Status', sortable: true },
      { key: 'priority', label: 'Priority', sortable: true },
      { key: 'assignee', label: 'Assignee', sortable: true },
      { key: 'group', label: 'Group', sortable: true },
      { key: 'requester', label: 'Requester', sortable: true },
      { key: 'createdAt', label: 'Created', sortable: true, render: (r) => dateTime(r.createdAt) },
      {
        key: 'dueAt',
        label: 'Due',
        sortable: true,
        // A ticket has no `overdue` (only findings do, from the SLA policy): its due date alone.
        render: (r) => (r.dueAt ? <span>{dateTime(r.dueAt)}</span> : <span className="muted">—</span>),
      },
    ],
    search: [
      { field: 'subject', label: 'Subject' },
      { field: 'displayId', label: 'ID' },
      { field: 'requester', label: 'Requester' },
      { field: 'assignee', label: 'Assignee' },
    ],
    defaultSort: '-createdAt',
  }),
  modelView({
    model: 'cmdb-assets',
    title: 'CMDB assets',
    singular: 'CMDB asset',
    columns: [
      {
        key: 'name',
        label: 'Name',
        sortable: true,
        render: (r) => <Link href={`/inventory/cmdb-assets/${r.id}`}>{r.name ?? r.assetTag ?? r.id}</Link>,
      },
      { key: 'assetTag', label: 'Asset tag', sortable: true },
      { key: 'productType', label: 'Product type', sortable: true },
      { key: 'product', label: 'Product', sortable: true },
      { key: 'state', label: 'State', sortable: true },
      { key: 'ipAddresses', label: 'IP addresses' },
      { key: 'assignedUser', label: 'User', sortable: true },
      { key: 'department', label: 'Department', sortable: true },
      { key: 'site', label: 'Site', sortable: true },
    ],
    search: [
      { field: 'name', label: 'Name' },
      { field: 'assetTag', label: 'Asset tag' },
      { field: 'serialNumber', label: 'Serial number' },
      { field: 'ipAddresses', label: 'IP address' },
    ],
    defaultSort: 'name',
  }),
  modelView({
    model: 'users',
    title: 'Users',
    singular: 'user',
    columns: [
      { key: 'name', label: 'Name', sortable: true },
      { key: 'email', label: 'Email', sortable: true },
      { key: 'department', label: 'Department', sortable: true },
      { key: 'jobTitle', label: 'Job title', sortable: true },
      { key: 'isTechnician', label: 'Technician', sortable: true },
      { key: 'status', label: 'Status', sortable: true },
      source,
    ],
    search: [
      { field: 'name', label: 'Name' },
      { field: 'email', label: 'Email' },
      { field: 'department', label: 'Department' },
    ],
    defaultSort: 'name',
  }),
  modelView({
    model: 'services',
    title: 'Services',
    singular: 'service',
    columns: [
      { key: 'name', label: 'Name', sortable: true },
      { key: 'category', label: 'Category', sortable: true },
      { key: 'owner', label: 'Owner', sortable: true },
      { key: 'status', label: 'Status', sortable: true },
      { key: 'description', label: 'Description' },
      source,
    ],
    search: [
      { field: 'name', label: 'Name' },
      { field: 'category', label: 'Category' },
    ],
    defaultSort: 'name',
  }),
];
