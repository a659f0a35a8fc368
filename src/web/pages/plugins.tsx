// Vulnerabilities by plugin (the console's Vulnerability Summary): one row per source and plugin with open
// findings, its affected hosts, worst severity, KEV and EPSS, sortable and filtered in the URL; a row
// drills down to the affected hosts (the plugin's open findings, one per host and port).
import { type FormEvent, useEffect, useState } from 'react';
import { type PluginRow, call, routeUrl, type CallInput } from '../api.ts';
import { RecordList } from '../components/record-list.tsx';
import { Link, setQuery, useLocation } from '../router.tsx';
import { Alert, type Column, DataTable, num, PageHeader, SeverityBadge, useLoad, usePageTitle } from '../ui.tsx';
import { MODEL_VIEWS } from './model-views.tsx';

const drill = (p: { source: string; pluginId: string }) => `/reports/plugins/${encodeURIComponent(p.source)}/${encodeURIComponent(p.pluginId)}`;
const score = (v: number | null, digits = 1) => (v === null ? <span className="muted">—</span> : v.toFixed(digits));

const COLUMNS: Column<PluginRow & { id: string }>[] = [
  { key: 'severity', label: 'Severity', sortable: true, render: (r) => <SeverityBadge severity={r.severity} /> },
  {
    key: 'pluginName',
    label: 'Vulnerability',
    sortable: true,
    render: (r) => (
      <>
        <Link href={drill(r)}>{r.pluginName ?? `Plugin ${r.pluginId}`}</Link>
        <div className="muted small">Plugin {r.pluginId}</div>
      </>
    ),
  },
  { key: 'hosts', label: 'Hosts', sortable: true, className: 'num', render: (r) => <Link href={drill(r)}>{num(r.hosts)}</Link> },
  { key: 'findings', label: 'Findings', sortable: true, className: 'num', render: (r) => num(r.findings) },
  { key: 'knownExploited', label: 'Known exploited', sortable: true, render: (r) => (r.knownExploited ? <span className="kev">Yes</span> : 'No') },
  { key: 'epssScore', label: 'EPSS', sortable: true, className: 'num', render: (r) => score(r.epssScore, 3) },
  { key: 'vprScore', label: 'VPR', sortable: true, className: 'num', render: (r) => score(r.vprScore) },
  { key: 'cvssV3BaseScore', label: 'CVSS v3', sortable: true, className: 'num', render: (r) => score(r.cvssV3BaseScore) },
  { key: 'source', label: 'Source', sortable: true },
];

export function PluginsPage() {
  const { query } = useLocation();
  usePageTitle('Vulnerabilities by plugin');
  const q = query.get('q') ?? '';
  const sort = query.get('sort') || '-hosts';
  const severity = query.get('severity') ?? '';
  const kev = query.get('knownExploited') ?? '';
  const limit = Number(query.get('limit') ?? 50) || 50;
  const offset = Math.max(0, Number(query.get('offset') ?? 0) || 0);
  const [draft, setDraft] = useState(q);
  useEffect(() => setDraft(q), [q]);
  const input: CallInput<'GET /api/v1/vulnerabilities/plugins'> = {
    query: { q: q || undefined, sort, severity: severity || undefined, knownExploited: kev === 'true' || kev === 'false' ? kev : undefined, limit, offset },
  };
  const url = routeUrl('GET /api/v1/vulnerabilities/plugins', input);
  const page = useLoad((s) => call('GET /api/v1/vulnerabilities/plugins', input, s), url);
  const rows = (page.data?.items ?? []).map((r) => ({ ...r, id: `${r.source}|${r.pluginId}` }));
  const total = page.data?.total ?? 0;
  const search = (e: FormEvent) => {
    e.preventDefault();
    setQuery({ q: draft.trim() || null, offset: null });
  };
  return (
    <div>
      <PageHeader
        crumbs={<span>Reports</span>}
        title="Vulnerabilities by plugin"
        subtitle="One row per plugin with open findings: how many hosts it affects, its worst severity, KEV and EPSS. As of each source's last sync."
      />
      <form className="filters" onSubmit={search} aria-label="Search and filter plugins">
        <div className="field inline-field">
          <label htmlFor="plugin-q">Search</label>
          <input id="plugin-q" type="search" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="Name or plugin ID" />
        </div>
        <button type="submit">Search</button>
        <div className="field inline-field">
          <label htmlFor="plugin-sev">Severity at least</label>
          <select id="plugin-sev" value={severity} onChange={(e) => setQuery({ severity: e.target.value || null, offset: null })}>
            <option value="">Any</option>
            {['critical', 'high', 'medium', 'low', 'info'].map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <label className="checkbox-inline">
          <input type="checkbox" checked={kev === 'true'} onChange={(e) => setQuery({ knownExploited: e.target.checked ? 'true' : null, offset: null })} />{' '}
          Known exploited only
        </label>
      </form>
      {page.error && <Alert tone="error">{page.error}</Alert>}
      <DataTable
        caption={`Vulnerabilities by plugin, sorted by ${sort}`}
        columns={COLUMNS}
        rows={rows}
        sort={sort}
        onSort={(s) => setQuery({ sort: s ?? null, offset: null })}
        busy={page.loading}
        empty={page.loading ? 'Loading…' : 'No plugin has open findings that match.'}
      />
      <nav className="pager" aria-label="Pagination">
        <span className="muted pager-info">{total ? `${num(offset + 1)}–${num(offset + rows.length)} of ${num(total)}` : 'No results'}</span>
        <button type="button" disabled={offset === 0} onClick={() => setQuery({ offset: offset - limit > 0 ? String(offset - limit) : null })}>
          Previous page
        </button>
        <button type="button" disabled={offset + limit >= total} onClick={() => setQuery({ offset: String(offset + limit) })}>
          Next page
        </button>
      </nav>
    </div>
  );
}

/** The drill-down: the plugin's open findings, one per host and port, with the host's name. */
export function PluginHostsPage({ source, pluginId }: { source: string; pluginId: string }) {
  const view = MODEL_VIEWS.find((v) => v.model === 'vulnerabilities')!;
  const { query } = useLocation();
  const sort = query.get('sort') || 'hostId';
  const limit = Number(query.get('limit') ?? 50) || 50;
  const input = { query: { source: [source], q: pluginId, limit: 1 } };
  const url = routeUrl('GET /api/v1/vulnerabilities/plugins', input);
  const summary = useLoad((s) => call('GET /api/v1/vulnerabilities/plugins', input, s), url);
  const row = summary.data?.items.find((p) => p.pluginId === pluginId);
  const title = row?.pluginName ?? `Plugin ${pluginId}`;
  usePageTitle(`${title} · Vulnerabilities by plugin`);
  return (
    <div>
      <PageHeader
        crumbs={
          <>
            <Link href="/reports/plugins">Vulnerabilities by plugin</Link> › <span>{source}</span>
          </>
        }
        title={title}
        subtitle={
          row ? `Plugin ${pluginId}: open on ${num(row.hosts)} host${row.hosts === 1 ? '' : 's'} (${num(row.findings)} findings).` : `Plugin ${pluginId}`
        }
      />
      <h2>Affected hosts</h2>
      <RecordList
        view={view}
        fixed={{ source, pluginId, removed: 'false', 'status!': 'fixed' }}
        sort={sort}
        onSort={(s) => setQuery({ sort: s ?? '' })}
        limit={limit}
        onLimit={(n) => setQuery({ limit: String(n) })}
        caption={`Open findings of plugin ${pluginId}`}
        empty="No open findings of this plugin."
      />
    </div>
  );
}
