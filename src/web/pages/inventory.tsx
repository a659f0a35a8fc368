// Inventory: one searchable, sortable, server-side paginated table per model, with the filters that
// matter per model (vulnerabilities: severity, known exploited, status, CVE, source). The state lives
// in the URL so a filtered view can be bookmarked and shared.
import { type FormEvent, type ReactNode, useEffect, useMemo, useState } from 'react';
import { get, type Page, qs, type Rec, type SourceView } from '../api.ts';
import { Link, navigate, setQuery, useLocation } from '../router.tsx';
import { Alert, type Column, cell, DataTable, dateTime, num, PageHeader, Pager, SeverityBadge, useLoad } from '../ui.tsx';

export interface ModelView {
  model: string;
  title: string;
  singular: string;
  columns: Column<Rec>[];
  /** Fields the search box can search in (first = default). */
  search: { field: string; label: string }[];
  defaultSort?: string;
  /** Records hang off a host: show the host's name. */
  perHost?: boolean;
}

export type HostLabels = Record<string, { hostname: string | null; ipAddresses: string[] }>;

/** The host column of per-host records: name (or first address) linking to the host page. */
export function hostColumn(labels: HostLabels): Column<Rec> {
  return {
    key: 'hostId',
    label: 'Host',
    render: (r) => {
      const id = r.hostId as string | null;
      if (!id) return <span className="muted">—</span>;
      const l = labels[id];
      return <Link href={`/inventory/hosts/${id}`}>{l ? (l.hostname ?? l.ipAddresses[0] ?? 'host') : 'host…'}</Link>;
    },
  };
}

const lastSeen: Column<Rec> = { key: 'lastSeen', label: 'Last seen', sortable: true, render: (r) => <span title={String(r.lastSeen ?? '')}>{dateTime(r.lastSeen as string)}</span> };
const source: Column<Rec> = { key: 'source', label: 'Source', sortable: true };

export const VULN_COLUMNS: Column<Rec>[] = [
  { key: 'severity', label: 'Severity', sortable: true, render: (r) => <SeverityBadge severity={r.severity} /> },
  {
    key: 'pluginName',
    label: 'Vulnerability',
    sortable: true,
    render: (r) => (
      <>
        <div>{cell(r.pluginName)}</div>
        <div className="muted small">Plugin {String(r.pluginId ?? '—')}</div>
      </>
    ),
  },
  {
    key: 'cves',
    label: 'CVEs',
    render: (r) => {
      const cves = (r.cves as string[] | null) ?? [];
      if (cves.length === 0) return <span className="muted">—</span>;
      return (
        <span className="cves" title={cves.join(', ')}>
          {cves.slice(0, 2).map((c) => (
            <span key={c} className="cve">
              {c}
            </span>
          ))}
          {cves.length > 2 && <span className="muted small"> +{cves.length - 2} more</span>}
        </span>
      );
    },
  },
  { key: 'cvssV3BaseScore', label: 'CVSS v3', sortable: true, className: 'num' },
  { key: 'epssScore', label: 'EPSS', sortable: true, className: 'num' },
  { key: 'vprScore', label: 'VPR', sortable: true, className: 'num' },
  { key: 'knownExploited', label: 'Known exploited', sortable: true, render: (r) => (r.knownExploited ? <span className="kev">Yes</span> : 'No') },
  { key: 'status', label: 'Status', sortable: true },
  { key: 'port', label: 'Port', sortable: true, render: (r) => (r.port === null ? <span className="muted">—</span> : `${r.port}/${r.protocol ?? ''}`) },
  lastSeen,
];

