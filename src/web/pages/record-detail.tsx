// The detail page of a ticket or a CMDB record: its fields, and what it is linked to (a ticket's
// correlated assets and findings; a CMDB record's correlated asset), reached from their lists' rows.
import { type ReactNode, useState } from 'react';
import { call, type ModelRecord, type Rec } from '../api.ts';
import { KeyValues, Props, words } from '../components/key-values.tsx';
import { RecordList } from '../components/record-list.tsx';
import { TicketAssetLinks } from '../components/ticket-asset-links.tsx';
import { Link } from '../router.tsx';
import { Alert, cell, DataTable, dateTime, PageHeader, SeverityBadge, Spinner, useLoad, usePageTitle } from '../ui.tsx';
import { MODEL_VIEWS } from './model-views.tsx';

/** What a CMDB record's correlated asset links to: its tickets and the findings of its scanner hosts, each a paged list. */
function CmdbAssetWork({ assetId }: { assetId: string }) {
  const [ticketSort, setTicketSort] = useState<string | null>('-createdAt');
  const [findingSort, setFindingSort] = useState<string | null>('-severity');
  const [ticketLimit, setTicketLimit] = useState(25);
  const [findingLimit, setFindingLimit] = useState(25);
  const tickets = MODEL_VIEWS.find((v) => v.model === 'tickets');
  const findings = MODEL_VIEWS.find((v) => v.model === 'vulnerabilities');
  if (!tickets || !findings) return null;
  return (
    <>
      <section className="card" aria-labelledby="cmdb-tickets-title">
        <h2 id="cmdb-tickets-title">Tickets</h2>
        <RecordList
          view={tickets}
          fixed={{ assetIds: assetId }}
          sort={ticketSort}
          onSort={setTicketSort}
          limit={ticketLimit}
          onLimit={setTicketLimit}
          caption="Tickets about this asset"
          empty="No ticket is linked to this asset."
        />
      </section>
      <section className="card" aria-labelledby="cmdb-findings-title">
        <h2 id="cmdb-findings-title">Open findings</h2>
        <RecordList
          view={findings}
          fixed={{ assetId }}
          sort={findingSort}
          onSort={setFindingSort}
          limit={findingLimit}
          onLimit={setFindingLimit}
          caption="Open findings of this asset's scanner hosts"
          empty="No open finding on this asset's scanner hosts."
        />
      </section>
    </>
  );
}

/** The models with a detail page. */
type DetailModel = 'tickets' | 'cmdb-assets';

interface DetailView<M extends DetailModel> {
  title: string;
  heading: (r: ModelRecord<M>) => string;
  /** Fields shown first, in order, with their labels; the rest follow under "Other fields". */
  fields: [keyof ModelRecord<M> & string, string][];
}

const TIMES = new Set(['createdAt', 'updatedAt', 'dueAt', 'resolvedAt', 'firstSeen', 'lastSeen']);
/** Shown elsewhere on the page (or of no use to a reader). */
const HIDDEN = new Set([
  'id',
  'source',
  'assetIds',
  'assetLinks',
  'broad',
  'findingIds',
  'assetId',
  'attributes',
  'description',
  'removed',
  'externalId',
  'displayId',
  'subject',
  'name',
]);
const VIEWS: { [M in DetailModel]: DetailView<M> } = {
  tickets: {
    title: 'Tickets',
    heading: (r) => `${r.displayId ? `#${r.displayId} ` : ''}${r.subject ?? '(no subject)'}`,
    fields: [
      ['status', 'Status'],
      ['kind', 'Kind'],
      ['priority', 'Priority'],
      ['assignee', 'Assignee'],
      ['group', 'Group'],
      ['requester', 'Requester'],
      ['category', 'Category'],
      ['site', 'Site'],
      ['createdAt', 'Created'],
      ['updatedAt', 'Updated'],
      ['dueAt', 'Due'],
      ['resolvedAt', 'Resolved'],
    ],
  },
  'cmdb-assets': {
    title: 'CMDB assets',
    heading: (r) => r.name ?? r.assetTag ?? r.id,
    fields: [
      ['assetTag', 'Asset tag'],
      ['serialNumber', 'Serial number'],
      ['productType', 'Product type'],
      ['product', 'Product'],
      ['ciType', 'CI type'],
      ['state', 'State'],
      ['ipAddresses', 'IP addresses'],
      ['macAddresses', 'MAC addresses'],
      ['fqdn', 'FQDN'],
      ['assignedUser', 'User'],
      ['owner', 'Owner'],
      ['department', 'Department'],
      ['site', 'Site'],
      ['businessImpact', 'Business impact'],
    ],
  },
};

/** A model with a detail page. */
export const isDetailModel = (m: string): m is DetailModel => Object.hasOwn(VIEWS, m);

/** A record of a model with a detail page, with its model (which types it). */
type Detail = { model: 'tickets'; r: ModelRecord<'tickets'> } | { model: 'cmdb-assets'; r: ModelRecord<'cmdb-assets'> };

const loadDetail = async (model: DetailModel, id: string, signal: AbortSignal): Promise<Detail> =>
  model === 'tickets'
    ? { model, r: await call('GET /api/v1/:model/:id', { params: { model, id } }, signal) }
    : { model, r: await call('GET /api/v1/:model/:id', { params: { model, id } }, signal) };

