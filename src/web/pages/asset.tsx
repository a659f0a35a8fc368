// A correlated asset: its scanner hosts and CMDB records side by side, why they are linked (the rule,
// the values that matched, vetoes and ambiguities, by the records' names), its owner, and manual link
// (a CMDB record found by name or asset tag) / unlink (of the host the record is linked to).
import { type FormEvent, useState, type ReactNode } from 'react';
import { type AssetLinkBody, describeError, type ModelRecord, call } from '../api.ts';
import { matchReasons } from '../../correlate/reasons.ts';
import { Link, navigate } from '../router.tsx';
import { SeverityChart } from '../components/charts.tsx';
import { Alert, cell, DataTable, dateTime, PageHeader, Spinner, useChanged, useLoad, usePageTitle } from '../ui.tsx';

type HostRecord = ModelRecord<'hosts'>;
type CmdbRecord = ModelRecord<'cmdb-assets'>;

/** A row of the side-by-side table: its label and the field it shows of a host and of a CMDB record ('' where it has none). */
const ROWS: [string, keyof HostRecord | '', keyof CmdbRecord | ''][] = [
  ['Name', 'hostname', 'name'],
  ['FQDN', 'fqdn', 'fqdn'],
  ['NetBIOS name', 'netbiosName', ''],
  ['Serial number', 'serialNumber', 'serialNumber'],
  ['MAC addresses', 'macAddresses', 'macAddresses'],
  ['IP addresses', 'ipAddresses', 'ipAddresses'],
  ['Repository / site', 'repository', 'site'],
  ['Owner', '', 'owner'],
  ['Assigned user', '', 'assignedUser'],
  ['Department', '', 'department'],
  ['Scanner last seen', 'scannerLastSeen', ''],
  ['Last imported', 'lastSeen', 'lastSeen'],
];
const DATES = new Set(['scannerLastSeen', 'lastSeen']);

/** One column of the side-by-side table: a scanner host or a CMDB record of the asset. */
type SideColumn = { kind: 'host'; r: HostRecord } | { kind: 'cmdb'; r: CmdbRecord };
/** A row of the side-by-side table: its label, and its cell in a record's column. */
type SideRow = { label: string; value: (c: SideColumn) => ReactNode };

/** The value a row shows of a record: the host's or the CMDB record's field of the row. */
function sideValue(c: SideColumn, hk: keyof HostRecord | '', ck: keyof CmdbRecord | ''): ReactNode {
  const k = c.kind === 'host' ? hk : ck;
  if (!k) return cell(null);
  const v = c.kind === 'host' ? (hk ? c.r[hk] : null) : ck ? c.r[ck] : null;
  return DATES.has(k) && typeof v === 'string' ? dateTime(v) : cell(v);
}

/** A record's name for people: host name, FQDN or IP of a host, name or tag of a CMDB record, else its id's start. */
function nameOf(r: HostRecord | CmdbRecord | undefined, id: string): string {
  if (!r) return id.slice(0, 8);
  const name = 'hostname' in r ? (r.hostname ?? r.fqdn) : (r.name ?? r.fqdn ?? r.assetTag);
  return name ?? r.ipAddresses?.[0] ?? r.id;
}

/** The host a CMDB record of this asset is linked to (for its Unlink), from the asset's match details. */
function hostOfCmdb(details: Record<string, unknown>, cmdbId: string, hosts: HostRecord[]): string | null {
  const links: unknown[] = Array.isArray(details.links) ? details.links : [];
  const l = links.find((x): x is { hostId: unknown } => typeof x === 'object' && x !== null && 'cmdbAssetId' in x && x.cmdbAssetId === cmdbId);
  return l ? String(l.hostId) : (hosts[0]?.id ?? null);
}

function Why({ details, records }: { details: Record<string, unknown>; records: Map<string, HostRecord | CmdbRecord> }) {
  const name = (id: string) => nameOf(records.get(id), id);
  const reasons = matchReasons(details, name);
  return (
    <ul className="why">
      {reasons.map((r) => (
        <li key={`${r.hostId}-${r.cmdbAssetId ?? ''}`}>
          Scanner host <strong>{name(r.hostId)}</strong>
          {r.cmdbAssetId ? (
            <>
              {' '}
              ↔ CMDB record <strong>{name(r.cmdbAssetId)}</strong>
            </>
          ) : null}
          : {r.text}
          {r.notes.map((n) => (
            <div key={n} className="muted small">
              {n}
            </div>
          ))}
        </li>
      ))}
      {reasons.length === 0 && <li>Seen in one source only.</li>}
    </ul>
  );
}

