// One finding: what it is (synopsis, description, solution), what the scanner saw (proof), its CVEs with
// CVSS, EPSS and CISA KEV, its history from the change feed, the tickets linked to it, and the host,
// asset and owner it belongs to, and its risk exceptions beside the scanner's own accepted risk.
import { call, routeUrl } from '../api.ts';
import { FindingExceptions } from '../components/finding-exceptions.tsx';
import { Link } from '../router.tsx';
import { Alert, Badge, cell, DataTable, dateOnly, dateTime, expiryDay, PageHeader, SeverityBadge, Spinner, useLoad, usePageTitle, hostLabel } from '../ui.tsx';

const CHANGE_TEXT: Record<string, string> = {
  new: 'First imported',
  fixed: 'Fixed',
  reopened: 'Reopened',
  removed: 'Removed',
  updated: 'Status changed',
};
const day = (iso: unknown) => (typeof iso === 'string' && iso ? dateOnly(iso) : null);
const pct = (v: unknown) => (typeof v === 'number' ? `${(v * 100).toFixed(v < 0.1 ? 2 : 1)} %` : null);

/** The finding's EPSS: score and percentile of one origin, named, and the scanner's own score where the feed's is shown. */
function epssText(f: Record<string, unknown>): string | null {
  if (typeof f.epssScore !== 'number') return null;
  const percentile = typeof f.epssPercentile === 'number' && f.epssSource === 'feed' ? ` (percentile ${pct(f.epssPercentile)})` : '';
  if (f.epssSource !== 'feed') return `${pct(f.epssScore)}, from the scanner`;
  const scanner = typeof f.scannerEpssScore === 'number' ? `; the scanner says ${pct(f.scannerEpssScore)}` : '';
  return `${pct(f.epssScore)}${percentile}, from the EPSS feed${scanner}`;
}

/** Who says the finding is known exploited: the scanner, the CISA KEV catalog, or both. */
function knownExploitedText(f: Record<string, unknown>): string {
  const since = typeof f.kevDateAdded === 'string' ? `, listed since ${day(f.kevDateAdded)}` : '';
  if (f.knownExploitedBy === 'both') return `Yes: the scanner and the CISA KEV catalog${since}`;
  if (f.knownExploitedBy === 'feed') return `Yes: the CISA KEV catalog${since}`;
  return 'Yes: the scanner';
}

/** How the scanner's plugin checked (its check type), in words. */
const CHECK_TYPES: Record<string, string> = { local: 'local (with credentials, on the host)', remote: 'remote (over the network)', combined: 'combined' };

/** A label and value row of a definition list; nothing when the value is absent and `optional`. */
function Prop({ label, value, optional }: { label: string; value: React.ReactNode; optional?: boolean }) {
  if (optional && (value === null || value === undefined || value === '')) return null;
  return (
    <div className="prop">
      <dt>{label}</dt>
      <dd>{value === null || value === undefined || value === '' ? <span className="muted">—</span> : value}</dd>
    </div>
  );
}