export const MODEL_VIEWS: ModelView[] = [
  {
    model: 'hosts',
    title: 'Hosts',
    singular: 'host',
    columns: [
      { key: 'hostname', label: 'Host name', sortable: true, render: (r) => <Link href={`/inventory/hosts/${r.id}`}>{String(r.hostname ?? r.fqdn ?? r.netbiosName ?? (r.ipAddresses as string[] | null)?.[0] ?? r.id)}</Link> },
      { key: 'ipAddresses', label: 'IP addresses' },
      { key: 'os', label: 'Operating system', sortable: true },
      { key: 'manufacturer', label: 'Hardware', sortable: true, render: (r) => cell([r.manufacturer, r.model].filter(Boolean).join(' ') || null) },
      { key: 'lastLoggedOnUser', label: 'Last user', sortable: true },
      { key: 'credentialed', label: 'Credentialed', sortable: true },
      source,
      lastSeen,
    ],
    search: [
      { field: 'hostname', label: 'Host name' },
      { field: 'ipAddresses', label: 'IP address' },
      { field: 'os', label: 'Operating system' },
      { field: 'serialNumber', label: 'Serial number' },
      { field: 'lastLoggedOnUser', label: 'Last user' },
    ],
    defaultSort: 'hostname',
  },
  {
    model: 'vulnerabilities',
    title: 'Vulnerabilities',
    singular: 'vulnerability',
    columns: VULN_COLUMNS,
    search: [
      { field: 'pluginName', label: 'Name' },
      { field: 'pluginId', label: 'Plugin ID' },
    ],
    defaultSort: '-severity',
    perHost: true,
  },
  {
    model: 'compliance',
    title: 'Compliance',
    singular: 'compliance result',
    columns: [
      { key: 'benchmark', label: 'Benchmark', sortable: true },
      { key: 'ruleId', label: 'Rule', sortable: true },
      { key: 'ruleName', label: 'Rule name', sortable: true },
      { key: 'result', label: 'Result', sortable: true, render: (r) => <span className={`result result-${String(r.result)}`}>{cell(r.result)}</span> },
      lastSeen,
    ],
    search: [
      { field: 'ruleName', label: 'Rule name' },
      { field: 'benchmark', label: 'Benchmark' },
      { field: 'ruleId', label: 'Rule ID' },
    ],
    perHost: true,
  },
  {
    model: 'software',
    title: 'Software',
    singular: 'software package',
    columns: [{ key: 'name', label: 'Name', sortable: true }, { key: 'version', label: 'Version', sortable: true }, source, lastSeen],
    search: [{ field: 'name', label: 'Name' }],
    defaultSort: 'name',
    perHost: true,
  },
  {
    model: 'ports',
    title: 'Open ports',
    singular: 'open port',
    columns: [{ key: 'port', label: 'Port', sortable: true, className: 'num' }, { key: 'protocol', label: 'Protocol', sortable: true }, { key: 'service', label: 'Service', sortable: true }, source, lastSeen],
    search: [{ field: 'service', label: 'Service' }],
    defaultSort: 'port',
    perHost: true,
  },
  {
    model: 'tickets',
    title: 'Tickets',
    singular: 'ticket',
    columns: [
      { key: 'displayId', label: 'ID', sortable: true },
      { key: 'subject', label: 'Subject', sortable: true },
      { key: 'kind', label: 'Kind', sortable: true },
      { key: 'status', label: 'Status', sortable: true },
      { key: 'priority', label: 'Priority', sortable: true },
      { key: 'assignee', label: 'Assignee', sortable: true },
      { key: 'group', label: 'Group', sortable: true },
      { key: 'requester', label: 'Requester', sortable: true },
      { key: 'createdAt', label: 'Created', sortable: true, render: (r) => dateTime(r.createdAt as string) },
      { key: 'dueAt', label: 'Due', sortable: true, render: (r) => dateTime(r.dueAt as string) },
    ],
    search: [
      { field: 'subject', label: 'Subject' },
      { field: 'displayId', label: 'ID' },
      { field: 'requester', label: 'Requester' },
      { field: 'assignee', label: 'Assignee' },
    ],
    defaultSort: '-createdAt',
  },
  {
    model: 'cmdb-assets',
    title: 'CMDB assets',
    singular: 'CMDB asset',
    columns: [
      { key: 'name', label: 'Name', sortable: true },
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
  },
  {
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
  },
  {
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
  },
];

/** Looks up host names for the host ids on a page of per-host records. */
export function useHostLabels(rows: Rec[] | undefined): HostLabels {
  const ids = useMemo(() => [...new Set((rows ?? []).map((r) => r.hostId as string | null).filter((x): x is string => !!x))].sort(), [rows]);
  const labels = useLoad(
    async (s) => (ids.length ? get<{ items: { id: string; hostname: string | null; ipAddresses: string[] }[] }>(`/api/v1/hosts/labels${qs({ id: ids })}`, s) : { items: [] }),
    ids.join(','),
  );
  return useMemo(() => Object.fromEntries((labels.data?.items ?? []).map((h) => [h.id, h])), [labels.data]);
}

export interface RecordListProps {
  view: ModelView;
  /** Filters always applied (e.g. hostId on a host page). */
  fixed?: Record<string, string>;
  /** Extra filters from the page's own controls. */
  filters?: Record<string, string | string[]>;
  sort: string | null;
  onSort: (s: string | null) => void;
  limit: number;
  onLimit: (n: number) => void;
  caption: string;
  hideHost?: boolean;
  empty?: ReactNode;
}

/** A server-side paged, sorted table of one model; cursors are kept as a stack for Previous. */
export function RecordList(props: RecordListProps) {
  const { view } = props;
  const params = { ...(props.fixed ?? {}), ...(props.filters ?? {}), sort: props.sort ?? undefined, limit: props.limit };
  const base = `/api/v1/${view.model}${qs(params)}`;
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new query starts at page 1
  useEffect(() => setCursors([null]), [base]);
  const cursor = cursors[cursors.length - 1];
  const url = cursor ? `${base}&cursor=${encodeURIComponent(cursor)}` : base;
  const page = useLoad((s) => get<Page<Rec>>(url, s), url);
  const labels = useHostLabels(view.perHost && !props.hideHost ? page.data?.items : undefined);
  const columns = view.perHost && !props.hideHost ? [view.columns[0], hostColumn(labels), ...view.columns.slice(1)] : view.columns;
  return (
    <div>
      {page.error && <Alert tone="error" title={`Could not load the ${view.title.toLowerCase()}`}>{page.error}</Alert>}
      <DataTable
        caption={props.caption}
        columns={columns}
        rows={page.data?.items ?? []}
        sort={props.sort}
        onSort={props.onSort}
        busy={page.loading}
        empty={page.loading ? 'Loading…' : (props.empty ?? `No ${view.title.toLowerCase()} match.`)}
      />
      <Pager
        page={cursors.length}
        count={page.data?.items.length ?? 0}
        limit={props.limit}
        onLimit={props.onLimit}
        hasPrev={cursors.length > 1}
        hasNext={!!page.data?.nextCursor}
        onPrev={() => setCursors((c) => c.slice(0, -1))}
        onNext={() => page.data?.nextCursor && setCursors((c) => [...c, page.data?.nextCursor ?? null])}
      />
    </div>
  );
}

export function InventoryPage({ model }: { model: string }) {
  const view = MODEL_VIEWS.find((v) => v.model === model) ?? MODEL_VIEWS[0];
  const { query } = useLocation();
  useEffect(() => {
    document.title = `${view.title} · Inventory · Tributary`;
  }, [view]);
  const sources = useLoad((s) => get<{ items: SourceView[] }>('/api/v1/sources', s), 'sources');

  const q = query.get('q') ?? '';
  const searchIn = query.get('in') ?? view.search[0].field;
  const sort = query.has('sort') ? query.get('sort') || null : (view.defaultSort ?? null);
  const limit = Number(query.get('limit') ?? 50) || 50;
  const src = query.get('source') ?? '';
  const showRemoved = query.get('removed') === 'all';
  const [draft, setDraft] = useState(q);
  useEffect(() => setDraft(q), [q]);

  const filters: Record<string, string | string[]> = {};
  const where: string[] = [];
  if (q) where.push(`${searchIn}~${q}`);
  if (where.length) filters.where = where;
  if (src) filters.source = src;
  if (!showRemoved) filters.removed = 'false';
  if (view.model === 'vulnerabilities') {
    for (const k of ['severity', 'status', 'knownExploited'] as const) {
      const v = query.get(k);
      if (v) filters[k] = v;
    }
    const cve = query.get('cve');
    if (cve) filters.cves = cve.trim().toUpperCase();
  }
  if (view.model === 'compliance') {
    const r = query.get('result');
    if (r) filters.result = r;
  }
  if (view.model === 'tickets') {
    const st = query.get('status');
    if (st) filters.status = st;
  }

  const search = (e: FormEvent) => {
    e.preventDefault();
    setQuery({ q: draft.trim() || null });
  };

  return (
    <div>
      <PageHeader crumbs={<span>Inventory</span>} title={view.title} />
      {view.model === 'compliance' && <ComplianceSummary source={src} />}
      <form className="filters" onSubmit={search} aria-label={`Search and filter ${view.title.toLowerCase()}`}>
        <div className="field inline-field">
          <label htmlFor="search-q">Search</label>
          <input id="search-q" type="search" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder={`${view.search.find((s) => s.field === searchIn)?.label ?? ''} contains…`} />
        </div>
        {view.search.length > 1 && (
          <div className="field inline-field">
            <label htmlFor="search-in">Search in</label>
            <select id="search-in" value={searchIn} onChange={(e) => setQuery({ in: e.target.value })}>
              {view.search.map((s) => (
                <option key={s.field} value={s.field}>
                  {s.label}
                </option>
              ))}
            </select>
          </div>
        )}
        <button type="submit">Search</button>
        {view.model === 'vulnerabilities' && <VulnFilters query={query} />}
        {view.model === 'compliance' && (
          <SelectFilter id="f-result" label="Result" value={query.get('result') ?? ''} options={['passed', 'failed', 'warning', 'error']} onChange={(v) => setQuery({ result: v })} />
        )}
        <div className="field inline-field">
          <label htmlFor="f-source">Source</label>
          <select id="f-source" value={src} onChange={(e) => setQuery({ source: e.target.value || null })}>
            <option value="">All sources</option>
            {(sources.data?.items ?? []).map((s) => (
              <option key={s.name} value={s.name}>
                {s.name}
              </option>
            ))}
          </select>
        </div>
        <label className="checkbox-inline">
          <input type="checkbox" checked={showRemoved} onChange={(e) => setQuery({ removed: e.target.checked ? 'all' : null })} /> Include removed
        </label>
        {(q || src || showRemoved || ['severity', 'status', 'knownExploited', 'cve', 'result'].some((k) => query.get(k))) && (
          <button type="button" className="link" onClick={() => navigate(`/inventory/${view.model}`, { replace: true })}>
            Clear filters
          </button>
        )}
      </form>
      <RecordList
        view={view}
        filters={filters}
        sort={sort}
        onSort={(s) => setQuery({ sort: s ?? '' })}
        limit={limit}
        onLimit={(n) => setQuery({ limit: String(n) })}
        caption={`${view.title}, sorted by ${sort ?? 'id'}`}
      />
    </div>
  );
}

function SelectFilter(props: { id: string; label: string; value: string; options: (string | { value: string; label: string })[]; onChange: (v: string | null) => void }) {
  return (
    <div className="field inline-field">
      <label htmlFor={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.target.value || null)}>
        <option value="">Any</option>
        {props.options.map((o) => {
          const v = typeof o === 'string' ? o : o.value;
          const l = typeof o === 'string' ? o[0].toUpperCase() + o.slice(1) : o.label;
          return (
            <option key={v} value={v}>
              {l}
            </option>
          );
        })}
      </select>
    </div>
  );
}

