// A host: its identity and hardware, then its vulnerabilities, software, open ports and compliance.
import { useState } from 'react';
import { call, type ModelRecord, routeUrl } from '../api.ts';
import { Link, setQuery, useLocation } from '../router.tsx';
import { SeverityChart } from '../components/charts.tsx';
import { Alert, cell, dateTime, PageHeader, Spinner, useLoad, usePageTitle, hostLabel } from '../ui.tsx';
import { ComplianceSummary, MODEL_VIEWS, RecordList } from './inventory.tsx';

const TABS = [
  { id: 'vulnerabilities', label: 'Vulnerabilities' },
  { id: 'software', label: 'Software' },
  { id: 'ports', label: 'Open ports' },
  { id: 'compliance', label: 'Compliance' },
] as const;

const DETAILS: [keyof ModelRecord<'hosts'>, string][] = [
  ['hostname', 'Host name'],
  ['fqdn', 'FQDN'],
  ['netbiosName', 'NetBIOS name'],
  ['ipAddresses', 'IP addresses'],
  ['macAddresses', 'MAC addresses'],
  ['os', 'Operating system'],
  ['manufacturer', 'Manufacturer'],
  ['model', 'Model'],
  ['serialNumber', 'Serial number'],
  ['lastLoggedOnUser', 'Last logged-on user'],
  ['repository', 'Repository'],
  ['credentialed', 'Credentialed scan'],
  ['source', 'Source'],
];

export function HostPage({ id }: { id: string }) {
  const { query } = useLocation();
  const tab = (TABS.find((t) => t.id === query.get('tab')) ?? TABS[0]).id;
  const host = useLoad((s) => call('GET /api/v1/:model/:id', { params: { model: 'hosts', id } }, s), `host/${id}`);
  const sevInput = { params: { model: 'vulnerabilities' as const }, query: { by: ['severity'], hostId: id, removed: 'false', 'status!': 'fixed' } };
  const sevUrl = routeUrl('GET /api/v1/:model/counts', sevInput);
  const sev = useLoad((s) => call('GET /api/v1/:model/counts', sevInput, s), sevUrl);
  const [sort, setSort] = useState<Record<string, string | null>>({ vulnerabilities: '-severity', software: 'name', ports: 'port', compliance: 'result' });
  const [limit, setLimit] = useState(50);
  const name = host.data ? hostLabel(host.data) : '';
  usePageTitle(`${name || 'Host'} · Hosts`);

  if (host.error)
    return (
      <Alert tone="error" title="Could not load the host">
        {host.error}
      </Alert>
    );
  if (!host.data) return <Spinner />;
  const h = host.data;
  const counts = Object.fromEntries((sev.data?.items ?? []).map((i) => [String(i.values.severity), i.count]));
  const view = MODEL_VIEWS.find((v) => v.model === tab) ?? MODEL_VIEWS[1];
  return (
    <div>
      <PageHeader
        crumbs={
          <>
            <span>Inventory</span> › <Link href="/inventory/hosts">Hosts</Link> › <span>{name}</span>
          </>
        }
        title={name}
        subtitle={`${h.os ?? 'Unknown operating system'} · last seen ${dateTime(h.lastSeen)}${h.removed ? ' · removed (not in the last complete sync)' : ''}`}
      />
      <div className="host-top">
        <section className="card" aria-labelledby="host-details">
          <h2 id="host-details">Details</h2>
          <dl className="props">
            {DETAILS.map(([k, label]) => (
              <div key={k} className="prop">
                <dt>{label}</dt>
                <dd>{cell(h[k])}</dd>
              </div>
            ))}
          </dl>
          {!h.credentialed && <p className="help">Software, hardware and the last logged-on user are reported only by credentialed or agent scans.</p>}
        </section>
        <section className="card" aria-labelledby="host-sev">
          <h2 id="host-sev">Open vulnerabilities</h2>
          <SeverityChart counts={counts} title={`Open vulnerabilities on ${name} by severity`} />
        </section>
      </div>
      <nav className="tabs" aria-label="Host records">
        {TABS.map((t) => (
          <a
            key={t.id}
            href={`?tab=${t.id}`}
            aria-current={t.id === tab ? 'page' : undefined}
            onClick={(e) => {
              e.preventDefault();
              setQuery({ tab: t.id });
            }}
          >
            {t.label}
          </a>
        ))}
      </nav>
      {tab === 'compliance' && <ComplianceSummary hostId={id} />}
      <RecordList
        key={tab}
        view={view}
        fixed={{ hostId: id }}
        filters={{ removed: 'false' }}
        hideHost
        sort={sort[tab] ?? null}
        onSort={(s) => setSort((o) => ({ ...o, [tab]: s }))}
        limit={limit}
        onLimit={setLimit}
        caption={`${view.title} of ${name}`}
        empty={
          tab === 'software' && !h.credentialed
            ? 'No software: this host was not covered by a credentialed or agent scan.'
            : `No ${view.title.toLowerCase()} on this host.`
        }
      />
    </div>
  );
}