export function AssetPage({ id }: { id: string }) {
  const changed = useChanged();
  const data = useLoad((s) => call('GET /api/v1/assets/:id/records', { params: { id } }, s), `asset-records:${id}`);
  const [search, setSearch] = useState('');
  const [found, setFound] = useState<CmdbRecord[] | null>(null);
  const [hostId, setHostId] = useState('');
  const [message, setMessage] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);
  const name = data.data ? (data.data.asset.name ?? id) : '';
  usePageTitle(`${name || 'Asset'} · Assets`);
  if (data.error)
    return (
      <Alert tone="error" title="Could not load the asset">
        {data.error}
      </Alert>
    );
  if (!data.data) return <Spinner />;
  const { asset, hosts, cmdbAssets } = data.data;
  const override = async (action: 'link' | 'unlink', host: string, cmdb: string) => {
    setMessage(null);
    try {
      const body: AssetLinkBody = { cmdbAssetId: cmdb };
      const r = await call(action === 'link' ? 'POST /api/v1/assets/:id/link' : 'DELETE /api/v1/assets/:id/link', { params: { id: host }, body });
      setMessage({ tone: 'success', text: `${action === 'link' ? 'Linked' : 'Unlinked'}; kept across syncs.` });
      setFound(null);
      // The host may now sit in another asset (its own, after an unlink): show that one, message kept.
      // Every answer loaded before (this asset, the one the host left or joins, the lists) is stale now.
      await changed();
      if (r.asset.id !== asset.id) navigate(`/inventory/assets/${r.asset.id}`);
    } catch (err) {
      setMessage({ tone: 'error', text: describeError(err) });
    }
  };
  /** CMDB records whose name or asset tag contains the text, to link by hand. */
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const text = search.trim();
    if (!text) return;
    try {
      const [byName, byTag] = await Promise.all([
        call('GET /api/v1/:model', { params: { model: 'cmdb-assets' }, query: { 'name~': text, removed: 'false', limit: 20 } }),
        call('GET /api/v1/:model', { params: { model: 'cmdb-assets' }, query: { 'assetTag~': text, removed: 'false', limit: 20 } }),
      ]);
      const seen = new Set<string>();
      setFound([...byName.items, ...byTag.items].filter((r) => !seen.has(r.id) && seen.add(r.id)));
    } catch (err) {
      setMessage({ tone: 'error', text: describeError(err) });
    }
  };
  const details = asset.matchDetails ?? {};
  const records = new Map<string, HostRecord | CmdbRecord>([...hosts, ...cmdbAssets].map((r) => [r.id, r]));
  const columns: SideColumn[] = [...hosts.map((r) => ({ kind: 'host' as const, r })), ...cmdbAssets.map((r) => ({ kind: 'cmdb' as const, r }))];
  return (
    <div>
      <PageHeader
        crumbs={
          <>
            <span>Inventory</span> › <Link href="/inventory/assets">Assets</Link> › <span>{name}</span>
          </>
        }
        title={name}
        subtitle={`linked by ${asset.matchRule ?? '—'} · owner ${asset.owner ?? '—'} · ${asset.department ?? 'no department'} · ${asset.site ?? 'no site'} · last scanned ${dateTime(asset.lastScanned)}`}
      />
      {message && <Alert tone={message.tone}>{message.text}</Alert>}
      <div className="host-top">
        <section className="card" aria-labelledby="asset-sources">
          <h2 id="asset-sources">Both sources side by side</h2>
          <DataTable<SideRow>
            caption={`Scanner hosts and CMDB records of ${name}`}
            rows={[
              ...ROWS.map(([label, hk, ck]) => ({ label, value: (c: SideColumn) => sideValue(c, hk, ck) })),
              {
                label: 'Override',
                value: (c: SideColumn) =>
                  c.kind === 'cmdb' && hosts.length > 0 ? (
                    <button
                      type="button"
                      onClick={() => void override('unlink', hostOfCmdb(details, c.r.id, hosts) ?? hosts[0]!.id, c.r.id)}
                      aria-label={`Unlink CMDB record ${nameOf(c.r, c.r.id)}`}
                    >
                      Unlink
                    </button>
                  ) : null,
              },
            ]}
            rowKey={(row) => row.label}
            columns={[
              { key: 'field', label: 'Field', rowHeader: true, render: (row) => row.label },
              ...columns.map((c) => ({
                key: c.r.id,
                label: c.kind === 'host' ? <Link href={`/inventory/hosts/${c.r.id}`}>Scanner host ({c.r.source})</Link> : <>CMDB record ({c.r.source})</>,
                render: (row: SideRow) => row.value(c),
              })),
            ]}
          />
        </section>
        <section className="card" aria-labelledby="asset-sev">
          <h2 id="asset-sev">Open vulnerabilities</h2>
          <SeverityChart counts={asset.openFindings ?? {}} title={`Open vulnerabilities on ${name} by severity`} />
        </section>
      </div>
      <section className="card" aria-labelledby="asset-why">
        <h2 id="asset-why">Why these records are one machine</h2>
        <Why details={details} records={records} />
      </section>
      <section className="card" aria-labelledby="asset-link">
        <h2 id="asset-link">Link a CMDB record by hand</h2>
        {hosts.length === 0 ? (
          <p className="help">This asset has no scanner host; link from the host’s asset instead.</p>
        ) : (
          <form onSubmit={submit} className="inline-form">
            {hosts.length > 1 && (
              <label>
                Host{' '}
                <select value={hostId} onChange={(e) => setHostId(e.target.value)}>
                  {hosts.map((h) => (
                    <option key={h.id} value={h.id}>
                      {h.hostname ?? h.id}
                    </option>
                  ))}
                </select>
              </label>
            )}
            <label>
              Find a CMDB record <input value={search} onChange={(e) => setSearch(e.target.value)} placeholder="name or asset tag" required />
            </label>
            <button type="submit">Search</button>
          </form>
        )}
        {found && (
          <DataTable
            caption="CMDB records found"
            rows={found}
            empty="No CMDB record matches."
            columns={[
              { key: 'name', label: 'CMDB record', rowHeader: true, render: (r) => nameOf(r, r.id) },
              { key: 'assetTag', label: 'Asset tag' },
              { key: 'ipAddresses', label: 'IP addresses' },
              { key: 'source', label: 'Source', render: (r) => r.source ?? '—' },
              {
                key: 'link',
                label: 'Link',
                render: (r) =>
                  cmdbAssets.some((c) => c.id === r.id) ? (
                    <span className="muted">linked here</span>
                  ) : (
                    <button type="button" onClick={() => void override('link', hostId || hosts[0]!.id, r.id)} aria-label={`Link ${nameOf(r, r.id)}`}>
                      Link
                    </button>
                  ),
              },
            ]}
          />
        )}
      </section>
    </div>
  );
}