const headingOf = (d: Detail): string => (d.model === 'tickets' ? VIEWS.tickets.heading(d.r) : VIEWS['cmdb-assets'].heading(d.r));

const value = (key: string, v: unknown): ReactNode => (TIMES.has(key) && typeof v === 'string' ? dateTime(v) : <KeyValues value={v} />);

/** A ticket's findings (the first 25), each with its severity, name and host. */
function LinkedFindings({ ids }: { ids: string[] }) {
  const shown = ids.slice(0, 25);
  const findings = useLoad(
    (s) => Promise.all(shown.map((id) => call('GET /api/v1/:model/:id', { params: { model: 'vulnerabilities', id } }, s).catch(() => null))),
    `findings:${shown.join(',')}`,
  );
  if (ids.length === 0) return <p className="muted">No linked findings.</p>;
  if (!findings.data) return <Spinner />;
  return (
    <DataTable
      caption="Linked findings"
      rows={findings.data.map((f, i) => ({ f, id: shown[i] ?? String(i) }))}
      wholeRow={({ f, id }) => (f ? null : `Finding ${id.slice(0, 8)} is no longer stored.`)}
      columns={[
        { key: 'severity', label: 'Severity', render: ({ f }) => <SeverityBadge severity={f?.severity} /> },
        { key: 'name', label: 'Vulnerability', render: ({ f }) => cell(f?.pluginName) },
        { key: 'status', label: 'Status', render: ({ f }) => cell(f?.status) },
        { key: 'host', label: 'Host', render: ({ f }) => (f?.hostId ? <Link href={`/inventory/hosts/${f.hostId}`}>host</Link> : '—') },
      ]}
    />
  );
}

export function RecordDetailPage({ model, id }: { model: DetailModel; id: string }) {
  const view = VIEWS[model];
  const rec = useLoad((s) => loadDetail(model, id, s), `${model}/${id}`);
  const heading = rec.data ? headingOf(rec.data) : '';
  usePageTitle(`${heading || view.title} · Inventory`);
  const crumbs = (
    <>
      <span>Inventory</span> › <Link href={`/inventory/${model}`}>{view.title}</Link>
    </>
  );
  if (rec.error && !rec.data)
    return (
      <div>
        <PageHeader crumbs={crumbs} title={view.title} />
        <Alert tone="error" title="Could not load the record">
          {rec.error}
        </Alert>
      </div>
    );
  if (!rec.data) return <Spinner />;
  const detail = rec.data;
  // Its fields by name, whichever the model: the lists of fields below read them so.
  const r: Rec = detail.r;
  const known = new Set<string>(view.fields.map(([k]) => k));
  const others = Object.keys(r)
    .filter((k) => !known.has(k) && !HIDDEN.has(k))
    .sort();
  const attributes = detail.model === 'cmdb-assets' ? Object.entries(detail.r.attributes ?? {}) : [];
  return (
    <div>
      <PageHeader
        crumbs={crumbs}
        title={heading}
        subtitle={
          <>
            From <Link href={`/sources/${encodeURIComponent(r.source ?? '')}`}>{r.source}</Link>
            {r.removed ? ' · removed upstream' : ''}
            {r.externalId ? ` · upstream id ${r.externalId}` : ''}
          </>
        }
      />
      <div className="grid-2">
        <section className="card" aria-labelledby="detail-title">
          <h2 id="detail-title">Details</h2>
          <Props label="Details" rows={view.fields.map(([k, label]) => [label, value(k, r[k])])} />
          {typeof r.description === 'string' && r.description && (
            <>
              <h3>Description</h3>
              <p className="description">{r.description}</p>
            </>
          )}
        </section>
        <section className="card" aria-labelledby="links-title">
          <h2 id="links-title">Linked</h2>
          {detail.model === 'cmdb-assets' &&
            (detail.r.assetId ? (
              <p>
                Correlated asset: <Link href={`/inventory/assets/${detail.r.assetId}`}>open the asset</Link> (its scanner hosts side by side)
              </p>
            ) : (
              <p className="muted">Not correlated with an asset.</p>
            ))}
          {detail.model === 'tickets' && (
            <>
              <h3>Assets</h3>
              <TicketAssetLinks ticket={detail.r} />
              <h3>Findings</h3>
              <LinkedFindings ids={detail.r.findingIds ?? []} />
            </>
          )}
        </section>
      </div>
      {detail.model === 'cmdb-assets' && detail.r.assetId && <CmdbAssetWork assetId={detail.r.assetId} />}
      {attributes.length > 0 && (
        <section className="card" aria-labelledby="attributes-title">
          <h2 id="attributes-title">Attributes</h2>
          <Props label="Attributes" rows={attributes.map(([k, v]) => [words(k), <KeyValues key={k} value={v} />])} />
        </section>
      )}
      <section className="card" aria-labelledby="other-title">
        <h2 id="other-title">Other fields</h2>
        <Props label="Other fields" rows={others.map((k) => [words(k), value(k, r[k])])} />
      </section>
    </div>
  );
}