function VulnFilters({ query }: { query: URLSearchParams }) {
  const [cve, setCve] = useState(query.get('cve') ?? '');
  useEffect(() => setCve(query.get('cve') ?? ''), [query]);
  return (
    <>
      <SelectFilter id="f-severity" label="Severity" value={query.get('severity') ?? ''} options={['critical', 'high', 'medium', 'low', 'info']} onChange={(v) => setQuery({ severity: v })} />
      <SelectFilter id="f-status" label="Status" value={query.get('status') ?? ''} options={['open', 'reopened', 'fixed']} onChange={(v) => setQuery({ status: v })} />
      <div className="field inline-field">
        <label htmlFor="f-cve">CVE</label>
        <input
          id="f-cve"
          value={cve}
          placeholder="CVE-2021-44228"
          onChange={(e) => setCve(e.target.value)}
          onBlur={() => setQuery({ cve: cve.trim() || null })}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              setQuery({ cve: cve.trim() || null });
            }
          }}
        />
      </div>
      <label className="checkbox-inline">
        <input type="checkbox" checked={query.get('knownExploited') === 'true'} onChange={(e) => setQuery({ knownExploited: e.target.checked ? 'true' : null })} /> Known exploited only
      </label>
    </>
  );
}

interface SummaryItem {
  hostId: string | null;
  hostname: string | null;
  ipAddresses: string[];
  source: string;
  benchmark: string;
  passed: number;
  failed: number;
  warning: number;
  error: number;
  total: number;
}

export function ComplianceSummary({ source, hostId }: { source?: string; hostId?: string }) {
  const url = `/api/v1/compliance/summary${qs({ source: source || undefined, hostId, limit: 200 })}`;
  const summary = useLoad((s) => get<{ items: SummaryItem[] }>(url, s), url);
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
