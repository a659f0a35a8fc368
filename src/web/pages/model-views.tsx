// The inventory models the UI shows: per model its columns, searchable fields and default sort.
import { DECISION_TEXT } from './remediations.tsx';
import type { ModelRecord, Rec } from '../api.ts';
import { type AnyModelView, modelView } from '../components/record-list.tsx';
import { Link } from '../router.tsx';
import { type Column, cell, dateOnly, dateTime, expiryDay, SEVERITIES, SeverityBadge, When } from '../ui.tsx';

/** A list's date: the day, with the time and its zone in its tooltip (keeps wide lists within a laptop's width). */
function Day({ iso, className }: { iso: string | null | undefined; className?: string }) {
  return <When iso={iso} day className={className} />;
}

const lastSeen: Column<Pick<Rec, 'id'> & { lastSeen: string | null }> = {
  key: 'lastSeen',
  label: 'Last seen',
  sortable: true,
  render: (r) => <Day iso={r.lastSeen} />,
};
const source: Column<Rec> = { key: 'source', label: 'Source', sortable: true };
/** The date alone (the time is in the cell's title), to keep the hosts list narrow. */
const day = dateOnly;

/** What the finding is, how to fix it and what the scanner saw: the row's details, opened on demand. */
function findingDetail(r: ModelRecord<'vulnerabilities'>) {
  return (
    <div className="finding-detail">
      <div className="muted small">
        {r.pluginName} · Plugin {r.pluginId ?? '—'}
        {r.port ? ` · port ${r.port}/${r.protocol ?? ''}` : ''}
        {r.department ? ` · ${r.department}` : ''}
        {' · last seen '}
        <When iso={r.lastSeen} />
      </div>
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
    </div>
  );
}

/** An asset's open findings: the total, the worst severity's count beside it, each severity in the tooltip. */
function OpenFindings({ counts }: { counts: Record<string, number> | null }) {
  const by = SEVERITIES.map((s) => [s, counts?.[s] ?? 0] as const);
  const total = by.reduce((n, [, c]) => n + c, 0);
  if (total === 0) return <span className="muted">0</span>;
  const worst = by.find(([s, c]) => c > 0 && s !== 'info');
  return (
    <span title={by.map(([s, c]) => `${c} ${s}`).join(', ')}>
      {worst ? <span className={`sev-dot sev-${worst[0]}`}>{`${worst[1]} ${worst[0]}`}</span> : null}
      {worst ? ' · ' : ''}
      {total}
    </span>
  );
}

export const VULN_COLUMNS: Column<ModelRecord<'vulnerabilities'>>[] = [
  { key: 'severity', label: 'Severity', sortable: true, render: (r) => <SeverityBadge severity={r.severity} /> },
  {
    key: 'pluginName',
    label: 'Vulnerability',
    sortable: true,
    // One line: the name, clipped to the column (the whole of it, the plugin and the port in the tooltip).
    className: 'wide',
    render: (r) => (
      <Link
        href={`/inventory/vulnerabilities/${r.id}`}
        title={`${r.pluginName ?? ''} — Plugin ${r.pluginId ?? '—'}${r.port ? ` · port ${r.port}/${r.protocol ?? ''}` : ''}`}
      >
        {r.pluginName ?? `Plugin ${r.pluginId ?? ''}`}
      </Link>
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
          {cves.length > 1 && <span className="muted small"> +{cves.length - 1}</span>}
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
          <div className="small excepted" title={`Risk exception until ${expiryDay(r.exceptionExpiresAt)}: ${String(r.exceptionReason ?? '')}`}>
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
        {r.assetId ? (
          <Link href={`/inventory/assets/${r.assetId}`} title={r.department ? `${r.owner ?? '—'} · ${r.department}` : undefined}>
            {cell(r.owner ?? '—')}
          </Link>
        ) : (
          <span title={r.department ?? undefined}>{cell(r.owner)}</span>
        )}
      </>
    ),
  },
  // No "Last seen" column: it is in the row's details, to keep the list within 1280 px.
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
        render: (r) => <span title={[r.os, r.manufacturer, r.model].filter(Boolean).join(' · ') || undefined}>{cell(r.os)}</span>,
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
    detail: findingDetail,
    rowName: (r) => r.pluginName ?? `plugin ${r.pluginId ?? r.id}`,
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
      { key: 'openFindings', label: 'Open findings', className: 'num', render: (r) => <OpenFindings counts={r.openFindings} /> },
      { key: 'owner', label: 'Owner', sortable: true },
      { key: 'department', label: 'Department', sortable: true },
      { key: 'site', label: 'Site', sortable: true },
      { key: 'lastScanned', label: 'Last scanned', sortable: true, render: (r) => <Day iso={r.lastScanned} /> },
    ],
    search: [
      { field: 'name', label: 'Name' },
      { field: 'owner', label: 'Owner' },
      { field: 'department', label: 'Department' },
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
      { key: 'createdAt', label: 'Created', sortable: true, render: (r) => <Day iso={r.createdAt} /> },
      {
        key: 'dueAt',
        label: 'Due',
        sortable: true,
        // A ticket has no `overdue` (only findings do, from the SLA policy): its due date alone.
        render: (r) => <Day iso={r.dueAt} />,
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