export function FindingPage({ id }: { id: string }) {
  const finding = useLoad((s) => call('GET /api/v1/:model/:id', { params: { model: 'vulnerabilities', id } }, s), `finding:${id}`);
  const f = finding.data;
  const hostId = f?.hostId || null;
  const assetId = f?.assetId || null;
  const cves = f?.cves ?? [];
  const pluginQuery = { pluginId: f?.pluginId ?? '', source: f?.source ? [f.source] : undefined, limit: 1 };
  const pluginUrl = f ? routeUrl('GET /api/v1/:model', { params: { model: 'plugins' }, query: pluginQuery }) : '';
  const plugin = useLoad(
    (s) =>
      f?.pluginId ? call('GET /api/v1/:model', { params: { model: 'plugins' }, query: pluginQuery }, s).then((r) => r.items[0] ?? null) : Promise.resolve(null),
    pluginUrl,
  );
  const host = useLoad(
    (s) => (hostId ? call('GET /api/v1/:model/:id', { params: { model: 'hosts', id: hostId } }, s) : Promise.resolve(null)),
    `host/${hostId ?? '-'}`,
  );
  const asset = useLoad(
    (s) => (assetId ? call('GET /api/v1/:model/:id', { params: { model: 'assets', id: assetId } }, s) : Promise.resolve(null)),
    `asset:${assetId ?? '-'}`,
  );
  const history = useLoad((s) => call('GET /api/v1/changes', { query: { model: ['vulnerabilities'], recordId: id, limit: 1000 } }, s), `history:${id}`);
  const tickets = useLoad(async (s) => {
    const named = await call('GET /api/v1/:model', { params: { model: 'tickets' }, query: { findingIds: id, limit: 100 } }, s);
    const onAsset = assetId ? await call('GET /api/v1/:model', { params: { model: 'tickets' }, query: { assetIds: assetId, limit: 100 } }, s) : { items: [] };
    const seen = new Set(named.items.map((t) => t.id));
    return [
      ...named.items.map((t) => ({ t, why: 'names this finding' })),
      ...onAsset.items.filter((t) => !seen.has(t.id)).map((t) => ({ t, why: 'about its asset' })),
    ];
  }, `tickets:${id}:${assetId}`);
  const feeds = useLoad(
    (s) => (cves.length ? call('GET /api/v1/feeds/cves', { query: { cve: cves.slice(0, 500) } }, s) : Promise.resolve({ items: [] })),
    `cve-facts:${cves.join(',')}`,
  );
  const title = f ? (f.pluginName ?? `Plugin ${f.pluginId}`) : '';
  usePageTitle(`${title || 'Finding'} · Vulnerabilities`);

  if (finding.error)
    return (
      <Alert tone="error" title="Could not load the finding">
        {finding.error}
      </Alert>
    );
  if (!f) return <Spinner />;
  const p = plugin.data;
  const h = host.data;
  const a = asset.data;
  const hostName = h ? hostLabel(h) : hostId;
  const facts = new Map((feeds.data?.items ?? []).map((c) => [c.cve, c]));
  const events = history.data?.items ?? [];
  const seeAlso = p?.seeAlso ?? [];
  return (
    <div>
      <PageHeader
        crumbs={
          <>
            <span>Inventory</span> › <Link href="/inventory/vulnerabilities">Vulnerabilities</Link> › <span>{title}</span>
          </>
        }
        title={title}
        subtitle={
          <>
            <SeverityBadge severity={f.severity} /> · {String(f.status ?? 'unknown status')}
            {f.knownExploited ? (
              <>
                {' '}
                · <span className="kev">Known exploited</span>
              </>
            ) : null}{' '}
            {f.excepted ? (
              <>
                {' '}
                · <span className="excepted">Risk excepted until {expiryDay(f.exceptionExpiresAt)}</span>
              </>
            ) : null}{' '}
            · plugin {String(f.pluginId ?? '—')}
            {f.pluginFamily ? ` (${String(f.pluginFamily)})` : ''} · on {hostName ?? 'an unknown host'}
            {f.port !== null && f.port !== undefined ? ` port ${String(f.port)}/${String(f.protocol ?? '')}` : ''}
          </>
        }
      />
      {typeof f.priorityReason === 'string' && (
        <section className={`card priority-reason decision-${String(f.decision).replace('*', '-star')}`} aria-labelledby="finding-priority">
          <h2 id="finding-priority">What to do</h2>
          <p>
            <strong>{f.priorityReason}</strong>
          </p>
          <p className="muted small">
            CISA's SSVC decision from exploitation, automatability, technical impact and the asset's criticality; the priority (0–100) orders findings within a
            decision.{' '}
            <Link href={`/inventory/vulnerabilities?decision=${encodeURIComponent(String(f.decision))}&sort=-priority`}>Findings with this decision</Link>
          </p>
        </section>
      )}
      <div className="host-top">
        <section className="card" aria-labelledby="finding-what">
          <h2 id="finding-what">Synopsis</h2>
          {f.synopsis || p?.synopsis ? <p>{String(f.synopsis ?? p?.synopsis)}</p> : <p className="muted">The scanner gave no synopsis.</p>}
          {p?.description ? (
            <details>
              <summary>Description</summary>
              <p className="prewrap">{String(p.description)}</p>
            </details>
          ) : null}
          <h2 id="finding-solution">Solution</h2>
          {f.solution || p?.solution ? <p className="prewrap">{String(f.solution ?? p?.solution)}</p> : <p className="muted">No solution given.</p>}
          {seeAlso.length > 0 && (
            <>
              <h3>See also</h3>
              <ul className="links">
                {seeAlso.slice(0, 10).map((u) => (
                  <li key={u}>
                    {/^https?:\/\//.test(u) ? (
                      <a href={u} rel="noreferrer noopener" target="_blank">
                        {u}
                      </a>
                    ) : (
                      u
                    )}
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>
        <section className="card" aria-labelledby="finding-asset">
          <h2 id="finding-asset">Asset and owner</h2>
          <dl className="props">
            <Prop label="Host" value={hostId ? <Link href={`/inventory/hosts/${hostId}`}>{hostName}</Link> : null} />
            <Prop label="IP addresses" value={h ? cell(h.ipAddresses) : null} />
            <Prop label="Operating system" value={h ? cell(h.os) : null} />
            <Prop label="Asset" value={assetId ? <Link href={`/inventory/assets/${assetId}`}>{String(a?.name ?? assetId)}</Link> : null} />
            <Prop label="Owner" value={cell(f.owner ?? a?.owner)} />
            <Prop label="Department" value={cell(f.department ?? a?.department)} />
            <Prop label="Site" value={a ? cell(a.site) : null} optional />
            <Prop label="Source" value={String(f.source)} />
          </dl>
          <h2 id="finding-dates">Dates</h2>
          <dl className="props">
            <Prop label="First seen" value={dateTime(f.firstSeen)} />
            <Prop label="Last seen" value={dateTime(f.lastSeen)} />
            <Prop label="Fixed" value={f.fixedAt ? dateTime(f.fixedAt) : null} optional />
            <Prop label="Mitigated (scanner)" value={f.mitigatedAt ? dateTime(f.mitigatedAt) : null} optional />
            <Prop label="Reopened" value={f.reopenedAt ? dateTime(f.reopenedAt) : null} optional />
            <Prop
              label="Due (SLA)"
              value={f.dueAt ? <span className={f.overdue ? 'bad-text' : undefined}>{`${dateTime(f.dueAt)}${f.overdue ? ' (overdue)' : ''}`}</span> : null}
            />
          </dl>
        </section>
      </div>
      <FindingExceptions finding={f} />
      <section className="card" aria-labelledby="finding-scores">
        <h2 id="finding-scores">Scores and CVEs</h2>
        <dl className="props props-inline">
          <Prop label="CVSS v3" value={cell(f.cvssV3BaseScore)} />
          <Prop label="CVSS v3 vector" value={p?.cvssV3Vector ? <code>{String(p.cvssV3Vector)}</code> : null} optional />
          <Prop label="CVSS v2" value={cell(f.cvssV2BaseScore)} />
          <Prop label="CVSS v4" value={p?.cvssV4BaseScore !== undefined && p?.cvssV4BaseScore !== null ? cell(p.cvssV4BaseScore) : null} optional />
          <Prop label="VPR" value={cell(f.vprScore)} />
          <Prop label="EPSS" value={epssText(f)} />
          <Prop label="Known exploited" value={f.knownExploited ? <span className="kev">{knownExploitedText(f)}</span> : 'No'} />
          <Prop label="Exploit available" value={cell(f.exploitAvailable)} />
          <Prop label="Check type" value={p?.checkType ? (CHECK_TYPES[String(p.checkType)] ?? String(p.checkType)) : null} optional />
        </dl>
        {cves.length === 0 ? (
          <p className="muted">No CVE is named for this finding.</p>
        ) : (
          <DataTable
            caption="CVEs of this finding"
            rows={cves}
            rowKey={(c) => c}
            columns={[
              {
                key: 'cve',
                label: 'CVE',
                rowHeader: true,
                render: (c) => (
                  <a href={`https://nvd.nist.gov/vuln/detail/${encodeURIComponent(c)}`} rel="noreferrer noopener" target="_blank" className="cve">
                    {c}
                  </a>
                ),
              },
              { key: 'cvss', label: 'CVSS v3 (plugin)', render: () => cell(f.cvssV3BaseScore) },
              {
                key: 'epss',
                label: 'EPSS',
                render: (c) => {
                  const x = facts.get(c.toUpperCase());
                  return x?.epss ? (
                    `${pct(x.epss.score)}${x.epss.percentile !== null ? ` (percentile ${pct(x.epss.percentile)})` : ''}`
                  ) : (
                    <span className="muted">—</span>
                  );
                },
              },
              {
                key: 'kev',
                label: 'CISA KEV',
                render: (c) => {
                  const x = facts.get(c.toUpperCase());
                  return x?.kev ? (
                    <span className="kev">
                      Listed {day(x.kev.dateAdded)}
                      {x.kev.dueDate ? `, due ${day(x.kev.dueDate)}` : ''}
                      {x.kev.ransomware === 'Known' ? ', used by ransomware' : ''}
                    </span>
                  ) : (
                    'Not listed'
                  );
                },
              },
            ]}
          />
        )}
        {feeds.data?.items.every((x) => !x.kev && !x.epss) && cves.length > 0 && (
          <p className="help">No imported feed lists these CVEs (import the CISA KEV catalog and the EPSS scores with `tributary feeds import`).</p>
        )}
      </section>
      <section className="card" aria-labelledby="finding-proof">
        <h2 id="finding-proof">Proof (plugin output)</h2>
        {f.proof ? (
          <pre className="proof proof-full">
            {String(f.proof)}
            {f.proofTruncated ? '\n… (truncated)' : ''}
          </pre>
        ) : (
          <p className="muted">The scanner reported no plugin output.</p>
        )}
      </section>
      <div className="finding-bottom">
        <section className="card" aria-labelledby="finding-history">
          <h2 id="finding-history">History</h2>
          {history.error ? (
            <Alert tone="error">{history.error}</Alert>
          ) : !history.data ? (
            <Spinner />
          ) : (
            <ol className="timeline" aria-label="History of this finding">
              {f.firstSeen ? (
                <li>
                  <time dateTime={f.firstSeen}>{dateTime(f.firstSeen)}</time> <strong>First seen by the scanner</strong>
                </li>
              ) : null}
              {events.map((e) => (
                <li key={e.id} className={`timeline-${e.change}`}>
                  <time dateTime={e.at}>{dateTime(e.at)}</time> <strong>{CHANGE_TEXT[e.change] ?? e.change}</strong>
                  {e.from || e.to ? (
                    <span className="muted">
                      {' '}
                      ({e.from ?? 'new'} → {e.to ?? '—'})
                    </span>
                  ) : null}{' '}
                  · <Link href={`/runs/${e.runId}`}>run</Link>
                </li>
              ))}
              {events.length === 0 && <li className="muted">No change recorded since it was imported.</li>}
            </ol>
          )}
        </section>
        <section className="card" aria-labelledby="finding-tickets">
          <h2 id="finding-tickets">Linked tickets</h2>
          {tickets.error ? (
            <Alert tone="error">{tickets.error}</Alert>
          ) : !tickets.data ? (
            <Spinner />
          ) : tickets.data.length === 0 ? (
            <p className="muted">No ticket names this finding or its asset.</p>
          ) : (
            <DataTable
              caption="Tickets linked to this finding"
              rows={tickets.data}
              rowKey={({ t }) => String(t.id)}
              columns={[
                {
                  key: 'ticket',
                  label: 'Ticket',
                  rowHeader: true,
                  render: ({ t }) => <Link href={`/inventory/tickets/${t.id}`}>{String(t.displayId ?? t.externalId ?? t.id)}</Link>,
                },
                { key: 'subject', label: 'Subject', render: ({ t }) => cell(t.subject) },
                { key: 'status', label: 'Status', render: ({ t }) => <Badge tone="neutral">{String(t.status ?? '—')}</Badge> },
                { key: 'assignee', label: 'Assignee', render: ({ t }) => cell(t.assignee) },
                { key: 'why', label: 'Linked because', render: ({ why }) => why },
              ]}
            />
          )}
        </section>
      </div>
    </div>
  );
}
