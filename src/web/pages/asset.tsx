// A correlated asset: its scanner hosts and CMDB records side by side, why they are linked (the rule,
// the values that matched, vetoes and ambiguities), its owner, and manual link / unlink.
import { type FormEvent, useEffect, useState } from 'react';
import { api, describeError, get, type Rec } from '../api.ts';
import { Link, navigate } from '../router.tsx';
import { Alert, cell, dateTime, PageHeader, SeverityChart, Spinner, useLoad } from '../ui.tsx';

interface AssetRecords {
  asset: Rec;
  hosts: Rec[];
  cmdbAssets: Rec[];
}

const ROWS: [string, string, string][] = [
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
  ['Last seen', 'lastSeen', 'lastSeen'],
];

function Why({ details }: { details: Record<string, unknown> }) {
  const links = (details.links as Record<string, unknown>[] | undefined) ?? [];
  const unmatched = (details.unmatched as Record<string, unknown>[] | undefined) ?? [];
  return (
    <ul className="why">
      {links.map((l) => (
        <li key={`${l.hostId}-${l.cmdbAssetId}`}>
          Host <code>{String(l.hostId).slice(0, 8)}</code> ↔ CMDB record <code>{String(l.cmdbAssetId).slice(0, 8)}</code>: rule{' '}
          <strong>{String(l.rule)}</strong>
          {l.matched ? <> on {JSON.stringify(l.matched)}</> : null}
          {l.vetoed ? <div className="muted small">vetoed on the way: {JSON.stringify(l.vetoed)}</div> : null}
        </li>
      ))}
      {unmatched.map((u) => (
        <li key={String(u.hostId)}>
          Host <code>{String(u.hostId).slice(0, 8)}</code> not linked ({String(u.status)}
          {u.rule ? `, ${String(u.rule)}` : ''}){u.candidates ? <> — candidates {(u.candidates as string[]).map((c) => c.slice(0, 8)).join(', ')}</> : null}
          {u.vetoed ? <div className="muted small">vetoed: {JSON.stringify(u.vetoed)}</div> : null}
        </li>
      ))}
      {links.length === 0 && unmatched.length === 0 && <li>Seen in one source only.</li>}
    </ul>
  );
}

export function AssetPage({ id }: { id: string }) {
  const [version, setVersion] = useState(0);
  const data = useLoad((s) => get<AssetRecords>(`/api/v1/assets/${encodeURIComponent(id)}/records`, s), `${id}:${version}`);
  const [cmdbId, setCmdbId] = useState('');
  const [hostId, setHostId] = useState('');
  const [message, setMessage] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);
  const name = data.data ? String(data.data.asset.name ?? id) : '';
  useEffect(() => {
    document.title = `${name || 'Asset'} · Assets · Tributary`;
  }, [name]);
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
      const r = await api<{ asset: Rec }>(action === 'link' ? 'POST' : 'DELETE', `/api/v1/assets/${encodeURIComponent(host)}/link`, { cmdbAssetId: cmdb });
      setMessage({ tone: 'success', text: `${action === 'link' ? 'Linked' : 'Unlinked'}; kept across syncs.` });
      // The host may now sit in another asset (its own, after an unlink): show that one, message kept.
      if (r.asset.id !== asset.id) navigate(`/inventory/assets/${r.asset.id}`);
      else setVersion((v) => v + 1);
    } catch (err) {
      setMessage({ tone: 'error', text: describeError(err) });
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void override('link', hostId || hosts[0]?.id || '', cmdbId.trim());
  };
  const columns = [...hosts.map((h) => ({ kind: 'host' as const, r: h })), ...cmdbAssets.map((c) => ({ kind: 'cmdb' as const, r: c }))];
  return (
    <div>
      <PageHeader
        crumbs={
          <>
            <span>Inventory</span> › <Link href="/inventory/assets">Assets</Link> › <span>{name}</span>
          </>
        }
        title={name}
        subtitle={`linked by ${String(asset.matchRule)} · owner ${String(asset.owner ?? '—')} · ${String(asset.department ?? 'no department')} · ${String(asset.site ?? 'no site')} · last scanned ${dateTime(asset.lastScanned as string)}`}
      />
      {message && <Alert tone={message.tone}>{message.text}</Alert>}
      <div className="host-top">
        <section className="card" aria-labelledby="asset-sources">
          <h2 id="asset-sources">Both sources side by side</h2>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Scanner hosts and CMDB records of {name}</caption>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  {columns.map((c) => (
                    <th key={c.r.id} scope="col">
                      {c.kind === 'host' ? <Link href={`/inventory/hosts/${c.r.id}`}>Scanner host ({c.r.source})</Link> : <>CMDB record ({c.r.source})</>}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {ROWS.map(([label, hk, ck]) => (
                  <tr key={label}>
                    <th scope="row">{label}</th>
                    {columns.map((c) => (
                      <td key={c.r.id}>{cell((c.kind === 'host' ? hk : ck) ? c.r[c.kind === 'host' ? hk : ck] : null)}</td>
                    ))}
                  </tr>
                ))}
                <tr>
                  <th scope="row">Override</th>
                  {columns.map((c) => (
                    <td key={c.r.id}>
                      {c.kind === 'cmdb' && hosts.length > 0 ? (
                        <button type="button" onClick={() => void override('unlink', hosts[0]!.id, c.r.id)}>
                          Unlink
                        </button>
                      ) : null}
                    </td>
                  ))}
                </tr>
              </tbody>
            </table>
          </div>
        </section>
        <section className="card" aria-labelledby="asset-sev">
          <h2 id="asset-sev">Open vulnerabilities</h2>
          <SeverityChart counts={(asset.openFindings as Record<string, number> | null) ?? {}} title={`Open vulnerabilities on ${name} by severity`} />
        </section>
      </div>
      <section className="card" aria-labelledby="asset-why">
        <h2 id="asset-why">Why these records are one machine</h2>
        <Why details={(asset.matchDetails as Record<string, unknown>) ?? {}} />
      </section>
      <section className="card" aria-labelledby="asset-link">
        <h2 id="asset-link">Link a CMDB record by hand</h2>
        <form onSubmit={submit} className="inline-form">
          {hosts.length > 1 && (
            <label>
              Host{' '}
              <select value={hostId} onChange={(e) => setHostId(e.target.value)}>
                {hosts.map((h) => (
                  <option key={h.id} value={h.id}>
                    {String(h.hostname ?? h.id)}
                  </option>
                ))}
              </select>
            </label>
          )}
          <label>
            CMDB record id <input value={cmdbId} onChange={(e) => setCmdbId(e.target.value)} required disabled={hosts.length === 0} />
          </label>
          <button type="submit" disabled={hosts.length === 0}>
            Link
          </button>
          {hosts.length === 0 && <p className="help">This asset has no scanner host; link from the host’s asset instead.</p>}
        </form>
      </section>
    </div>
  );
}
